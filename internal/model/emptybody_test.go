package model

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestEmptyBody200: a 200 reply with an empty body (a proxy or a crashed server's) is retried as
// a malformed body is, whatever its Content-Type, and fails in the end in words that say so. One
// labelled application/json was retried as malformed JSON, but one labelled otherwise, or not at
// all, was read once by the client, and its record carried the bare "EOF" (anthropic's "parse
// response: EOF"), which names nothing that happened.
func TestEmptyBody200(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		for _, ctype := range []string{"", "text/plain", "application/json"} {
			t.Run(provider+" "+ctype, func(t *testing.T) {
				var calls atomic.Int64
				empties := int64(2)
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					if calls.Add(1) > empties {
						w.Header().Set("Content-Type", "application/json")
						if provider == "anthropic" {
							io.WriteString(w, `{"id":"m","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":1}}`)
						} else {
							io.WriteString(w, okReply)
						}
						return
					}
					if ctype != "" {
						w.Header().Set("Content-Type", ctype)
					}
					w.WriteHeader(http.StatusOK)
				}))
				defer srv.Close()
				tr := NewTransport(TransportConfig{MaxRetries: 1, Backoff: -1})
				c, err := New(context.Background(), Config{Provider: provider, BaseURL: srv.URL + "/v1", APIKey: testKey, HTTPClient: tr.Client()})
				if err != nil {
					t.Fatal(err)
				}
				_, err = c.Generate(context.Background(), testRequest(provider, wireModels[provider]))
				const want = "the server replied (status 200) with an empty body (after 2 attempts)"
				if err == nil || !strings.HasSuffix(err.Error(), want) {
					t.Errorf("error %v, want it to end %q", err, want)
				}
				if got := calls.Load(); got != 2 {
					t.Errorf("%d requests reached the server, want 2 (retried once)", got)
				}

				calls.Store(0)
				empties = 1
				resp, err := c.Generate(context.Background(), testRequest(provider, wireModels[provider]))
				if err != nil || resp.Text != "ok" || resp.Attempts != 2 {
					t.Errorf("after one empty body: text %q, %d attempts, error %v; want ok after 2", resp.Text, resp.Attempts, err)
				}
			})
		}
	}
}

// TestEmptyEventStream200: an empty 200 reply labelled text/event-stream, from a server or proxy
// that streams whatever the request says, keeps the hint that says so, as a stream with text
// does; it is not taken for an empty body retried to the end, whose words named no cause.
func TestEmptyEventStream200(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		calls.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	tr := NewTransport(TransportConfig{MaxRetries: 2, Backoff: -1})
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey, HTTPClient: tr.Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), testRequest("openai", wireModels["openai"]))
	const want = "the server streamed its reply (text/event-stream) where the call asked for it whole"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
}
