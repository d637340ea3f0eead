// Package pipeline is the ordered, bounded, concurrent map over a record stream that qa-predict
// and qa-judge share. (qa-score streams its records through a window of its own, older than this
// package, and the embedding metrics fetch their batches under an errgroup limit.)
//
// Map reads items from a push-style source, runs the work function on at most n of them at a time
// (errgroup.WithContext + SetLimit), and hands results to the sink in input order. A window of n
// slots bounds everything at once: an item takes a slot before its work starts and gives it back
// only after the sink has taken its result, so at most n items are in flight or waiting to be
// reordered, and memory stays bounded however long the stream. Every channel send selects on the
// context, so cancellation never leaves a goroutine blocked.
//
// A source error stops the reading; the items read before it are finished and passed to the sink in
// order, and Map then returns the error. On cancellation Map stops reading, lets the sink take
// every result that completed in order before the first unfinished one (so a rerun resumes from a
// clean prefix), and returns the context's error.
// A run asked to finish (package interrupt) is not cancelled: Map reads on, passes every result to
// the sink and then returns interrupt.ErrInterrupted. Making no new model call is the work
// function's part (and the model transport's, which refuses them).
//
// Note: a pool of n long-lived workers fed by a channel was rejected: it needs its own reorder
// buffer bound and shutdown protocol, which the slot window gives for free.
package pipeline

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"

	"github.com/qapipe/qapipe/internal/interrupt"
)

// Options configure Map.
type Options struct {
	// Concurrency is the most items in flight (and the reorder window); below 1 means 1.
	Concurrency int
	// Started, if set, is called from the reading goroutine as each item is accepted.
	Started func()
	// Finished, if set, is called from worker goroutines, concurrently, as each item's work
	// returns; err is the work function's error.
	Finished func(err error)
}

// Source pushes items to yield in order until it runs out or yield returns an error, which it
// returns. (command.Source.Each has this shape.)
type Source[T any] func(yield func(T) error) error

type slot[Out any] struct {
	done chan struct{}
	out  Out
	err  error
}

// Map applies work to every item of src with at most opts.Concurrency calls in flight and passes
// the results to sink in input order. It returns the first error of src, work or sink; a work error
// is fatal, so per-item failures that should not stop the run belong in Out. When ctx is
// cancelled, completed results before the first unfinished item are still passed to sink and Map
// returns ctx.Err(); when the run was asked to finish, it returns interrupt.ErrInterrupted after
// passing every result.
func Map[In, Out any](ctx context.Context, opts Options, src Source[In], work func(context.Context, In) (Out, error), sink func(Out) error) error {
	n := max(opts.Concurrency, 1)
	stop, cancel := context.WithCancel(ctx) // a sink error stops the reader and workers too
	defer cancel()
	g, gctx := errgroup.WithContext(stop)
	g.SetLimit(n + 1) // n workers plus the reader
	window := make(chan struct{}, n)
	order := make(chan *slot[Out], n)
	m := &mapper[In, Out]{g: g, gctx: gctx, opts: opts, window: window, order: order, work: work}

	var srcErr error // the source's own failure, returned once the items it gave are done
	g.Go(func() error {
		defer close(order)
		err := src(m.start)
		if err != nil && gctx.Err() == nil {
			// A source that fails (a bad line under --strict, an unreadable input) stops the
			// reading, not the work: the items it gave are finished and passed on, as the records
			// before the bad line are written (and their calls, perhaps paid for, not dropped).
			srcErr = err
			return nil
		}
		return err
	})

	sinkErr := drain(gctx, order, window, sink)
	if sinkErr != nil {
		cancel()
		for range order { // let the reader finish
		}
	}
	err := g.Wait()
	return mapErr(ctx, err, sinkErr, srcErr)
}

// mapper is what Map's reader shares with the workers it starts: the errgroup and its context,
// the window of slots, the slots in input order, and the work.
type mapper[In, Out any] struct {
	g      *errgroup.Group
	gctx   context.Context
	opts   Options
	window chan struct{}
	order  chan *slot[Out]
	work   func(context.Context, In) (Out, error)
}

// start is the source's yield: it takes a slot in the window for item, queues the slot in input
// order and starts item's work, or returns gctx's error when the run stops first.
func (m *mapper[In, Out]) start(item In) error {
	select { // take a slot in the window
	case m.window <- struct{}{}:
	case <-m.gctx.Done():
		return m.gctx.Err()
	}
	s := &slot[Out]{done: make(chan struct{})}
	select {
	case m.order <- s:
	case <-m.gctx.Done():
		<-m.window
		return m.gctx.Err()
	}
	if m.opts.Started != nil {
		m.opts.Started()
	}
	m.g.Go(func() error {
		defer close(s.done)
		s.out, s.err = m.work(m.gctx, item)
		if m.opts.Finished != nil {
			m.opts.Finished(s.err)
		}
		return s.err
	})
	return nil
}

// mapErr is Map's error, given the errgroup's (err), the sink's and the source's own: a sink's
// own failure first, then ctx's, the work's or reader's, a sink's that is a context error, the
// source's, and last interrupt.ErrInterrupted when the run was asked to finish.
func mapErr(ctx context.Context, err, sinkErr, srcErr error) error {
	switch {
	case sinkErr != nil && !isCtxErr(sinkErr):
		return sinkErr
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return err
	case sinkErr != nil:
		return sinkErr
	case srcErr != nil:
		return srcErr
	case interrupt.Asked(ctx):
		return interrupt.ErrInterrupted
	}
	return nil
}

// drain passes finished results to sink in order. After cancellation it keeps passing results that
// finished without error, stopping at the first that did not.
func drain[Out any](ctx context.Context, order <-chan *slot[Out], window <-chan struct{}, sink func(Out) error) error {
	for s := range order {
		select {
		case <-s.done:
		case <-ctx.Done():
			<-s.done // workers see the same cancellation and return promptly
		}
		if s.err != nil {
			return s.err
		}
		if err := sink(s.out); err != nil {
			return err
		}
		<-window
	}
	return nil
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
