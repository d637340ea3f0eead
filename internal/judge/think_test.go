package judge

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// shapeRe finds the reply shape a prediction asks the thinking judge for.
var shapeRe = regexp.MustCompile(`SHAPE=(\w+)`)

// thinkingJudge is a loopback server speaking OpenAI's chat wire format as a reasoning judge does
// on vLLM: its reply to a prompt whose prediction holds SHAPE=name is one of these shapes, each a
// verdict of "no" (or MAGMA's score 0.5) after thinking that says "yes" (and a score of 1):
// think (both tags), thinkclose (the closing tag only), thinkcut (cut at max_tokens in its
// thinking), thinkonly (nothing after its thinking), thinkonlycut (nothing after its thinking, cut at
// max_tokens there), magistral (Magistral's [THINK] and [/THINK]),
// gptoss (gpt-oss's analysis channel before its final one), reasoning (the thinking sent apart as reasoning_content), plain (no thinking). It counts its calls.
func thinkingJudge(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		req, ok := clitest.ReadChat(w, r)
		if !ok {
			return
		}
		prompt := req.Prompt
		shape := "plain"
		if m := shapeRe.FindStringSubmatch(prompt); m != nil {
			shape = m[1]
		}
		verdict, thinking := "no", "The response says yes, so yes? It does not match: no."
		if strings.Contains(prompt, `"score"`) { // MAGMA's prompt asks for a JSON object
			verdict, thinking = `{"score": 0.5, "reasoning": "half right"}`, `A {"score": 1} at first; half, on reflection.`
		}
		message := map[string]any{"role": "assistant"}
		finish := "stop"
		switch shape {
		case "think":
			message["content"] = "<think>\n" + thinking + "\n</think>\n\n" + verdict
		case "thinkclose":
			message["content"] = thinking + "\n</think>\n\n" + verdict
		case "thinkcut":
			message["content"], finish = "<think>\nThe response says yes, so", "length"
		case "thinkonly":
			message["content"] = "<think>\n" + thinking + "\n</think>\n\n"
		case "thinkonlycut":
			message["content"], finish = "<think>\n"+thinking+"\n</think>\n\n", "length"
		case "magistral":
			message["content"] = "[THINK]" + thinking + "[/THINK]" + verdict
		case "gptoss":
			message["content"] = "<|channel|>analysis<|message|>" + thinking + "<|end|><|start|>assistant<|channel|>final<|message|>" + verdict
		case "reasoning":
			message["content"], message["reasoning_content"] = verdict, thinking
		default:
			message["content"] = verdict
		}
		writeCompletion(w, req.Model, message, finish, 10)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// thinkInput is a LongMemEval record for each reply shape, and a LoCoMo one judged by MAGMA.
func thinkInput() string {
	var b strings.Builder
	for _, shape := range []string{"think", "thinkclose", "thinkcut", "thinkonly", "thinkonlycut", "magistral", "gptoss", "reasoning", "plain"} {
		b.WriteString(rec("longmemeval:"+shape, "longmemeval", "single-session-user", "Which city?", "Paris", "Paris SHAPE="+shape, ""))
	}
	b.WriteString(rec("locomo:conv-26:0", "locomo", "temporal", "When did Caroline go?", "7 May 2023", "May SHAPE=think", `{"category":2}`))
	return b.String()
}

// TestThinkJudgeCache: a judge's replies are parsed after their thinking under --think strip and
// whole under keep; raw keeps each as it came either way, MAGMA's reasoning is its JSON's, and
// the cache serves a run with the other --think without a call.
func TestThinkJudgeCache(t *testing.T) {
	srv, calls := thinkingJudge(t)
	args := []string{"--model", "r1-judge", "--base-url", srv.URL, "--parse-retries", "0", "--cache", filepath.Join(t.TempDir(), "judge.sqlite")}
	const thinking = "The response says yes, so yes? It does not match: no."
	raw := map[string]string{
		"longmemeval:think":        "<think>\n" + thinking + "\n</think>\n\nno",
		"longmemeval:thinkclose":   thinking + "\n</think>\n\nno",
		"longmemeval:thinkcut":     "<think>\nThe response says yes, so",
		"longmemeval:thinkonly":    "<think>\n" + thinking + "\n</think>\n\n",
		"longmemeval:thinkonlycut": "<think>\n" + thinking + "\n</think>\n\n",
		"longmemeval:magistral":    "[THINK]" + thinking + "[/THINK]no",
		"longmemeval:gptoss":       "<|channel|>analysis<|message|>" + thinking + "<|end|><|start|>assistant<|channel|>final<|message|>no",
		"longmemeval:reasoning":    "no",
		"longmemeval:plain":        "no",
		"locomo:conv-26:0":         "<think>\nA {\"score\": 1} at first; half, on reflection.\n</think>\n\n{\"score\": 0.5, \"reasoning\": \"half right\"}",
	}
	type verdict struct {
		score     string // "" for none
		reasoning string
		err       string
	}
	cut := "judge call: openai r1-judge: reply cut in its thinking: no </think>, so no answer (max_tokens 10 ran out before the answer; a reasoning model's thinking counts in it)"
	spent := "judge call: openai r1-judge: empty reply (nothing after </think>: max_tokens 10 ran out after it; a reasoning model's thinking counts in it)"
	strip := map[string]verdict{
		"longmemeval:thinkonlycut": {"", "", spent},
		"longmemeval:think":        {"0", "", ""}, "longmemeval:thinkclose": {"0", "", ""}, "longmemeval:thinkcut": {"", "", cut},
		"longmemeval:thinkonly": {"", "", "unparsable judge reply: empty reply (nothing after </think>)"}, "longmemeval:magistral": {"0", "", ""}, "longmemeval:gptoss": {"0", "", ""}, "longmemeval:reasoning": {"0", "", ""},
		"longmemeval:plain": {"0", "", ""}, "locomo:conv-26:0": {"0.5", "half right", ""},
	}
	keep := map[string]verdict{
		"longmemeval:thinkonlycut": {"1", "", ""},
		"longmemeval:think":        {"1", "", ""}, "longmemeval:thinkclose": {"1", "", ""}, "longmemeval:thinkcut": {"1", "", ""},
		"longmemeval:thinkonly": {"1", "", ""}, "longmemeval:magistral": {"1", "", ""}, "longmemeval:gptoss": {"1", "", ""}, "longmemeval:reasoning": {"0", "", ""},
		"longmemeval:plain": {"0", "", ""}, "locomo:conv-26:0": {"", "", `unparsable judge reply: invalid JSON: expecting value at byte 0`},
	}
	for i, step := range []struct {
		think string
		want  map[string]verdict
	}{{"strip", strip}, {"keep", keep}, {"strip", strip}} {
		out, stderr, _ := runJudge(t, append(args, "--think", step.think), thinkInput())
		recs := decodeAll(t, out)
		if len(recs) != len(raw) {
			t.Fatalf("run %d (--think %s): %d records, want %d\n%s", i+1, step.think, len(recs), len(raw), stderr)
		}
		for _, r := range recs {
			for _, jg := range r.Judgments {
				score := ""
				if jg.Score != nil {
					score = fmt.Sprint(*jg.Score)
				}
				got, want := verdict{score, jg.Reasoning, jg.Error}, step.want[r.ID]
				if got != want || jg.Raw != raw[r.ID] {
					t.Errorf("run %d (--think %s), %s: verdict %+v, raw %q; want %+v, raw %q", i+1, step.think, r.ID, got, jg.Raw, want, raw[r.ID])
				}
			}
		}
	}
	if n := calls.Load(); n != int64(len(raw)) {
		t.Errorf("the server saw %d calls over three runs, want %d: the cache serves the second and third", n, len(raw))
	}
}
