package predict

import (
	"context"
	"io"
	"strings"
	"testing"
)

// BenchmarkSequential solves the two transcript sequences (14 records, 28 calls) over the loopback
// replay server per iteration: the cost of prompt building, history, judging and the HTTP round trips.
func BenchmarkSequential(b *testing.B) {
	srv := newReplayServer(b, loadTranscript(b))
	in := seqInput(b)
	args := append([]string{"qa-predict"}, seqArgs(b, srv.URL, "--concurrency", "2")...)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if err := Run(context.Background(), args, strings.NewReader(in), io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
		n += 14
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}
