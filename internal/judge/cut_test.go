package judge

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestLoopbackCutVerdict: a judge reply that stopped at max_tokens (LongMemEval's judge sends 10)
// or at the model's context window, but whose verdict still reads ("Yes, the response"), is the
// verdict, and its judgment's cut says where it stopped, fresh and served again from --cache, in
// each provider's wire format; a reply that came whole has no cut.
func TestLoopbackCutVerdict(t *testing.T) {
	for _, tc := range []struct {
		provider, model, path string
		reply                 func(text, stop string) string
		stops                 map[string]string // by cut: the provider's stop reason
	}{
		{"openai", "gpt-4o-mini-2024-07-18", "/v1/chat/completions", func(text, stop string) string {
			return fmt.Sprintf(`{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":%q}],"usage":{"prompt_tokens":80,"completion_tokens":10,"total_tokens":90}}`, text, stop)
		}, map[string]string{"": "stop", record.CutMaxTokens: "length"}},
		{"anthropic", "claude-sonnet-4-5", "/v1/messages", func(text, stop string) string {
			return fmt.Sprintf(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":%s}],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":80,"output_tokens":10}}`, text, stop)
		}, map[string]string{"": "end_turn", record.CutMaxTokens: "max_tokens", record.CutContextWindow: "model_context_window_exceeded"}},
		{"googleai", "gemini-2.0-flash", "/v1beta/models/gemini-2.0-flash:generateContent", func(text, stop string) string {
			return fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":%s}],"role":"model"},"finishReason":%q,"index":0}],"usageMetadata":{"promptTokenCount":80,"candidatesTokenCount":10,"totalTokenCount":90}}`, text, stop)
		}, map[string]string{"": "STOP", record.CutMaxTokens: "MAX_TOKENS"}},
	} {
		for cut, stop := range tc.stops {
			t.Run(tc.provider+" "+stop, func(t *testing.T) {
				var calls atomic.Int64
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					calls.Add(1)
					io.Copy(io.Discard, r.Body)
					if r.URL.Path != tc.path {
						http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
						return
					}
					text, _ := json.Marshal(map[string]string{"": "Yes."}[cut] + map[bool]string{true: "Yes, the response correctly"}[cut != ""])
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, tc.reply(string(text), stop))
				}))
				defer srv.Close()
				for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"} {
					t.Setenv(k, "test-key-0123456789")
				}
				base := srv.URL
				if tc.provider != "googleai" {
					base += "/v1"
				}
				in := rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", "")
				args := []string{"--provider", tc.provider, "--base-url", base, "--model", tc.model, "--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
				for _, from := range []string{"fresh", "cache"} {
					stdout, stderr, code := runJudge(t, args, in)
					recs := decodeAll(t, stdout)
					if code != 0 || len(recs) != 1 {
						t.Fatalf("%s: exit %d, %d records; want 0, 1 (stderr %s)", from, code, len(recs), stderr)
					}
					j := recs[0].Judgments["auto/"+tc.model]
					if j == nil || j.Score == nil || *j.Score != 1 || j.Error != "" || j.Cut != cut || j.Cached != (from == "cache") {
						t.Errorf("%s: judgment %+v, want score 1, cut %q, cached %v", from, j, cut, from == "cache")
					}
					if wantLine := fmt.Sprintf(`"cut":%q`, cut); (cut != "") != strings.Contains(stdout, wantLine) {
						t.Errorf("%s: stdout %s; want %s in it: %v", from, stdout, wantLine, cut != "")
					}
				}
				if n := calls.Load(); n != 1 {
					t.Errorf("%d calls, want 1 (the rerun's reply from the cache)", n)
				}
			})
		}
	}
}
