package predict

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// chatRequest is what a loopback OpenAI server saw of one chat call.
type chatRequest struct {
	Model     string
	MaxTokens int // max_tokens or max_completion_tokens, 0 when absent
	Prompt    string
	Seed      int // 0 when absent
}

// recordingServer answers every chat call "ok" and keeps the requests.
func recordingServer(t *testing.T) (*httptest.Server, func() []chatRequest) {
	var seen clitest.Log[chatRequest]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model               string                     `json:"model"`
			MaxTokens           int                        `json:"max_tokens"`
			MaxCompletionTokens int                        `json:"max_completion_tokens"`
			Seed                int                        `json:"seed"`
			Messages            []struct{ Content string } `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, 400)
			return
		}
		seen.Add(chatRequest{req.Model, max(req.MaxTokens, req.MaxCompletionTokens), req.Messages[len(req.Messages)-1].Content, req.Seed})
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`, req.Model)
	}))
	t.Cleanup(srv.Close)
	return srv, seen.All
}

// longMemEvalRecord is a LongMemEval record with eight sessions of a few hundred tokens each.
func longMemEvalRecord(id, extra string) *record.Record {
	rec := &record.Record{Schema: 1, ID: id, Dataset: "longmemeval", Question: "Where do I work?", Answers: []string{"Acme"},
		Meta: map[string]json.RawMessage{"question_date": json.RawMessage(`"2023/05/30 (Tue) 10:00"`)}}
	for s := range 8 {
		text := fmt.Sprintf("user: Day %d. I started at Acme, a firm that makes anvils.%s\nassistant: %s", s, extra,
			strings.Repeat("Congratulations on the new job; tell me more about the anvils. ", 6))
		rec.Context = append(rec.Context, record.Passage{Date: fmt.Sprintf("2023/05/%02d (Mon) 09:00", s+1), Text: text})
	}
	return rec
}

func jsonl(t *testing.T, recs ...*record.Record) string {
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestLongMemEvalReaderRequest(t *testing.T) {
	rec := longMemEvalRecord("longmemeval:q1", "")
	whole, _, err := prompt.LongMemEvalPrompt(rec, prompt.HistoryOptions{Format: "json"}, false)
	if err != nil {
		t.Fatal(err)
	}
	cut60, cut, err := prompt.LongMemEvalPrompt(rec, prompt.HistoryOptions{Format: "json", MaxTokens: 60}, false)
	if err != nil || !cut || len(cut60) >= len(whole) {
		t.Fatalf("the test record's history is not cut at 60 tokens (%v, %v)", cut, err)
	}
	render := func(opt prompt.HistoryOptions, con bool) string {
		s, _, err := prompt.LongMemEvalPrompt(rec, opt, con)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	con := render(prompt.HistoryOptions{Format: "json"}, true)
	nl := render(prompt.HistoryOptions{Format: "nl", TopK: 3, UserOnly: true}, false)
	if !strings.Contains(con, "step by step") || len(nl) >= len(whole)/2 {
		t.Fatal("the con and nl prompts do not differ from the direct json one as expected")
	}
	generic := &record.Record{Schema: 1, ID: "g1", Question: "Who?", Answers: []string{"x"}}
	tests := []struct {
		name      string
		args      []string
		want      string // LongMemEval prompt sent
		maxTokens int
		stderr    string // expected in stderr
	}{
		{"auto, gpt-4o: 126200 tokens kept", []string{"--model", "gpt-4o"}, whole, 800, ""},
		{"explicit budget", []string{"--model", "gpt-4o", "--history-tokens", "60"}, cut60, 800, "1 LongMemEval history cut to its first 60 o200k_base tokens"},
		{"environment", []string{"--model", "gpt-4o"}, cut60, 800, "cut to its first 60"},
		{"max tokens given", []string{"--model", "gpt-4o-2024-08-06", "--history-tokens", "60", "--max-tokens", "300"}, cut60, 300, ""},
		{"none", []string{"--model", "gpt-4o", "--history-tokens", "none"}, whole, 800, ""},
		{"con reading", []string{"--model", "gpt-4o", "--reading", "con"}, con, 800, ""},
		{"nl, last 3 sessions, user turns", []string{"--model", "gpt-4o", "--history-format", "nl", "--history-sessions", "3", "--user-only"}, nl, 800, ""},
		{"open model of the table", []string{"--model", "meta-llama/Meta-Llama-3.1-70B-Instruct"}, whole, 800,
			"warning: LongMemEval cuts meta-llama/Meta-Llama-3.1-70B-Instruct's history to 126200 tokens of its Hugging Face tokenizer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "environment" {
				t.Setenv("QA_HISTORY_TOKENS", "60")
			}
			srv, seen := recordingServer(t)
			args := append([]string{"--provider", "openai", "--base-url", srv.URL, "--api-key-file", keyFile(t), "--concurrency", "1"}, tt.args...)
			recs, stderr, err := run(t, context.Background(), jsonl(t, rec, generic), args...)
			if err != nil || len(recs) != 2 {
				t.Fatalf("qa-predict: %v (%d records)\n%s", err, len(recs), stderr)
			}
			reqs := seen()
			if len(reqs) != 2 {
				t.Fatalf("%d calls, want 2", len(reqs))
			}
			lme, gen := reqs[0], reqs[1]
			if !strings.HasPrefix(lme.Prompt, "I will give you several history chats") {
				lme, gen = gen, lme
			}
			if lme.Prompt != tt.want {
				t.Errorf("LongMemEval prompt: %d bytes, want %d:\n%.300q", len(lme.Prompt), len(tt.want), lme.Prompt)
			}
			if lme.MaxTokens != tt.maxTokens {
				t.Errorf("LongMemEval max tokens = %d, want %d", lme.MaxTokens, tt.maxTokens)
			}
			if want := map[bool]int{false: 0, true: 300}[slices.Contains(tt.args, "--max-tokens")]; gen.MaxTokens != want {
				t.Errorf("generic record max tokens = %d, want %d", gen.MaxTokens, want)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
			if n := strings.Count(stderr, "warning: LongMemEval"); n > 1 {
				t.Errorf("the warning is printed %d times, want once", n)
			}
		})
	}
}

// TestLongMemEvalHistoryErrors: a history the budget cannot be counted on is an error on its
// record, with no call; the other records are answered (one with a DEL in a turn: o200k_base
// counts it as tiktoken does); a bad budget is a usage error.
func TestLongMemEvalHistoryErrors(t *testing.T) {
	srv, seen := recordingServer(t)
	args := []string{"--provider", "openai", "--model", "gpt-4o", "--base-url", srv.URL, "--api-key-file", keyFile(t), "--history-tokens", "60"}
	in := jsonl(t, longMemEvalRecord("longmemeval:del", "\x7f"), longMemEvalRecord("longmemeval:eop", " <|endofprompt|>"), longMemEvalRecord("longmemeval:ok", ""))
	recs, stderr, err := run(t, context.Background(), in, args...)
	if command.ExitCode(err) != 3 || len(recs) != 3 {
		t.Fatalf("qa-predict: %v (exit %d, %d records), want exit 3 and 3 records\n%s", err, command.ExitCode(err), len(recs), stderr)
	}
	for i, want := range []string{"", "<|endofprompt|>", ""} {
		p := recs[i].Prediction
		if p == nil || !strings.Contains(p.Error, want) || (want == "") != (p.Error == "") {
			t.Errorf("record %s: prediction %+v, want error containing %q", recs[i].ID, p, want)
		}
	}
	if n := len(seen()); n != 2 {
		t.Errorf("%d calls, want 2 (the record in error makes none)", n)
	}
	for _, bad := range [][]string{
		{"--history-tokens", "0"}, {"--history-tokens", "-5"}, {"--history-tokens", "many"},
		{"--reading", "cot"}, {"--history-format", "xml"}, {"--history-sessions", "-1"}, {"--retriever", "flat-bm25"},
		{"--retriever", "flat-turn", "--user-only"}, {"--key-expansion", "both"}, {"--key-expansion", "merge"},
		{"--key-expansion", "replace", "--retriever", "flat-session", "--history-format", "nl"},
	} {
		_, _, err := run(t, context.Background(), in, append(args, bad...)...)
		if command.ExitCode(err) != 2 || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%q: %v, want a usage error naming the flag", bad, err)
		}
	}
}

// notesServer answers LongMemEval's note requests with "  note N\n" (N counting note requests
// from 1) and every other request "ok", 10 tokens in and 1 out each; the note request numbered
// failAt, if any, gets a permanent 400 (and every reading request when failAt is below 0).
func notesServer(t *testing.T, failAt int) (*httptest.Server, func() []chatRequest) {
	return notesFaultServer(t, failAt, "")
}

// notesFaultServer is notesServer, its failing requests answered with fault: "" for the 400,
// "emptynousage" for an empty reply without usage.
func notesFaultServer(t *testing.T, failAt int, fault string) (*httptest.Server, func() []chatRequest) {
	var mu sync.Mutex
	var seen clitest.Log[chatRequest]
	notes := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model     string                     `json:"model"`
			MaxTokens int                        `json:"max_tokens"`
			Messages  []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, 400)
			return
		}
		content := req.Messages[len(req.Messages)-1].Content
		seen.Add(chatRequest{Model: req.Model, MaxTokens: req.MaxTokens, Prompt: content})
		mu.Lock()
		reply := "ok"
		if failAt < 0 && !strings.HasPrefix(content, "I will give you a chat history") {
			mu.Unlock()
			if fault == "emptynousage" {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`, req.Model)
				return
			}
			http.Error(w, `{"error":{"message":"no reading today","type":"invalid_request_error"}}`, 400)
			return
		}
		if strings.HasPrefix(content, "I will give you a chat history") {
			notes++
			if notes == failAt {
				mu.Unlock()
				if fault == "emptynousage" {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`, req.Model)
					return
				}
				http.Error(w, `{"error":{"message":"no notes today","type":"invalid_request_error"}}`, 400)
				return
			}
			reply = fmt.Sprintf("  note %d\n", notes)
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`, req.Model, reply)
	}))
	t.Cleanup(srv.Close)
	return srv, seen.All
}

// TestLongMemEvalNotes: con-separate asks for notes on each kept session, in file order, then
// reads them; the record carries the notes and the sums of what every call used, and a cached
// rerun makes no call.
func TestLongMemEvalNotes(t *testing.T) {
	rec := longMemEvalRecord("longmemeval:q1", "")
	rec.Context[5].Date = "2023/04/01 (Sat) 09:00" // sorts first in the history
	opt := prompt.HistoryOptions{Format: "json", TopK: 3}
	asks, err := prompt.LongMemEvalNotePrompts(rec, opt)
	if err != nil || len(asks) != 3 || asks[0].Date != rec.Context[5].Date {
		t.Fatalf("note prompts: %d, %v (want the last 3 sessions in file order)", len(asks), err)
	}
	if !strings.Contains(asks[0].Prompt, `Session Content:
[{"role": "user", "content": "Day 5. I started at Acme`) || !strings.HasSuffix(asks[0].Prompt, "Question: Where do I work?\nExtracted note (information relevant to answering the question):") {
		t.Errorf("note prompt:\n%s", asks[0].Prompt)
	}
	notes := []string{"note 1", "note 2", "note 3"}
	reading, _, err := prompt.LongMemEvalNotesPrompt(rec, asks, notes, opt)
	if err != nil {
		t.Fatal(err)
	}
	wantHistory := "\n### Session 1:\nSession Date: 2023/04/01 (Sat) 09:00\nSession Content:\n\n{\"session_summary\": \"note 1\"}\n" +
		"\n### Session 2:\nSession Date: 2023/05/07 (Mon) 09:00\nSession Content:\n\n{\"session_summary\": \"note 2\"}\n" +
		"\n### Session 3:\nSession Date: 2023/05/08 (Mon) 09:00\nSession Content:\n\n{\"session_summary\": \"note 3\"}\n"
	if want := prompt.LongMemEvalGeneration(wantHistory, "2023/05/30 (Tue) 10:00", rec.Question, true); reading != want {
		t.Errorf("reading prompt:\n%s\nwant:\n%s", reading, want)
	}

	srv, seen := notesServer(t, 0)
	cacheFile := filepath.Join(t.TempDir(), "cache.sqlite")
	args := []string{"--provider", "openai", "--model", "gpt-4o", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--reading", "con-separate", "--history-sessions", "3", "--cache", cacheFile}
	prices, err := model.LoadPrices("")
	if err != nil {
		t.Fatal(err)
	}
	wantCost := prices.Cost("gpt-4o", record.Usage{InputTokens: 40, OutputTokens: 4})
	if wantCost == nil {
		t.Fatal("no built-in price for gpt-4o")
	}
	for run1 := range 2 {
		recs, stderr, err := run(t, context.Background(), jsonl(t, rec), args...)
		if err != nil || len(recs) != 1 {
			t.Fatalf("qa-predict: %v (%d records)\n%s", err, len(recs), stderr)
		}
		p, cached := recs[0].Prediction, run1 == 1
		attempts := map[bool]int{false: 4, true: 0}[cached] // a cached reply took no attempt
		if p.Text != "ok" || !slices.Equal(p.Notes, notes) || p.Attempts != attempts || p.Usage == nil || !reflect.DeepEqual(*p.Usage, record.Usage{InputTokens: 40, OutputTokens: 4}) {
			t.Errorf("run %d: prediction %+v (usage %+v), want ok, %q, %d attempts, 40 tokens in and 4 out", run1+1, p, p.Usage, notes, attempts)
		}
		if p.CostUSD == nil || *p.CostUSD <= 0 || *p.CostUSD != *wantCost || p.Cached != cached || cached && p.LatencyMS != 0 {
			t.Errorf("run %d: cost %v (want %v, the price of every call's tokens), cached %v, latency %d", run1+1, p.CostUSD, *wantCost, p.Cached, p.LatencyMS)
		}
		if !strings.Contains(stderr, "tokens 40 in, 4 out") {
			t.Errorf("run %d: totals do not count the notes:\n%s", run1+1, stderr)
		}
	}
	reqs := seen()
	if len(reqs) != 4 {
		t.Fatalf("%d calls over two runs, want 4 (the second run is cached)", len(reqs))
	}
	for i, r := range reqs {
		want, maxTokens := reading, 800
		if i < 3 {
			want, maxTokens = asks[i].Prompt, 500
		}
		if r.Prompt != want || r.MaxTokens != maxTokens {
			t.Errorf("call %d: max_tokens %d, prompt:\n%.300s\nwant max_tokens %d:\n%.300s", i+1, r.MaxTokens, r.Prompt, maxTokens, want)
		}
	}
}

// TestLongMemEvalNotesLongPrice: the calls of a con-separate reading are priced each as its own,
// as the provider bills them: a long-context rate applies to a call whose prompt passes its
// threshold, never to calls whose prompts pass it only together. Four calls of 10 prompt tokens
// against a threshold of 25 cost four times one such call.
func TestLongMemEvalNotesLongPrice(t *testing.T) {
	srv, _ := notesServer(t, 0)
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(prices, []byte("m: {input: 1, output: 2, long: {above: 25, input: 100, output: 200}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, stderr, err := run(t, context.Background(), jsonl(t, longMemEvalRecord("longmemeval:q1", "")),
		"--provider", "openai", "--model", "m", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--reading", "con-separate", "--history-sessions", "3", "--prices", prices)
	if err != nil || len(recs) != 1 {
		t.Fatalf("qa-predict: %v (%d records)\n%s", err, len(recs), stderr)
	}
	p := recs[0].Prediction
	const want = 4 * (10*1 + 1*2) / 1e6
	if p.Usage == nil || !reflect.DeepEqual(*p.Usage, record.Usage{InputTokens: 40, OutputTokens: 4}) || p.CostUSD == nil || !(math.Abs(*p.CostUSD-want) <= 1e-15) {
		cost := "none"
		if p.CostUSD != nil {
			cost = fmt.Sprint(*p.CostUSD)
		}
		t.Errorf("prediction usage %+v, cost %s; want 40 tokens in and 4 out, costing %v", p.Usage, cost, want)
	}
}

// TestLongMemEvalNotesErrors: a failed note call is an error on its record, which is not read;
// the other records are answered. con-separate cannot be asked of the nl format or of the
// extractive baseline.
func TestLongMemEvalNotesErrors(t *testing.T) {
	srv, seen := notesServer(t, 2)
	args := []string{"--provider", "openai", "--model", "gpt-4o", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--reading", "con-separate", "--history-sessions", "2", "--concurrency", "1"}
	in := jsonl(t, longMemEvalRecord("longmemeval:a", ""), longMemEvalRecord("longmemeval:b", ""))
	recs, stderr, err := run(t, context.Background(), in, args...)
	if command.ExitCode(err) != 3 || len(recs) != 2 {
		t.Fatalf("qa-predict: %v (exit %d, %d records), want exit 3 and 2 records\n%s", err, command.ExitCode(err), len(recs), stderr)
	}
	bad, good := recs[0].Prediction, recs[1].Prediction
	if !strings.HasPrefix(bad.Error, "notes on history block 2 of 2: ") || !strings.Contains(bad.Error, "no notes today") || bad.Text != "" || bad.Notes != nil {
		t.Errorf("record a: %+v, want the note call's error and no answer", bad)
	}
	// The note it got was paid for: its tokens and attempt count on the record and in the totals.
	if bad.Attempts != 2 || bad.Usage == nil || !reflect.DeepEqual(*bad.Usage, record.Usage{InputTokens: 10, OutputTokens: 1}) || bad.CostUSD == nil {
		t.Errorf("record a: %d attempts, usage %+v, cost %v; want 2 (a note, then the failed one), the note's 10 tokens in and 1 out, priced", bad.Attempts, bad.Usage, bad.CostUSD)
	}
	if !strings.Contains(stderr, "tokens 40 in, 4 out") {
		t.Errorf("totals leave out the note record a paid for (want 40 in, 4 out):\n%s", stderr)
	}
	if good.Error != "" || good.Text != "ok" || !slices.Equal(good.Notes, []string{"note 3", "note 4"}) {
		t.Errorf("record b: %+v", good)
	}
	if n := len(seen()); n != 5 {
		t.Errorf("%d calls, want 5 (2 notes asked for a, 3 calls for b)", n)
	}
	// A reading call that fails after the notes: the notes and what they cost stay on the record.
	failing, _ := notesServer(t, -1)
	reading := slices.Clone(args)
	reading[5] = failing.URL // --base-url
	recs, stderr, err = run(t, context.Background(), jsonl(t, longMemEvalRecord("longmemeval:c", "")), reading...)
	if command.ExitCode(err) != 3 || len(recs) != 1 {
		t.Fatalf("qa-predict, reading call failing: %v (%d records), want exit 3 and 1 record\n%s", err, len(recs), stderr)
	}
	if p := recs[0].Prediction; !strings.Contains(p.Error, "no reading today") || p.Attempts != 3 || len(p.Notes) != 2 ||
		p.Usage == nil || !reflect.DeepEqual(*p.Usage, record.Usage{InputTokens: 20, OutputTokens: 2}) || p.CostUSD == nil || !strings.Contains(stderr, "tokens 20 in, 2 out") {
		t.Errorf("reading call failing: %+v (usage %+v), want its error, 3 attempts, 2 notes, their 20 tokens in and 2 out, priced and in the totals\n%s", p, p.Usage, stderr)
	}
	if _, _, err := run(t, context.Background(), in, append(args, "--history-format", "nl")...); command.ExitCode(err) != 2 || !strings.Contains(err.Error(), "con-separate") {
		t.Errorf("--history-format nl: %v, want a usage error", err)
	}
	// The extractive baseline sends no prompt, so it takes no notes: con-separate does nothing.
	recs, stderr, err = run(t, context.Background(), in, append(args, "--provider", "extractive")...)
	if err != nil || len(recs) == 0 || !strings.Contains(stderr, "--reading con-separate and --history-sessions 2 do nothing: the provider is extractive") {
		t.Fatalf("--provider extractive: %v (%d records), want a run that warns of --reading con-separate\n%s", err, len(recs), stderr)
	}
	for _, rec := range recs {
		if p := rec.Prediction; p == nil || p.Provider != "extractive" || p.Notes != nil {
			t.Errorf("--provider extractive: %s: prediction %+v, want the baseline's, without notes", rec.ID, p)
		}
	}
}

// TestLongMemEvalNotesEmptyWithoutUsage: a note or reading call whose reply is empty and came
// without usage was paid for at a cost unknown: the record's usage and cost are unknown, not the
// sum of the other calls' alone, and the summary counts the reply it leaves out.
func TestLongMemEvalNotesEmptyWithoutUsage(t *testing.T) {
	for _, failAt := range []int{2, -1} {
		srv, _ := notesFaultServer(t, failAt, "emptynousage")
		recs, stderr, err := run(t, context.Background(), jsonl(t, longMemEvalRecord("longmemeval:a", "")),
			"--provider", "openai", "--model", "gpt-4o", "--base-url", srv.URL, "--api-key-file", keyFile(t),
			"--reading", "con-separate", "--history-sessions", "2")
		if command.ExitCode(err) != 3 || len(recs) != 1 {
			t.Fatalf("failing at %d: %v (exit %d, %d records), want exit 3 and 1 record\n%s", failAt, err, command.ExitCode(err), len(recs), stderr)
		}
		if p := recs[0].Prediction; !strings.Contains(p.Error, "empty reply") || p.Usage != nil || p.CostUSD != nil {
			t.Errorf("failing at %d: %+v (usage %+v), want the empty reply's error with no usage nor cost", failAt, p, p.Usage)
		}
		if want := "(not counting 1 reply without token usage)"; !strings.Contains(stderr, want) {
			t.Errorf("failing at %d: stderr lacks %q:\n%s", failAt, want, stderr)
		}
	}
}

// TestLongMemEvalNotesPartlyCached: a con-separate record some of whose notes come from the
// cache (a rerun after a note call failed) and the rest from calls made now is no cached
// prediction, but the run's summary gives the notes the cache served as the part of its cost
// from the cache, not as new spend. Each call here costs gpt-4o's price of 10 tokens in and 1
// out, $0.000035.
func TestLongMemEvalNotesPartlyCached(t *testing.T) {
	srv, seen := notesServer(t, 3) // the third note call fails, once
	args := []string{"--provider", "openai", "--model", "gpt-4o", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--reading", "con-separate", "--history-sessions", "3", "--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
	in := jsonl(t, longMemEvalRecord("longmemeval:q1", ""))
	recs, stderr, err := run(t, context.Background(), in, args...)
	if command.ExitCode(err) != 3 || len(recs) != 1 || !strings.Contains(recs[0].Prediction.Error, "no notes today") {
		t.Fatalf("first run: %v (%d records), want the third note's error\n%s", err, len(recs), stderr)
	}
	if !strings.Contains(stderr, "cost $0.000070\n") && !strings.Contains(stderr, "cost $0.000070 ") {
		t.Errorf("first run: want the two notes' cost, none from the cache:\n%s", stderr)
	}
	recs, stderr, err = run(t, context.Background(), in, args...)
	if err != nil || len(recs) != 1 || recs[0].Prediction.Text != "ok" {
		t.Fatalf("second run: %v (%d records)\n%s", err, len(recs), stderr)
	}
	if n := len(seen()); n != 3+2 {
		t.Errorf("%d calls over two runs, want 5 (3 notes asked, then the third note again and the reading)", n)
	}
	p := recs[0].Prediction
	if p.Cached || p.CostUSD == nil || math.Abs(*p.CostUSD-4*0.000035) > 1e-15 {
		t.Errorf("second run: cached %v, cost %v; want no cached prediction costing 4 calls' price", p.Cached, p.CostUSD)
	}
	if !strings.Contains(stderr, "cost $0.000140 ($0.000070 of it from the cache)") {
		t.Errorf("second run: the summary does not give the two cached notes' cost as from the cache:\n%s", stderr)
	}
}
