package command

import (
	"context"

	"github.com/qapipe/qapipe/internal/interrupt"
)

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
	go func() { got <- f() }()
	select {
	case v := <-got:
		return v, interrupt.Err(ctx)
	case <-stop.Done():
		return zero, interrupt.Err(ctx)
	}
}
