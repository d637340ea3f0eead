package model

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// TestErrorStringBody: a 200 reply whose body is {"error": "…"}, an error as a string (Ollama's
// shape of an error, which it may send with status 200), fails the call with the server's words,
// once (it names no code to retry by), and is no reply paid for: its usage is neither counted
// nor unknown.
func TestErrorStringBody(t *testing.T) {
	for _, w := range []wire{wires[0], wires[2]} {
		t.Run(w.provider, func(t *testing.T) {
			var calls atomic.Int64
			w.reply = `{"error":"model runner has unexpectedly stopped"}`
			srv := wireServer(t, w, &calls, nil)
			c, err := New(context.Background(), Config{Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey,
				HTTPClient: NewTransport(TransportConfig{MaxRetries: 2, Backoff: -1}).Client()})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Generate(context.Background(), testRequest(w.provider, wireModels[w.provider]))
			if err == nil {
				t.Fatalf("Generate = %+v, want an error", resp)
			}
			if want := w.provider + " " + wireModels[w.provider] + ": reply with status 200 holds an error: model runner has unexpectedly stopped"; err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
			if errors.Is(err, ErrEmptyReply) {
				t.Errorf("error %q is an empty reply's", err)
			}
			if got := calls.Load(); got != 1 || resp.Attempts != 1 {
				t.Errorf("%d requests, %d attempts; want 1", got, resp.Attempts)
			}
			if !resp.Usage.IsZero() || resp.NoUsage {
				t.Errorf("usage %+v (unknown %v): want none, no reply paid for", resp.Usage, resp.NoUsage)
			}
		})
	}
}
