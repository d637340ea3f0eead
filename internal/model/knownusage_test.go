package model

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestEmptyReplyOutputLeftOut: an empty reply that must have had output (cut at max_tokens, or
// with thinking sent apart) whose server reports prompt_tokens alone has an unknown usage, not 0
// output tokens priced as free; an empty reply that stopped with nothing to say keeps its 0.
func TestEmptyReplyOutputLeftOut(t *testing.T) {
	for _, tc := range []struct {
		name, message, stop string
		unknown             bool
	}{
		{"cut at max_tokens", `{"role":"assistant","content":""}`, "length", true},
		{"thinking sent apart", `{"role":"assistant","content":"","reasoning_content":"Let me see"}`, "stop", true},
		{"nothing to say", `{"role":"assistant","content":""}`, "stop", false},
		{"context window full", `{"role":"assistant","content":""}`, "model_context_window_exceeded", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":"x","object":"chat.completion","created":1,"model":"m1","choices":[{"index":0,"message":`+tc.message+`,"finish_reason":"`+tc.stop+`"}],"usage":{"prompt_tokens":10}}`)
			}))
			defer srv.Close()
			resp, err := retryingOpenAI(t, srv.URL, 0).Generate(context.Background(), testRequest("openai", "m1"))
			if err == nil {
				t.Fatalf("Generate = %+v, want an empty reply's error", resp)
			}
			if resp.NoUsage != tc.unknown {
				t.Errorf("usage %+v, unknown %v; want unknown %v", resp.Usage, resp.NoUsage, tc.unknown)
			}
			if !tc.unknown && (resp.Usage.InputTokens != 10 || resp.Usage.OutputTokens != 0) {
				t.Errorf("usage %+v, want 10 in, 0 out", resp.Usage)
			}
		})
	}
}
