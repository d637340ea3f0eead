package judge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestRetriedFailedGenerationsCost: a judge's reply whose generation failed (finish_reason
// "error") and that is retried was billed: the judgment's usage and cost_usd count every reply
// of the call, each priced as its own (the prompts pass the long-context threshold, 150 prompt
// tokens, only together), as they count a reply asked again for being unparsable, whether the
// call ends in a verdict or in the failure. The loopback server reports 100 input and 5 output
// tokens a reply.
func TestRetriedFailedGenerationsCost(t *testing.T) {
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(prices, []byte("judge-1: {input: 1, output: 2, long: {above: 150, input: 100, output: 200}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const reply = (100*1.0 + 5*2.0) / 1e6
	for _, tc := range []struct {
		name     string
		failures int64 // the replies that fail before the verdict's
		replies  int
		code     int
	}{
		{"a verdict after two failures", 2, 3, 0},
		{"failed throughout", 99, 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			srv := newChatWriter(t, func(w http.ResponseWriter, r chatRequest) {
				text, _ := protocolReply(r)
				choice := map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": text}}
				if calls.Add(1) <= tc.failures {
					choice = map[string]any{"index": 0, "finish_reason": "error", "error": map[string]any{"code": 502, "message": "Upstream error"},
						"message": map[string]any{"role": "assistant", "content": "{\"sco"}}
				}
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": r.Model,
					"choices": []any{choice}, "usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}})
			})
			in := rec("locomo:conv-26:0", "locomo", "temporal", "When did Caroline go?", "7 May 2023", "7 May 2023", `{"category":2}`)
			stdout, stderr, code := runJudge(t, []string{"--mode", ModeLoCoMo, "--base-url", srv.URL, "--model", "judge-1", "--name", "j",
				"--prices", prices, "--max-retries", "2", "--backoff", "0"}, in)
			if code != tc.code || int(calls.Load()) != tc.replies {
				t.Fatalf("exit %d after %d calls, want %d after %d; stderr %s", code, calls.Load(), tc.code, tc.replies, stderr)
			}
			j := decodeAll(t, stdout)[0].Judgments["j"]
			n := tc.replies
			if j == nil || j.Usage == nil || j.Usage.InputTokens != 100*n || j.Usage.OutputTokens != 5*n {
				t.Fatalf("judgment %+v, want the usage of %d replies", j, n)
			}
			if want := fmt.Sprintf("%.12f", float64(n)*reply); j.CostUSD == nil || fmt.Sprintf("%.12f", *j.CostUSD) != want {
				t.Errorf("cost_usd %v, want %s, each reply priced as its own", fmtCost(j.CostUSD), want)
			}
		})
	}
}

// fmtCost is a cost_usd as a test's message gives it: "none" for nil.
func fmtCost(c *float64) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%.12f", *c)
}
