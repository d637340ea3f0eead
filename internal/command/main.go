package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
)

// stopSignals returns the signals that interrupt a command: SIGTERM, SIGINT (Ctrl-C) and SIGHUP,
// which a closing terminal or SSH session sends, so that output is flushed at a record's end
// rather than cut mid-line. SIGINT and SIGHUP are left out when the command started with them
// ignored, as nohup and a shell's background jobs start it: catching them would undo that.
func stopSignals() []os.Signal {
	sigs := []os.Signal{syscall.SIGTERM}
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	return sigs
}

// RunFunc is a command's in-process seam: every app package exports one as Run.
type RunFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

// Main is the whole of a command's main: it runs run with the process's arguments and streams under
// a context that SIGINT, SIGTERM and SIGHUP cancel, reports the error once, and exits with its code.
//
// Once interrupted, run flushes its completed output and returns. A run that cannot (its stdout
// is a pipe whose reader stopped reading, so a write blocks) is ended with exit 130 by a second
// signal, or interruptGrace after the first.
//
// A reader of stdout that goes away (| head -1) ends the process by SIGPIPE at the write that
// finds it gone, as it ends cat, after the cleanups OnForcedExit registered and with a progress
// bar's line cleared (dieOfSIGPIPE).
func Main(prog string, run RunFunc) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, stopSignals()...)
	ctx, cancel := context.WithCancel(context.Background())
	stderr := Stderr()
	warnClosedStdout(stderr, prog)
	done := make(chan struct{})
	go forceExit(sigs, done, cancel, prog, stderr)
	stdout, broken := watchStdout()
	go func() {
		select {
		case <-broken: // the write that found it blocks: nothing more is written
			dieOfSIGPIPE(prog, stderr)
		case <-done:
		}
	}()
	err := run(ctx, os.Args, stdinUntil(ctx.Done()), stdout, stderr)
	close(done)
	stopTaking(sigs, ctx.Err() != nil)
	cancel()
	clearBarLine(stderr)
	dieOfBrokenStdout(err)
	Report(stderr, prog, err)
	os.Exit(ExitCode(err))
}

// warnClosedStdout warns on stderr when stdout is the null device open for reading and writing,
// as the Go runtime opens it in place of a stdout that was closed (cmd >&-): every write then
// succeeds and the output goes nowhere, where cat fails with "Bad file descriptor". A run is
// not failed for it, since a parent can give that descriptor on purpose (Python's
// subprocess.DEVNULL opens the null device so).
func warnClosedStdout(stderr io.Writer, prog string) {
	if nullForBoth(1) {
		fmt.Fprintf(stderr, "%s: warning: stdout is the null device open for reading and writing (as when the shell closed it, >&-): what is written to it is lost\n", prog)
	}
}

// stopTaking stops taking signals on sigs once the run has returned, so that a signal then ends
// the process as it would any. When signalled, the run having been interrupted, they are still
// taken, and dropped, for as long as an echo of the signal that interrupted it may come (see
// SignalEcho: make passes its SIGTERM on when it gets to it): the echo would otherwise kill the
// process before it reports the interruption, with another exit status. (Main took them so, for
// good, when it ran under signal.NotifyContext, whose second channel stayed.)
func stopTaking(sigs chan<- os.Signal, signalled bool) {
	if !signalled {
		signal.Stop(sigs)
		return
	}
	time.AfterFunc(max(termEcho, intEcho), func() { signal.Stop(sigs) })
}

// forcedExit holds what must be undone when the process is ended before its run returns (a
// second signal, or a grace period passing): a run's cleanups that its deferred calls would have
// made, such as removing an output file it truncated and has not written. exiting is set once
// the cleanups have been taken to run.
var forcedExit struct {
	sync.Mutex
	next     int
	cleanups map[int]func()
	exiting  bool
}

// OnForcedExit registers f to run if the process is ended before the run returns (see Main and
// MainCalls), and returns the function that unregisters it, for the run to call once f is no
// longer wanted. f runs on the exiting goroutine while the run may still be running, so it
// should only undo what cannot be half done (removing a file).
func OnForcedExit(f func()) (cancel func()) {
	return onForcedExitOf(func() func() { return f })
}

// OnForcedExitOf is onForcedExitOf, for what a run makes that a forced exit must not leave (a
// copy of a file in the system's temporary folder: cache.OpenLook's guard).
func OnForcedExitOf(mk func() func()) (cancel func()) { return onForcedExitOf(mk) }

// onForcedExitOf registers the cleanup that mk returns (none when nil), mk being run while a
// forced exit cannot take the cleanups: what mk makes (a file) and its cleanup removes is never
// left by a forced exit that comes between the two, as it was when a file was made first and
// its cleanup registered after. mk must not block. When the cleanups have already been taken,
// the process ending, the cleanup runs at once.
func onForcedExitOf(mk func() func()) (cancel func()) {
	forcedExit.Lock()
	f := mk()
	switch {
	case f == nil:
		forcedExit.Unlock()
		return func() {}
	case forcedExit.exiting:
		forcedExit.Unlock()
		f()
		return func() {}
	}
	if forcedExit.cleanups == nil {
		forcedExit.cleanups = map[int]func(){}
	}
	id := forcedExit.next
	forcedExit.next++
	forcedExit.cleanups[id] = f
	forcedExit.Unlock()
	return func() {
		forcedExit.Lock()
		defer forcedExit.Unlock()
		delete(forcedExit.cleanups, id)
	}
}

// exitNow runs the cleanups OnForcedExit registered, in the order registered, and ends the
// process with code.
func exitNow(code int) {
	forcedCleanups()
	os.Exit(code)
}

// forcedCleanups runs the cleanups OnForcedExit registered, in the order registered, once.
func forcedCleanups() {
	forcedExit.Lock()
	ids := slices.Sorted(maps.Keys(forcedExit.cleanups))
	fns := make([]func(), 0, len(ids))
	for _, id := range ids {
		fns = append(fns, forcedExit.cleanups[id])
	}
	forcedExit.cleanups, forcedExit.exiting = nil, true
	forcedExit.Unlock()
	for _, f := range fns {
		f()
	}
}

// interruptGrace is how long an interrupted run may take to flush its output.
var interruptGrace = 10 * time.Second

// forceExit waits for a signal, which cancels the run's context, then exits the process with
// 130 on a second signal (not the first's echo, see SignalEcho) or after interruptGrace, unless done
// is closed first.
func forceExit(sigs <-chan os.Signal, done <-chan struct{}, cancel func(), prog string, stderr io.Writer) {
	var sig os.Signal
	select {
	case sig = <-sigs:
	case <-done:
		return
	}
	cancel()
	if _, why := nextSignal(sigs, done, nil, sig, SignalEcho(sig), interruptGrace); why != stopDone {
		stopNow(stderr, prog, why)
	}
}

// stopNow says on stderr that the process is ended before its interrupted run returned, for why
// (stopSignal: another signal; stopGrace: interruptGrace passed), and ends it with exit 130. The
// run may be waiting on stdout's stalled reader, or on an input that has not ended (whose records
// it wrote as they came), or be busy: what it has not written is left out.
//
// Note: it said "interrupted; completed output could not be flushed", which was false of a run
// waiting on its input, whose completed records were all written.
func stopNow(stderr io.Writer, prog string, why int) {
	if why == stopGrace {
		fmt.Fprintf(stderr, "%s: interrupted, and still running %v later: stopping; what was not written is left out\n", prog, interruptGrace)
	} else {
		fmt.Fprintf(stderr, "%s: interrupted again: stopping at once; what was not written is left out\n", prog)
	}
	exitNow(ExitInterrupted)
}

// MainCalls is Main for a command that pays for model calls (qa-predict, qa-judge; qa-score's
// embedding calls), which it does not let a first signal throw away. The first SIGINT, SIGTERM or
// SIGHUP asks the run to finish (interrupt.WithFinish): it makes no new call, lets the calls in flight end and writes their
// records and replies, writes the records left with an error, prints its summary and returns
// interrupt.ErrInterrupted (exit 130). A second signal, or finishGrace after the first, abandons
// the calls in flight by cancelling the run's context, after which the run flushes its completed
// output as under Main; a third signal, or interruptGrace more, ends the process with exit 130.
// A signal right after the same one is its echo and does not count (see SignalEcho): make, stopped
// with SIGTERM, passes it on to commands whose process group may have had it already, and
// timeout(1) signals the command and then its process group. A run that makes no
// call (interrupt.NoCalls: qa-judge agree, a dry run, a run that can call no model over files
// alone) is stopped as under Main.
//
// A reader of stdout that goes away (| head -1) ends the process by SIGPIPE, as it ends cat, but
// only once the replies of the calls in flight that a --cache stores are stored (see
// endOfOutput): the run writes nothing more, makes no new call and reads no more input.
func MainCalls(prog string, run RunFunc) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, stopSignals()...)
	ctx, abandon := context.WithCancel(context.Background())
	ctx, finish := interrupt.WithFinish(ctx)
	stderr := Stderr()
	warnClosedStdout(stderr, prog)
	stdout, broken := watchStdout()
	var failedWrite atomic.Pointer[error] // the first write to stdout that failed, but for a reader gone
	if p, ok := stdout.(*stdoutPipe); ok {
		p.failed = func(err error) {
			storeInFlight(ctx, prog, stderr, err, finish)
			failedWrite.Store(&err)
			abandon() // what is still in flight could be written nowhere
		}
	}
	done := make(chan struct{})
	go escalate(ctx, prog, stderr, sigs, done, broken, finish, abandon)
	// Typed input ends at the first signal, which asks the run to finish (or, for a run that
	// makes no call, cancels it).
	typing, typed := interrupt.Waiting(ctx)
	err := run(ctx, os.Args, stdinUntil(typing.Done()), stdout, stderr)
	typed()
	close(done)
	if werr := failedWrite.Load(); werr != nil && (err == nil || errors.Is(err, context.Canceled) || errors.Is(err, interrupt.ErrInterrupted)) {
		// The run was stopped for the failed write (a flush found it while the run waited for
		// a call), not by a signal: the write's error is the run's.
		err = *werr
	}
	select {
	case <-broken: // a run that returned has no call in flight
		dieOfSIGPIPE(prog, stderr)
	default:
	}
	stopTaking(sigs, interrupt.Asked(ctx))
	abandon()
	clearBarLine(stderr)
	dieOfBrokenStdout(err)
	Report(stderr, prog, err)
	os.Exit(ExitCode(err))
}

// finishGrace is how long an interrupted run may take to finish its calls in flight: as long as
// one attempt may take under the default --timeout, for no retry is made once it finishes.
var finishGrace = 2 * time.Minute

// How soon after a signal the same signal again is taken as the same one (see SignalEcho).
var (
	termEcho = time.Second
	intEcho  = 100 * time.Millisecond
)

// SignalEcho returns how soon after sig the same signal again (or, after a SIGTERM or SIGHUP,
// either of them: sameStop) is its echo, not a second one (for tests that signal a command twice
// as a person does): a second for SIGTERM and SIGHUP, which make and a closing shell pass on to
// their commands when the commands' process group may have had them already, and which systemd
// with SendSIGHUP= sends one after the other; and 0.1 s for SIGINT, which timeout(1) sends to the
// command and then to its process group, microseconds apart, while a person's second Ctrl-C comes
// later than that.
func SignalEcho(sig os.Signal) time.Duration {
	if sig == os.Interrupt {
		return intEcho
	}
	return termEcho
}

// sameStop reports whether b, come within a's echo, is a's echo: the same signal, or SIGTERM and
// SIGHUP either way round, as systemd with SendSIGHUP= follows its SIGTERM with a SIGHUP, and a
// closing terminal's shell may pass on either after the other. A SIGINT is a person's, or
// timeout(1)'s twice, and only a SIGINT echoes one.
func sameStop(a, b os.Signal) bool {
	outside := func(s os.Signal) bool { return s == syscall.SIGTERM || s == syscall.SIGHUP }
	return a == b || outside(a) && outside(b)
}

// escalate takes MainCalls's signals until done is closed: the first asks the run to finish,
// the second (or finishGrace) abandons its calls, the third (or interruptGrace) exits. A run of
// ctx that makes no call (interrupt.NoCalls) is stopped as Main stops one: the first signal
// cancels it, quietly, and the second (or interruptGrace) exits. Once broken is closed (stdout's
// reader went away), before or after a signal, endOfOutput ends the process.
func escalate(ctx context.Context, prog string, stderr io.Writer, sigs <-chan os.Signal, done, broken <-chan struct{}, finish func() int, abandon func()) {
	var sig os.Signal
	select {
	case sig = <-sigs:
	case <-done:
		return
	case <-broken:
		endOfOutput(ctx, prog, stderr, sigs, finish)
	}
	// A signal's echo is timed from when the signal was taken in, not from when what it asks
	// for was said on stderr, which may come later on a loaded machine or a slow stderr: a
	// second signal a person sends once the echo is over counts however long that took.
	echoEnd := time.Now().Add(SignalEcho(sig))
	// stop waits, once the calls are abandoned, for the signal (or interruptGrace) that ends the
	// process at once, naming the run name, unless the run ends first or its output's reader
	// goes away (endOfOutput: none of the abandoned calls is left to store). sig is the last
	// signal, whose echo lasts until echoEnd.
	stop := func(name string, sig os.Signal, echoEnd time.Time) {
		switch _, why := nextSignal(sigs, done, broken, sig, time.Until(echoEnd), interruptGrace); why {
		case stopDone:
		case stopBroken:
			endOfOutput(ctx, prog, stderr, sigs, finish)
		default:
			stopNow(stderr, name, why)
		}
	}
	n := finish()
	if name, ok := interrupt.NoCallsName(ctx); ok {
		abandon()
		stop(name, sig, echoEnd)
		return
	}
	sayFinishing(stderr, prog, n)
	// The first signal's echo ends at echoEnd: a signal after it is a new one, however soon
	// after finishGrace it comes (the echo was taken to begin again there).
	next, why := nextSignal(sigs, done, broken, sig, time.Until(echoEnd), finishGrace)
	switch why {
	case stopDone:
		return
	case stopBroken:
		endOfOutput(ctx, prog, stderr, sigs, finish)
	case stopSignal:
		sig, echoEnd = next, time.Now().Add(SignalEcho(next)) // a second signal: its own echo, from now
		sayAbandoning(stderr, prog, why, n, finish)
	default:
		sayAbandoning(stderr, prog, why, n, finish)
	}
	abandon()
	stop(prog, sig, echoEnd)
}

// sayFinishing says on stderr, at the first signal, that the run finishes its n calls in flight
// (or, with none, writes the records left) and that another signal abandons them.
func sayFinishing(stderr io.Writer, prog string, n int) {
	if n == 0 {
		fmt.Fprintf(stderr, "%s: interrupted: no calls in flight; writing the records left (interrupt again to stop within %v)\n", prog, interruptGrace)
	} else {
		fmt.Fprintf(stderr, "%s: interrupted: finishing %s in flight (for at most %v); interrupt again to abandon %s\n",
			prog, english.Count(n, "call", "calls"), finishGrace, english.Form(n, "it", "them"))
	}
}

// sayAbandoning says on stderr why escalate abandons the calls in flight: why, a second signal
// (stopSignal) or finishGrace passing (stopGrace), with n the calls in flight at the first signal
// and finish asked for those in flight now. With no call to abandon, what is left is what the
// run then does: it writes the records completed, which a stalled reader of stdout (or an input
// that does not end) may not let it do, so the process ends by interruptGrace at the latest, or
// at a third signal.
//
// Note: these said "interrupt again to stop at once" and "stopping at once", when a run that
// could not flush then waited for interruptGrace or a third signal.
func sayAbandoning(stderr io.Writer, prog string, why, n int, finish func() int) {
	stopping := fmt.Sprintf("writing only the records done, for at most %v (interrupt again to stop at once)", interruptGrace)
	switch {
	case why == stopSignal && n == 0: // none in flight then, and no call has started since
		fmt.Fprintf(stderr, "%s: interrupted again: %s\n", prog, stopping)
	case why == stopSignal:
		fmt.Fprintf(stderr, "%s: interrupted again: abandoning the calls in flight\n", prog)
	case why == stopGrace && finish() == 0: // none in flight now: the run is stuck writing or reading
		fmt.Fprintf(stderr, "%s: not finished after %v, with no call in flight: %s\n", prog, finishGrace, stopping)
	case why == stopGrace:
		fmt.Fprintf(stderr, "%s: calls still in flight after %v: abandoning them\n", prog, finishGrace)
	}
}

// What ended a wait of nextSignal.
const (
	stopDone   = iota // the run returned
	stopSignal        // another signal
	stopGrace         // the grace period passed
	stopBroken        // stdout's reader went away
)

// nextSignal waits for a signal, for grace to pass, or for done or broken to be closed, and says
// which came first. The last signal again within echo (if any) is the same one, its echo, and
// is not counted; so is a SIGTERM after a SIGHUP or a SIGHUP after a SIGTERM (sameStop).
func nextSignal(sigs <-chan os.Signal, done, broken <-chan struct{}, last os.Signal, echo, grace time.Duration) (os.Signal, int) {
	var echoed <-chan time.Time
	if echo > 0 {
		echoed = time.After(echo)
	}
	expired := time.After(grace)
	for {
		select {
		case sig := <-sigs:
			if echoed == nil || !sameStop(sig, last) {
				return sig, stopSignal
			}
		case <-echoed:
			echoed = nil
		case <-expired:
			return last, stopGrace
		case <-done:
			return last, stopDone
		case <-broken:
			return last, stopBroken
		}
	}
}
