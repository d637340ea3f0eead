//go:build unix

package score

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// TestFailedRunKeepsSpecialSummary: a failed run removes the summary file it truncated, so that
// make does not take an empty one for up to date, but only a regular file: a named pipe (as
// /dev/stdout, /dev/full or a device would be) given as --summary stays where it is. A regular
// file is still removed.
func TestFailedRunKeepsSpecialSummary(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "summary.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// The reader a pipe needs before a writer can open it; opened without blocking, so that the
	// test cannot hang whatever the run does.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(io.Discard, r)
	}()
	regular := filepath.Join(dir, "summary.json")
	bad := `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\nnot json\n"
	for _, path := range []string{fifo, regular} {
		var stdout, stderr strings.Builder
		err := Run(context.Background(), []string{"qa-score", "--strict", "--metrics", "em", "--summary", path},
			strings.NewReader(bad), &stdout, &stderr)
		if code := command.ExitCode(err); code != command.ExitFailure {
			t.Errorf("--summary %s: exit %d (%v), want 1 (--strict, a bad line)", path, code, err)
		}
		_, serr := os.Lstat(path)
		if path == fifo && serr != nil {
			t.Errorf("--summary %s: after the failed run: %v, want the named pipe kept", path, serr)
		}
		if path == regular && !os.IsNotExist(serr) {
			t.Errorf("--summary %s: after the failed run: %v, want the file removed", path, serr)
		}
	}
	r.Close()
	<-done
}

// TestBrokenStdoutRemovesSummary: when the reader of the records goes away (qa-score --summary
// s.json | head -1), the run removes the summary file it created, as a failed run does, and then
// ends with SIGPIPE as it did before: Go's default would end it at the failed write, leaving the
// file empty for make to take as up to date.
func TestBrokenStdoutRemovesSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	summary := filepath.Join(t.TempDir(), "summary.json")
	cmd := clitest.MainCommand("TestMainChild", []string{"--metrics", "em", "--summary", summary})
	var in strings.Builder
	for range 2000 {
		in.WriteString(`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\n")
	}
	cmd.Stdin = strings.NewReader(in.String())
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before the first write
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute): // a bound on a hang, not a timing assertion
		cmd.Process.Kill()
		t.Fatalf("qa-score did not exit; stderr:\n%s", <-done)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("exit: %v, want SIGPIPE; stderr:\n%s", err, stderr.String())
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGPIPE {
		t.Errorf("exit: %v, want SIGPIPE; stderr:\n%s", err, stderr.String())
	}
	if _, serr := os.Lstat(summary); !os.IsNotExist(serr) {
		t.Errorf("--summary %s after stdout's reader went away: %v, want the file removed", summary, serr)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %q, want nothing (a command whose reader goes away ends quietly)", stderr.String())
	}
}
