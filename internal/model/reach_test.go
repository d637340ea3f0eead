package model

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
)

// generateAll makes n calls through c, at most par at a time, and returns their errors.
func generateAll(c Client, n, par int) []error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				_, errs[i] = c.Generate(context.Background(), testRequest("openai", "gpt-4o-mini"))
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

func TestTransportStopsCallingUnreachedServer(t *testing.T) {
	const calls, par, retries = 50, 4, 2
	var s sleeps
	tr := NewTransport(TransportConfig{MaxRetries: retries, Backoff: time.Millisecond, Seed: 1, Sleep: s.sleep, Concurrency: par})
	base := clitest.ClosedURL(t)
	c, err := Setup{Provider: "openai", BaseURL: base + "/v1", APIKey: testKey, Transport: tr}.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	errs := generateAll(c, calls, par)
	limit := reachLimit(par)
	// The calls in flight when the limit is hit finish too: at most par-1 more than it.
	if got, lo, hi := tr.Requests(), int64(limit*(retries+1)), int64((limit+par-1)*(retries+1)); got < lo || got > hi {
		t.Errorf("attempts = %d, want between %d and %d (%d calls in a row of %d attempts, and those in flight)", got, lo, hi, limit, retries+1)
	}
	unreached := 0
	for i, err := range errs {
		var ue *UnreachedError
		switch {
		case err == nil:
			t.Fatalf("call %d succeeded against a closed port", i)
		case errors.As(err, &ue):
			unreached++
			if want := "openai gpt-4o-mini: not called: server " + base + " was never reached (first error: dial tcp "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("call %d: error = %q, want it to begin %q", i, err, want)
			}
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("call %d: error %q does not unwrap to ECONNREFUSED", i, err)
			}
		}
	}
	if lo := calls - (limit + par - 1); unreached < lo || unreached > calls-limit {
		t.Errorf("calls not made = %d, want between %d and %d", unreached, lo, calls-limit)
	}
	if tr.Unreached() == nil {
		t.Errorf("Unreached() = nil after the server was never reached")
	}
}

func TestTransportKeepsCallingServerThatAnswered(t *testing.T) {
	const calls, retries = 30, 2
	var s sleeps
	tr := NewTransport(TransportConfig{MaxRetries: retries, Backoff: time.Millisecond, Seed: 1, Sleep: s.sleep, Concurrency: 1})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`)
	}))
	c, err := Setup{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey, Transport: tr}.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), testRequest("openai", "gpt-4o-mini")); err != nil {
		t.Fatalf("first call: %v", err)
	}
	srv.Close()
	for i, err := range generateAll(c, calls, 1) {
		var ue *UnreachedError
		if err == nil || errors.As(err, &ue) {
			t.Fatalf("call %d after the server went away: error = %v, want a failed call", i, err)
		}
	}
	if got, want := tr.Requests(), int64(1+calls*(retries+1)); got != want {
		t.Errorf("attempts = %d, want %d (every call retried)", got, want)
	}
	if err := tr.Unreached(); err != nil {
		t.Errorf("Unreached() = %v, want nil once the server has answered", err)
	}
}

func TestIsUnreached(t *testing.T) {
	op := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"refused", op(syscall.ECONNREFUSED), true},
		{"network unreachable", op(syscall.ENETUNREACH), true},
		{"host unreachable", op(syscall.EHOSTUNREACH), true},
		{"no such host", op(&net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}), true},
		{"dns timeout", op(&net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true}), false},
		{"deadline", context.DeadlineExceeded, false},
		{"reset", op(syscall.ECONNRESET), false},
		{"tls", errors.New("tls: failed to verify certificate"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isUnreached(tt.err); got != tt.want {
				t.Errorf("isUnreached(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// TestUnreachedErrorMarker: a record keeps only an error's text, so the commands know a call not
// made by the words NotCalledUnreached begins; every UnreachedError, as a CallError, holds them.
func TestUnreachedErrorMarker(t *testing.T) {
	err := &CallError{Err: fmt.Errorf("openai m: %w", &UnreachedError{Base: "http://127.0.0.1:1", First: syscall.ECONNREFUSED})}
	if want := ": " + NotCalledUnreached + " "; !strings.Contains(err.Error(), want) {
		t.Errorf("%q does not hold %q", err, want)
	}
}
