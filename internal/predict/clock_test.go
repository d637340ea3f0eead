package predict

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qapipe/qapipe/pkg/record"
)

// stepClock is a clock that moves on by step each time it is read.
type stepClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// TestLatencyFromClock: latency_ms is the time the injected clock gives from before a call to after
// it, retries included, on an answer and on a reply that was paid for but is no answer; a call that
// got no reply, and an answer served from the cache, have none.
func TestLatencyFromClock(t *testing.T) {
	srv := faultServer(t)
	db := t.TempDir() + "/cache.db"
	args := []string{"qa-predict", "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL,
		"--api-key-file", keyFile(t), "--concurrency", "1", "--backoff", "1ms", "--cache", db}
	in := input(4, map[int]string{1: "429", 2: "empty", 3: "400"})
	runWith := func(step time.Duration, wantErr bool) []*record.Record {
		t.Helper()
		var stdout bytes.Buffer
		clock := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), step: step}
		a := &app{stdin: strings.NewReader(in), stdout: &stdout, stderr: io.Discard, now: clock.now}
		if err := a.execute(context.Background(), args); (err != nil) != wantErr {
			t.Fatalf("run: %v, want an error %v", err, wantErr)
		}
		return readRecords(t, stdout.Bytes())
	}
	first := runWith(1250*time.Millisecond, true)
	want := []int64{1250, 1250, 1250, 0} // answered, answered after a 429, paid for but empty, 400
	if len(first) != len(want) {
		t.Fatalf("%d records back, want %d", len(first), len(want))
	}
	for i, r := range first {
		if p := r.Prediction; p == nil || p.LatencyMS != want[i] {
			t.Errorf("%s: prediction %+v, want latency_ms %d", r.ID, p, want[i])
		}
	}
	// The server answers the failed questions now: the answered two come from the cache, the
	// others are called again.
	for i, r := range runWith(time.Second, false) {
		want := map[bool]int64{true: 0, false: 1000}[i < 2]
		if p := r.Prediction; p.Cached != (i < 2) || p.LatencyMS != want {
			t.Errorf("%s, second run: cached %v, latency_ms %d; want cached %v, latency_ms %d", r.ID, p.Cached, p.LatencyMS, i < 2, want)
		}
	}
}
