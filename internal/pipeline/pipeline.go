// Package pipeline is the ordered, bounded, concurrent map over a record stream that qa-predict
// and qa-judge share. (qa-score streams its records through a window of its own, older than this
// package, and the embedding metrics fetch their batches under an errgroup limit.)
//
// Map reads items from a push-style source, runs the work function on at most n of them at a time
// (a semaphore of n calls), and hands results to the sink in input order. Two bounds are kept
// apart: the n calls in flight, and a window of w ≥ n items accepted and not yet taken by the sink
// (in flight, or done and waiting for an earlier one). An item takes a window slot before its work
// starts and gives it back only after the sink has taken its result, so memory stays bounded by
// the window however long the stream; a call slot it gives back as soon as its work returns, so
// one item whose work stalls (a slow generation, a server that holds the call until the timeout)
// holds the output back, but not the calls after it, until w-1 later items are done. Every
// channel send selects on the context, so cancellation never leaves a goroutine blocked.
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
// buffer bound and shutdown protocol, which the slot window gives for free. A window of n slots
// alone (the in-flight limit and the reorder buffer in one, as Map had first) stopped every call
// once the n-1 after a stalled one were done, for as long as the stalled call's timeout and
// retries took (12 minutes and more at qa-predict's defaults). The window is counted in items, not
// bytes: a result does not carry its encoded size (a record keeps no line length, and measuring it
// would mean walking or encoding it again), and WindowPerCall keeps the worst case to a small
// multiple of what the calls in flight hold anyway.
package pipeline

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"

	"github.com/qapipe/qapipe/internal/interrupt"
)

// Options configure Map.
type Options struct {
	// Concurrency is the most items in flight, their work running at once; below 1 means 1.
	Concurrency int
	// Window is the most items accepted and not yet taken by the sink: those in flight and those
	// done and waiting for an earlier one to be. 0 means WindowPerCall × Concurrency; below
	// Concurrency means Concurrency (one stalled item then stops the calls after it once
	// Concurrency-1 of them are done).
	Window int
	// Started, if set, is called from the reading goroutine as each item is accepted.
	Started func()
	// Finished, if set, is called from worker goroutines, concurrently, as each item's work
	// returns; err is the work function's error.
	Finished func(err error)
}

// WindowPerCall is the default window's multiple of Concurrency: while one item stalls,
// 3×Concurrency later items can finish (some three more calls for each of the others in flight)
// before the calls stop, and the items held at worst are 4 times those in flight, as qa-score's
// stream holds 4 × --jobs. A LongMemEval record carries its whole history (its files, 0.3–3 GB,
// hold 500 questions: 0.6–6 MB a record), so at the default --concurrency of 4 up to 16 of them
// are held, where 4 were when the window was the calls in flight.
const WindowPerCall = 4

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
	w := opts.Window
	if w == 0 {
		w = WindowPerCall * n
	}
	w = max(w, n)
	stop, cancel := context.WithCancel(ctx) // a sink error stops the reader and workers too
	defer cancel()
	g, gctx := errgroup.WithContext(stop)
	window := make(chan struct{}, w)
	order := make(chan *slot[Out], w)
	m := &mapper[In, Out]{g: g, gctx: gctx, opts: opts, calls: make(chan struct{}, n), window: window, order: order, work: work}

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
// the semaphore of calls in flight, the window of slots, the slots in input order, and the work.
type mapper[In, Out any] struct {
	g      *errgroup.Group
	gctx   context.Context
	opts   Options
	calls  chan struct{}
	window chan struct{}
	order  chan *slot[Out]
	work   func(context.Context, In) (Out, error)
}

// start is the source's yield: it takes a slot in the window and one of the calls for item,
// queues the slot in input order and starts item's work, or returns gctx's error when the run
// stops first.
func (m *mapper[In, Out]) start(item In) error {
	select { // take a slot in the window
	case m.window <- struct{}{}:
	case <-m.gctx.Done():
		return m.gctx.Err()
	}
	select { // and one of the calls in flight
	case m.calls <- struct{}{}:
	case <-m.gctx.Done():
		<-m.window
		return m.gctx.Err()
	}
	s := &slot[Out]{done: make(chan struct{})}
	select {
	case m.order <- s:
	case <-m.gctx.Done():
		<-m.calls
		<-m.window
		return m.gctx.Err()
	}
	if m.opts.Started != nil {
		m.opts.Started()
	}
	m.g.Go(func() error {
		defer close(s.done)
		s.out, s.err = m.work(m.gctx, item)
		<-m.calls // the call is over; its result keeps its window slot until the sink takes it
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
