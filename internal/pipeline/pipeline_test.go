package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/interrupt"
)

func ints(n int) Source[int] {
	return func(yield func(int) error) error {
		for i := range n {
			if err := yield(i); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestMapKeepsOrderAndBound(t *testing.T) {
	for _, conc := range []int{1, 3, 16} {
		t.Run(fmt.Sprint(conc), func(t *testing.T) {
			var inflight, peak, started, finished atomic.Int64
			var got []int
			opts := Options{Concurrency: conc,
				Started:  func() { started.Add(1) },
				Finished: func(error) { finished.Add(1) },
			}
			rnd := rand.New(rand.NewPCG(1, uint64(conc)))
			delays := make([]time.Duration, 200)
			for i := range delays {
				delays[i] = time.Duration(rnd.IntN(300)) * time.Microsecond
			}
			err := Map(context.Background(), opts, ints(200), func(_ context.Context, i int) (int, error) {
				raise(&peak, inflight.Add(1))
				time.Sleep(delays[i])
				inflight.Add(-1)
				return i * 10, nil
			}, func(v int) error {
				got = append(got, v)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 200 {
				t.Fatalf("got %d results, want 200", len(got))
			}
			for i, v := range got {
				if v != i*10 {
					t.Fatalf("result %d = %d, want %d", i, v, i*10)
				}
			}
			if p := peak.Load(); p > int64(conc) {
				t.Errorf("peak in flight = %d, want ≤ %d", p, conc)
			}
			if started.Load() != 200 || finished.Load() != 200 {
				t.Errorf("hooks: started %d, finished %d, want 200 each", started.Load(), finished.Load())
			}
		})
	}
}

func TestMapWindowBoundsReorder(t *testing.T) {
	// Item 0 is slow; the others are instant. No more items than the window may have been accepted
	// before item 0 is emitted.
	tests := []struct{ conc, window, want int }{
		{4, 0, 4 * WindowPerCall},
		{4, 6, 6},
		{4, 4, 4},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("conc=%d,window=%d", tt.conc, tt.window), func(t *testing.T) {
			var accepted atomic.Int64
			release := make(chan struct{})
			var acceptedAtFirst int64 = -1
			err := Map(context.Background(), Options{Concurrency: tt.conc, Window: tt.window, Started: func() {
				if accepted.Add(1) == int64(tt.want) {
					go func() { time.Sleep(5 * time.Millisecond); close(release) }()
				}
			}}, ints(50), func(_ context.Context, i int) (int, error) {
				if i == 0 {
					<-release
				}
				return i, nil
			}, func(v int) error {
				if v == 0 {
					acceptedAtFirst = accepted.Load()
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if acceptedAtFirst != int64(tt.want) {
				t.Errorf("items accepted when item 0 was emitted = %d, want %d", acceptedAtFirst, tt.want)
			}
		})
	}
}

func TestMapWorkErrorStops(t *testing.T) {
	boom := errors.New("boom")
	var n int
	err := Map(context.Background(), Options{Concurrency: 3}, ints(100), func(_ context.Context, i int) (int, error) {
		if i == 10 {
			return 0, boom
		}
		return i, nil
	}, func(int) error { n++; return nil })
	if !errors.Is(err, boom) {
		t.Fatalf("Map = %v, want boom", err)
	}
	if n > 10 {
		t.Errorf("sink got %d results, want ≤ 10 (none past the failure)", n)
	}
}

// TestMapSourceErrorFinishesItemsRead: a source that fails (a bad line under --strict, an input
// that cannot be read) stops the reading, but the items it gave before are finished, not
// cancelled, and reach the sink in order; then Map returns the source's error.
func TestMapSourceErrorFinishesItemsRead(t *testing.T) {
	bad := errors.New("bad line")
	src := func(yield func(int) error) error {
		for i := range 5 {
			if err := yield(i); err != nil {
				return err
			}
		}
		return bad
	}
	var got []int
	err := Map(context.Background(), Options{Concurrency: 8}, src, func(ctx context.Context, i int) (int, error) {
		time.Sleep(20 * time.Millisecond) // still at work when the source fails
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return i, nil
	}, func(v int) error { got = append(got, v); return nil })
	if !errors.Is(err, bad) {
		t.Fatalf("Map = %v, want %v", err, bad)
	}
	if fmt.Sprint(got) != "[0 1 2 3 4]" {
		t.Errorf("sink got %v, want the 5 items read before the error, in order", got)
	}
}

func TestMapSinkErrorStops(t *testing.T) {
	bad := errors.New("disk full")
	err := Map(context.Background(), Options{Concurrency: 2}, ints(1000), func(_ context.Context, i int) (int, error) {
		return i, nil
	}, func(v int) error {
		if v == 5 {
			return bad
		}
		return nil
	})
	if !errors.Is(err, bad) {
		t.Fatalf("Map = %v, want %v", err, bad)
	}
}

func TestMapCancelFlushesCompletedPrefix(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var got []int
	err := Map(ctx, Options{Concurrency: 4}, ints(1000), func(ctx context.Context, i int) (int, error) {
		if i == 20 {
			cancel()
		}
		if i >= 20 {
			<-ctx.Done()
			return 0, ctx.Err()
		}
		return i, nil
	}, func(v int) error { got = append(got, v); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Map = %v, want context.Canceled", err)
	}
	if len(got) != 20 {
		t.Errorf("flushed %d results, want the 20 completed before the cancel", len(got))
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("result %d = %d, want %d", i, v, i)
		}
	}
}

// TestMapFinish: a run asked to finish is not cancelled: every item, those read after the request
// too, goes through work and to the sink in order, and Map then says interrupted.
func TestMapFinish(t *testing.T) {
	ctx, finish := interrupt.WithFinish(context.Background())
	var got []int
	var asked atomic.Int64 // items whose work saw the request
	err := Map(ctx, Options{Concurrency: 4}, ints(100), func(ctx context.Context, i int) (int, error) {
		if i == 20 {
			finish()
		}
		if interrupt.Asked(ctx) {
			asked.Add(1)
		}
		return i, ctx.Err()
	}, func(v int) error { got = append(got, v); return nil })
	if !errors.Is(err, interrupt.ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Errorf("Map = %v, want interrupt.ErrInterrupted", err)
	}
	if len(got) != 100 {
		t.Fatalf("sink got %d results, want all 100", len(got))
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("result %d = %d, want %d", i, v, i)
		}
	}
	if n, read := asked.Load(), int64(100-20-4*WindowPerCall); n < read { // the window may be full
		t.Errorf("%d items saw the request, want at least the %d read after it", n, read)
	}
}

func BenchmarkMap(b *testing.B) {
	b.ReportAllocs()
	const n = 1000
	for b.Loop() {
		err := Map(context.Background(), Options{Concurrency: 8}, ints(n), func(_ context.Context, i int) (int, error) {
			return i, nil
		}, func(int) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
}

// deadlineCtx reports its cancellation as a passed deadline, so a test can end a run by deadline
// at a point of its choosing.
type deadlineCtx struct{ context.Context }

func (c deadlineCtx) Err() error {
	if c.Context.Err() != nil {
		return context.DeadlineExceeded
	}
	return nil
}

// TestMapCancelReturnsCtxErr: a cancelled run or one past its deadline returns ctx.Err() itself,
// not the error a work call wrapped around the same cause, whichever of the sink and the workers saw the
// cancellation first.
func TestMapCancelReturnsCtxErr(t *testing.T) {
	tests := []struct {
		name string
		wrap func(context.Context) context.Context
		want error
	}{
		{"cancelled", func(ctx context.Context) context.Context { return ctx }, context.Canceled},
		{"deadline", func(ctx context.Context) context.Context { return deadlineCtx{ctx} }, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		for _, conc := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, conc), func(t *testing.T) {
				base, cancel := context.WithCancel(context.Background())
				ctx := tt.wrap(base)
				err := Map(ctx, Options{Concurrency: conc}, ints(100), func(ctx context.Context, i int) (int, error) {
					if i == 3 {
						cancel()
					}
					if i >= 3 {
						<-ctx.Done()
						return 0, fmt.Errorf("item %d: %w", i, tt.want)
					}
					return i, nil
				}, func(int) error { return nil })
				if err != tt.want {
					t.Errorf("Map = %v, want ctx.Err() = %v itself", err, tt.want)
				}
			})
		}
	}
}

// TestMapFinishedSeesWorkError: the Finished hook is given each work call's own error.
func TestMapFinishedSeesWorkError(t *testing.T) {
	bad := errors.New("model refused")
	var got atomic.Value
	opts := Options{Concurrency: 1, Finished: func(err error) {
		if err != nil {
			got.Store(err)
		}
	}}
	err := Map(context.Background(), opts, ints(1), func(context.Context, int) (int, error) {
		return 0, bad
	}, func(int) error { return nil })
	if !errors.Is(err, bad) {
		t.Errorf("Map = %v, want %v", err, bad)
	}
	if e, _ := got.Load().(error); e != bad {
		t.Errorf("Finished saw %v, want %v", e, bad)
	}
}

// TestMapSlotHeldThroughSink: an item gives its window slot back only once the sink has taken
// its result, so a slow sink holds the reading to the window too.
func TestMapSlotHeldThroughSink(t *testing.T) {
	var accepted atomic.Int64
	release := make(chan struct{})
	var atSink int64 = -1
	err := Map(context.Background(), Options{Concurrency: 2, Window: 4, Started: func() {
		if accepted.Add(1) == 4 {
			close(release)
		}
	}}, ints(50), func(_ context.Context, i int) (int, error) {
		if i == 0 {
			<-release // the window is full before item 0 is done
		}
		return i, nil
	}, func(v int) error {
		if v == 0 {
			time.Sleep(5 * time.Millisecond) // time for the reader to take a slot were one free
			atSink = accepted.Load()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if atSink != 4 {
		t.Errorf("items accepted while the sink held item 0 = %d, want 4", atSink)
	}
}

// raise sets peak to n when n is more: the most calls in flight at once, kept by calls that run
// concurrently.
func raise(peak *atomic.Int64, n int64) {
	for {
		p := peak.Load()
		if n <= p || peak.CompareAndSwap(p, n) {
			return
		}
	}
}
