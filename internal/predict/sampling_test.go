package predict

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/pkg/record"
)

// sampled is the model and sampling options of one request an Ollama server received, nil for
// an option absent.
type sampled struct {
	Model  string
	TopP   *float64
	TopK   *int
	NumCtx *int
	Stop   []string
}

func (s sampled) String() string {
	p, k, n := "none", "none", "none"
	if s.TopP != nil {
		p = fmt.Sprint(*s.TopP)
	}
	if s.TopK != nil {
		k = fmt.Sprint(*s.TopK)
	}
	if s.NumCtx != nil {
		n = fmt.Sprint(*s.NumCtx)
	}
	return fmt.Sprintf("%s top_p %s top_k %s num_ctx %s stop %q", s.Model, p, k, n, s.Stop)
}

// samplingServer is an Ollama server (/api/chat) that answers every call "ok" and keeps each
// request's model and options.top_p, top_k, num_ctx and stop.
func samplingServer(t *testing.T) (*httptest.Server, func() []sampled) {
	var seen clitest.Log[sampled]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model   string
			Options struct {
				TopP   *float64 `json:"top_p"`
				TopK   *int     `json:"top_k"`
				NumCtx *int     `json:"num_ctx"`
				Stop   []string `json:"stop"`
			}
		}
		if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/api/chat" {
			http.Error(w, `{"error":"unexpected request"}`, 400)
			return
		}
		seen.Add(sampled{req.Model, req.Options.TopP, req.Options.TopK, req.Options.NumCtx, req.Options.Stop})
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprintf(w, `{"model":%q,"created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":"ok"},"done":true,"prompt_eval_count":10,"eval_count":1}`+"\n", req.Model)
	}))
	t.Cleanup(srv.Close)
	return srv, seen.All
}

// samplingInputs are the inputs of each kind of call a prediction makes: a generic record, a
// LongMemEval record read with notes (the notes and the reading call), LoCoMo's batches, and
// EvaLearn's sequences (the student's calls, and its judge's).
func samplingInputs(t *testing.T) map[string][]string {
	generic := &record.Record{Schema: 1, ID: "g1", Question: "Who wrote it?", Answers: []string{"Ann"},
		Context: []record.Passage{{Text: "Ann wrote it."}}}
	return map[string][]string{
		jsonl(t, generic, longMemEvalRecord("longmemeval:q1", "")): {"--reading", "con-separate", "--history-sessions", "2"},
		jsonl(t, goldenLoCoMo(t)...):                               {"--batch-size", "4"},
		seqInput(t):                                                {"--judge-model", "judge", "--judge-parse-retries", "0"},
	}
}

// checkSampled runs args, a prediction with Ollama, over in against samplingServer and then as a
// dry run, and checks that every call the server received, and every request the dry run shows
// (the reader's alone), samples as want says for its model. It returns the number of calls of
// EvaLearn's judge (model "judge").
func checkSampled(t *testing.T, in string, args []string, want func(model string) sampled) (judged int) {
	t.Helper()
	srv, seen := samplingServer(t)
	// Records may fail: a reply of "ok" is no LoCoMo batch's answers nor an EvaLearn verdict.
	// The calls are what is checked.
	_, _, _ = run(t, context.Background(), in, append(args, "--base-url", srv.URL)...)
	calls := seen()
	if len(calls) < 2 {
		t.Fatalf("%v: %d calls, want the calls of every record", args, len(calls))
	}
	for i, c := range calls {
		if c.Model == "judge" {
			judged++
		}
		if w := want(c.Model); c.String() != w.String() {
			t.Errorf("%v: call %d: %s, want %s", args, i, c, w)
		}
	}
	dry, stderr, code := dryRunLines(t, in, args...)
	if code != 0 {
		t.Fatalf("%v: dry run exit %d\n%s", args, code, stderr)
	}
	for _, d := range dry {
		for _, c := range d.Requests {
			got := sampled{Model: c.Model, TopP: c.TopP, TopK: c.TopK, Stop: c.Stop}
			if c.NumCtx != 0 {
				got.NumCtx = &c.NumCtx
			}
			if w := want(c.Model); got.String() != w.String() {
				t.Errorf("%v: dry run of %s shows %s, want %s", args, d.ID, got, w)
			}
		}
	}
	return judged
}

// TestSamplingReachesEveryCall: --top-p and --top-k reach every call a prediction makes, on the
// wire (Ollama's options) and in the dry run alike: plain records, LongMemEval's notes and its
// reading call, LoCoMo's batches and EvaLearn's student; EvaLearn's judge keeps its protocol's
// parameters, as it keeps its temperature. Without them no call carries either.
func TestSamplingReachesEveryCall(t *testing.T) {
	for in, extra := range samplingInputs(t) {
		for _, flags := range [][]string{{"--top-p", "0.9", "--top-k", "40"}, nil} {
			args := append(append([]string{"--provider", "ollama", "--model", "llama3", "--concurrency", "1"}, extra...), flags...)
			checkSampled(t, in, args, func(model string) sampled {
				if model == "judge" { // EvaLearn's judge: its protocol sends neither
					return sampled{Model: "judge"}
				}
				if flags != nil {
					return sampled{Model: "llama3", TopP: new(0.9), TopK: new(40)}
				}
				return sampled{Model: "llama3"}
			})
		}
	}
}

// TestStopReachesEveryCall: --stop's sequences reach every call a prediction makes as Ollama's
// options.stop, on the wire and in the dry run alike (plain records, LongMemEval's notes and its
// reading call, LoCoMo's batches, EvaLearn's student), but EvaLearn's judge's, which keeps its
// protocol's parameters; without --stop no call carries any.
func TestStopReachesEveryCall(t *testing.T) {
	for in, extra := range samplingInputs(t) {
		for _, flags := range [][]string{{"--stop", `\n\n`, "--stop", "Question, again:"}, nil} {
			args := append(append([]string{"--provider", "ollama", "--model", "llama3", "--concurrency", "1"}, extra...), flags...)
			checkSampled(t, in, args, func(model string) sampled {
				if model == "llama3" && flags != nil {
					return sampled{Model: "llama3", Stop: []string{"\n\n", "Question, again:"}}
				}
				return sampled{Model: model}
			})
		}
	}
}

// TestNumCtxReachesEveryCall: --num-ctx reaches every call a prediction makes as Ollama's
// options.num_ctx, on the wire and in the dry run alike, EvaLearn's judge's too when it calls the
// same server, unless --judge-num-ctx gives the judge its own; without them no call carries one.
func TestNumCtxReachesEveryCall(t *testing.T) {
	judged := 0
	for in, extra := range samplingInputs(t) {
		for _, tc := range []struct {
			flags         []string
			reader, judge *int
		}{
			{nil, nil, nil},
			{[]string{"--num-ctx", "16384"}, new(16384), new(16384)},
			{[]string{"--num-ctx", "16384", "--judge-num-ctx", "4096"}, new(16384), new(4096)},
			{[]string{"--judge-num-ctx", "4096"}, nil, new(4096)},
			{[]string{"--num-ctx", "16384", "--judge-num-ctx", "0"}, new(16384), nil},
		} {
			args := append(append([]string{"--provider", "ollama", "--model", "llama3", "--concurrency", "1"}, extra...), tc.flags...)
			judged += checkSampled(t, in, args, func(model string) sampled {
				if model == "judge" {
					return sampled{Model: "judge", NumCtx: tc.judge}
				}
				return sampled{Model: "llama3", NumCtx: tc.reader}
			})
		}
	}
	if judged < 5 {
		t.Errorf("%d calls of EvaLearn's judge, want at least one a case", judged)
	}
}

// TestJudgeNumCtxSameServer: EvaLearn's judge gets --num-ctx when its --judge-base-url names the
// reader's server however either is written (a trailing slash, the scheme in capitals), and none
// when it names another server.
func TestJudgeNumCtxSameServer(t *testing.T) {
	for _, tc := range []struct {
		name            string
		base, judgeBase func(reader, other string) string
		want            *int
	}{
		{"as written", func(r, _ string) string { return r }, func(r, _ string) string { return r }, new(16384)},
		{"trailing slash", func(r, _ string) string { return r + "/" }, func(r, _ string) string { return r }, new(16384)},
		{"capitals", func(r, _ string) string { return r }, func(r, _ string) string { return "HTTP" + strings.TrimPrefix(r, "http") + "/" }, new(16384)},
		{"another server", func(r, _ string) string { return r }, func(_, o string) string { return o }, nil},
	} {
		srv, seen := samplingServer(t)
		other, otherSeen := samplingServer(t)
		base, judgeBase := tc.base(srv.URL, other.URL), tc.judgeBase(srv.URL, other.URL)
		_, _, _ = run(t, context.Background(), seqInput(t), "--provider", "ollama", "--model", "llama3", "--concurrency", "1",
			"--judge-model", "judge", "--judge-parse-retries", "0", "--num-ctx", "16384", "--base-url", base, "--judge-base-url", judgeBase)
		judged := 0
		for _, c := range append(seen(), otherSeen()...) {
			want := sampled{Model: c.Model, NumCtx: new(16384)}
			if c.Model == "judge" {
				judged++
				want.NumCtx = tc.want
			}
			if c.String() != want.String() {
				t.Errorf("%s (--base-url %s --judge-base-url %s): call %s, want %s", tc.name, base, judgeBase, c, want)
			}
		}
		if judged == 0 {
			t.Errorf("%s: no judge call", tc.name)
		}
	}
}

// TestMaxTokensFieldOnTheWire: --max-tokens reaches an OpenAI-compatible server as max_tokens,
// or as max_completion_tokens when --max-tokens-field (or QA_MAX_TOKENS_FIELD) names it, as an
// o-series model behind Azure OpenAI wants it; never as both.
func TestMaxTokensFieldOnTheWire(t *testing.T) {
	in := jsonl(t, &record.Record{Schema: 1, ID: "g1", Question: "Who wrote it?", Answers: []string{"Ann"}})
	for _, tt := range []struct {
		name, env   string
		args        []string
		tokens, cpl int // max_tokens and max_completion_tokens as sent, 0 for absent
	}{
		{"default", "", nil, 32, 0},
		{"flag", "", []string{"--max-tokens-field", "max_completion_tokens"}, 0, 32},
		{"env", "max_completion_tokens", nil, 0, 32},
		{"flag over env", "max_completion_tokens", []string{"--max-tokens-field", "auto"}, 32, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("QA_MAX_TOKENS_FIELD", tt.env)
			var seen clitest.Log[[2]int]
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					Model  string
					Tokens int `json:"max_tokens"`
					Cpl    int `json:"max_completion_tokens"`
				}
				if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
					http.Error(w, `{"error":{"message":"bad request"}}`, 400)
					return
				}
				seen.Add([2]int{req.Tokens, req.Cpl})
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"Ann"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`, req.Model)
			}))
			t.Cleanup(srv.Close)
			args := append([]string{"--provider", "openai", "--base-url", srv.URL + "/v1", "--model", "o3-mini", "--max-tokens", "32"}, tt.args...)
			recs, stderr, err := run(t, context.Background(), in, args...)
			if got := seen.All(); len(got) != 1 || got[0] != [2]int{tt.tokens, tt.cpl} {
				t.Fatalf("calls carried [max_tokens max_completion_tokens] %v, want [[%d %d]] (err %v, stderr %s)", got, tt.tokens, tt.cpl, err, stderr)
			}
			if err != nil || len(recs) != 1 || recs[0].Prediction == nil || recs[0].Prediction.Text != "Ann" {
				t.Errorf("err %v, records %v, want one predicting Ann (stderr %s)", err, recs, stderr)
			}
		})
	}
}
