//go:build unix

package command

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCountLinesLeavesPipes: a named input that is a pipe (bash's <(qa-load …) is one, named
// /dev/fd/63) can be read once, so the progress bar's counting pass must not read it: it
// consumed every line, and the run that followed read none of them and exited 0 with no
// records. Such an input counts as unknown (-1), as stdin does, and its lines stay for the run.
func TestCountLinesLeavesPipes(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "records.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	const lines = "{}\n{}\n"
	go func() { // the writer; its open waits for a reader
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		io.WriteString(w, lines) //nolint:errcheck // the reader below checks what came
		w.Close()
	}()
	if got := CountLines([]string{fifo}); got != -1 {
		// It read the pipe to its end: reading it again would wait for a writer forever.
		t.Fatalf("CountLines(named pipe) = %d, want -1 (unknown, the pipe left unread)", got)
	}
	r, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := io.ReadAll(r); err != nil || string(got) != lines {
		t.Errorf("the pipe after CountLines holds %q (%v), want %q", got, err, lines)
	}
}
