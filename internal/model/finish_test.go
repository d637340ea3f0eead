package model

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/interrupt"
)

// TestTransportFinishing: once the run is asked to finish, no request leaves: not a first
// attempt, not one waiting for the rate limit or the token limit, not a retry (the last failure
// is the call's error). Every wait asks to finish as it begins, as a signal arriving then would.
// A call not made is worded as the apps word a record they never sent: ErrNotCalled alone.
func TestTransportFinishing(t *testing.T) {
	tests := []struct {
		name      string
		cfg       TransportConfig
		tpm       float64
		faults    []string
		calls     int    // Generate calls, one after the other
		before    bool   // finish before the first call
		requests  int    // that reach the server
		wantErr   string // of the last call
		notCalled bool   // the last call's error is interrupt.ErrNotCalled
	}{
		{name: "asked before the call", before: true, calls: 1, requests: 0, notCalled: true},
		{name: "asked during the backoff", faults: []string{"503", "503"}, cfg: TransportConfig{MaxRetries: 3}, calls: 1, requests: 1, wantErr: "503"},
		{name: "asked during a Retry-After wait", faults: []string{"429-retry-after"}, cfg: TransportConfig{MaxRetries: 3}, calls: 1, requests: 1, wantErr: "429"},
		{name: "asked waiting for the rpm limit", cfg: TransportConfig{RPM: 1}, calls: 2, requests: 1, notCalled: true},
		{name: "asked waiting for the tpm limit", tpm: 20, calls: 2, requests: 1, notCalled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, requests := faultServer(t, tt.faults...)
			ctx, finish := interrupt.WithFinish(context.Background())
			sleep := func(ctx context.Context, d time.Duration) error {
				if d > 0 {
					finish() // a signal during the wait
					<-ctx.Done()
				}
				return ctx.Err()
			}
			cfg := tt.cfg
			cfg.Sleep, cfg.Seed = sleep, 1
			var tpm *Limiter
			if tt.tpm > 0 {
				tpm = NewLimiter(tt.tpm, sleep)
			}
			c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: NewTransport(cfg).Client(), TPM: tpm})
			if err != nil {
				t.Fatal(err)
			}
			if tt.before {
				finish()
			}
			for i := range tt.calls {
				_, err = c.Generate(ctx, testRequest("openai", "m"))
				if i < tt.calls-1 && err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			if got := int(requests.Load()); got != tt.requests {
				t.Errorf("%d requests reached the server, want %d", got, tt.requests)
			}
			var ce *CallError
			switch {
			case !errors.As(err, &ce):
				t.Fatalf("last call: error %v, want a CallError", err)
			case errors.Is(err, interrupt.ErrNotCalled) != tt.notCalled:
				t.Errorf("last call: error %q, want ErrNotCalled: %v", err, tt.notCalled)
			case !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("last call: error %q, want it to mention %q", err, tt.wantErr)
			case tt.notCalled && ce.Attempts != 0:
				t.Errorf("a call not made counts %d attempts, want 0", ce.Attempts)
			case tt.notCalled && err.Error() != interrupt.ErrNotCalled.Error():
				// The words of a call the run did not send to the model, as the apps write them
				// for a record never handed to the model: no provider or model before them.
				t.Errorf("last call: error %q, want %q", err, interrupt.ErrNotCalled)
			}
			if ctx.Err() != nil {
				t.Errorf("finishing cancelled the run's context: %v", ctx.Err())
			}
		})
	}
}

// TestTransportFinishingInFlight: a call in flight when the run is asked to finish is counted,
// and runs to its reply.
func TestTransportFinishingInFlight(t *testing.T) {
	srv := clitest.NewHoldServer(t, "France", func(string) string { return "Paris" })
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, finish := interrupt.WithFinish(context.Background())
	type result struct {
		resp Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := c.Generate(ctx, testRequest("openai", "m"))
		done <- result{resp, err}
	}()
	<-srv.Held
	if n := finish(); n != 1 {
		t.Errorf("finish() = %d calls in flight, want 1", n)
	}
	srv.Release()
	r := <-done
	if r.err != nil || r.resp.Text != "Paris" {
		t.Errorf("the call in flight: %q, %v; want its reply Paris", r.resp.Text, r.err)
	}
	if _, err := c.Generate(ctx, testRequest("openai", "m")); !errors.Is(err, interrupt.ErrNotCalled) {
		t.Errorf("the next call: %v, want ErrNotCalled", err)
	}
	if n := len(srv.Prompts()); n != 1 {
		t.Errorf("%d requests reached the server, want 1", n)
	}
}
