//go:build unix

package score

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
