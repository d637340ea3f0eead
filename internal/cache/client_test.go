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
