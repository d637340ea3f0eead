package judge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/urfave/cli/v2"
)

const jsonMode = `"response_format":{"type":"json_object"}`

// TestResponseFormat checks that the MAGMA and mem0 judges ask for OpenAI's JSON mode, as their
// official scripts do, and the LongMemEval and EvaLearn judges do not.
func TestResponseFormat(t *testing.T) {
	locomo := rec("locomo:conv-26:0", "locomo", "temporal", "When did Caroline go?", "7 May 2023", "7 May 2023", `{"category":2}`)
	tests := []struct {
		mode, in string
		score    float64
		json     bool
	}{
		{ModeLoCoMo, locomo, 0.8, true},
		{ModeMem0, locomo, 1, true},
		{ModeLongMemEval, rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", ""), 1, false},
		{ModeEvaLearn, rec("evalearn:4:1", "evalearn", "Logical Reasoning", "Solve it", "", "42", ""), 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			srv := newChatServer(t, func(r chatRequest) (string, int) {
				if strings.Contains(r.last(), `"label"`) {
					return `{"label": "CORRECT"}`, 200
				}
				return protocolReply(r)
			})
			stdout, stderr, code := runJudge(t, []string{"--mode", tt.mode, "--base-url", srv.URL, "--model", "judge-1"}, tt.in)
			if code != 0 {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			if j := decodeAll(t, stdout)[0].Judgments[tt.mode+"/judge-1"]; j == nil || j.Score == nil || *j.Score != tt.score {
				t.Errorf("judgment %+v, want score %v", j, tt.score)
			}
			if srv.count() != 1 {
				t.Fatalf("server calls = %d, want 1", srv.count())
			}
			if got := strings.Contains(srv.calls[0].body, jsonMode); got != tt.json {
				t.Errorf("%s request body %s: contains %s = %v, want %v", tt.mode, srv.calls[0].body, jsonMode, got, tt.json)
			}
		})
	}
}

// TestCost prices judgments with the built-in table or --prices, totals them on stderr, and warns
// about an unpriced model. The loopback server reports 100 input and 5 output tokens a call.
func TestCost(t *testing.T) {
	dir := t.TempDir()
	prices := filepath.Join(dir, "prices.yaml")
	if err := os.WriteFile(prices, []byte("judge-1: {input: 1, output: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", "") +
		rec("longmemeval:q2", "longmemeval", "temporal-reasoning", "How many days?", "18", "19 days", "")
	tests := []struct {
		name, model string
		args        []string
		cost        float64 // per judgment; 0 means none (unpriced)
		summary     string
	}{
		{"prices file", "judge-1", []string{"--prices", prices}, (100*1.0 + 5*2.0) / 1e6,
			"; tokens 200 in, 10 out; cost $0.000220\n"},
		{"built-in", "gpt-4o-mini-2024-07-18", nil, (100*0.15 + 5*0.60) / 1e6,
			"; tokens 200 in, 10 out; cost $0.000036\n"},
		{"unpriced", "judge-1", nil, 0,
			"; tokens 200 in, 10 out; cost $0.000000 (not counting judge-1: no price)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newChatServer(t, protocolReply)
			cacheFile := filepath.Join(t.TempDir(), "c.sqlite")
			args := append([]string{"--base-url", srv.URL, "--model", tt.model, "--name", "j", "--cache", cacheFile}, tt.args...)
			stdout, stderr, code := runJudge(t, args, in)
			if code != 0 {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			if !strings.HasSuffix(stderr, tt.summary) {
				t.Errorf("stderr = %q, want it to end %q", stderr, tt.summary)
			}
			if warn := `qa-judge: warning: no price for model "judge-1": cost_usd left empty on 2 judgments (add it with --prices)`; strings.Contains(stderr, warn) != (tt.cost == 0) {
				t.Errorf("stderr = %q, want the no-price warning %v", stderr, tt.cost == 0)
			}
			// A rerun from the cache writes the same costs (as qa-predict does), marked cached.
			again, stderr2, _ := runJudge(t, append(args, "--force"), stdout)
			for run, out := range []string{stdout, again} {
				for _, r := range decodeAll(t, out) {
					j := r.Judgments["j"]
					switch {
					case tt.cost == 0 && j.CostUSD != nil:
						t.Errorf("run %d %s: cost_usd %v, want none", run, r.ID, *j.CostUSD)
					case tt.cost != 0 && (j.CostUSD == nil || fmt.Sprintf("%.12f", *j.CostUSD) != fmt.Sprintf("%.12f", tt.cost)):
						t.Errorf("run %d %s: cost_usd %v, want %v", run, r.ID, j.CostUSD, tt.cost)
					case j.Cached != (run == 1):
						t.Errorf("run %d %s: cached %v", run, r.ID, j.Cached)
					}
				}
			}
			// The rerun's summary says that all of its cost came from the cache.
			want := tt.summary
			if tt.cost != 0 {
				want = strings.TrimSuffix(want, "\n") + fmt.Sprintf(" ($%.6f of it from the cache)\n", 2*tt.cost)
			}
			if !strings.HasSuffix(stderr2, want) {
				t.Errorf("cached rerun stderr = %q, want it to end %q", stderr2, want)
			}
		})
	}
}

// TestCostPerCall: a judgment's replies are priced each as its own call, as the provider bills
// them: replies asked again after an unparsable one pass a long-context threshold (150 prompt
// tokens here) only together, and none takes the long rate. The loopback server reports 100
// input and 5 output tokens a call; the judge's first two replies do not parse.
func TestCostPerCall(t *testing.T) {
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(prices, []byte("judge-1: {input: 1, output: 2, long: {above: 150, input: 100, output: 200}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	srv := newChatServer(t, func(r chatRequest) (string, int) {
		if calls.Add(1) <= 2 {
			return "not JSON", 200
		}
		return protocolReply(r)
	})
	in := rec("locomo:conv-26:0", "locomo", "temporal", "When did Caroline go?", "7 May 2023", "7 May 2023", `{"category":2}`)
	stdout, stderr, code := runJudge(t, []string{"--mode", ModeLoCoMo, "--base-url", srv.URL, "--model", "judge-1", "--name", "j", "--prices", prices}, in)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	j := decodeAll(t, stdout)[0].Judgments["j"]
	const want = 3 * (100*1.0 + 5*2.0) / 1e6
	if j == nil || j.Attempts != 3 || j.Usage == nil || j.Usage.InputTokens != 300 || j.CostUSD == nil || fmt.Sprintf("%.12f", *j.CostUSD) != fmt.Sprintf("%.12f", want) {
		t.Fatalf("judgment %+v, want 3 attempts, 300 tokens in, costing %v", j, want)
	}
}

// TestCachedPromptTokens: the prompt tokens the provider served from its prompt cache
// (OpenAI's prompt_tokens_details.cached_tokens) add up on a judgment asked again after an
// unparsable reply, and each reply's are priced at the cached rate.
func TestCachedPromptTokens(t *testing.T) {
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(prices, []byte("judge-1: {input: 1, output: 2, cached: 0.25}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	srv := newChatWriter(t, func(w http.ResponseWriter, r chatRequest) {
		text, _ := protocolReply(r)
		if calls.Add(1) == 1 {
			text = "not JSON"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "created": 1, "model": r.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": text}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105,
				"prompt_tokens_details": map[string]any{"cached_tokens": 64}},
		})
	})
	in := rec("locomo:conv-26:0", "locomo", "temporal", "When did Caroline go?", "7 May 2023", "7 May 2023", `{"category":2}`)
	stdout, stderr, code := runJudge(t, []string{"--mode", ModeLoCoMo, "--base-url", srv.URL, "--model", "judge-1", "--name", "j", "--prices", prices}, in)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	j := decodeAll(t, stdout)[0].Judgments["j"]
	const want = 2 * (36*1.0 + 64*0.25 + 5*2.0) / 1e6
	if j == nil || j.Attempts != 2 || j.Usage == nil || j.Usage.InputTokens != 200 || j.Usage.CachedInputTokens != 128 || j.CostUSD == nil ||
		fmt.Sprintf("%.12f", *j.CostUSD) != fmt.Sprintf("%.12f", want) {
		t.Fatalf("judgment %+v (usage %+v), want 2 attempts, 200 tokens in of which 128 cached, costing %v", j, j.Usage, want)
	}
}

// TestSeedAndBackoff checks that --seed is sent only when set and that --backoff and
// --max-retries govern the retry of a transient failure.
func TestSeedAndBackoff(t *testing.T) {
	in := rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", "")
	var failed atomic.Bool
	srv := newChatServer(t, func(r chatRequest) (string, int) {
		if !failed.Swap(true) {
			return "", 503
		}
		return protocolReply(r)
	})
	_, stderr, code := runJudge(t, []string{"--base-url", srv.URL, "--model", "judge-1", "--backoff", "1ms", "--max-retries", "1", "--seed", "7"}, in)
	if code != 0 || srv.count() != 2 {
		t.Fatalf("exit %d after %d calls, want 0 after 2 (one retry); stderr %s", code, srv.count(), stderr)
	}
	if b := srv.calls[1].body; !strings.Contains(b, `"seed":7`) {
		t.Errorf("request body %s, want seed 7", b)
	}
	failed.Store(false)
	_, _, code = runJudge(t, []string{"--base-url", srv.URL, "--model", "judge-1", "--max-retries", "0"}, in)
	if code != 3 || srv.count() != 3 {
		t.Errorf("--max-retries 0: exit %d after %d calls, want 3 after 3 (no retry)", code, srv.count())
	}
	if b := srv.calls[2].body; strings.Contains(b, `"seed"`) {
		t.Errorf("request body without --seed %s has a seed", b)
	}
}

// TestReaskSeeds: with --seed, each re-ask of an unparsable reply sends a seed of its own, the
// seed plus its sample number, as qa-predict's --sample-index does: sent the first ask's seed, a
// server that follows it gave the same unparsable reply each time, and the re-asks could never
// succeed.
func TestReaskSeeds(t *testing.T) {
	in := rec("locomo:conv-26:0", "locomo", "temporal", "When did Caroline go?", "7 May 2023", "7 May 2023", `{"category":2}`)
	srv := newChatServer(t, func(chatRequest) (string, int) { return "not JSON", 200 })
	_, stderr, code := runJudge(t, []string{"--mode", ModeLoCoMo, "--base-url", srv.URL, "--model", "judge-1", "--parse-retries", "2", "--seed", "7"}, in)
	if code != 3 || srv.count() != 3 {
		t.Fatalf("exit %d after %d calls, want 3 after 3 (two re-asks); stderr %s", code, srv.count(), stderr)
	}
	for i, want := range []string{`"seed":7`, `"seed":8`, `"seed":9`} {
		if b := srv.calls[i].body; !strings.Contains(b, want) {
			t.Errorf("ask %d: request body %s, want %s", i+1, b, want)
		}
	}
}

func TestModelFlagUsage(t *testing.T) {
	srv := newChatServer(t, protocolReply)
	t.Setenv("OPENAI_API_KEY", "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--concurrency", "0"}, "--concurrency: want 1 to 10000 calls in flight, got 0"},
		{[]string{"--concurrency", "100000000"}, "--concurrency: want 1 to 10000 calls in flight, got 100000000"},
		{[]string{"--max-retries", "-1"}, "--max-retries: must not be negative, got -1"},
		{[]string{"--rpm", "-1"}, "--rpm: must not be negative, got -1"},
		{[]string{"--tpm", "-1"}, "--tpm: must not be negative, got -1"},
		{[]string{"--prices", filepath.Join(t.TempDir(), "none.json")}, "--prices: open "},
		{[]string{"--jobs", "2"}, "unknown flag --jobs"},
		{[]string{"--retries", "2"}, "unknown flag --retries"},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			_, stderr, code := runJudge(t, append([]string{"--base-url", srv.URL, "--model", "judge-1"}, tt.args...), "")
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("qa-judge %v: exit %d stderr %q, want 2 and %q", tt.args, code, stderr, tt.want)
			}
		})
	}
	_, stderr, code := runJudge(t, []string{"--model", "judge-1"}, "")
	if code != 2 || !strings.Contains(stderr, "no API key for --provider openai: set OPENAI_API_KEY or use --api-key-file") {
		t.Errorf("no key: exit %d stderr %q, want 2 and a no-key error", code, stderr)
	}
}

// TestModelFlagsMatchPredict pins the model-call flags to qa-predict's names and defaults; only
// the environment variables differ (QA_JUDGE_*).
func TestModelFlagsMatchPredict(t *testing.T) {
	want := map[string]string{"concurrency": "4", "rpm": "0", "tpm": "0", "max-retries": "5", "timeout": "2m0s",
		"backoff": "500ms", "cache": "", "prices": "", "seed": "1", "api-key-file": "", "base-url": "", "model": ""}
	got := map[string]string{}
	for _, f := range flags() {
		df, ok := f.(cli.DocGenerationFlag)
		if !ok {
			t.Fatalf("flag %v has no default text", f.Names())
		}
		name := f.Names()[0]
		env := df.GetEnvVars()
		if len(env) != 1 || !strings.HasPrefix(env[0], "QA_JUDGE_") && env[0] != "QA_STRICT" && env[0] != "QA_MAX_LINE" {
			t.Errorf("--%s env vars %v, want one QA_JUDGE_*", name, env)
		}
		if _, ok := want[name]; ok {
			got[name] = strings.Trim(df.GetValue(), `"`)
		}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("--%s default %q, want %q (qa-predict's)", name, got[name], w)
		}
	}
}
