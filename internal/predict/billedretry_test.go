package predict

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// failedGeneration is an OpenAI-compatible chat completion whose generation failed
// (finish_reason "error", OpenRouter's 502), which its server billed 100 prompt and 5 completion
// tokens; answer is one that answers, billed alike.
const (
	failedGeneration = `{"id":"g","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Par"},` +
		`"finish_reason":"error","error":{"code":502,"message":"Upstream error"}}],"usage":{"prompt_tokens":100,"completion_tokens":5,"total_tokens":105}}`
	billedAnswer = `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},` +
		`"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":5,"total_tokens":105}}`
)

// billedServer answers its nth request with replies[n-1], the last one past the list.
func billedServer(t *testing.T, replies ...string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, replies[min(n, len(replies))-1])
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestRetriedFailedGenerationsCost: a failed generation that is retried was billed: the
// prediction's usage and cost_usd count every reply of its call, each priced as its own call (the
// three prompts pass the long-context threshold of 150 tokens only together), whether the call
// ends in an answer or in the failure; and --max-cost counts them all.
func TestRetriedFailedGenerationsCost(t *testing.T) {
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(prices, []byte("m: {input: 1, output: 2, long: {above: 150, input: 100, output: 200}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const reply = (100*1.0 + 5*2.0) / 1e6
	for _, tc := range []struct {
		name    string
		replies []string
		failed  bool
	}{
		{"answered at the third", []string{failedGeneration, failedGeneration, billedAnswer}, false},
		{"failed throughout", []string{failedGeneration}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := billedServer(t, tc.replies...)
			recs, stderr, err := run(t, context.Background(), input(1, nil), "--provider", "openai", "--model", "m", "--base-url", srv.URL,
				"--api-key-file", keyFile(t), "--prices", prices, "--max-retries", "2", "--backoff", "0")
			if len(recs) != 1 || (err != nil) != tc.failed {
				t.Fatalf("%d records, error %v; stderr %s", len(recs), err, stderr)
			}
			p := recs[0].Prediction
			if (p.Error != "") != tc.failed || p.Attempts != 3 {
				t.Errorf("prediction error %q, %d attempts; want failed: %v, 3 attempts", p.Error, p.Attempts, tc.failed)
			}
			if p.Usage == nil || p.Usage.InputTokens != 300 || p.Usage.OutputTokens != 15 {
				t.Errorf("usage %+v, want the three replies' 300 in, 15 out", p.Usage)
			}
			if want := fmt.Sprintf("%.12f", 3*reply); p.CostUSD == nil || fmt.Sprintf("%.12f", *p.CostUSD) != want {
				t.Errorf("cost_usd %s, want %s, each reply priced as its own", costOf(p.CostUSD), want)
			}
		})
	}
	// $15 a reply, --max-cost 20: the first question's two replies spend $30, and the second is
	// not asked.
	pricey := filepath.Join(t.TempDir(), "pricey.yaml")
	if err := os.WriteFile(pricey, []byte("m: {input: 150000, output: 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, calls := billedServer(t, failedGeneration, billedAnswer)
	recs, stderr, err := run(t, context.Background(), input(2, nil), "--provider", "openai", "--model", "m", "--base-url", srv.URL,
		"--api-key-file", keyFile(t), "--prices", pricey, "--max-retries", "2", "--backoff", "0", "--concurrency", "1", "--max-cost", "20")
	if command.ExitCode(err) != command.ExitBadRecords || len(recs) != 2 || calls.Load() != 2 {
		t.Fatalf("exit %d (%v), %d records, %d calls (want 2); stderr %s", command.ExitCode(err), err, len(recs), calls.Load(), stderr)
	}
	if p := recs[0].Prediction; p.Error != "" || p.CostUSD == nil || *p.CostUSD != 30 {
		t.Errorf("first prediction %+v, want answered at $30", p)
	}
	if p := recs[1].Prediction; !strings.Contains(p.Error, "budget spent: $30.000000 of --max-cost $20.000000") {
		t.Errorf("second prediction error %q, want it refused by the budget", p.Error)
	}
}

// costOf is a cost_usd as a test's message gives it: "none" for nil.
func costOf(c *float64) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%.12f", *c)
}
