package command

import (
	"io"
	"os"

	"golang.org/x/term"
)

// stdinUntil returns what a run reads as its stdin: os.Stdin, or, when it is a terminal, a
// typedInput of it that ends once stop is closed (at the first signal).
func stdinUntil(stop <-chan struct{}) io.Reader {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return os.Stdin
	}
	return &typedInput{f: os.Stdin, stop: stop}
}

// typedInput is a terminal read as stdin: records typed (or pasted) by a person, who ends them
// with Ctrl-D, or with Ctrl-C as cat's input ends. Once stop is closed it reads as ended (io.EOF),
// the read under way left behind: a read of a terminal waits for the next line, and no stage
// before the run is left to finish its input (see FilesOnly), so an interrupted run would
// otherwise sit on it until a second signal or the grace period ended the process.
type typedInput struct {
	f    *os.File
	stop <-chan struct{}
}

// read is what one read of the terminal gave.
type read struct {
	b   []byte
	err error
}

func (t *typedInput) Read(p []byte) (int, error) {
	select {
	case <-t.stop:
		return 0, io.EOF
	default:
	}
	if len(p) == 0 {
		return 0, nil
	}
	got := make(chan read, 1)
	go func() {
		b := make([]byte, len(p)) // not p, which the read left behind would write into later
		n, err := t.f.Read(b)
		got <- read{b[:n], err}
	}()
	select {
	case r := <-got:
		return copy(p, r.b), r.err
	case <-t.stop:
		return 0, io.EOF
	}
}

// Stat is the terminal's, for NotAnInput.
func (t *typedInput) Stat() (os.FileInfo, error) { return t.f.Stat() }
