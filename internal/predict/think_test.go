package predict

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// thinkInput is four records whose replies think: both tags, the closing tag only, cut, and
// sent apart (reasoning_content).
const thinkInput = `{"schema":1,"id":"both","question":"ID1 FAULTS=think","answers":["A1"]}
{"schema":1,"id":"close","question":"ID2 FAULTS=thinkclose","answers":["A2"]}
{"schema":1,"id":"cut","question":"ID4 FAULTS=thinkcut","answers":["A4"]}
{"schema":1,"id":"apart","question":"ID6 FAULTS=reasoning","answers":["A6"]}
`

// TestThinkCache: the cache keeps replies as they came, and the thinking a server sent apart, so
// a run over it with the other --think reads them again without a call, and a run with the first
// --think gives what the first did.
func TestThinkCache(t *testing.T) {
	srv := faultServer(t)
	args := []string{"--provider", "openai", "--model", "deepseek-r1", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--max-tokens", "64", "--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
	type want struct{ text, reasoning, err string }
	strip := []want{
		{"A1", "The question asks for 1. Is it A0? No: A1.", ""},
		{"A2", "The question asks for 2. Is it A0? No: A2.", ""},
		// Cut: the thinking as far as it got, which says where the budget went.
		{"", "The question asks for", "openai deepseek-r1: reply cut in its thinking: no </think>, so no answer (max_tokens 64 ran out before the answer; a reasoning model's thinking counts in it)"},
		{"A6", "The question asks for 6. Is it A0? No: A6.", ""},
	}
	keep := []want{
		{"<think>\nThe question asks for 1. Is it A0? No: A1.\n</think>\n\nA1", "", ""},
		{"The question asks for 2. Is it A0? No: A2.\n</think>\n\nA2", "", ""},
		{"<think>\nThe question asks for", "", ""},
		{"A6", "The question asks for 6. Is it A0? No: A6.", ""},
	}
	for i, step := range []struct {
		think string
		want  []want
	}{{"strip", strip}, {"keep", keep}, {"strip", strip}} {
		recs, stderr, err := run(t, context.Background(), thinkInput, append(args, "--think", step.think)...)
		if len(recs) != 4 {
			t.Fatalf("run %d (--think %s): %d records, %v\n%s", i+1, step.think, len(recs), err, stderr)
		}
		for k, rec := range recs {
			p, w := rec.Prediction, step.want[k]
			if p.Text != w.text || p.Reasoning != w.reasoning || p.Error != w.err {
				t.Errorf("run %d (--think %s), %s: text %q, reasoning %q, error %q; want %q, %q, %q",
					i+1, step.think, rec.ID, p.Text, p.Reasoning, p.Error, w.text, w.reasoning, w.err)
			}
			if i > 0 && w.err == "" && !p.Cached {
				t.Errorf("run %d (--think %s), %s: not served from the cache", i+1, step.think, rec.ID)
			}
		}
	}
	if n := srv.calls.Load(); n != 4 {
		t.Errorf("the server saw %d calls over three runs, want 4: the cache serves the second and third", n)
	}
}

// thinkingServer is a loopback server speaking OpenAI's chat wire format that answers every
// request with reply(model, prompt) after thinking that names a wrong answer, between both tags,
// and the prompts it was sent, in order.
func thinkingServer(t *testing.T, reply func(model, prompt string) string) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var prompts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req chatBody
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, 400)
			return
		}
		p := req.Messages[len(req.Messages)-1].Content
		mu.Lock()
		prompts = append(prompts, p)
		mu.Unlock()
		content, _ := json.Marshal("<think>\nIt could be \"wrong\", or {\"0\": \"wrong\"}; yes, no.\n</think>\n\n" + reply(req.Model, p))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":30,"total_tokens":40}}`,
			req.Model, content)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(prompts)
	}
}

// thoughtWrong is the thinking thinkingServer puts before every reply.
const thoughtWrong = `It could be "wrong", or {"0": "wrong"}; yes, no.`

// TestThinkLoCoMoBatch: a LoCoMo batch's reply is read after its thinking, which is kept on the
// record that carries the call's usage.
func TestThinkLoCoMoBatch(t *testing.T) {
	recs := goldenLoCoMo(t)[:3]
	srv, _ := thinkingServer(t, func(_, p string) string {
		_, lines, _ := strings.Cut(p, "whenever possible.\n\n")
		var qs []string
		for i, line := range strings.Split(lines, "\n") {
			qs = append(qs, strings.TrimPrefix(line, fmt.Sprintf("%d: ", i)))
		}
		return dictReply(qs)
	})
	out, stderr, err := run(t, context.Background(), jsonl(t, recs...), "--provider", "openai", "--model", "gpt-4-turbo",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--batch-size", "3")
	if err != nil || len(out) != 3 {
		t.Fatalf("%v (%d records)\n%s", err, len(out), stderr)
	}
	for k, rec := range out {
		p := rec.Prediction
		want := "answer to " + strings.Fields(recs[k].Question)[0]
		reasoning := map[bool]string{true: thoughtWrong}[k == 0]
		if p.Error != "" || p.Text != want || p.Reasoning != reasoning {
			t.Errorf("%s: text %q, reasoning %q, error %q; want %q, %q and no error", rec.ID, p.Text, p.Reasoning, p.Error, want, reasoning)
		}
	}
}

// TestThinkNotes: LongMemEval's notes are read after their thinking, and the reading call over
// them shows none of it.
func TestThinkNotes(t *testing.T) {
	rec := longMemEvalRecord("longmemeval:q1", "")
	srv, prompts := thinkingServer(t, func(_, p string) string {
		if strings.HasPrefix(p, "I will give you a chat history") {
			return "note"
		}
		return "Acme"
	})
	out, stderr, err := run(t, context.Background(), jsonl(t, rec), "--provider", "openai", "--model", "gpt-4o",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--reading", "con-separate", "--history-sessions", "2")
	if err != nil || len(out) != 1 {
		t.Fatalf("%v (%d records)\n%s", err, len(out), stderr)
	}
	if p := out[0].Prediction; p.Text != "Acme" || !slices.Equal(p.Notes, []string{"note", "note"}) || p.Reasoning != thoughtWrong {
		t.Errorf("prediction: text %q, notes %q, reasoning %q; want Acme, two notes \"note\", the reading call's thinking", p.Text, p.Notes, p.Reasoning)
	}
	ps := prompts()
	if len(ps) != 3 || strings.Contains(ps[2], "wrong") || !strings.Contains(ps[2], `{"session_summary": "note"}`) {
		t.Errorf("%d calls; the reading call's prompt:\n%s\nwant 3, the notes in it without their thinking", len(ps), ps[len(ps)-1])
	}
}

// TestThinkEvaLearn: an EvaLearn answer and its verdict are read after their thinking (the
// verdict's thinking names another score); the verdict's raw keeps its reply as it came, and the
// next position's history shows the verdict's text after its thinking, as the judge's parser read.
func TestThinkEvaLearn(t *testing.T) {
	verdict := "[Grade]: 1 point\n[JSON]: ```json\n{\"answer_score\": 1}\n```"
	srv, prompts := thinkingServer(t, func(m, _ string) string {
		if m == "fake-judge" {
			return verdict
		}
		return "```json\n{\"answer\": \"X\"}\n```"
	})
	stdin := strings.Join(strings.SplitAfter(seqInput(t), "\n")[:2], "")
	recs, stderr, err := seqRun(t, stdin, seqArgs(t, srv.URL)...)
	if err != nil || len(recs) != 2 {
		t.Fatalf("%v (%d records)\n%s", err, len(recs), stderr)
	}
	raw := "<think>\n" + thoughtWrong + "\n</think>\n\n" + verdict
	for _, rec := range recs {
		p, jg := rec.Prediction, rec.Judgments[judgeKey]
		if p.Text != "```json\n{\"answer\": \"X\"}\n```" || p.Reasoning != thoughtWrong {
			t.Errorf("%s: text %q, reasoning %q; want the answer after the thinking, and the thinking", rec.ID, p.Text, p.Reasoning)
		}
		if jg == nil || jg.Score == nil || *jg.Score != 1 || jg.Raw != raw || jg.Error != "" {
			t.Errorf("%s: verdict %+v, want score 1 and the reply as it came", rec.ID, jg)
		}
	}
	ps := prompts()
	if len(ps) != 4 {
		t.Fatalf("%d calls, want 4: two answers and their verdicts", len(ps))
	}
	for i, p := range ps {
		if strings.Contains(p, "wrong") {
			t.Errorf("call %d's prompt shows a reply's thinking:\n%s", i+1, p)
		}
	}
	if !strings.Contains(ps[2], verdict) {
		t.Errorf("the second answer's prompt does not show the first verdict after its thinking:\n%s", ps[2])
	}
}

// TestThinkCutFromCache: a reply cut in its thinking is kept in the cache (the same max_tokens
// would cut it again), and one served from there is counted as the cache's, as an answer is: the
// record says cached, and the summary puts its cost in the part the cache served, not in what the
// run paid, where a run that made no call said it had paid for one.
func TestThinkCutFromCache(t *testing.T) {
	srv := faultServer(t) // 100 tokens in, 2 out a reply
	prices := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(prices, []byte(`{"deepseek-r1": {"input": 1000, "output": 1000}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	in := `{"schema":1,"id":"cut","question":"ID4 FAULTS=thinkcut","answers":["A4"]}
{"schema":1,"id":"ok","question":"ID5","answers":["A5"]}
`
	args := []string{"--provider", "openai", "--model", "deepseek-r1", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--max-tokens", "64", "--prices", prices, "--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
	cutTwice(t, in, args, 2, "$0.204000")
	if n := srv.calls.Load(); n != 2 {
		t.Errorf("the server saw %d calls over two runs, want 2: the cache serves the second", n)
	}
}

// cutTwice runs qa-predict with args over in twice: each run writes n records, the first cut in
// its thinking (served from the cache, and so marked, the second time), and its summary costs
// cost, the second run's all from the cache.
func cutTwice(t *testing.T, in string, args []string, n int, cost string) {
	t.Helper()
	for i, want := range []string{"cost " + cost + "\n", "cost " + cost + " (" + cost + " of it from the cache)\n"} {
		recs, stderr, _ := run(t, context.Background(), in, args...)
		if len(recs) != n {
			t.Fatalf("run %d: %d records, want %d\n%s", i+1, len(recs), n, stderr)
		}
		if p := recs[0].Prediction; !strings.Contains(p.Error, "reply cut in its thinking") || p.Cached != (i > 0) {
			t.Errorf("run %d: cut record's error %q, cached %v; want the cut, cached %v", i+1, p.Error, p.Cached, i > 0)
		}
		if !strings.Contains(stderr, want) {
			t.Errorf("run %d: stderr\n%s\nwant it to say %q", i+1, stderr, want)
		}
	}
}

// TestThinkCutNotesFromCache: a con-separate reading whose reading call's reply, cut in its
// thinking, comes from the cache with its notes is counted whole as the cache's.
func TestThinkCutNotesFromCache(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req chatBody
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, 400)
			return
		}
		content, stop := `"note"`, "stop"
		if !strings.HasPrefix(req.Messages[len(req.Messages)-1].Content, "I will give you a chat history") {
			content, stop = `"<think>\nThe answer is"`, "length"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":%q}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`,
			req.Model, content, stop)
	}))
	t.Cleanup(srv.Close)
	prices := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(prices, []byte(`{"m": {"input": 1000, "output": 1000}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--provider", "openai", "--model", "m", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--reading", "con-separate", "--history-sessions", "2", "--prices", prices, "--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
	in := jsonl(t, longMemEvalRecord("longmemeval:q1", ""))
	cutTwice(t, in, args, 1, "$0.033000")
	if n := calls.Load(); n != 3 {
		t.Errorf("the server saw %d calls over two runs, want 3: the cache serves the second", n)
	}
}

// TestThinkOnlyAskedAgain: a reply with nothing after its thinking is no answer, and, unlike one
// cut in its thinking, not one the same request must give again: it is not kept in the cache, so
// that --retry-errors over the output asks for another, where the cache served it back on every
// rerun and the record could never be answered.
func TestThinkOnlyAskedAgain(t *testing.T) {
	srv := faultServer(t) // the first call thinks only, the second answers "A7"
	args := []string{"--provider", "openai", "--model", "deepseek-r1", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
	in := `{"schema":1,"id":"only","question":"ID7 FAULTS=thinkonly","answers":["A7"]}` + "\n"
	recs, stderr, _ := run(t, context.Background(), in, args...)
	if len(recs) != 1 || recs[0].Prediction.Error != "openai deepseek-r1: empty reply (nothing after </think>)" {
		t.Fatalf("first run: %d records, want one failed with an empty reply\n%s", len(recs), stderr)
	}
	recs, stderr, err := run(t, context.Background(), jsonl(t, recs...), append(args, "--retry-errors")...)
	if err != nil || len(recs) != 1 || recs[0].Prediction.Text != "A7" || recs[0].Prediction.Cached {
		t.Fatalf("--retry-errors: %v, %d records, want one answered A7 by a new call\n%s", err, len(recs), stderr)
	}
	if n := srv.calls.Load(); n != 2 {
		t.Errorf("the server saw %d calls, want 2", n)
	}
}

// TestThinkOnlyAtMaxTokensKept: a reply with nothing after its thinking that stopped at
// max_tokens there was cut by its budget, as one cut in its thinking is: its error says so, where
// it read as a reply that may be asked again, and it stays in the cache, as the same request is
// cut there again (a larger --max-tokens makes another key).
func TestThinkOnlyAtMaxTokensKept(t *testing.T) {
	srv := faultServer(t) // every call thinks only, stopped at max_tokens
	args := []string{"--provider", "openai", "--model", "deepseek-r1", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--cache", filepath.Join(t.TempDir(), "cache.sqlite"), "--max-tokens", "32"}
	in := `{"schema":1,"id":"only","question":"ID7 FAULTS=thinkonlycut,thinkonlycut","answers":["A7"]}` + "\n"
	want := "openai deepseek-r1: empty reply (nothing after </think>: max_tokens 32 ran out after it; a reasoning model's thinking counts in it)"
	recs, stderr, _ := run(t, context.Background(), in, args...)
	if len(recs) != 1 || recs[0].Prediction.Error != want {
		t.Fatalf("first run: %d records %+v, want one failed with %q\n%s", len(recs), recs, want, stderr)
	}
	recs, stderr, _ = run(t, context.Background(), jsonl(t, recs...), append(args, "--retry-errors")...)
	if len(recs) != 1 || recs[0].Prediction.Error != want || !recs[0].Prediction.Cached {
		t.Fatalf("--retry-errors: %d records %+v, want one failed again from the cache\n%s", len(recs), recs, stderr)
	}
	if n := srv.calls.Load(); n != 1 {
		t.Errorf("the server saw %d calls, want 1", n)
	}
}

// TestThinkKeepEvaLearn: under --think keep a reply is its text as it came, thinking and all, so
// the next position's history shows the first verdict whole, its thinking included, as the
// judge's parser read it.
func TestThinkKeepEvaLearn(t *testing.T) {
	verdict := "[Grade]: 1 point\n[JSON]: ```json\n{\"answer_score\": 1}\n```"
	srv, prompts := thinkingServer(t, func(m, _ string) string {
		if m == "fake-judge" {
			return verdict
		}
		return "X"
	})
	stdin := strings.Join(strings.SplitAfter(seqInput(t), "\n")[:2], "")
	recs, stderr, err := seqRun(t, stdin, seqArgs(t, srv.URL, "--think", "keep")...)
	if err != nil || len(recs) != 2 {
		t.Fatalf("%v (%d records)\n%s", err, len(recs), stderr)
	}
	raw := "<think>\n" + thoughtWrong + "\n</think>\n\n" + verdict
	if jg := recs[0].Judgments[judgeKey]; jg == nil || jg.Score == nil || *jg.Score != 1 || jg.Raw != raw {
		t.Fatalf("first verdict %+v, want score 1 and the reply as it came", jg)
	}
	ps := prompts()
	if len(ps) != 4 {
		t.Fatalf("%d calls, want 4: two answers and their verdicts", len(ps))
	}
	if !strings.Contains(ps[2], raw) {
		t.Errorf("the second answer's prompt does not show the first verdict whole, thinking included:\n%s", ps[2])
	}
}
