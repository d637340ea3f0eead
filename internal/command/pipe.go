package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
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

// stdoutPipe is stdout of a run under MainCalls: a duplicate of descriptor 1, so that a write
// after its reader has gone fails with EPIPE instead of ending the process (Go ends it so only at
// a write to descriptor 1 or 2 itself). That write closes broken and never returns: had it failed,
// the run would cut its calls in flight, as at any failed write, and lose their paid replies.
// MainCalls ends the process once those are stored (endOfOutput).
type stdoutPipe struct {
	f      *os.File
	once   sync.Once
	broken chan struct{}
	// failed, when set, is called at the first write that fails for another reason (a full
	// disk), before that write returns its error: MainCalls lets the calls in flight store
	// their replies (storeInFlight).
	failed     func(error)
	failedOnce sync.Once
}

func (w *stdoutPipe) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		w.once.Do(func() { close(w.broken) })
		select {} // until the process ends
	}
	if err != nil && w.failed != nil {
		w.failedOnce.Do(func() { w.failed(err) })
	}
	return n, err
}

// storeInFlight is what a run under MainCalls does at a write to stdout that fails for another
// reason than a reader gone (a full disk), before the write returns its error, which fails the run
// (exit 1): the run is asked to finish, so that it makes no new call, and the replies of the calls
// in flight that a --cache stores are waited for, for at most finishGrace, saying so in one line,
// as when stdout's reader goes away. A second signal abandons them (the first is taken to
// finish, as always). Without a cache there is nothing to wait for. MainCalls then abandons the
// calls still in flight, whose records could be written nowhere, and fails the run with the
// write's error.
//
// Note: the failed write cut the calls in flight, as at any error of the run, and lost their
// replies, paid for, without a word; and a write flushed when the run was idle failed only at
// the next record's write, the run making new calls until then (and, once it made none, waiting
// for the calls in flight however long they took, a cache or not).
func storeInFlight(ctx context.Context, prog string, stderr io.Writer, err error, finish func() int) {
	n := finish()
	stored := interrupt.Stored(ctx)
	select {
	case <-stored:
		return
	default:
	}
	fmt.Fprintf(stderr, "%s: %v: storing the replies of %s in flight (--cache) before stopping, for at most %v; interrupt twice to abandon %s\n",
		prog, err, english.Count(n, "call", "calls"), finishGrace, english.Form(n, "it", "them"))
	select {
	case <-stored:
	case <-ctx.Done():
	case <-time.After(finishGrace):
		fmt.Fprintf(stderr, "%s: calls still in flight after %v: abandoning them\n", prog, finishGrace)
	}
}

// watchStdout returns the stdout a run under MainCalls writes to, and the channel closed when its
// reader has gone. Where descriptor 1 cannot be duplicated (closed, or open for reading only) it
// is os.Stdout itself, whose failed writes end the process at once, and the channel never closes.
func watchStdout() (io.Writer, <-chan struct{}) {
	broken := make(chan struct{})
	f, err := dupStdout()
	if err != nil {
		return os.Stdout, broken
	}
	return &stdoutPipe{f: f, broken: broken}, broken
}

// endOfOutput ends the process of a run under MainCalls whose stdout's reader went away, by
// SIGPIPE (the shell's status 141), as it ends cat: the run is asked to finish (no new call is
// made), and the replies of the calls in flight that a --cache stores (interrupt.Storing) are
// waited for, for at most finishGrace, so that a rerun does not pay for them again. Without a
// cache no reply could be used, and the process ends at once. Only that wait is said on stderr,
// in one line; a signal, or finishGrace passing, abandons it.
//
// Note: the run is not let finish as at a signal: every record it would go on to read, and write
// nowhere, is work for nothing, and the stage before it would go on making calls to feed it.
func endOfOutput(ctx context.Context, prog string, stderr io.Writer, sigs <-chan os.Signal, finish func() int) {
	n := finish()
	stored := interrupt.Stored(ctx)
	select {
	case <-stored:
		dieOfSIGPIPE(prog, stderr)
	default:
	}
	if n > 0 {
		fmt.Fprintf(stderr, "%s: stdout's reader went away: storing the replies of %s in flight (--cache), for at most %v; interrupt to abandon %s\n",
			prog, english.Count(n, "call", "calls"), finishGrace, english.Form(n, "it", "them"))
	}
	select {
	case <-stored:
	case <-sigs:
		fmt.Fprintf(stderr, "%s: interrupted: abandoning the calls in flight\n", prog)
	case <-time.After(finishGrace):
		fmt.Fprintf(stderr, "%s: calls still in flight after %v: abandoning them\n", prog, finishGrace)
	}
	dieOfSIGPIPE(prog, stderr)
}

// dieOfSIGPIPE ends the process by SIGPIPE, its forced exit's cleanups run first (an output file
// not finished is removed), as Go ends a process at a failed write to descriptor 1. A process
// that started with SIGPIPE ignored cannot end so: it fails as a write to stdout failed, exit 1.
func dieOfSIGPIPE(prog string, stderr io.Writer) {
	clearBarLine(stderr)
	forcedCleanups()
	signal.Reset(syscall.SIGPIPE) // a run's own CatchBrokenStdout, if it was still under way
	_, err := os.Stdout.Write([]byte{'\n'})
	if err == nil { // the reader is gone, so the write cannot succeed; should it, it says nothing
		err = &fs.PathError{Op: "write", Path: os.Stdout.Name(), Err: syscall.EPIPE}
	}
	Report(stderr, prog, err)
	os.Exit(ExitFailure)
}

// clearBarLine returns a terminal's cursor to the start of its line and clears that line, where
// a progress bar was made (barMade), so that what follows (an error, the shell's prompt after a
// run ended by SIGPIPE) starts on a clean line rather than after a half-drawn bar. A run that
// finished its bar has ended its line already: the line cleared is then empty. A run that made
// no bar (--help, a usage error) writes nothing.
func clearBarLine(stderr io.Writer) {
	if barMade.Load() && barShown(stderr, os.Stdout) {
		io.WriteString(barWriter(stderr), "\r\x1b[K") //nolint:errcheck // a terminal's courtesy
	}
}
