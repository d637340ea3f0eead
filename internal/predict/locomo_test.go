package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// longLoCoMoRecord is a category-1 LoCoMo record of eight sessions of 25 turns: about 6,400
// cl100k_base tokens, more than LoCoMo's gpt-3.5-turbo-4k budget and less than its 8k one.
func longLoCoMoRecord(t *testing.T) (*record.Record, string) {
	t.Helper()
	var ctx []map[string]any
	for s := range 8 {
		var turns []map[string]string
		var lines []string
		for i := range 25 {
			sp := []string{"Ann", "Bob"}[i%2]
			tx := fmt.Sprintf("Session %d, turn %d: I went to the market on day %d and bought %d apples, which were lovely.", s+1, i+1, s*25+i, i*3+s)
			turns = append(turns, map[string]string{"speaker": sp, "text": tx})
			lines = append(lines, sp+": "+tx)
		}
		ctx = append(ctx, map[string]any{"title": fmt.Sprintf("session_%d", s+1), "date": fmt.Sprintf("%d May, 2023", s+1),
			"text": strings.Join(lines, "\n"), "turns": turns})
	}
	line, err := json.Marshal(map[string]any{"schema": 1, "id": "locomo:long:0", "dataset": "locomo", "question": "How many apples?",
		"answers": []string{"3"}, "meta": map[string]any{"category": 1, "speaker_a": "Ann", "speaker_b": "Bob"}, "context": ctx})
	if err != nil {
		t.Fatal(err)
	}
	var rec record.Record
	if err := json.Unmarshal(line, &rec); err != nil {
		t.Fatal(err)
	}
	return &rec, string(line) + "\n"
}

// chatBody is the part of an OpenAI chat request body the test reads.
type chatBody struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxTokens           int  `json:"max_tokens"`
	MaxCompletionTokens int  `json:"max_completion_tokens"`
	Seed                *int `json:"seed"`
}

// TestLoCoMoVariantWire runs qa-predict against a loopback server speaking OpenAI's wire format and
// reads what arrives: for LoCoMo's gpt-3.5 settings the query alone as a system message, with the
// conversation cut to the setting's budget; for its gpt-4 settings a user message; with none, or a
// model LoCoMo's script does not name, the whole conversation as a user message. The model sent
// is always --model.
func TestLoCoMoVariantWire(t *testing.T) {
	rec, stdin := longLoCoMoRecord(t)
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		var req chatBody
		json.Unmarshal(b, &req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":" 3 apples \n"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":2,"total_tokens":102}}`, req.Model)
	}))
	defer srv.Close()
	first := (&prompter{seed: 1}).abstainFirst(rec.ID)
	whole, _, err := prompt.LoCoMoQA(rec, first, 0)
	if err != nil {
		t.Fatal(err)
	}
	cut4k, cut, err := prompt.LoCoMoQA(rec, first, 4000)
	if err != nil || !cut || len(cut4k) >= len(whole)*3/4 {
		t.Fatalf("LoCoMoQA(long record, 4000) = %d bytes, cut %v, %v; want a cut well below the whole %d", len(cut4k), cut, err, len(whole))
	}
	for _, tt := range []struct {
		args        []string
		model, role string
		content     string
		stderr      []string // lines stderr holds
	}{
		{[]string{"--model", "gpt-3.5-turbo", "--locomo-variant", "gpt-3.5-turbo-4k"}, "gpt-3.5-turbo", "system", cut4k,
			[]string{"qa-predict: LoCoMo: the conversation cut to fit gpt-3.5-turbo-4k's 4000 cl100k_base tokens (the oldest sessions kept) in 1 request (a batch of questions is one)"}},
		{[]string{"--model", "gpt-3.5-turbo-4k"}, "gpt-3.5-turbo-4k", "system", cut4k,
			[]string{"qa-predict: note: LoCoMo's script calls gpt-3.5-turbo for its gpt-3.5-turbo-4k setting; this run calls gpt-3.5-turbo-4k, the --model given"}},
		{[]string{"--model", "gpt-3.5-turbo", "--locomo-variant", "gpt-3.5-turbo-8k"}, "gpt-3.5-turbo", "system", whole, nil},
		{[]string{"--model", "gpt-4-turbo"}, "gpt-4-turbo", "user", whole, nil},
		{[]string{"--model", "gpt-3.5-turbo", "--locomo-variant", "none"}, "gpt-3.5-turbo", "user", whole, nil},
		{[]string{"--model", "gpt-4o"}, "gpt-4o", "user", whole, nil},
	} {
		mu.Lock()
		bodies = nil
		mu.Unlock()
		args := append([]string{"--provider", "openai", "--base-url", srv.URL, "--api-key-file", keyFile(t)}, tt.args...)
		recs, stderr, err := run(t, context.Background(), stdin, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", tt.args, err, stderr)
		}
		if len(bodies) != 1 {
			t.Fatalf("%v: %d requests, want 1", tt.args, len(bodies))
		}
		var req chatBody
		if err := json.Unmarshal(bodies[0], &req); err != nil {
			t.Fatal(err)
		}
		if req.Model != tt.model || len(req.Messages) != 1 || req.Messages[0].Role != tt.role || req.Messages[0].Content != tt.content {
			t.Errorf("%v: sent model %q, %d messages, the first %q of %d bytes; want %q, one %q message of %d bytes",
				tt.args, req.Model, len(req.Messages), req.Messages[0].Role, len(req.Messages[0].Content), tt.model, tt.role, len(tt.content))
		}
		if max(req.MaxTokens, req.MaxCompletionTokens) != 32 || !bytes.Contains(bodies[0], []byte(`"temperature":0`)) {
			t.Errorf("%v: body %.200s… lacks max_tokens 32 or temperature 0", tt.args, bodies[0])
		}
		if p := recs[0].Prediction; p == nil || p.Text != "3 apples" || p.Model != tt.model {
			t.Errorf("%v: prediction %+v, want 3 apples from %s", tt.args, p, tt.model)
		}
		for _, line := range tt.stderr {
			if !strings.Contains(stderr, line+"\n") {
				t.Errorf("%v: stderr lacks %q:\n%s", tt.args, line, stderr)
			}
		}
		if len(tt.stderr) == 0 && strings.Contains(stderr, "LoCoMo") {
			t.Errorf("%v: stderr speaks of LoCoMo:\n%s", tt.args, stderr)
		}
	}
}

// TestLoCoMoVariantDryRun: the dry run shows the request a run sends, the cut system message
// included, and counts the cut.
func TestLoCoMoVariantDryRun(t *testing.T) {
	rec, stdin := longLoCoMoRecord(t)
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-predict", "--dry-run", "--provider", "openai", "--model", "gpt-3.5-turbo",
		"--locomo-variant", "gpt-3.5-turbo-4k"}, strings.NewReader(stdin), &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var d dryPrediction
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	want, _, _ := prompt.LoCoMoQA(rec, (&prompter{seed: 1}).abstainFirst(rec.ID), 4000)
	if len(d.Requests) != 1 || d.Requests[0].Model != "gpt-3.5-turbo" || len(d.Requests[0].Messages) != 1 ||
		d.Requests[0].Messages[0].Role != "system" || d.Requests[0].Messages[0].Content != want || d.Requests[0].MaxTokens != 32 {
		t.Errorf("dry run = %.300s…, want one gpt-3.5-turbo request of a system message of %d bytes", stdout.String(), len(want))
	}
	if !strings.Contains(stderr.String(), "qa-predict: LoCoMo: the conversation cut to fit gpt-3.5-turbo-4k's 4000 cl100k_base tokens (the oldest sessions kept) in 1 request") {
		t.Errorf("stderr lacks the cut count:\n%s", stderr.String())
	}
}

// TestLoCoMoVariantExtractive: the extractive baseline sends no prompt, so --locomo-variant
// (flag or variable) cuts nothing it reads: no count of conversations "cut to fit" requests it
// never makes, a warning that the flag does nothing, and the prediction, its prompt_sha256 too,
// the run without it gives.
func TestLoCoMoVariantExtractive(t *testing.T) {
	_, stdin := longLoCoMoRecord(t)
	plain, stderr, err := run(t, context.Background(), stdin, "--provider", "extractive")
	if err != nil || len(plain) != 1 || plain[0].Prediction == nil {
		t.Fatalf("extractive: %v\n%s", err, stderr)
	}
	for _, tt := range []struct {
		env  string
		args []string
		warn string
	}{
		{"", []string{"--locomo-variant", "gpt-3.5-turbo-4k"}, "--locomo-variant gpt-3.5-turbo-4k"},
		{"gpt-3.5-turbo-4k", nil, "--locomo-variant gpt-3.5-turbo-4k from QA_LOCOMO_VARIANT"},
	} {
		if tt.env != "" {
			t.Setenv("QA_LOCOMO_VARIANT", tt.env)
		}
		recs, stderr, err := run(t, context.Background(), stdin, append([]string{"--provider", "extractive"}, tt.args...)...)
		if err != nil || len(recs) != 1 {
			t.Fatalf("%v: %v\n%s", tt.args, err, stderr)
		}
		if strings.Contains(stderr, "cut to fit") {
			t.Errorf("%v: stderr counts cuts of requests never made:\n%s", tt.args, stderr)
		}
		want := "qa-predict: warning: " + tt.warn + " does nothing: the provider is extractive, the offline baseline, which sends no prompt\n"
		if !strings.Contains(stderr, want) {
			t.Errorf("%v: stderr lacks %q:\n%s", tt.args, want, stderr)
		}
		if p, q := recs[0].Prediction, plain[0].Prediction; p == nil || p.Text != q.Text || p.PromptSHA256 != q.PromptSHA256 {
			t.Errorf("%v: prediction %+v, want the one without the flag, %+v", tt.args, p, q)
		}
	}
}
