package model

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/gemini"
)

// TestCutJSONAnyContentType: a 200 reply cut off partway through its JSON is retried as a
// malformed body, whatever Content-Type the server labels it with (Flask's text/html, a proxy's
// text/plain, none): the reply that follows is the answer. It was retried only when labelled
// application/json; else the client read it once and failed with its own "unexpected EOF".
func TestCutJSONAnyContentType(t *testing.T) {
	for _, w := range wires {
		if w.provider == "ollama" { // its stream is a reply a line, cut streams checked by shape
			continue
		}
		for _, ct := range []string{"text/plain; charset=utf-8", "text/html", ""} {
			t.Run(w.provider+" "+ct, func(t *testing.T) {
				var calls atomic.Int64
				srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					body := w.reply
					if calls.Add(1) == 1 {
						body = body[:len(body)/2]
						rw.Header()["Content-Type"] = []string{ct}
					} else {
						rw.Header().Set("Content-Type", "application/json")
					}
					io.WriteString(rw, body)
				}))
				defer srv.Close()
				tr := NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond})
				c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey, HTTPClient: tr.Client()})
				if err != nil {
					t.Fatal(err)
				}
				resp, err := c.Generate(context.Background(), testRequest(w.provider, wireModels[w.provider]))
				if err != nil || resp.Text != "Paris" || resp.Attempts != 2 {
					t.Errorf("Generate = %q after %d attempts, %v; want Paris after 2 (the cut reply retried)", resp.Text, resp.Attempts, err)
				}
			})
		}
	}
	// Cut every time: the error says so, as for a reply labelled JSON.
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		rw.Header().Set("Content-Type", "text/plain")
		io.WriteString(rw, wires[0].reply[:40])
	}))
	defer srv.Close()
	_, err := retryingOpenAI(t, srv.URL, 1).Generate(context.Background(), testRequest("openai", "m"))
	if err == nil || !strings.Contains(err.Error(), "malformed JSON in response body") {
		t.Errorf("error %v, want it to name the malformed JSON", err)
	}
}
