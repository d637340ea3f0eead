// Package interrupt lets a run that pays for model calls stop in two steps. The first, finishing,
// travels in a context value: from then on no new call is made, the calls in flight run to their
// end, and every record is still written (those left without a call carry ErrNotCalled). The
// second, abandoning, is the context's own cancellation, which cuts the calls in flight as any
// cancelled context does.
//
// The command layer asks (WithFinish); the model transport refuses new calls (Begin) and cuts
// short its waits for a rate limit or a retry (Waiting); the apps stop handing records to the
// model (Asked); the pipeline returns ErrInterrupted once it has written everything. A reply
// that a --cache stores is counted from before its call until it is stored (Storing), so that a
// run whose output has nowhere to go (stdout's reader went away) can end once those are stored.
//
// Note: cancelling the run's context at the first signal, as the commands did before, made the
// calls in flight fail, so replies the provider had already billed were lost and paid for again
// on the rerun. A second context carrying the first step was rejected: every layer would have to
// pass two contexts, and the ones that only stop on cancellation would not know which to watch.
package interrupt

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrNotCalled is the error of a model call that was not made because the run was finishing.
var ErrNotCalled = errors.New("interrupted before the call was made")

// ErrInterrupted is what a run returns when it has finished after being asked to. It wraps
// context.Canceled, so a command reports it, and exits, as interrupted.
var ErrInterrupted = fmt.Errorf("interrupted: %w", context.Canceled)

type key struct{}

// state is one run's finish request and the calls in flight.
type state struct {
	finish context.Context // done once the run is asked to finish
	ask    context.CancelFunc

	mu       sync.Mutex
	asked    bool
	inFlight int
	noCalls  string // the name NoCalls gave a run that makes no call
	storing  int    // calls whose reply is to be stored (Storing), not yet stored
	stored   []chan struct{}
}

// WithFinish returns a copy of parent that carries a finish request, and the function that makes
// it. That function reports how many calls were in flight at that moment; calling it again does
// nothing more.
func WithFinish(parent context.Context) (context.Context, func() int) {
	s := &state{}
	s.finish, s.ask = context.WithCancel(context.Background())
	finish := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.asked = true
		s.ask()
		return s.inFlight
	}
	return context.WithValue(parent, key{}, s), finish
}

func from(ctx context.Context) *state {
	s, _ := ctx.Value(key{}).(*state)
	return s
}

// Asked reports whether the run of ctx was asked to finish.
func Asked(ctx context.Context) bool {
	s := from(ctx)
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked
}

// NoCalls declares that the run of ctx makes no model call and has no records left to write
// once interrupted: qa-judge agree and a dry run, which asked to finish stop as a cancelled run
// does (see Err), and qa-predict's extractive baseline, qa-judge's rules and qa-score without
// embedding metrics when they read files alone, so that no stage before them has records left
// to pass on. The command layer then takes the first signal for the cancellation it is, as for a
// command that never calls a model (it cancels the run), and names the run prog ("qa-judge
// agree") in what it says.
func NoCalls(ctx context.Context, prog string) {
	if s := from(ctx); s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.noCalls = prog
	}
}

// NoCallsName returns the name NoCalls gave the run of ctx, and whether it declared itself so.
func NoCallsName(ctx context.Context) (prog string, ok bool) {
	s := from(ctx)
	if s == nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.noCalls, s.noCalls != ""
}

// Err returns ctx's error, or else ErrInterrupted once the run was asked to finish: work that
// makes no model call, such as a dry run, stops at the first signal as it would if cancelled.
func Err(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if Asked(ctx) {
		return ErrInterrupted
	}
	return nil
}

// Waiting returns a context derived from ctx that is also done once the run is asked to finish:
// a wait for a rate limit or before a retry uses it, so finishing does not sit out a wait for a
// call it will not make. Call cancel when the wait is over.
func Waiting(ctx context.Context) (wait context.Context, cancel context.CancelFunc) {
	wait, cancelWait := context.WithCancel(ctx)
	s := from(ctx)
	if s == nil {
		return wait, cancelWait
	}
	stop := context.AfterFunc(s.finish, cancelWait)
	return wait, func() {
		stop()
		cancelWait()
	}
}

// Begin admits a call about to be made and counts it in flight until end is called, or, once
// the run is asked to finish, refuses it (ok false, and end does nothing). It is the one place
// where a finishing run stops making calls.
func Begin(ctx context.Context) (end func(), ok bool) {
	s := from(ctx)
	if s == nil {
		return func() {}, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.asked {
		return func() {}, false
	}
	s.inFlight++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.inFlight--
			s.mu.Unlock()
		})
	}, true
}

// Storing counts a call whose reply is kept once it comes (a --cache stores it), from before the
// call is made until done is called, once its reply is stored or it failed. A run that can no
// longer write its output so still waits for those replies (Stored) and for no other work:
// without a cache nothing is counted, and there is nothing to wait for.
func Storing(ctx context.Context) (done func()) {
	s := from(ctx)
	if s == nil {
		return func() {}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.storing++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.storing--; s.storing == 0 {
				for _, c := range s.stored {
					close(c)
				}
				s.stored = nil
			}
		})
	}
}

// Stored returns a channel that is closed once no call Storing counts is under way in the run of
// ctx: at once when none is. Once the run was asked to finish no new call is made: a count taken
// from then on (a look at the cache) ends without a call, so a run that has seen the channel
// closed may end.
func Stored(ctx context.Context) <-chan struct{} {
	c := make(chan struct{})
	s := from(ctx)
	if s == nil {
		close(c)
		return c
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.storing == 0 {
		close(c)
	} else {
		s.stored = append(s.stored, c)
	}
	return c
}
