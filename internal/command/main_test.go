package command

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/interrupt"
)

// TestMainHelper is the process TestMainStuckRun interrupts: a command whose run never returns,
// as one blocked writing to a stalled pipe. It does nothing unless QA_TEST_MAIN_HELPER is set.
func TestMainHelper(t *testing.T) {
	grace := os.Getenv("QA_TEST_MAIN_HELPER")
	if grace == "" {
		t.Skip("run by TestMainStuckRun")
	}
	grace, echo := strings.CutSuffix(grace, " echo")
	interruptGrace, _ = time.ParseDuration(grace)
	if echo { // any signal again is an echo
		termEcho, intEcho = time.Hour, time.Hour
	}
	Main("qa-stuck", func(ctx context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
		io.WriteString(stdout, "ready\n")
		<-ctx.Done()
		io.WriteString(stdout, "cancelled\n")
		select {} // never returns, even once ctx is cancelled
	})
}

// TestMainStuckRun: an interrupted command whose run cannot return is ended with exit 130 by a
// second signal, or by the grace period after the first.
func TestMainStuckRun(t *testing.T) {
	for _, tt := range []struct {
		name    string
		first   os.Signal
		grace   string
		signals int  // 1, or 2: SIGINT again and again until it exits
		echo    bool // the first signal again once it is taken in, within its echo
		stderr  string
	}{
		// The run, stuck writing to a stalled reader or waiting on an input that has not ended,
		// may have written every record it completed: these said "completed output could not be
		// flushed".
		{"second signal", syscall.SIGINT, "1h", 2, false, "qa-stuck: interrupted again: stopping at once; what was not written is left out\n"},
		{"grace period", syscall.SIGINT, "200ms", 1, false, "qa-stuck: interrupted, and still running 200ms later: stopping; what was not written is left out\n"},
		{"hangup, grace period", syscall.SIGHUP, "200ms", 1, false, "qa-stuck: interrupted, and still running 200ms later: stopping; what was not written is left out\n"},
		// Two at once, as timeout -s INT sends them (to the command and to its process
		// group): the second is the first's echo, not a second signal. (The helper takes any
		// signal again for an echo, so that no timing decides the outcome.)
		{"echo of interrupt", syscall.SIGINT, "300ms", 1, true, "qa-stuck: interrupted, and still running 300ms later: stopping; what was not written is left out\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if signal.Ignored(tt.first) || tt.signals > 1 && signal.Ignored(syscall.SIGINT) {
				t.Skipf("%v is ignored by this process (run under nohup?), so the helper ignores it too", tt.first)
			}
			env := "QA_TEST_MAIN_HELPER=" + tt.grace
			if tt.echo {
				env += " echo"
			}
			cmd, stdout, stderr := startHelper(t, "TestMainHelper", env)
			buf := make([]byte, len("ready\n"))
			if _, err := io.ReadFull(stdout, buf); err != nil {
				t.Fatalf("helper did not start: %v", err)
			}
			cmd.Process.Signal(tt.first)
			if tt.echo {
				if _, err := io.ReadFull(stdout, make([]byte, len("cancelled\n"))); err != nil {
					t.Fatalf("helper was not cancelled: %v", err)
				}
				cmd.Process.Signal(tt.first)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			if tt.signals > 1 {
				// Again and again, as a user would, until it exits: a signal sent before the first
				// one is taken in is not a second one.
				stop := make(chan struct{})
				defer close(stop)
				go func() {
					tick := time.NewTicker(100 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-tick.C:
							cmd.Process.Signal(syscall.SIGINT)
						case <-stop:
							return
						}
					}
				}()
			}
			select {
			case err := <-waited:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
					t.Errorf("exit: %v, want %d", err, ExitInterrupted)
				}
				if stderr.String() != tt.stderr {
					t.Errorf("stderr %q, want %q", stderr.String(), tt.stderr)
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the interrupted helper did not exit")
			}
		})
	}
}

// TestNextSignal: what ends each wait of an interrupted run. The last signal again within the
// echo is its echo (make passing on its process group's SIGTERM, timeout(1) signalling the
// command and then its group) and is not counted, nor is a SIGHUP after a SIGTERM or the other way
// round (systemd's SendSIGHUP=); a SIGINT after either, or either after a SIGINT, or any signal
// after the echo, is. The waits here are an hour long or none, so no timing decides the outcome.
func TestNextSignal(t *testing.T) {
	closed := make(chan struct{})
	close(closed)
	for _, tt := range []struct {
		name    string
		last    os.Signal
		queued  []os.Signal
		done    chan struct{}
		echo    time.Duration
		grace   time.Duration
		want    int
		wantSig os.Signal
	}{
		{"interrupt again", os.Interrupt, []os.Signal{os.Interrupt}, nil, 0, time.Hour, stopSignal, os.Interrupt},
		{"echo of interrupt", os.Interrupt, []os.Signal{os.Interrupt}, nil, time.Hour, 0, stopGrace, os.Interrupt},
		{"terminate after interrupt", os.Interrupt, []os.Signal{syscall.SIGTERM}, nil, time.Hour, time.Hour, stopSignal, syscall.SIGTERM},
		{"echo of terminate", syscall.SIGTERM, []os.Signal{syscall.SIGTERM, os.Interrupt}, nil, time.Hour, time.Hour, stopSignal, os.Interrupt},
		{"only an echo", syscall.SIGTERM, []os.Signal{syscall.SIGTERM}, nil, time.Hour, 0, stopGrace, syscall.SIGTERM},
		{"echo of hangup", syscall.SIGHUP, []os.Signal{syscall.SIGHUP, syscall.SIGHUP}, nil, time.Hour, 0, stopGrace, syscall.SIGHUP},
		{"hangup after terminate", syscall.SIGTERM, []os.Signal{syscall.SIGHUP}, nil, time.Hour, 0, stopGrace, syscall.SIGTERM},
		{"terminate after hangup", syscall.SIGHUP, []os.Signal{syscall.SIGTERM, syscall.SIGHUP}, nil, time.Hour, 0, stopGrace, syscall.SIGHUP},
		{"hangup after terminate's echo", syscall.SIGTERM, []os.Signal{syscall.SIGHUP}, nil, 0, time.Hour, stopSignal, syscall.SIGHUP},
		{"interrupt after hangup", syscall.SIGHUP, []os.Signal{os.Interrupt}, nil, time.Hour, time.Hour, stopSignal, os.Interrupt},
		{"grace", os.Interrupt, nil, nil, time.Hour, 0, stopGrace, os.Interrupt},
		{"run returned", os.Interrupt, nil, closed, time.Hour, time.Hour, stopDone, os.Interrupt},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sigs := make(chan os.Signal, len(tt.queued))
			for _, s := range tt.queued {
				sigs <- s
			}
			sig, why := nextSignal(sigs, tt.done, nil, tt.last, tt.echo, tt.grace)
			if why != tt.want || sig != tt.wantSig {
				t.Errorf("nextSignal = %v, %d; want %v, %d", sig, why, tt.wantSig, tt.want)
			}
		})
	}
	for sig, want := range map[os.Signal]time.Duration{os.Interrupt: intEcho, syscall.SIGTERM: termEcho, syscall.SIGHUP: termEcho} {
		if got := SignalEcho(sig); got != want {
			t.Errorf("SignalEcho(%v) = %v, want %v", sig, got, want)
		}
	}
	if !strings.Contains(FinishHelp, "at most 2 minutes") || finishGrace != 2*time.Minute {
		t.Errorf("FinishHelp says 2 minutes, finishGrace is %v", finishGrace)
	}
	if !strings.Contains(FinishHelp, "SIGHUP within a second of either, or a SIGINT within 0.1 s of one,") ||
		termEcho != time.Second || intEcho != 100*time.Millisecond {
		t.Errorf("FinishHelp says a second and 0.1 s, the echoes are %v and %v", termEcho, intEcho)
	}
}

// TestMainCallsHelper is the process TestMainCalls interrupts: a command with one call in
// flight (none with "idle" after the grace), which says on stdout when it is asked to finish and
// when its call is abandoned, and then returns (or, with "stuck", never does, as a run whose
// output cannot be flushed). It does nothing unless QA_TEST_MAINCALLS_HELPER (the finishing
// grace) is set.
func TestMainCallsHelper(t *testing.T) {
	grace, echo := strings.CutSuffix(os.Getenv("QA_TEST_MAINCALLS_HELPER"), " echo")
	grace, stuck := strings.CutSuffix(grace, " stuck")
	grace, idle := strings.CutSuffix(grace, " idle")
	if grace == "" {
		t.Skip("run by TestMainCalls")
	}
	if echo { // any signal again is an echo
		termEcho, intEcho = time.Hour, time.Hour
	}
	if d, err := time.ParseDuration(os.Getenv("QA_TEST_MAINCALLS_ECHO")); err == nil {
		termEcho, intEcho = d, d
	}
	finishGrace, _ = time.ParseDuration(grace)
	if stuck {
		interruptGrace = time.Hour // only the third signal ends it
	}
	MainCalls("qa-calls", func(ctx context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
		if !idle {
			end, _ := interrupt.Begin(ctx) // the call in flight
			defer end()
		}
		io.WriteString(stdout, "ready\n")
		wait, cancel := interrupt.Waiting(ctx)
		defer cancel()
		<-wait.Done()
		io.WriteString(stdout, "finishing\n")
		<-ctx.Done()
		io.WriteString(stdout, "abandoned\n")
		if stuck {
			select {}
		}
		return ctx.Err()
	})
}

// TestMainCalls: the first signal asks a command's run to finish, saying how many calls are in
// flight; a second signal, or the grace period, abandons them (the run's context is cancelled),
// and the run's return then ends the process with exit 130.
func TestMainCalls(t *testing.T) {
	const finishing, none = "qa-calls: interrupted: finishing 1 call in flight", "qa-calls: interrupted: no calls in flight"
	for _, tt := range []struct {
		name, grace           string
		signals               []os.Signal
		interrupted, stopping string
	}{
		{"second signal", "1h", []os.Signal{syscall.SIGINT, syscall.SIGINT}, finishing, "qa-calls: interrupted again: abandoning the calls in flight"},
		{"terminate, then interrupt", "1h", []os.Signal{syscall.SIGTERM, syscall.SIGINT}, finishing, "qa-calls: interrupted again: abandoning the calls in flight"},
		{"grace period", "200ms", []os.Signal{syscall.SIGINT}, finishing, "qa-calls: calls still in flight after 200ms: abandoning them"},
		// With no call in flight the second signal, or the grace period, leaves the run to write
		// the records it has done, which may take interruptGrace (10s): it said "stopping at
		// once", and the first signal "interrupt again to stop at once".
		{"no call in flight", "1h idle", []os.Signal{syscall.SIGINT, syscall.SIGINT}, none + "; writing the records left (interrupt again to stop within 10s)\n",
			"qa-calls: interrupted again: writing only the records done, for at most 10s (interrupt again to stop at once)\n"},
		// A run stuck with no call in flight (writing to a stalled reader, say) was told of as
		// "calls still in flight after 200ms: abandoning them".
		{"grace period, no call in flight", "200ms idle", []os.Signal{syscall.SIGINT}, none,
			"qa-calls: not finished after 200ms, with no call in flight: writing only the records done, for at most 10s (interrupt again to stop at once)\n"},
		{"third signal", "1h stuck", []os.Signal{syscall.SIGINT, syscall.SIGINT, syscall.SIGINT}, finishing, "qa-calls: interrupted again: stopping at once; what was not written is left out\n"},
		// A run that cannot write the records it has done (a stalled reader of stdout) when
		// asked again, with no call in flight, is ended by the third signal, as the second
		// message says.
		{"third signal, no call in flight", "1h idle stuck", []os.Signal{syscall.SIGINT, syscall.SIGINT, syscall.SIGINT},
			none + "; writing the records left (interrupt again to stop within 1h0m0s)\n",
			"qa-calls: interrupted again: writing only the records done, for at most 1h0m0s (interrupt again to stop at once)\n" +
				"qa-calls: interrupted again: stopping at once; what was not written is left out\n"},
		// timeout -s INT signals the command and then its process group, so the command has
		// the signal twice at once: that abandoned the calls in flight. (The helper takes any
		// signal again for an echo, so that no timing decides the outcome.)
		{"echo of interrupt", "300ms echo", []os.Signal{syscall.SIGINT, syscall.SIGINT}, finishing, "qa-calls: calls still in flight after 300ms: abandoning them"},
		{"echo of hangup", "300ms echo", []os.Signal{syscall.SIGHUP, syscall.SIGHUP}, finishing, "qa-calls: calls still in flight after 300ms: abandoning them"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Under nohup the helper ignores SIGHUP, and "echo of hangup" waited for a
			// "finishing" that never came (seen once, a run of nine minutes).
			for _, sig := range tt.signals {
				if signal.Ignored(sig) {
					t.Skipf("%v is ignored by this process (run as a shell's background job, or under nohup?), so the helper ignores it too", sig)
				}
			}
			echo := strings.HasSuffix(tt.grace, " echo") // the signal again once it is taken in
			env := []string{"QA_TEST_MAINCALLS_HELPER=" + tt.grace}
			for i := 1; i < len(tt.signals) && !echo; i++ {
				// The same signal again is a second one: the helper takes no signal for an echo,
				// so that no timing decides the outcome. (A SIGINT 200ms after "finishing" was
				// taken for the first's echo when the helper was descheduled for 100ms before
				// its echo began, and the run then waited out the grace of an hour.)
				if tt.signals[i] == tt.signals[i-1] {
					env = append(env, "QA_TEST_MAINCALLS_ECHO=0s")
					break
				}
			}
			cmd, stdout, stderr := startHelper(t, "TestMainCallsHelper", env...)
			defer cmd.Process.Kill()
			// A helper that stops answering is made to dump its goroutines, which the failure
			// then shows, rather than hang the package's run.
			guard := time.AfterFunc(2*time.Minute, func() { cmd.Process.Signal(syscall.SIGQUIT) })
			defer func() {
				if guard.Stop() || !t.Failed() {
					return
				}
				cmd.Wait() //nolint:errcheck // the helper's stderr is complete once it has exited
				t.Logf("the helper stopped answering; its stderr:\n%s", stderr)
			}()
			lines := bufio.NewScanner(stdout)
			expect := expecter(t, lines)
			expect("ready")
			for i, sig := range tt.signals {
				if i == 2 {
					expect("abandoned") // the third signal comes to a run that does not end
				}
				cmd.Process.Signal(sig)
				if i == 0 {
					expect("finishing")
				}
			}
			if len(tt.signals) < 3 {
				expect("abandoned")
			}
			for lines.Scan() { // to the end, so that Wait may close the pipe
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
				t.Errorf("exit: %v, want %d", err, ExitInterrupted)
			}
			reported := "qa-calls: interrupted\n" // by the run's return, unless it never returns
			if strings.HasSuffix(tt.grace, "stuck") {
				reported = tt.stopping
			}
			wants := []string{tt.interrupted, tt.stopping, reported}
			if tt.interrupted == finishing {
				wants = append(wants, "interrupt again to abandon it\n")
			}
			if echo && strings.Contains(stderr.String(), "interrupted again") {
				t.Errorf("the echo was taken for a second signal:\n%s", stderr.String())
			}
			for _, want := range wants {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
		})
	}
}

// TestMainCallsSignalAfterGrace: a signal that comes once finishGrace has abandoned the calls in
// flight is a new one, however soon after the grace it comes: only the first signal's echo, within
// its echo window of when the first was taken in, does not count. The window was opened again at
// the grace's end for the first signal, so that the same signal as the first, right after the
// grace (here 1s after the first, with an echo of 500ms), was taken for its echo and ignored: a
// run stuck writing then ran on until interruptGrace (an hour here, 10 s in a command).
func TestMainCallsSignalAfterGrace(t *testing.T) {
	cmd, stdout, stderr := startHelper(t, "TestMainCallsHelper", "QA_TEST_MAINCALLS_HELPER=1s stuck", "QA_TEST_MAINCALLS_ECHO=500ms")
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	expect := expecter(t, lines)
	expect("ready")
	cmd.Process.Signal(syscall.SIGTERM)
	expect("finishing")
	expect("abandoned") // by finishGrace, 1s after the first signal: its echo is long over
	cmd.Process.Signal(syscall.SIGTERM)
	waited := make(chan error, 1)
	go func() {
		for lines.Scan() {
		}
		waited <- cmd.Wait()
	}()
	select {
	case err := <-waited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
			t.Errorf("exit: %v, want %d", err, ExitInterrupted)
		}
		if want := "qa-calls: interrupted again: stopping at once"; !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-waited
		t.Fatalf("a SIGTERM 1s after the first (echo 500ms), once the grace had abandoned the calls, did not stop the run: taken for the first's echo\n%s", stderr.String())
	}
}

// TestStopSignalsHelper prints stopSignals() as a child process started by TestStopSignals sees
// them. It does nothing unless QA_TEST_STOP_SIGNALS is set.
func TestStopSignalsHelper(t *testing.T) {
	if os.Getenv("QA_TEST_STOP_SIGNALS") == "" {
		t.Skip("run by TestStopSignals")
	}
	fmt.Printf("stop signals: %v\n", stopSignals())
}

// TestStopSignals: SIGINT and SIGHUP interrupt a command unless it started with them ignored, as
// nohup and a non-interactive shell's background jobs start it; catching them then would let a
// closed terminal or a Ctrl-C meant for the foreground stop it. SIGTERM always does.
//
// A signal this test process started with ignored (under nohup, say) is ignored by the children
// too, and a shell cannot trap it again, so the cases that need it caught are left out.
func TestStopSignals(t *testing.T) {
	for _, tt := range []struct{ trap, want string }{
		{"", "stop signals: [terminated interrupt hangup]"},
		{"trap '' HUP;", "stop signals: [terminated interrupt]"},
		{"trap '' INT HUP;", "stop signals: [terminated]"},
	} {
		if signal.Ignored(syscall.SIGINT) && tt.want != "stop signals: [terminated]" ||
			signal.Ignored(syscall.SIGHUP) && strings.Contains(tt.want, "hangup") {
			t.Logf("%q: left out, as this process ignores SIGINT or SIGHUP (run under nohup?)", tt.trap)
			continue
		}
		cmd := exec.Command("sh", "-c", tt.trap+` exec "$0" -test.run='^TestStopSignalsHelper$' -test.v`, os.Args[0])
		cmd.Env = append(os.Environ(), "QA_TEST_STOP_SIGNALS=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", tt.trap, err, out)
		}
		if !strings.Contains(string(out), tt.want+"\n") {
			t.Errorf("%q: output\n%s\nwant a line %q", tt.trap, out, tt.want)
		}
	}
}

// expecter returns a check that the next line lines reads from a helper is want.
func expecter(t *testing.T, lines *bufio.Scanner) func(want string) {
	return func(want string) {
		t.Helper()
		if !lines.Scan() || lines.Text() != want {
			t.Fatalf("helper wrote %q (%v), want %q", lines.Text(), lines.Err(), want)
		}
	}
}

// startHelper starts this test binary running only the test named helper, with env added to the
// environment, and returns it with its stdout to read and its stderr as written so far.
func startHelper(t *testing.T, helper string, env ...string) (*exec.Cmd, io.ReadCloser, *bytes.Buffer) {
	t.Helper()
	stderr := new(bytes.Buffer)
	cmd, stdout := startHelperTo(t, stderr, helper, env...)
	return cmd, stdout, stderr
}

// startHelperTo is startHelper with the helper's stderr written to stderr.
func startHelperTo(t *testing.T, stderr io.Writer, helper string, env ...string) (*exec.Cmd, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout
}

// TestEscalateNoCalls: under MainCalls, a run that makes no call (interrupt.NoCalls: qa-judge
// agree, a dry run) is cancelled by the first signal, as Main cancels a run, with no word of
// calls in flight or of records left to write, which it has none of: "qa-judge: interrupted: no
// calls in flight; writing the records left" came before qa-judge agree's "interrupted". A run
// that may make calls is asked to finish and told so, as before.
func TestEscalateNoCalls(t *testing.T) {
	for _, tt := range []struct {
		name      string
		noCalls   bool
		stderr    string
		abandoned bool
	}{
		{"no calls", true, "", true},
		{"calls", false, "qa-judge: interrupted: no calls in flight; writing the records left (interrupt again to stop within 10s)\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, finish := interrupt.WithFinish(context.Background())
			if tt.noCalls {
				interrupt.NoCalls(ctx, "qa-judge agree")
			}
			finished := make(chan struct{})
			var abandoned bool
			sigs, done, returned := make(chan os.Signal, 1), make(chan struct{}), make(chan struct{})
			var stderr bytes.Buffer
			go func() {
				defer close(returned)
				escalate(ctx, "qa-judge", &stderr, sigs,
					done, nil, func() int { defer close(finished); return finish() }, func() { abandoned = true })
			}()
			sigs <- syscall.SIGINT
			<-finished
			close(done) // the run returned: escalate says what it had to say first
			<-returned
			if got := stderr.String(); got != tt.stderr {
				t.Errorf("escalate wrote %q at the first signal, want %q", got, tt.stderr)
			}
			if abandoned != tt.abandoned {
				t.Errorf("the first signal cancelled the run: %v, want %v", abandoned, tt.abandoned)
			}
			if !interrupt.Asked(ctx) {
				t.Error("the first signal did not ask the run to finish")
			}
		})
	}
}

// TestEscalateEchoFromIntake: a signal's echo is timed from when it was taken in, so that a second
// signal sent once the echo is over counts (the calls are abandoned) however late the command gets
// to say that it is finishing: here finish returns only after the second signal was sent, two echo
// windows after the first was taken in, as a loaded machine or a slow stderr may delay it.
func TestEscalateEchoFromIntake(t *testing.T) {
	ctx, finish := interrupt.WithFinish(context.Background())
	took, sent := make(chan struct{}), make(chan struct{})
	abandoned := make(chan struct{})
	sigs, done, returned := make(chan os.Signal, 1), make(chan struct{}), make(chan struct{})
	var stderr bytes.Buffer
	go func() {
		defer close(returned)
		escalate(ctx, "qa-judge", &stderr, sigs, done, nil,
			func() int { close(took); <-sent; finish(); return 1 }, func() { close(abandoned) })
	}()
	sigs <- syscall.SIGINT
	<-took
	time.Sleep(2 * SignalEcho(syscall.SIGINT))
	sigs <- syscall.SIGINT
	close(sent)
	select {
	case <-abandoned:
	case <-time.After(30 * time.Second): // a hang guard: finishGrace, 2 minutes, would abandon them
		t.Error("the second signal, sent after the first one's echo, was taken for its echo: the calls were not abandoned")
	}
	close(done)
	<-returned
	if !strings.Contains(stderr.String(), "interrupted again: abandoning") {
		t.Errorf("stderr %q, want the calls abandoned at the second signal", stderr.String())
	}
}
