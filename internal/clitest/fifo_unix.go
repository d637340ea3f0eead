//go:build unix

package clitest

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"
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
