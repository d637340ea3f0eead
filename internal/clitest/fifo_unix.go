//go:build unix

package clitest

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/command"
)

// ReadFIFO makes a named pipe at path and reads it, in the background, until its writer closes
// it; the function it returns gives what came, once the run that was to write it has returned.
// A system without named pipes skips the test.
func ReadFIFO(t *testing.T, path string) (got func() string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	c := make(chan string, 1)
	go func() {
		r, err := os.Open(path) // waits for the writer
		if err != nil {
			c <- err.Error()
			return
		}
		defer r.Close()
		b, _ := io.ReadAll(r)
		c <- string(b)
	}()
	return func() string {
		t.Helper()
		// A run that failed before opening the pipe left the reader waiting: a writer that
		// writes nothing releases it.
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		select {
		case s := <-c:
			return s
		case <-time.After(2 * time.Minute): // a bound on a hang, not a timing assertion
			t.Fatalf("reading the named pipe %s did not end", path)
			return ""
		}
	}
}

// FIFOChunksAsTheyCome is ChunksAsTheyCome for a named pipe that run reads as an input file, as
// bash's <(…) gives one: it makes the pipe at path, which args name, and writes the chunks to it
// one at a time, each once stdout holds records[i] lines. A system without named pipes skips
// the test.
func FIFOChunksAsTheyCome(t *testing.T, run command.RunFunc, args []string, path string, chunks []string, records []int) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return chunksThrough(t, run, args, nil, &fifoWriter{path: path}, chunks, records)
}

// fifoWriter writes to the named pipe at path, opened at the first write: the open waits for
// the run to open it for reading.
type fifoWriter struct {
	path string
	f    *os.File
}

func (w *fifoWriter) Write(p []byte) (int, error) {
	if w.f == nil {
		f, err := os.OpenFile(w.path, os.O_WRONLY, 0)
		if err != nil {
			return 0, err
		}
		w.f = f
	}
	return w.f.Write(p)
}

// Close closes the pipe, which ends its reader's input; a pipe never written is left alone.
func (w *fifoWriter) Close() error {
	if w.f == nil {
		return nil
	}
	return w.f.Close()
}
