package command

import (
	"context"
	"sync"

	"github.com/qapipe/qapipe/internal/interrupt"
)

// computing counts the work Compute has started that has not ended, left running or not.
var computing sync.WaitGroup

// WaitComputed waits until the work Compute left to end on its own has ended. The process ends
// meanwhile in a command; a test that interrupts one calls it, so that the work does not run on,
// allocating and taking a core, into the tests after it.
func WaitComputed() { computing.Wait() }

// Compute returns what f computes, or, as soon as the run of ctx is interrupted (cancelled, or
// asked to finish), interrupt.Err(ctx): f is work over what the run has read that watches no
// context (a bootstrap's resamples, which can take minutes), and a signal that comes meanwhile
// stops the run there, as one that comes between records does, rather than after f or the grace
// period. f is left to end on its own, its result unused; the process ends meanwhile.
func Compute[T any](ctx context.Context, f func() T) (T, error) {
	var zero T
	if err := interrupt.Err(ctx); err != nil {
		return zero, err
	}
	stop, cancel := interrupt.Waiting(ctx)
	defer cancel()
	got := make(chan T, 1)
	computing.Add(1)
	go func() {
		defer computing.Done()
		got <- f()
	}()
	select {
	case v := <-got:
		return v, interrupt.Err(ctx)
	case <-stop.Done():
		return zero, interrupt.Err(ctx)
	}
}
