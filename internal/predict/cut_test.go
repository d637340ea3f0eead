package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// cutReplies are the replies of the cut servers: by the marker in the question, the reply's text
// and whether it stopped at max_tokens (CUT) or at the model's context window (WINDOW), or came
// whole (any other question).
var cutReplies = map[string]string{"CUT": "The capital of France is", "WINDOW": "The capital", "": "Paris"}

// cutMarker is the marker in body, a request, that picks its reply (cutReplies).
func cutMarker(body []byte) string {
	for _, m := range []string{"CUT", "WINDOW"} {
		if bytes.Contains(body, []byte(m)) {
			return m
		}
	}
	return ""
}

// cutServer is a loopback server speaking one provider's wire format, its replies by cutReplies,
// stopped as that provider says so: OpenAI's finish_reason length, Anthropic's stop_reason
// max_tokens or model_context_window_exceeded, Gemini's finishReason MAX_TOKENS. It counts the
// calls it answers.
func cutServer(t *testing.T, provider string, calls *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		b, _ := io.ReadAll(r.Body)
		marker := cutMarker(b)
		text, _ := json.Marshal(cutReplies[marker])
		w.Header().Set("Content-Type", "application/json")
		switch provider {
		case "openai":
			stop := map[string]string{"CUT": "length", "": "stop"}[marker]
			fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":%q}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, text, stop)
		case "anthropic":
			stop := map[string]string{"CUT": "max_tokens", "WINDOW": "model_context_window_exceeded", "": "end_turn"}[marker]
			fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":%s}],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`, text, stop)
		case "googleai":
			stop := map[string]string{"CUT": "MAX_TOKENS", "": "STOP"}[marker]
			fmt.Fprintf(w, `{"candidates":[{"content":{"parts":[{"text":%s}],"role":"model"},"finishReason":%q,"index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15}}`, text, stop)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCutMarked: a reply that stopped at max_tokens (or at the model's context window) is kept as
// the answer, as the benchmarks' scripts keep it, and its prediction says so in cut, in each
// provider's wire format, fresh and served again from --cache; a reply that came whole has no
// cut.
func TestCutMarked(t *testing.T) {
	for _, tt := range []struct {
		provider, model, base string
		markers               []string // the records' markers
	}{
		{"openai", "gpt-4o-mini", "", []string{"", "CUT"}},
		{"anthropic", "claude-sonnet-4-5", "/v1", []string{"", "CUT", "WINDOW"}},
		{"googleai", "gemini-2.0-flash", "", []string{"", "CUT"}},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			t.Setenv("ANTHROPIC_API_KEY", testKey)
			t.Setenv("GOOGLE_API_KEY", testKey)
			var calls atomic.Int64
			srv := cutServer(t, tt.provider, &calls)
			var in strings.Builder
			for i, m := range tt.markers {
				fmt.Fprintf(&in, `{"schema":1,"id":"r%d","question":"What is the capital of France? %s","answers":["Paris"]}`+"\n", i, m)
			}
			args := []string{"--provider", tt.provider, "--model", tt.model, "--base-url", srv.URL + tt.base, "--max-tokens", "5",
				"--concurrency", "1", "--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
			if tt.provider == "openai" {
				args = append(args, "--api-key-file", keyFile(t))
			}
			for _, from := range []string{"fresh", "cache"} {
				recs, stderr, err := run(t, context.Background(), in.String(), args...)
				if err != nil || len(recs) != len(tt.markers) {
					t.Fatalf("%s: %v, %d records; want none, %d\n%s", from, err, len(recs), len(tt.markers), stderr)
				}
				for i, rec := range recs {
					want := map[string]string{"CUT": record.CutMaxTokens, "WINDOW": record.CutContextWindow, "": ""}[tt.markers[i]]
					p := rec.Prediction
					if p.Cut != want || p.Text != cutReplies[tt.markers[i]] || p.Error != "" || p.Cached != (from == "cache") {
						t.Errorf("%s: %s: prediction %+v, want text %q, cut %q, cached %v", from, rec.ID, p, cutReplies[tt.markers[i]], want, from == "cache")
					}
				}
				if want := "qa-predict: warning: 1 reply stopped at max_tokens, cut short (as the benchmark's own script would take it; prediction.cut is \"max_tokens\" on the records read from it)"; from == "fresh" && !strings.Contains(stderr, want) {
					t.Errorf("%s: stderr lacks %q:\n%s", from, want, stderr)
				}
			}
			if n := calls.Load(); n != int64(len(tt.markers)) {
				t.Errorf("%d calls, want %d (the second run's replies from the cache)", n, len(tt.markers))
			}
		})
	}
}

// openAIFinish is a loopback server speaking OpenAI's wire format that answers each call with
// reply(model, its last message): the text and the finish_reason.
func openAIFinish(t *testing.T, reply func(model, prompt string) (string, string)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := clitest.ReadChat(w, r)
		if !ok {
			return
		}
		text, stop := reply(req.Model, req.Prompt)
		content, _ := json.Marshal(text)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":%q}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, req.Model, content, stop)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCutMarkedModes: every mode that keeps a cut reply marks the predictions made from it: each
// record of a LoCoMo batch whose reply was cut (the call's usage on the first alone, the cut on
// each, answered or failed by it), a LongMemEval con-separate record whose reading call was cut
// (not one whose note alone was: its max_tokens, 500, is LongMemEval's own), and an EvaLearn
// student's answer.
func TestCutMarkedModes(t *testing.T) {
	locomo := goldenLoCoMo(t)[:3]
	lme := longMemEvalRecord("longmemeval:q1", "")
	const seq = `{"schema":1,"id":"evalearn:s:1","dataset":"evalearn","type":"Logical Reasoning","question":"Q1 CUT","turns":["Q1 CUT"],"answers":[],"rubric":"R1","sequence":{"id":"s","position":1}}
{"schema":1,"id":"evalearn:s:2","dataset":"evalearn","type":"Logical Reasoning","question":"Q2","turns":["Q2"],"answers":[],"rubric":"R2","sequence":{"id":"s","position":2}}
`
	isNote := func(p string) bool { return strings.HasPrefix(p, "I will give you a chat history") }
	for _, tt := range []struct {
		name  string
		reply func(model, prompt string) (string, string)
		in    string
		args  []string
		want  []string // each record's cut
		exit  int
		warn  string // the warning of cut replies
	}{
		{"locomo batch cut", func(string, string) (string, string) { return `{"0": "7 May 2023", "1": "2022"}`, "length" },
			jsonl(t, locomo...), []string{"--model", "gpt-4-turbo", "--batch-size", "3"}, []string{"max_tokens", "max_tokens", "max_tokens"}, 3, "1 reply stopped at max_tokens"},
		{"locomo batch whole", func(string, string) (string, string) { return `{"0": "7 May 2023", "1": "2022", "2": "x"}`, "stop" },
			jsonl(t, locomo...), []string{"--model", "gpt-4-turbo", "--batch-size", "3"}, []string{"", "", ""}, 0, ""},
		{"locomo one at a time", func(_, p string) (string, string) {
			if strings.Contains(p, locomo[1].Question) {
				return "7 May", "length"
			}
			return "2022", "stop"
		}, jsonl(t, locomo...), []string{"--model", "gpt-4-turbo"}, []string{"", "max_tokens", ""}, 0, "1 reply stopped at max_tokens"},
		{"longmemeval reading cut", func(_, p string) (string, string) {
			if isNote(p) {
				return "note", "stop"
			}
			return "You work at", "length"
		}, jsonl(t, lme), []string{"--model", "gpt-4o", "--reading", "con-separate", "--history-sessions", "3"}, []string{"max_tokens"}, 0, "1 reply stopped at max_tokens"},
		{"longmemeval note cut", func(_, p string) (string, string) {
			if isNote(p) {
				return "note", "length"
			}
			return "Acme", "stop"
		}, jsonl(t, lme), []string{"--model", "gpt-4o", "--reading", "con-separate", "--history-sessions", "3"}, []string{""}, 0, "3 LongMemEval reading notes were cut short"},
		{"evalearn student", func(model, p string) (string, string) {
			switch {
			case model == "fake-judge":
				return "[Grade]: 1 points\n{\"answer_score\": 1}", "stop"
			case strings.Contains(p, "Q1 CUT") && !strings.Contains(p, "Q2"):
				return "The answer is", "length"
			}
			return "The answer is 2.", "stop"
		}, seq, []string{"--model", "fake-client", "--judge-model", "fake-judge"}, []string{"max_tokens", ""}, 0, "1 reply stopped at max_tokens"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := openAIFinish(t, tt.reply)
			args := append([]string{"--provider", "openai", "--base-url", srv.URL, "--api-key-file", keyFile(t), "--concurrency", "1"}, tt.args...)
			recs, stderr, err := run(t, context.Background(), tt.in, args...)
			if code := command.ExitCode(err); code != tt.exit || len(recs) != len(tt.want) {
				t.Fatalf("exit %d, %d records; want %d, %d\n%s", code, len(recs), tt.exit, len(tt.want), stderr)
			}
			for i, rec := range recs {
				if p := rec.Prediction; p.Cut != tt.want[i] {
					t.Errorf("%s: prediction %+v, want cut %q", rec.ID, p, tt.want[i])
				}
			}
			var warned []string
			for line := range strings.Lines(stderr) {
				if strings.HasPrefix(line, "qa-predict: warning: ") && strings.Contains(line, "cut short") {
					warned = append(warned, line)
				}
			}
			if tt.warn == "" && len(warned) > 0 || tt.warn != "" && (len(warned) != 1 || !strings.HasPrefix(warned[0], "qa-predict: warning: "+tt.warn)) {
				t.Errorf("warnings of cut replies %q, want one beginning %q, or none for none", warned, tt.warn)
			}
		})
	}
}
