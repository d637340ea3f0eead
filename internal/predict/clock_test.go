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

// TestLatencyOfCachedFailure: a reply that is no answer but that the cache keeps (one cut in its
// thinking, which the same max_tokens would cut again) has the latency of its call when asked, and
// none when the cache serves it, as an answer served from there has none.
func TestLatencyOfCachedFailure(t *testing.T) {
	srv := faultServer(t)
	args := []string{"qa-predict", "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL,
		"--api-key-file", keyFile(t), "--cache", t.TempDir() + "/cache.db"}
	for i, want := range []struct {
		cached  bool
		latency int64
	}{{false, 1250}, {true, 0}} {
		var stdout bytes.Buffer
		clock := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), step: 1250 * time.Millisecond}
		a := &app{stdin: strings.NewReader(input(1, map[int]string{0: "thinkcut"})), stdout: &stdout, stderr: io.Discard, now: clock.now}
		if err := a.execute(context.Background(), args); err == nil {
			t.Fatalf("run %d: no error, want exit 3 for the cut reply", i+1)
		}
		recs := readRecords(t, stdout.Bytes())
		if len(recs) != 1 {
			t.Fatalf("run %d: %d records, want 1", i+1, len(recs))
		}
		p := recs[0].Prediction
		if !strings.Contains(p.Error, "reply cut in its thinking") || p.Usage == nil || p.Cached != want.cached || p.LatencyMS != want.latency {
			t.Errorf("run %d: error %q, usage %v, cached %v, latency_ms %d; want the cut, with usage, cached %v, latency_ms %d",
				i+1, p.Error, p.Usage, p.Cached, p.LatencyMS, want.cached, want.latency)
		}
	}
	if n := srv.calls.Load(); n != 1 {
		t.Errorf("the server saw %d calls over two runs, want 1: the cache serves the second", n)
	}
}
