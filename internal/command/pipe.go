package command

import (
	"errors"
	"io/fs"
	"os"
	"os/signal"
	"syscall"
)

// CatchBrokenStdout makes a write to a stdout whose reader has gone (`| head -1`) fail with EPIPE,
// as a write to any other file does, until the function it returns is called. By default Go ends
// the process with SIGPIPE at that write, before any deferred function runs, so a run that created
// an output file at its start, to fail early, could not remove it again (qa-score's --summary
// would be left empty, for make to take as up to date). Main and MainCalls end a run whose error
// is that EPIPE with SIGPIPE after all, once it has returned (see dieOfBrokenStdout).
func CatchBrokenStdout() (release func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	return func() { signal.Stop(ch) }
}

// dieOfBrokenStdout ends the process with SIGPIPE, as a shell expects of a command whose output's
// reader went away, when err is a write to stdout that failed for that reason (a run under
// CatchBrokenStdout); otherwise it returns.
//
// Note: Go ends the process with SIGPIPE at a failed write to fd 1 when SIGPIPE is not caught,
// and it ignores a SIGPIPE sent by kill, so once the catch is released one more write to the
// broken stdout is what does it. That write cannot reach anyone: the pipe has no reader.
func dieOfBrokenStdout(err error) {
	var pe *fs.PathError
	if !errors.Is(err, syscall.EPIPE) || !errors.As(err, &pe) || pe.Path != os.Stdout.Name() {
		return
	}
	os.Stdout.Write([]byte{'\n'}) //nolint:errcheck // the write that ends the process
}
