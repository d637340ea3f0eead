package model

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRPMCountsSendAfterGate: a retry that waits at the adaptive gate (lowered by a 429) for a
// call in flight is counted by --rpm when it goes out, not when it began to wait, so that no
// minute of requests sent holds more than the limit.
func TestRPMCountsSendAfterGate(t *testing.T) {
	var mu sync.Mutex
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	sleep := func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		now = now.Add(d)
		mu.Unlock()
		return ctx.Err()
	}
	var sent []time.Duration
	slowIn, slowOut := make(chan struct{}), make(chan struct{})
	throttled := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent = append(sent, now.Sub(t0))
		first := !throttled && r.Header.Get("X-Call") == "a"
		throttled = throttled || first
		mu.Unlock()
		switch {
		case r.Header.Get("X-Call") == "slow":
			close(slowIn)
			<-slowOut
		case first:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	tr := NewTransport(TransportConfig{MaxRetries: 3, Concurrency: 2, RPM: 3, Seed: 1, Sleep: sleep})
	tr.rpm.now = clock
	c := tr.Client()
	call := func(name string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
		req.Header.Set("X-Call", name)
		resp, err := c.Do(req)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		resp.Body.Close()
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); call("slow") }()
	<-slowIn
	go func() { defer wg.Done(); call("a") }() // 429, then its retry waits at the gate
	for tr.Concurrency() != 1 || clock().Sub(t0) < time.Second {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the retry is waiting at the gate
	mu.Lock()
	now = t0.Add(50 * time.Second)
	mu.Unlock()
	close(slowOut)
	wg.Wait()
	for _, name := range []string{"c", "d", "e"} {
		call(name)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, at := range sent {
		n := 0
		for _, b := range sent {
			if b >= at && b < at+time.Minute {
				n++
			}
		}
		if n > 3 {
			t.Fatalf("requests sent at %v: %d in the minute from %v, want at most 3 (--rpm 3)", sent, n, sent[i])
		}
	}
}
