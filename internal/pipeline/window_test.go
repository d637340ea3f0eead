package pipeline

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestMapStalledItemKeepsOthersInFlight: an item whose work stalls (a slow generation, a server
// that holds the call until --timeout) holds back the output but not the calls after it: while it
// is at work, later items keep starting and finishing, up to the reorder window, and never more
// than Concurrency are at work at once. Item 0 returns only once k later items have finished, so
// the test passes only if more than Concurrency-1 of them can finish while it is in flight.
func TestMapStalledItemKeepsOthersInFlight(t *testing.T) {
	tests := []struct {
		conc, window int
		k            int // later items that must finish while item 0 is at work
	}{
		{conc: 2, window: 0, k: 2*WindowPerCall - 1}, // the default window
		{conc: 4, window: 0, k: 4*WindowPerCall - 1},
		{conc: 16, window: 0, k: 16*WindowPerCall - 1},
		{conc: 3, window: 10, k: 9},
		{conc: 3, window: 1, k: 2}, // a window below Concurrency is Concurrency
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("conc=%d,window=%d", tt.conc, tt.window), func(t *testing.T) {
			var inflight, peak, accepted, sunk, finished atomic.Int64
			enough := make(chan struct{})
			var sinkPeak int64 // items accepted and not yet taken by the sink, at most
			opts := Options{Concurrency: tt.conc, Window: tt.window, Started: func() {
				if held := accepted.Add(1) - sunk.Load(); held > sinkPeak {
					sinkPeak = held // Started runs on the one reading goroutine
				}
			}}
			var got []int
			var timedOut atomic.Bool
			var finishedAtTimeout atomic.Int64
			err := Map(context.Background(), opts, ints(200), func(_ context.Context, i int) (int, error) {
				raise(&peak, inflight.Add(1))
				defer inflight.Add(-1)
				if i == 0 {
					select {
					case <-enough:
					case <-time.After(10 * time.Second): // only so that a failure does not hang
						finishedAtTimeout.Store(finished.Load())
						timedOut.Store(true)
					}
					return i, nil
				}
				if finished.Add(1) == int64(tt.k) {
					close(enough)
				}
				return i, nil
			}, func(v int) error {
				got = append(got, v)
				sunk.Add(1)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if timedOut.Load() {
				t.Errorf("item 0 stalled: %d later items finished while it was at work, want %d (more than Concurrency-1 = %d)",
					finishedAtTimeout.Load(), tt.k, tt.conc-1)
			}
			if p := peak.Load(); p > int64(tt.conc) {
				t.Errorf("peak in flight = %d, want ≤ %d", p, tt.conc)
			}
			window := max(tt.window, tt.conc)
			if tt.window == 0 {
				window = WindowPerCall * tt.conc
			}
			if sinkPeak > int64(window) {
				t.Errorf("items accepted and not yet written = %d at most, want ≤ the window %d", sinkPeak, window)
			}
			for i, v := range got {
				if v != i {
					t.Fatalf("result %d = %d, want %d", i, v, i)
				}
			}
			if len(got) != 200 {
				t.Errorf("got %d results, want 200", len(got))
			}
		})
	}
}
