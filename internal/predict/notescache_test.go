package predict

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestLongMemEvalNotesAskedReadingCached: a con-separate record whose notes are asked now but
// whose reading call, over the same notes, the cache serves (its sessions changed, their notes
// did not) is no cached prediction: the summary gives the reading call's cost, and only it, as
// the part from the cache. Its usage sums every call's counts, the prompt tokens each served from
// the provider's prompt cache included. Each call here is gpt-4o's 10 prompt tokens, 4 of them
// cached, and 1 out: 6×$2.50 + 4×$1.25 + $10.00 a million, $0.000030.
func TestLongMemEvalNotesAskedReadingCached(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Model    string                     `json:"model"`
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, 400)
			return
		}
		reply := "Acme"
		if strings.HasPrefix(req.Messages[len(req.Messages)-1].Content, "I will give you a chat history") {
			reply = "The user works at Acme."
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11,"prompt_tokens_details":{"cached_tokens":4}}}`, req.Model, reply)
	}))
	t.Cleanup(srv.Close)
	args := []string{"--provider", "openai", "--model", "gpt-4o", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--reading", "con-separate", "--history-sessions", "3", "--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
	for i, tc := range []struct {
		extra string // added to every session's text
		calls int64  // made by the run
		cost  string // the summary's
	}{
		{"", 4, "cost $0.000120\n"},
		{" It is in Ohio.", 3, "cost $0.000120 ($0.000030 of it from the cache)\n"},
	} {
		before := calls.Load()
		recs, stderr, err := run(t, context.Background(), jsonl(t, longMemEvalRecord("longmemeval:q1", tc.extra)), args...)
		if err != nil || len(recs) != 1 {
			t.Fatalf("run %d: %v (%d records)\n%s", i+1, err, len(recs), stderr)
		}
		if got := calls.Load() - before; got != tc.calls {
			t.Errorf("run %d: %d calls, want %d", i+1, got, tc.calls)
		}
		p := recs[0].Prediction
		want := record.Usage{InputTokens: 40, OutputTokens: 4, CachedInputTokens: 16}
		if p.Text != "Acme" || p.Cached || p.Usage == nil || !reflect.DeepEqual(*p.Usage, want) || p.CostUSD == nil || *p.CostUSD != 0.00012 {
			cost := "none"
			if p.CostUSD != nil {
				cost = fmt.Sprint(*p.CostUSD)
			}
			t.Errorf("run %d: text %q, cached %v, usage %+v, cost %s; want Acme, not cached, %+v, 0.00012", i+1, p.Text, p.Cached, p.Usage, cost, want)
		}
		if !strings.Contains(stderr, tc.cost) {
			t.Errorf("run %d: stderr\n%s\nwant it to say %q", i+1, stderr, tc.cost)
		}
	}
}
