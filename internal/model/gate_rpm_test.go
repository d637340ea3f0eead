package model

import (
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
	clock := newFakeClock()
	var mu sync.Mutex
	slowIn, slowOut := make(chan struct{}), make(chan struct{})
	throttled := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		clock.Send()
		mu.Lock()
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
	tr := NewTransport(TransportConfig{MaxRetries: 3, Concurrency: 2, RPM: 3, Seed: 1, Sleep: clock.Sleep})
	tr.rpm.now = clock.Now
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
	for deadline := time.Now().Add(30 * time.Second); tr.Concurrency() != 1 || clock.Now().Sub(clock.t0) < time.Second; {
		if time.Now().After(deadline) { // a 429 that no longer lowers the gate would hang here
			close(slowOut) // so that the server can close
			t.Fatalf("after a 429: concurrency %d, clock at %v; want 1, past 1s", tr.Concurrency(), clock.Now().Sub(clock.t0))
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the retry is waiting at the gate
	clock.Set(50 * time.Second)
	close(slowOut)
	wg.Wait()
	for _, name := range []string{"c", "d", "e"} {
		call(name)
	}
	clock.checkMinutes(t, 3, "--rpm 3")
}
