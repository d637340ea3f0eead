package pipeline

import (
	"context"
	"testing"
	"time"
)

// BenchmarkMapLatency maps 256 items whose work takes a fixed latency L with C in flight, and
// reports the achieved items/s against the ideal C/L: the cost of the window and of reordering.
func BenchmarkMapLatency(b *testing.B) {
	const (
		latency = 20 * time.Millisecond
		conc    = 16
		n       = 256
	)
	b.ReportAllocs()
	for b.Loop() {
		err := Map(context.Background(), Options{Concurrency: conc}, ints(n), func(_ context.Context, i int) (int, error) {
			time.Sleep(latency)
			return i, nil
		}, func(int) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	achieved := float64(n*b.N) / b.Elapsed().Seconds()
	ideal := float64(conc) / latency.Seconds()
	b.ReportMetric(achieved, "items/s")
	b.ReportMetric(100*achieved/ideal, "%-of-ideal")
}
