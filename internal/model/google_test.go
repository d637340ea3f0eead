package model

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// userOnly is testRequest without its system message: genai sends a lone user message to
// generateContent (which gax retries and times), a conversation to streamGenerateContent.
func userOnly(provider, model string) Request {
	req := testRequest(provider, model)
	req.Messages = req.Messages[1:]
	return req
}

// TestGoogleRetriesOnce: the Gemini client under langchaingo (genai over gax) retries a 503
// itself, for up to ten minutes, on top of the Transport's retries; a 503 that outlasts
// --max-retries must end the call after the Transport's attempts, with the server's words.
func TestGoogleRetriesOnce(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`)
	}))
	defer srv.Close()
	tr := NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond, Seed: 1})
	c, err := New(context.Background(), Config{Provider: "googleai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), userOnly("googleai", "gemini-2.0-flash"))
	if got := calls.Load(); got != 3 {
		t.Errorf("%d requests reached the server, want 3 (1 + --max-retries 2)", got)
	}
	ce, ok := err.(*CallError)
	if !ok {
		t.Fatalf("Generate error = %v, want a CallError", err)
	}
	if ce.Attempts != 3 {
		t.Errorf("CallError counts %d attempts, want 3", ce.Attempts)
	}
	for _, want := range []string{"503", "The model is overloaded"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), srv.URL) {
		t.Errorf("error %q names the request URL", err)
	}
}

// TestGoogleNoCallDeadline: gax gives a Gemini call without a deadline one of ten minutes, which
// would cut the Transport's retries short; the call runs under the caller's context alone.
func TestGoogleNoCallDeadline(t *testing.T) {
	var calls atomic.Int64
	srv := wireServer(t, wires[3], &calls, nil)
	var seen atomic.Bool
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if d, ok := r.Context().Deadline(); ok && time.Until(d) < time.Hour {
			seen.Store(true)
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	tr := NewTransport(TransportConfig{Base: base})
	c, err := New(context.Background(), Config{Provider: "googleai", BaseURL: wires[3].baseURL(srv.URL), APIKey: testKey, HTTPClient: tr.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), userOnly("googleai", "gemini-2.0-flash")); err != nil {
		t.Fatal(err)
	}
	if seen.Load() {
		t.Errorf("the request carried a deadline within the hour; want none but the caller's")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestGoogleStreamedErrorMessage: genai sends a request with a system message to
// streamGenerateContent, whose error body is an array holding the error object; the call's error
// keeps the server's words, as it does for generateContent's bare object, for a status the client
// reads (400) and for a 503 that outlasted the retries, which keyHeader words.
func TestGoogleStreamedErrorMessage(t *testing.T) {
	tests := []struct {
		status int
		msg    string
	}{
		{http.StatusBadRequest, "User location is not supported for the API use."},
		{http.StatusServiceUnavailable, "The model is overloaded. Please try again later."},
	}
	for _, tt := range tests {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			body := fmt.Sprintf(`{"error":{"code":%d,"message":%q,"status":"UNAVAILABLE"}}`, tt.status, tt.msg)
			if strings.Contains(r.URL.Path, ":streamGenerateContent") {
				body = "[" + body + "\n]" // as the API writes it, the array closed on a line of its own
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tt.status)
			io.WriteString(w, body)
		}))
		c, err := New(context.Background(), Config{Provider: "googleai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
		if err != nil {
			t.Fatal(err)
		}
		for name, req := range map[string]Request{"generateContent": userOnly("googleai", "gemini-2.0-flash"), "streamGenerateContent": testRequest("googleai", "gemini-2.0-flash")} {
			_, err := c.Generate(context.Background(), req)
			if want := fmt.Sprintf("googleai gemini-2.0-flash: googleapi: Error %d: %s", tt.status, tt.msg); err == nil || err.Error() != want {
				t.Errorf("%d, %s: Generate error = %v, want %q", tt.status, name, err, want)
			}
		}
		srv.Close()
	}
}
