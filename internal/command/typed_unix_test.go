//go:build unix

package command

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/qapipe/qapipe/internal/interrupt"
)

// TestTypedStdinHelper is the process TestTypedStdin interrupts: a command that reads its stdin,
// a terminal, to its end, and then writes the lines it read. Under MainCalls (QA_TEST_TYPED_STDIN
// "calls") it makes no call, but has not declared so (as qa-predict with a model). It does
// nothing unless QA_TEST_TYPED_STDIN is set.
func TestTypedStdinHelper(t *testing.T) {
	how := os.Getenv("QA_TEST_TYPED_STDIN")
	if how == "" {
		t.Skip("run by TestTypedStdin")
	}
	run := func(ctx context.Context, _ []string, stdin io.Reader, stdout, _ io.Writer) error {
		io.WriteString(stdout, "ready\n")
		lines := bufio.NewScanner(stdin)
		for lines.Scan() {
			io.WriteString(stdout, "read "+lines.Text()+"\n")
		}
		io.WriteString(stdout, "end of input\n")
		return interrupt.Err(ctx)
	}
	if how == "calls" {
		MainCalls("qa-typed", run)
	}
	Main("qa-typed", run)
}

// TestTypedStdin: a command reading records typed at a terminal (stdin is one: no input file was
// named) is stopped by a Ctrl-C as cat is, its input ended there, with the lines typed before it
// written: no stage before it has anything left to pass on, and the person typing has stopped.
// The read of the terminal went on after the first signal, so that Main's command stopped only
// after 10 s, and MainCalls's (qa-score with no embedding metrics, qa-predict) after 2 minutes
// and 10 s, however many calls were in flight (none), or at a third Ctrl-C.
func TestTypedStdin(t *testing.T) {
	if signal.Ignored(syscall.SIGINT) {
		t.Skip("SIGINT is ignored by this process (run as a shell's background job, or under nohup?), so the helper ignores it too")
	}
	for _, how := range []string{"main", "calls"} {
		t.Run(how, func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skip("no pseudo-terminal here:", err)
			}
			defer ptmx.Close()
			go io.Copy(io.Discard, ptmx) //nolint:errcheck // the terminal's echo, until it closes
			cmd := exec.Command(os.Args[0], "-test.run=^TestTypedStdinHelper$")
			cmd.Env = append(os.Environ(), "QA_TEST_TYPED_STDIN="+how)
			cmd.Stdin = tty
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close()
			defer cmd.Process.Kill()
			lines := bufio.NewScanner(stdout)
			expect := expecter(t, lines)
			expect("ready")
			io.WriteString(ptmx, "one\n")
			expect("read one")
			start := time.Now()
			cmd.Process.Signal(syscall.SIGINT)
			waited := make(chan struct{})
			timer := time.AfterFunc(5*time.Second, func() {
				select {
				case <-waited:
				default:
					cmd.Process.Kill()
				}
			})
			defer timer.Stop()
			expect("end of input")
			for lines.Scan() {
			}
			err = cmd.Wait()
			close(waited)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
				t.Errorf("exit: %v after %v, want %d; stderr:\n%s", err, time.Since(start), ExitInterrupted, stderr.String())
			}
			if strings.Contains(stderr.String(), "still running") {
				t.Errorf("stderr:\n%s\nwant the run stopped by its input's end, not by the grace", stderr.String())
			}
		})
	}
}
