package cache

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestClientCachesWholeClaudeReply: a Claude reply of several content blocks is stored and
// served back whole, its text blocks joined, with its usage.
func TestClientCachesWholeClaudeReply(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[`+
			`{"type":"thinking","thinking":"France: Paris.","signature":"EqQB"},{"type":"text","text":"The capital is "},{"type":"text","text":"Paris."}],`+
			`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":9}}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	next, err := model.New(ctx, model.Config{Provider: "anthropic", BaseURL: srv.URL + "/v1", APIKey: "sk-test-0123456789",
		HTTPClient: model.NewTransport(model.TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl := c.Wrap(next)
	req := model.Request{Provider: "anthropic", BaseURL: srv.URL + "/v1", Model: "claude-sonnet-4-20250514", MaxTokens: 64,
		Messages: []model.Message{{Role: "user", Content: "Capital of France?"}}}
	want := record.Usage{InputTokens: 20, OutputTokens: 9}
	for i, cached := range []bool{false, true} {
		resp, err := cl.Generate(ctx, req)
		if err != nil || resp.Text != "The capital is Paris." || !reflect.DeepEqual(resp.Usage, want) || resp.Cached != cached {
			t.Errorf("call %d: Generate = %+v, %v; want the text \"The capital is Paris.\", usage %+v, cached %v", i+1, resp, err, want, cached)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d requests reached the server, want 1", n)
	}
}

// TestClientStoresRepliesAsTheyCame: under model.Thinking, which wraps the cache, a reply is
// stored as it came, its thinking in the text and the reasoning its server sent apart, so that a
// client reading it with another --think gets it from the cache.
func TestClientStoresRepliesAsTheyCame(t *testing.T) {
	var calls atomic.Int64
	next := clientFunc(func(context.Context, model.Request) (model.Response, error) {
		calls.Add(1)
		return model.Response{Text: "<think>\nhmm\n</think>\n\nParis", Reasoning: "sent apart", Usage: record.Usage{InputTokens: 5, OutputTokens: 9}}, nil
	})
	c, err := Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	req := model.Request{Provider: "openai", Model: "r1", Messages: []model.Message{{Role: "user", Content: "Capital of France?"}}}
	strip, keep := model.Thinking{Next: c.Wrap(next)}, c.Wrap(next)
	if resp, err := strip.Generate(ctx, req); err != nil || resp.Text != "Paris" || resp.Reasoning != "sent apart\n\nhmm" {
		t.Errorf("strip: Generate = %+v, %v; want Paris, reasoning sent apart and hmm", resp, err)
	}
	if resp, err := keep.Generate(ctx, req); err != nil || resp.Text != "<think>\nhmm\n</think>\n\nParis" || resp.Reasoning != "sent apart" || !resp.Cached {
		t.Errorf("keep: Generate = %+v, %v; want the text as it came and the reasoning sent apart, from the cache", resp, err)
	}
	if resp, err := strip.Generate(ctx, req); err != nil || resp.Text != "Paris" || !resp.Cached {
		t.Errorf("strip again: Generate = %+v, %v; want Paris from the cache", resp, err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d calls, want 1", n)
	}
}

type clientFunc func(context.Context, model.Request) (model.Response, error)

func (f clientFunc) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	return f(ctx, req)
}
