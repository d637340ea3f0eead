package embedding

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The tests here configure the Scorer's own transport (no Config.HTTPClient): what the
// --embed-max-retries, --embed-timeout and --embed-concurrency flags set must reach it.

// TestScorerRetries: MaxRetries is how many times NewScorer's transport retries a transient
// failure, so a server that answers every call 503 sees 1 + MaxRetries requests.
func TestScorerRetries(t *testing.T) {
	for _, retries := range []int{0, 2} {
		var calls atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.Header().Set("Retry-After-Ms", "1") // no backoff of seconds between the attempts
			http.Error(w, `{"error":"overloaded"}`, http.StatusServiceUnavailable)
		}))
		t.Cleanup(srv.Close)
		s, err := NewScorer(Config{Provider: TEI, Model: "m", BaseURL: srv.URL, MaxRetries: retries})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{}}); err == nil {
			t.Errorf("MaxRetries %d: SBERT against a server answering 503 = nil error", retries)
		}
		if got := calls.Load(); got != int64(1+retries) {
			t.Errorf("MaxRetries %d: the server saw %d requests, want %d", retries, got, 1+retries)
		}
	}
}

// TestScorerTimeout: Timeout bounds each attempt of NewScorer's transport: a server that holds
// the reply longer fails the call, naming --embed-timeout, rather than answering late.
func TestScorerTimeout(t *testing.T) {
	f := newFake(t)
	f.hold = func([]string) int { time.Sleep(time.Second); return 0 }
	srv := f.start()
	s, err := NewScorer(Config{Provider: TEI, Model: "m", BaseURL: srv.URL, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
	if err == nil || !strings.Contains(err.Error(), "--embed-timeout 50ms") {
		t.Errorf("SBERT with Timeout 50ms against a server answering after 1s = %v, %v; want the timeout's error", got, err)
	}
}

// TestScorerConcurrency: Parallel requests are in flight at once through NewScorer's transport,
// not one at a time: each request of the fake waits until the other is in flight too.
func TestScorerConcurrency(t *testing.T) {
	f := newFake(t)
	var mu sync.Mutex
	inFlight, most := 0, 0
	both := make(chan struct{})
	f.hold = func([]string) int {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
		case <-time.After(2 * time.Second):
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return 0
	}
	srv := f.start()
	s, err := NewScorer(Config{Provider: TEI, Model: "m", BaseURL: srv.URL, Batch: 1, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}}); err != nil {
		t.Fatal(err)
	}
	if most != 2 {
		t.Errorf("at most %d requests in flight, want 2 (Parallel)", most)
	}
}

// TestBaseURLPasswordHidden: a password in the base URL is never in an error; the URL is shown
// with it masked.
func TestBaseURLPasswordHidden(t *testing.T) {
	f := newFake(t)
	f.fail = []int{400}
	srv := f.start()
	base := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1)
	s := newScorer(t, Config{Provider: TEI, Model: "m", BaseURL: base})
	_, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{}})
	masked := strings.Replace(srv.URL, "http://", "http://user:xxxxx@", 1) + "/embed: 400"
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), masked) {
		t.Errorf("SBERT error = %v, want it to name %q and not the password", err, masked)
	}
}
