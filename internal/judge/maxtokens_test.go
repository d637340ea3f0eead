package judge

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/model"
)

// hiddenReasoningJudge is a loopback server speaking OpenAI's chat wire format as an o-series
// model does: its reasoning, unseen, takes 500 tokens of the reply's budget, so a request whose
// max_completion_tokens (or max_tokens) leaves no room after it gets an empty reply that stopped
// at the limit (finish_reason length), and one with room gets "yes". It keeps each request's
// budget as sent, 0 for none.
func hiddenReasoningJudge(t *testing.T) (*httptest.Server, func() []int) {
	srv := newChatWriter(t, func(w http.ResponseWriter, req chatRequest) {
		content, finish, used := "yes", "stop", 501
		if budget := req.MaxTokens + req.MaxCompl; budget > 0 && budget <= 500 {
			content, finish, used = "", "length", budget
		}
		writeCompletion(w, req.Model, map[string]any{"role": "assistant", "content": content}, finish, used)
	})
	return srv.Server, sent(srv, func(req chatRequest) int { return req.MaxTokens + req.MaxCompl })
}

// TestMaxTokensOnTheWire: LongMemEval's judge sends max_tokens 10, which a model whose hidden
// reasoning counts in it spends before any answer; --max-tokens N (or QA_JUDGE_MAX_TOKENS) sends
// N in its place, and the judgment is made. The MAGMA judge, which sends none, sends N too.
func TestMaxTokensOnTheWire(t *testing.T) {
	lme := rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", "")
	magma := rec("locomo:conv-26:0", "locomo", "temporal", "When?", "7 May 2023", "7 May 2023", `{"category":2}`)
	tests := []struct {
		name  string
		env   string
		args  []string
		in    string
		sent  int // the budget each call carried
		score bool
	}{
		{"protocol's own", "", nil, lme, 10, false},
		{"flag", "", []string{"--max-tokens", "2000"}, lme, 2000, true},
		{"env", "2000", nil, lme, 2000, true},
		{"flag over env", "3", []string{"--max-tokens", "2000"}, lme, 2000, true},
		{"zero keeps the protocol's", "", []string{"--max-tokens", "0"}, lme, 10, false},
		{"protocol sends none", "", nil, magma, 0, false},
		{"flag where the protocol sends none", "", []string{"--max-tokens", "2000"}, magma, 2000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("QA_JUDGE_MAX_TOKENS", tt.env)
			srv, budgets := hiddenReasoningJudge(t)
			args := append([]string{"--base-url", srv.URL, "--model", "o3-mini", "--parse-retries", "0"}, tt.args...)
			stdout, stderr, code := runJudge(t, args, tt.in)
			got := budgets()
			if len(got) != 1 || got[0] != tt.sent {
				t.Fatalf("calls carried max tokens %v, want [%d] (exit %d, stderr %s)", got, tt.sent, code, stderr)
			}
			recs := decodeAll(t, stdout)
			if len(recs) != 1 {
				t.Fatalf("got %d records, want 1 (stderr %s)", len(recs), stderr)
			}
			jg := recs[0].Judgments["auto/o3-mini"]
			if strings.HasPrefix(tt.in, `{"schema":1,"id":"longmemeval`) {
				if tt.score && (code != 0 || jg.Error != "" || jg.Score == nil || *jg.Score != 1) {
					t.Errorf("exit %d, judgment %+v, want score 1 (stderr %s)", code, jg, stderr)
				}
				if !tt.score && (code != command.ExitBadRecords || jg.Score != nil || !strings.Contains(jg.Error, "empty reply")) {
					t.Errorf("exit %d, judgment %+v, want an empty reply, no score (stderr %s)", code, jg, stderr)
				}
			}
		})
	}
}

// TestMaxTokensCacheKey: --max-tokens is part of the request, so the cache keys it: a run with
// another --max-tokens is not served the reply (cut or not) of a run with the first, and a rerun
// with the same one is.
func TestMaxTokensCacheKey(t *testing.T) {
	srv, budgets := hiddenReasoningJudge(t)
	in := rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", "")
	args := []string{"--base-url", srv.URL, "--model", "o3-mini", "--parse-retries", "0", "--cache", filepath.Join(t.TempDir(), "judge.sqlite"), "--force"}
	for i, run := range []struct {
		maxTokens string
		calls     []int // every call so far, by its budget
		cached    bool
	}{
		{"1000", []int{1000}, false},
		{"1000", []int{1000}, true},
		{"2000", []int{1000, 2000}, false},
		{"2000", []int{1000, 2000}, true},
		{"0", []int{1000, 2000, 10}, false},
	} {
		stdout, stderr, _ := runJudge(t, append(args, "--max-tokens", run.maxTokens), in)
		if got := budgets(); !slices.Equal(got, run.calls) {
			t.Fatalf("run %d (--max-tokens %s): calls %v, want %v (stderr %s)", i, run.maxTokens, got, run.calls, stderr)
		}
		if jg := decodeAll(t, stdout)[0].Judgments["auto/o3-mini"]; jg.Cached != run.cached {
			t.Errorf("run %d (--max-tokens %s): cached %v, want %v", i, run.maxTokens, jg.Cached, run.cached)
		}
	}
	// The key itself: the same request with another max_tokens is another key.
	j := &Judge{Provider: "openai", Model: "o3-mini"}
	p := Plan{Messages: []model.Message{{Role: "user", Content: "q"}}, MaxTokens: 10}
	keys := map[string]int{}
	for _, n := range []int{0, 2000, 3000} {
		j.MaxTokens = n
		k, err := cache.RequestKey(j.request(p, 0))
		if err != nil {
			t.Fatal(err)
		}
		keys[k] = n
	}
	if len(keys) != 3 {
		t.Errorf("--max-tokens 0, 2000 and 3000 gave %d cache keys, want 3", len(keys))
	}
}

// TestCutEmptyNotAskedAgain: a reply with no text that stopped at max_tokens (the hidden reasoning
// spent LongMemEval's 10) is not asked again under --parse-retries, as an empty reply that stopped
// otherwise is: the same budget cuts it again. The judgment fails naming the budget, and the one
// reply is paid for.
func TestCutEmptyNotAskedAgain(t *testing.T) {
	srv, budgets := hiddenReasoningJudge(t)
	in := rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", "")
	stdout, stderr, code := runJudge(t, []string{"--base-url", srv.URL, "--model", "o3-mini", "--parse-retries", "2"}, in)
	if got := budgets(); !slices.Equal(got, []int{10}) {
		t.Fatalf("calls carried max tokens %v, want one call with 10 (stderr %s)", got, stderr)
	}
	jg := decodeAll(t, stdout)[0].Judgments["auto/o3-mini"]
	const want = "judge call: openai o3-mini: empty reply (stop reason length: max_tokens 10 ran out"
	if code != command.ExitBadRecords || jg.Score != nil || jg.Attempts != 1 || !strings.HasPrefix(jg.Error, want) {
		t.Errorf("exit %d, judgment %+v; want one attempt failing with %q… (stderr %s)", code, jg, want, stderr)
	}
	if jg.Usage == nil || jg.Usage.OutputTokens != 10 {
		t.Errorf("usage %+v, want the cut reply's 10 output tokens", jg.Usage)
	}
}

// TestCutEmptyKeepsThinking: a reply with no text that stopped at max_tokens, whose server sent
// the thinking that spent the budget apart (reasoning_content), fails keeping that thinking, as a
// judgment cut in its thinking and a prediction's failed reply keep it: it says where the budget
// went.
func TestCutEmptyKeepsThinking(t *testing.T) {
	const thinking = "The response names Paris; the answer is Paris, so"
	srv := newChatWriter(t, func(w http.ResponseWriter, req chatRequest) {
		writeCompletion(w, req.Model, map[string]any{"role": "assistant", "content": nil, "reasoning_content": thinking}, "length", 10)
	})
	in := rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", "")
	stdout, stderr, code := runJudge(t, []string{"--base-url", srv.URL, "--model", "r1-judge"}, in)
	jg := decodeAll(t, stdout)[0].Judgments["auto/r1-judge"]
	const want = "judge call: openai r1-judge: empty reply (stop reason length: max_tokens 10 ran out"
	if code != command.ExitBadRecords || jg.Score != nil || !strings.HasPrefix(jg.Error, want) {
		t.Fatalf("exit %d, judgment %+v; want it failing with %q… (stderr %s)", code, jg, want, stderr)
	}
	if jg.Thinking != thinking {
		t.Errorf("thinking %q, want the thinking the server sent apart, %q", jg.Thinking, thinking)
	}
}

// TestMaxTokensFieldOnTheWire: a judge call to an OpenAI-compatible server carries its budget as
// max_tokens unless --max-tokens-field (or QA_JUDGE_MAX_TOKENS_FIELD) names max_completion_tokens,
// as an o-series model behind Azure OpenAI wants it; never both members, and the judgment is made
// either way.
func TestMaxTokensFieldOnTheWire(t *testing.T) {
	in := rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", "")
	for _, tt := range []struct {
		name, env   string
		args        []string
		tokens, cpl int // max_tokens and max_completion_tokens as sent, 0 for absent
	}{
		{"default", "", nil, 10, 0},
		{"auto", "", []string{"--max-tokens-field", "auto"}, 10, 0},
		{"flag", "", []string{"--max-tokens-field", "max_completion_tokens"}, 0, 10},
		{"env", "max_completion_tokens", nil, 0, 10},
		{"flag over env", "max_completion_tokens", []string{"--max-tokens-field", "max_tokens"}, 10, 0},
		{"with --max-tokens", "", []string{"--max-tokens-field", "max_completion_tokens", "--max-tokens", "2000"}, 0, 2000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("QA_JUDGE_MAX_TOKENS_FIELD", tt.env)
			srv := newChatServer(t, func(chatRequest) (string, int) { return "yes", 200 })
			budgets := sent(srv, func(req chatRequest) [2]int { return [2]int{req.MaxTokens, req.MaxCompl} })
			args := append([]string{"--base-url", srv.URL, "--model", "gpt-4o-mini", "--parse-retries", "0"}, tt.args...)
			stdout, stderr, code := runJudge(t, args, in)
			if got := budgets(); len(got) != 1 || got[0] != [2]int{tt.tokens, tt.cpl} {
				t.Fatalf("calls carried [max_tokens max_completion_tokens] %v, want [[%d %d]] (exit %d, stderr %s)", got, tt.tokens, tt.cpl, code, stderr)
			}
			if jg := decodeAll(t, stdout)[0].Judgments["auto/gpt-4o-mini"]; code != 0 || jg.Score == nil || *jg.Score != 1 {
				t.Errorf("exit %d, judgment %+v, want score 1 (stderr %s)", code, jg, stderr)
			}
		})
	}
}

// TestMaxTokensFieldCacheKey: a reply fetched with the budget under one member is not served to
// a run that names the other (a server that reads only one of them answers the other with no
// budget), and a rerun with the same member is served from the cache.
func TestMaxTokensFieldCacheKey(t *testing.T) {
	srv := newChatServer(t, func(chatRequest) (string, int) { return "yes", 200 })
	members := sent(srv, func(req chatRequest) string {
		if req.MaxCompl > 0 {
			return "max_completion_tokens"
		}
		return "max_tokens"
	})
	in := rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", "")
	args := []string{"--base-url", srv.URL, "--model", "gpt-4o-mini", "--cache", filepath.Join(t.TempDir(), "judge.sqlite"), "--force"}
	for i, run := range []struct {
		field  string
		calls  []string
		cached bool
	}{
		{"auto", []string{"max_tokens"}, false},
		{"max_tokens", []string{"max_tokens"}, true}, // the default here, named
		{"max_completion_tokens", []string{"max_tokens", "max_completion_tokens"}, false},
		{"max_completion_tokens", []string{"max_tokens", "max_completion_tokens"}, true},
	} {
		stdout, stderr, _ := runJudge(t, append(args, "--max-tokens-field", run.field), in)
		if got := members(); !slices.Equal(got, run.calls) {
			t.Fatalf("run %d (%s): calls %v, want %v (stderr %s)", i, run.field, got, run.calls, stderr)
		}
		if jg := decodeAll(t, stdout)[0].Judgments["auto/gpt-4o-mini"]; jg.Cached != run.cached || jg.Score == nil || *jg.Score != 1 {
			t.Errorf("run %d (%s): judgment %+v, want cached %v and score 1", i, run.field, jg, run.cached)
		}
	}
}

// TestCutUnparsableNotAskedAgain: a reply with text that stopped at max_tokens (or at the model's
// context window) before the judge's verdict, and so cannot be parsed, says so in its error, where
// "invalid JSON: unterminated string" alone hid that a larger --max-tokens lets it finish; and it
// is not asked again under --parse-retries, as an empty reply cut so is not: the same budget cuts it
// again. A cut reply that parses is the verdict, and one that stopped of itself is asked again.
func TestCutUnparsableNotAskedAgain(t *testing.T) {
	magma := rec("locomo:conv-26:0", "locomo", "temporal", "When?", "7 May 2023", "7 May 2023", `{"category":2}`)
	const cutJSON = `{"reasoning": "The predicted answer names the same day as the gold`
	tests := []struct {
		name    string
		args    []string
		content string
		finish  string
		calls   int
		want    string // the judgment's error, "" for a score
	}{
		{"cut at the budget given", []string{"--max-tokens", "20"}, cutJSON, "length", 1,
			"unparsable judge reply: invalid JSON: unterminated string at byte 66 (the reply stopped at max_tokens 20, cut short: a larger --max-tokens lets it finish)"},
		{"cut at the server's limit", nil, cutJSON, "length", 1,
			"unparsable judge reply: invalid JSON: unterminated string at byte 66 (the reply stopped at the server's token limit, no max_tokens being sent, cut short: --max-tokens lets it finish)"},
		{"stopped of itself", []string{"--max-tokens", "20"}, cutJSON, "stop", 3,
			"unparsable judge reply: invalid JSON: unterminated string at byte 66"},
		{"cut after the verdict", []string{"--max-tokens", "20"}, `{"score": 1.0}`, "length", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			srv := newChatWriter(t, func(w http.ResponseWriter, req chatRequest) {
				mu.Lock()
				calls++
				mu.Unlock()
				writeCompletion(w, req.Model, map[string]any{"role": "assistant", "content": tt.content}, tt.finish, 20)
			})
			args := append([]string{"--base-url", srv.URL, "--model", "gpt-4o-mini", "--mode", "locomo-continuous", "--parse-retries", "2"}, tt.args...)
			stdout, stderr, code := runJudge(t, args, magma)
			mu.Lock()
			n := calls
			mu.Unlock()
			if n != tt.calls {
				t.Errorf("%d calls, want %d (stderr %s)", n, tt.calls, stderr)
			}
			jg := decodeAll(t, stdout)[0].Judgments["locomo-continuous/gpt-4o-mini"]
			if jg.Error != tt.want {
				t.Errorf("error %q, want %q (exit %d, stderr %s)", jg.Error, tt.want, code, stderr)
			}
			if tt.want != "" && (code != command.ExitBadRecords || jg.Raw != tt.content || jg.Attempts != tt.calls) {
				t.Errorf("exit %d, raw %q, attempts %d; want exit %d, the reply kept, %d attempts", code, jg.Raw, jg.Attempts, command.ExitBadRecords, tt.calls)
			}
			if tt.want == "" && (code != 0 || jg.Score == nil || *jg.Score != 1) {
				t.Errorf("exit %d, judgment %+v, want score 1", code, jg)
			}
		})
	}
}
