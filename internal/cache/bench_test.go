package cache

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/model"
)

// BenchmarkClientNewReplies measures what the cache adds to a call whose reply is new: the look
// that misses, the claim, the store and the claim let go, eight calls at a time against a
// loopback server that answers at once. calls/s is the rate of such calls.
func BenchmarkClientNewReplies(b *testing.B) {
	srv := newChatServer(b, func(_ int64, q string) (int, string) { return 200, echo(q) })
	c, err := Open(b.TempDir() + "/c.db")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	next, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: srv.url, APIKey: "sk-test-0123456789",
		HTTPClient: model.NewTransport(model.TransportConfig{MaxRetries: -1}).Client()})
	if err != nil {
		b.Fatal(err)
	}
	cl := c.Wrap(next)
	var n atomic.Int64
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				q := fmt.Sprintf("q%d", n.Add(1))
				if _, err := cl.Generate(context.Background(), srv.request(q)); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(8*b.N)/b.Elapsed().Seconds(), "calls/s")
}
