//go:build unix

package score

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// TestStalledStdoutSignals: qa-score, whose reader of stdout has stalled, interrupted with no
// call in flight: stderr says, at each signal, what the run then does, and it does it. The first
// signal leaves it writing (and so stalled); the second says it writes only the records done,
// for at most 10s, and the run ends by then without a third signal, or at once at a third. The
// messages said "interrupt again to stop at once" and "stopping at once", where the second
// signal left the run to wait out the 10s.
func TestStalledStdoutSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process, and waits 10s")
	}
	clitest.SkipIgnored(t, syscall.SIGINT)
	const (
		first  = "qa-score: interrupted: no calls in flight; writing the records left (interrupt again to stop within 10s)"
		second = "qa-score: interrupted again: writing only the records done, for at most 10s (interrupt again to stop at once)"
		third  = "qa-score: interrupted again: stopping at once; what was not written is left out"
		later  = "qa-score: interrupted, and still running 10s later: stopping; what was not written is left out"
	)
	var in strings.Builder
	for range 20000 { // far more than a pipe holds
		in.WriteString(`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\n")
	}
	for _, signals := range []int{3, 2} {
		cmd := clitest.MainCommand("TestMainChild", []string{"--metrics", "em"})
		cmd.Stdin = strings.NewReader(in.String())
		stdoutR, stdoutW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer stdoutR.Close() // read once, then no more: the reader has stalled
		cmd.Stdout = stdoutW
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stdoutW.Close()
		lines := make(chan string)
		go func() {
			defer close(lines)
			for sc := bufio.NewScanner(stderr); sc.Scan(); {
				lines <- sc.Text()
			}
		}()
		expect := func(want string) time.Time {
			t.Helper()
			select {
			case got := <-lines:
				if got != want {
					cmd.Process.Kill()
					t.Fatalf("%d signals: stderr line %q, want %q", signals, got, want)
				}
			case <-time.After(time.Minute): // a bound on a hang, not a timing assertion
				cmd.Process.Kill()
				t.Fatalf("%d signals: no stderr line %q", signals, want)
			}
			return time.Now()
		}
		if _, err := stdoutR.Read(make([]byte, 1)); err != nil { // the run is writing: its signals are caught
			t.Fatal(err)
		}
		// A signal again once the run has taken the last one in, later than its echo would come.
		again := func() {
			time.Sleep(command.SignalEcho(syscall.SIGINT) + 100*time.Millisecond)
			cmd.Process.Signal(syscall.SIGINT)
		}
		cmd.Process.Signal(syscall.SIGINT)
		expect(first)
		again()
		asked := expect(second)
		if signals == 3 {
			again()
		}
		last := later
		if signals == 3 {
			last = third
		}
		expect(last)
		if took := time.Since(asked); signals == 2 && took > 40*time.Second {
			t.Errorf("2 signals: the run ended %v after the second, which said at most 10s", took)
		}
		for line := range lines {
			t.Errorf("%d signals: stderr line %q after %q", signals, line, last)
		}
		var ee *exec.ExitError
		if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != command.ExitInterrupted {
			t.Errorf("%d signals: exit %v, want %d", signals, err, command.ExitInterrupted)
		}
	}
}
