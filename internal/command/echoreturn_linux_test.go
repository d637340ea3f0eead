package command

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMainReturnHelper is the process TestMainEchoAfterReturn signals: a command whose run
// returns once cancelled, leaving stderr's pipe all but full, so that the report of its
// interruption waits there until the test reads the pipe. It does nothing unless
// QA_TEST_MAIN_RETURN (the pipe's size) is set.
func TestMainReturnHelper(t *testing.T) {
	size, err := strconv.Atoi(os.Getenv("QA_TEST_MAIN_RETURN"))
	if err != nil {
		t.Skip("run by TestMainEchoAfterReturn")
	}
	Main("qa-ret", func(ctx context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
		io.WriteString(stdout, "ready\n")
		<-ctx.Done()
		os.Stderr.Write(bytes.Repeat([]byte{'.'}, size-1)) // the report's line cannot follow yet
		io.WriteString(stdout, "cancelled\n")
		return ctx.Err()
	})
}

// TestMainEchoAfterReturn: a SIGTERM within a second of another counts once, also when it comes
// after the run has returned, while the command reports and exits (here held up by a stalled
// stderr; make passes its SIGTERM on when it gets to it). Main stopped taking the signals once the
// run returned, so that echo killed the process (exit status of SIGTERM, no report), where Main
// with signal.NotifyContext still caught it: the channel it took the second signal on stayed.
func TestMainEchoAfterReturn(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	size, err := unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, 4096)
	if err != nil {
		t.Skipf("F_SETPIPE_SZ: %v", err)
	}
	cmd, stdout := startHelperTo(t, w, "TestMainReturnHelper", "QA_TEST_MAIN_RETURN="+strconv.Itoa(size))
	w.Close()
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	expect := expecter(t, lines)
	expect("ready")
	cmd.Process.Signal(syscall.SIGTERM)
	expect("cancelled")
	time.Sleep(200 * time.Millisecond)  // the run has returned: Main reports it, on the full pipe
	cmd.Process.Signal(syscall.SIGTERM) // 0.2 s after the first: its echo
	stderr, _ := io.ReadAll(r)
	for lines.Scan() {
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
		t.Errorf("exit: %v, want %d", err, ExitInterrupted)
	}
	if got := strings.TrimLeft(string(stderr), "."); got != "qa-ret: interrupted\n" {
		t.Errorf("stderr after the filler: %q, want the report", got)
	}
}
