package invariants

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/command"
)

// TestStdoutIsInputEveryStage: every command refuses, before it writes anything, an input that
// is the file its stdout appends to, named as a file or redirected to stdin (`qa-score
// x.jsonl >> x.jsonl`, `qa-score < x.jsonl >> x.jsonl`): a usage error naming the file, and the
// file as it was. qa-score, qa-judge, qa-predict and qa-load read back the records they wrote
// until the disk was full; qa-judge agree and qa-learncurve appended their report to the records.
func TestStdoutIsInputEveryStage(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.jsonl")
	for _, st := range everyStage {
		for _, how := range []string{"file", "stdin"} {
			t.Run(st.prog+" "+how, func(t *testing.T) {
				recs := stageRecords(st.prog, 3)
				if err := os.WriteFile(file, []byte(recs), 0o644); err != nil {
					t.Fatal(err)
				}
				stdin, stdout := openFile(t, file, os.O_RDONLY), openFile(t, file, os.O_WRONLY|os.O_APPEND)
				args := st.line()
				if st.prog == "qa-learncurve" {
					args = st.line("--problems", "3")
				}
				name := file
				if how == "file" {
					args = append(args, file)
				} else if path, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", stdin.Fd())); err == nil {
					name = path // as the system names stdin's file
				}
				var stderr strings.Builder
				err := runBounded(t, st.run, args, stdin, stdout, &stderr, file, int64(len(recs)))
				want := "stdout: " + name + " is also an input file: "
				if how == "stdin" {
					want = "stdout: " + name + " is also the input, on stdin: "
				}
				if code := command.ExitCode(err); code != command.ExitUsage || err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("%s: exit %d, %v; want exit %d, %q…", strings.Join(args, " "), code, err, command.ExitUsage, want)
				}
				if b, err := os.ReadFile(file); err != nil || string(b) != recs {
					t.Errorf("%s: the file holds %d bytes (%v), want the %d it held", strings.Join(args, " "), len(b), err, len(recs))
				}
				if stderr.Len() > 0 {
					t.Errorf("%s: stderr %q, want nothing before the error", strings.Join(args, " "), stderr.String())
				}
			})
		}
	}
}

// openFile opens path with flag for the test's length.
func openFile(t *testing.T, path string, flag int) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// runBounded runs run, cancelling its context as soon as the file it appends to grows past size,
// so that a command that reads back what it writes stops within a few records instead of filling
// the disk.
func runBounded(t *testing.T, run func(context.Context, []string, io.Reader, io.Writer, io.Writer) error,
	args []string, stdin io.Reader, stdout, stderr io.Writer, file string, size int64) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if st, err := os.Stat(file); err == nil && st.Size() > size {
					cancel()
					return
				}
			}
		}
	}()
	return run(ctx, args, stdin, stdout, stderr)
}
