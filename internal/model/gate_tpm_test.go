package model

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestTPMCountsSendAfterGate: a call that waits at the gate for another in flight is counted by
// --tpm when its request goes out, not when it began to wait, so that no minute of requests sent
// holds more tokens than the limit. Each call takes est tokens (its estimate, and its usage); the
// limit admits two calls a minute, not three.
func TestTPMCountsSendAfterGate(t *testing.T) {
	req := testRequest("openai", "m")
	est := EstimateTokens(req) + req.MaxTokens
	clock := newFakeClock()
	firstIn, firstOut := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if clock.Send() == 0 {
			close(firstIn)
			<-firstOut
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, parisOf(est))
	}))
	defer srv.Close()
	tr := NewTransport(TransportConfig{MaxRetries: -1, Concurrency: 1, Seed: 1, Sleep: clock.Sleep})
	tpm := NewLimiter(2.5*float64(est), clock.Sleep)
	tpm.now = clock.Now
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client(), TPM: tpm})
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string) {
		if _, err := c.Generate(context.Background(), req); err != nil {
			t.Errorf("call %s: %v", name, err)
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); call("a") }() // held by the server
	<-firstIn
	go func() { defer wg.Done(); call("b") }() // waits at the gate
	time.Sleep(50 * time.Millisecond)
	clock.Set(50 * time.Second)
	close(firstOut)
	wg.Wait()
	call("c")
	call("d")
	if n := clock.requests(); n != 4 {
		t.Fatalf("%d requests sent, want 4", n)
	}
	clock.checkMinutes(t, 2, fmt.Sprintf("calls of %d tokens, --tpm %v", est, 2.5*float64(est)))
}

// TestWaitAllOneStart: a request and its tokens are reserved at one start, the later of the two
// limits' earliest, whichever holds it back; every limiter gets that start.
func TestWaitAllOneStart(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		reqs, toks []time.Duration // earlier reservations' starts: a request, 40 tokens
		want       time.Duration
	}{
		{"neither holds back", nil, nil, 0},
		{"the requests hold back", []time.Duration{0}, nil, time.Minute},
		{"the tokens hold back", nil, []time.Duration{0, 10 * time.Second}, time.Minute},
		// The requests' minute ends at 60s, when the tokens' window still holds 80: past the
		// first 40, at 90s.
		{"both hold back", []time.Duration{0}, []time.Duration{30 * time.Second, 50 * time.Second}, 90 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s sleeps
			rpm, tpm := NewLimiter(2, s.sleep), NewLimiter(100, s.sleep)
			rpm.now = func() time.Time { return t0 }
			for _, d := range tc.reqs {
				rpm.slots = append(rpm.slots, &Slot{l: rpm, at: t0.Add(d), n: 1})
			}
			for _, d := range tc.toks {
				tpm.slots = append(tpm.slots, &Slot{l: tpm, at: t0.Add(d), n: 40})
			}
			if len(tc.reqs) == 1 {
				rpm.limit = 1
			}
			slots, err := waitAll(context.Background(), claim{rpm, 1}, claim{tpm, 30})
			if err != nil {
				t.Fatal(err)
			}
			for i, sl := range slots {
				if got := sl.at.Sub(t0); got != tc.want {
					t.Errorf("slot %d starts at %v, want %v", i, got, tc.want)
				}
			}
			if got := s.d[len(s.d)-1]; got != tc.want {
				t.Errorf("waited %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTPMRetryReservedWhenSent: a retry reserves the call's tokens again when it is sent, the
// failed attempt's reservation given back, so that the window holds the call once, at the time
// its answered attempt went out.
func TestTPMRetryReservedWhenSent(t *testing.T) {
	req := testRequest("openai", "m")
	est := EstimateTokens(req) + req.MaxTokens
	clock := newFakeClock()
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			w.Header().Set("Retry-After", "90")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, parisOf(est))
	}))
	defer srv.Close()
	c, tpm := tpmClient(t, srv.URL, clock)
	if _, err := c.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := tpm.held(clock.t0.Add(30 * time.Second)); got != 0 {
		t.Errorf("the minute of the failed attempt holds %v tokens, want 0 (given back)", got)
	}
	if got := tpm.held(clock.t0.Add(90 * time.Second)); got != float64(est) {
		t.Errorf("the minute of the retry holds %v tokens, want %d", got, est)
	}
}

// parisOf is an OpenAI chat completion answering Paris that took est tokens.
func parisOf(est int) string {
	return fmt.Sprintf(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":1,"total_tokens":%d}}`, est-1, est)
}
