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
)

// TestReplyTooLarge: a reply body longer than maxReplyBody fails the call at that size, not
// retried, where it was read whole into memory: a server or proxy that sends without end (or a
// valid reply of gigabytes) made the run grow until --timeout, gigabytes a second on loopback,
// and with --timeout 0 until it was killed, every record not yet written lost with it.
func TestReplyTooLarge(t *testing.T) {
	old := maxReplyBody
	maxReplyBody = 1 << 20
	t.Cleanup(func() { maxReplyBody = old })

	for _, tc := range []struct {
		name  string
		serve func(w http.ResponseWriter, r *http.Request)
	}{
		{"a whole reply of 2 MiB", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, strings.Replace(okReply, `"content":"ok"`, `"content":"`+strings.Repeat("A", 2<<20)+`"`, 1))
		}},
		{"a body without end", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"c","choices":[{"message":{"content":"`)
			chunk := strings.Repeat("A", 64<<10)
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				io.Copy(io.Discard, r.Body)
				tc.serve(w, r)
			}))
			defer srv.Close()
			// The timeout only bounds the test where the body is read without a limit.
			tr := NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond, Timeout: 10 * time.Second})
			c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey, HTTPClient: tr.Client()})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Generate(context.Background(), testRequest("openai", "gpt-4o-mini"))
			if err == nil {
				t.Fatalf("Generate = text of %d bytes, want an error", len(resp.Text))
			}
			const want = "the server's reply (status 200) is larger than 1 MiB, more than any model's reply: a server or proxy that sends without end"
			if !strings.HasSuffix(err.Error(), want) {
				t.Errorf("error %q, want it to end %q", err, want)
			}
			if got := calls.Load(); got != 1 || resp.Attempts != 1 {
				t.Errorf("%d requests reached the server in %d attempts, want 1 (not retried)", got, resp.Attempts)
			}
		})
	}
}

// TestReplyOfTheLimit: a reply of maxReplyBody bytes exactly is read, and answers; one a byte
// longer is too large.
func TestReplyOfTheLimit(t *testing.T) {
	old := maxReplyBody
	maxReplyBody = 1 << 20
	t.Cleanup(func() { maxReplyBody = old })
	// okReply with its content "ok" padded to make the reply n bytes long.
	of := func(n int) string {
		pad := strings.Repeat("A", n-len(okReply))
		return strings.Replace(okReply, `"content":"ok"`, `"content":"ok`+pad+`"`, 1)
	}
	for _, tc := range []struct {
		size int
		want string // the error's end, "" for the answer
	}{
		{1 << 20, ""},
		{1<<20 + 1, "the server's reply (status 200) is larger than 1 MiB, more than any model's reply: a server or proxy that sends without end"},
	} {
		srv, calls := replayServer(t, []string{of(tc.size)}, nil)
		resp, err := retryingOpenAI(t, srv.URL, 2).Generate(context.Background(), testRequest("openai", "gpt-4o-mini"))
		switch {
		case tc.want == "" && (err != nil || len(resp.Text) != 1<<20-len(okReply)+2):
			t.Errorf("a reply of %d bytes: text of %d bytes, %v; want the answer", tc.size, len(resp.Text), err)
		case tc.want != "" && (err == nil || !strings.HasSuffix(err.Error(), tc.want)):
			t.Errorf("a reply of %d bytes: text of %d bytes, %v; want an error ending %q", tc.size, len(resp.Text), err, tc.want)
		}
		if got := calls.Load(); got != 1 {
			t.Errorf("a reply of %d bytes: %d requests, want 1 (not retried)", tc.size, got)
		}
	}
}

// TestEmbedReplyNotLimited: an embedding call's reply is read whole whatever its length, which
// grows with the texts and the model sent (text-embeddings-inference's /embed_all, a vector per
// token: 32 texts of 300 tokens at 4,096 dimensions are some 400 MB): the limit of a chat reply
// failed every record of such a batch as a server that sends without end.
func TestEmbedReplyNotLimited(t *testing.T) {
	old := maxReplyBody
	maxReplyBody = 1 << 20
	t.Cleanup(func() { maxReplyBody = old })
	body := "[[" + strings.Repeat("0.125,", 2<<20/6) + "0.5]]"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	tr := NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond, Timeout: 10 * time.Second})
	ctx := WithEmbedShape(context.Background(), "tei", "/embed_all")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/embed_all", strings.NewReader(`{"inputs":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := tr.Client().Do(req)
	if err != nil {
		t.Fatalf("an embedding reply of %d bytes: %v", len(body), err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(got) != body {
		t.Errorf("read %d bytes, %v; want the reply's %d", len(got), err, len(body))
	}
}
