package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/learncurve"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// call is one recorded request of EvaLearn's evaluate.py and its fake reply.
type call struct {
	Index    int    `json:"call_index"`
	Sequence int    `json:"sequence_id"`
	Position int    `json:"position_in_sequence"`
	Role     string `json:"role"`
	Raw      string `json:"raw_response"`
	Request  struct {
		Model       string          `json:"model"`
		Messages    []model.Message `json:"messages"`
		Temperature *float64        `json:"temperature"`
		MaxTokens   *int            `json:"max_tokens"`
	} `json:"request"`
}

// loadTranscript reads the recorded transcript of sequences 4 and 36.
func loadTranscript(t testing.TB) []call {
	calls := readTranscript(t, "testdata/evalearn/transcript.jsonl")
	if len(calls) != 28 {
		t.Fatalf("transcript has %d calls, want 28", len(calls))
	}
	return calls
}

// readTranscript reads the calls of a transcript file, one JSON object per line.
func readTranscript(t testing.TB, name string) []call {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var calls []call
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var c call
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		calls = append(calls, c)
	}
	return calls
}

// fault replaces the recorded reply of a call: an HTTP status, or another reply text.
type fault struct {
	status int
	raw    string
}

// replayServer speaks the OpenAI chat-completions wire format and answers each request whose model
// and messages equal a recorded one with its recorded reply. Any other request is an error (500 and
// a note in unknown). Usage is derived from the texts: prompt tokens = bytes of the messages, completion
// tokens = bytes of the reply.
type replayServer struct {
	*httptest.Server
	calls  []call
	byKey  map[string]int
	faults map[int]fault
	// hangAfter, when > 0, makes every request after that many answered ones wait for the client to
	// go, or for release to be closed (then it is answered); hung (if set) is then signalled
	// without blocking.
	hangAfter int
	// hangKey, when set, makes hangAfter hold only the requests made with that API key: those of
	// a client that is then killed, whose last requests may reach a handler at any time after it
	// died, and must hang then too, while a rerun with another key is answered.
	hangKey string
	hung    chan struct{}
	release chan struct{}
	// noUsage, when set, names the model whose replies come without usage.
	noUsage string

	mu       sync.Mutex
	answered map[int]int // call index → times answered
	total    int
	unknown  []string
	params   []string // parameter mismatches
}

func requestKey(modelName string, msgs []model.Message) string {
	b, _ := json.Marshal(msgs)
	return modelName + "\x00" + string(b)
}

func newReplayServer(t testing.TB, calls []call) *replayServer {
	s := &replayServer{calls: calls, byKey: map[string]int{}, faults: map[int]fault{}, answered: map[int]int{}}
	for i, c := range calls {
		s.byKey[requestKey(c.Request.Model, c.Request.Messages)] = i
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *replayServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model       string          `json:"model"`
		Messages    []model.Message `json:"messages"`
		Temperature *float64        `json:"temperature"`
		MaxTokens   *int            `json:"max_tokens"`
		MaxCompl    *int            `json:"max_completion_tokens"`
		Seed        *int            `json:"seed"`
	}
	if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/chat/completions" {
		http.Error(w, `{"error":{"message":"bad request"}}`, 400)
		return
	}
	s.mu.Lock()
	i, ok := s.byKey[requestKey(req.Model, req.Messages)]
	if !ok {
		s.unknown = append(s.unknown, string(body))
		s.mu.Unlock()
		http.Error(w, `{"error":{"message":"request not in the transcript"}}`, 500)
		return
	}
	c := s.calls[i]
	if !eqPtr(req.Temperature, c.Request.Temperature) || !eqPtr(req.MaxTokens, c.Request.MaxTokens) || req.MaxCompl != nil || req.Seed != nil {
		s.params = append(s.params, fmt.Sprintf("call %d: temperature %v max_tokens %v max_completion_tokens %v seed %v, want %v %v",
			i, show(req.Temperature), show(req.MaxTokens), show(req.MaxCompl), show(req.Seed), show(c.Request.Temperature), show(c.Request.MaxTokens)))
	}
	if s.hangAfter > 0 && s.total >= s.hangAfter && (s.hangKey == "" || r.Header.Get("Authorization") == "Bearer "+s.hangKey) {
		s.mu.Unlock()
		select {
		case s.hung <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.release:
		}
		s.mu.Lock()
	}
	s.total++
	s.answered[i]++
	s.mu.Unlock()
	raw := c.Raw
	if f, ok := s.faults[i]; ok {
		if f.status != 0 {
			http.Error(w, `{"error":{"message":"invalid request"}}`, f.status)
			return
		}
		raw = f.raw
	}
	in, out := promptBytes(c.Request.Messages), len(raw)
	reply, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": raw}, "finish_reason": "stop"}},
		"usage":   map[string]int{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}})
	if req.Model == s.noUsage {
		reply, _ = json.Marshal(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": raw}, "finish_reason": "stop"}}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(reply)
}

// asked returns how many times call i was answered.
func (s *replayServer) asked(i int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered[i]
}

// answeredTotal returns how many requests were answered.
func (s *replayServer) answeredTotal() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

func promptBytes(msgs []model.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return n
}

func eqPtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show[T any](p *T) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}

// check reports requests that were not in the transcript or had other parameters.
func (s *replayServer) check(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.unknown {
		t.Errorf("request not in the transcript: %.600s", u)
	}
	for _, p := range s.params {
		t.Errorf("request parameters differ: %s", p)
	}
}

func seqInput(t testing.TB) string {
	b, err := os.ReadFile("testdata/evalearn/input.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// seqRun runs qa-predict in-process and returns the records written, stderr and the error.
func seqRun(t testing.TB, stdin string, args ...string) ([]*record.Record, string, error) {
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), append([]string{"qa-predict"}, args...), strings.NewReader(stdin), &stdout, &stderr)
	command.Report(&stderr, "qa-predict", err)
	return readRecords(t, stdout.Bytes()), stderr.String(), err
}

func readRecords(t testing.TB, b []byte) []*record.Record {
	rd := record.NewReader(bytes.NewReader(b), "stdout")
	var recs []*record.Record
	for {
		r, err := rd.Read()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatalf("stdout: %v", err)
		}
		recs = append(recs, r)
	}
}

// seqKey is the API key in the file that seqArgs names.
const seqKey = "sk-test-seq"

// seqArgs returns the arguments of a run against the replay server at url: a key file, prices
// of the two models, no retries, and extra.
func seqArgs(t testing.TB, url string, extra ...string) []string {
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	prices := filepath.Join(dir, "prices.json")
	if err := os.WriteFile(key, []byte(seqKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prices, []byte(`{"fake-client": {"input": 1, "output": 2}, "fake-judge": {"input": 3, "output": 4}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return append([]string{"--provider", "openai", "--model", "fake-client", "--base-url", url, "--api-key-file", key,
		"--judge-model", "fake-judge", "--prices", prices, "--max-retries", "0"}, extra...)
}

// evaluatePyResult is one entry of the results file evaluate.py wrote.
type evaluatePyResult struct {
	Sequence  int    `json:"sequence_id"`
	Position  int    `json:"position_in_sequence"`
	GPT4Res   string `json:"gpt4res"`
	GPT4Judge string `json:"gpt4judge"`
}

func loadResults(t testing.TB) []evaluatePyResult {
	b, err := os.ReadFile("testdata/evalearn/results_from_evaluate_py.json")
	if err != nil {
		t.Fatal(err)
	}
	var rs []evaluatePyResult
	if err := json.Unmarshal(b, &rs); err != nil {
		t.Fatal(err)
	}
	return rs
}

// cost is the price in USD of usage at the test's price file rates (per million tokens).
func cost(in, out int, pin, pout float64) float64 {
	return (float64(in)*pin + float64(out)*pout) / 1e6
}

// TestSequentialTranscript solves sequences 4 and 36 against a server that replays evaluate.py's
// transcript: every request must be one evaluate.py sent (messages byte for byte, temperature,
// max_tokens), each asked exactly once, and every output field must follow from the replies.
func TestSequentialTranscript(t *testing.T) {
	calls := loadTranscript(t)
	results := loadResults(t)
	// the fake judge's scores per position (golden README: 0,1,1,0,1,0,0 per sequence)
	scores := []float64{0, 1, 1, 0, 1, 0, 0}
	for _, conc := range []string{"1", "2", "8"} {
		t.Run("concurrency="+conc, func(t *testing.T) {
			srv := newReplayServer(t, calls)
			recs, stderr, err := seqRun(t, seqInput(t), seqArgs(t, srv.URL, "--concurrency", conc)...)
			if err != nil {
				t.Fatalf("run: %v\n%s", err, stderr)
			}
			srv.check(t)
			for i := range calls {
				if n := srv.asked(i); n != 1 {
					t.Errorf("call %d (seq %d pos %d %s) asked %d times, want 1", i, calls[i].Sequence, calls[i].Position, calls[i].Role, n)
				}
			}
			if len(recs) != 14 {
				t.Fatalf("got %d records, want 14", len(recs))
			}
			for i, rec := range recs {
				checkTranscriptRecord(t, rec, calls[2*i], calls[2*i+1], results[i], scores[i%7], false)
			}
			if !strings.Contains(stderr, "evalearn judge fake-judge: 14 verdicts (0 cached), 0 errors") {
				t.Errorf("stderr lacks the judge summary:\n%s", stderr)
			}
		})
	}
}

// TestSequentialJudgeWithoutUsage: verdicts whose replies came without token usage (a judge
// server that reports none) are paid for at a cost unknown: the judge's summary says that its
// totals leave them out, rather than give them as free.
func TestSequentialJudgeWithoutUsage(t *testing.T) {
	srv := newReplayServer(t, loadTranscript(t))
	srv.noUsage = "fake-judge"
	recs, stderr, err := seqRun(t, seqInput(t), seqArgs(t, srv.URL, "--concurrency", "1")...)
	if err != nil || len(recs) != 14 {
		t.Fatalf("run: %v, %d records\n%s", err, len(recs), stderr)
	}
	for _, rec := range recs {
		if jg := rec.Judgments["evalearn"]; jg == nil || jg.Usage != nil || jg.CostUSD != nil {
			t.Errorf("%s: judgment %+v; want one without usage nor cost (unknown)", rec.ID, jg)
		}
	}
	if want := "evalearn judge fake-judge: 14 verdicts (0 cached), 0 errors; tokens 0 in, 0 out; cost $0.000000 (not counting 14 verdicts without token usage)\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestSequentialJudgeTemperature: --judge-temperature (or QA_PREDICT_JUDGE_TEMPERATURE) is sent
// in every judge call in place of EvaLearn's 0.2, and in no student call; the replay server,
// which holds each request to evaluate.py's parameters, sees exactly the 14 judge calls differ.
func TestSequentialJudgeTemperature(t *testing.T) {
	calls := loadTranscript(t)
	for _, tc := range []struct {
		name string
		env  string
		args []string
	}{
		{"flag", "", []string{"--judge-temperature", "1"}},
		{"env", "1", nil},
		{"flag over env", "0.5", []string{"--judge-temperature", "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("QA_PREDICT_JUDGE_TEMPERATURE", tc.env)
			srv := newReplayServer(t, calls)
			recs, stderr, err := seqRun(t, seqInput(t), seqArgs(t, srv.URL, tc.args...)...)
			if err != nil {
				t.Fatalf("run: %v\n%s", err, stderr)
			}
			if len(recs) != 14 {
				t.Fatalf("got %d records, want 14", len(recs))
			}
			srv.mu.Lock()
			params, unknown := slices.Clone(srv.params), len(srv.unknown)
			srv.mu.Unlock()
			if unknown > 0 || len(params) != 14 {
				t.Fatalf("%d requests not in the transcript, %d with other parameters, want 0 and 14:\n%s", unknown, len(params), strings.Join(params, "\n"))
			}
			for _, p := range params {
				var i int
				fmt.Sscanf(p, "call %d:", &i)
				if calls[i].Role != "judge" || !strings.Contains(p, ": temperature 1 max_tokens absent max_completion_tokens absent seed absent, want 0.2 absent") {
					t.Errorf("call %d (%s): %s; want only judge calls to differ, by temperature 1", i, calls[i].Role, p)
				}
			}
			for _, rec := range recs {
				if jg := rec.Judgments["evalearn"]; jg == nil || jg.Error != "" || jg.Score == nil {
					t.Errorf("%s: judgment %+v, want a verdict", rec.ID, jg)
				}
			}
		})
	}
	// Held to the judge provider's range, before any call.
	_, stderr, err := seqRun(t, seqInput(t), seqArgs(t, "http://127.0.0.1:1", "--judge-provider", "anthropic", "--judge-temperature", "1.5")...)
	if want := "--judge-temperature: want a number from 0 to 1 for anthropic, got 1.5"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("anthropic judge at 1.5: %v, want %q\n%s", err, want, stderr)
	}
}

// checkTranscriptRecord compares one output record with the student and judge calls recorded for
// its position and with evaluate.py's results entry.
func checkTranscriptRecord(t *testing.T, rec *record.Record, student, judgeCall call, res evaluatePyResult, score float64, cached bool) {
	t.Helper()
	wantID := fmt.Sprintf("evalearn:%d:%d", res.Sequence, res.Position)
	if rec.ID != wantID || student.Sequence != res.Sequence || student.Position != res.Position || judgeCall.Role != "judge" {
		t.Fatalf("record %s, want %s (transcript seq %d pos %d)", rec.ID, wantID, student.Sequence, student.Position)
	}
	p := rec.Prediction
	in, out := promptBytes(student.Request.Messages), len(student.Raw)
	want := &record.Prediction{Text: res.GPT4Res, Model: "fake-client", Provider: "openai",
		Usage: &record.Usage{InputTokens: in, OutputTokens: out}, CostUSD: ptr(cost(in, out, 1, 2)),
		Attempts: 1, PromptSHA256: promptSHA256(student.Request.Messages)}
	if cached {
		want.Attempts, want.Cached = 0, true
	}
	if p == nil {
		t.Fatalf("%s: no prediction", rec.ID)
	}
	if !cached && p.LatencyMS < 0 {
		t.Errorf("%s: latency_ms %d", rec.ID, p.LatencyMS)
	}
	got := *p
	got.LatencyMS = 0
	if d := cmp.Diff(want, &got, cmp.AllowUnexported(record.Prediction{}, record.Usage{}), cmpopts.IgnoreUnexported(record.Passage{}, record.Judgment{}, record.Sequence{}, record.Batch{})); d != "" {
		t.Errorf("%s: prediction differs (-want +got):\n%s", rec.ID, d)
	}
	jg := rec.Judgments["evalearn"]
	jin, jout := promptBytes(judgeCall.Request.Messages), len(judgeCall.Raw)
	wantJ := &record.Judgment{Score: ptr(score), Label: fmt.Sprint(score), Mode: "evalearn", Model: "fake-judge",
		PromptSHA256: prompt.Must(prompt.EvaLearnJudgeUser).SHA256, Raw: judgeCall.Raw,
		Usage: &record.Usage{InputTokens: jin, OutputTokens: jout}, CostUSD: ptr(cost(jin, jout, 3, 4)), Attempts: 1, Cached: cached}
	if cached && jg != nil {
		// what a cached verdict costs and counts is the judge engine's rule (internal/judge)
		wantJ.CostUSD, wantJ.Attempts = jg.CostUSD, jg.Attempts
	}
	if d := cmp.Diff(wantJ, jg, cmp.AllowUnexported(record.Usage{}), cmpopts.IgnoreUnexported(record.Judgment{})); d != "" {
		t.Errorf("%s: judgment differs (-want +got):\n%s", rec.ID, d)
	}
	if jg != nil && textnorm.Strip(jg.Raw) != res.GPT4Judge {
		t.Errorf("%s: stripped judge reply %q, want evaluate.py's gpt4judge %q", rec.ID, textnorm.Strip(jg.Raw), res.GPT4Judge)
	}
}

func ptr[T any](v T) *T { return &v }

// TestSequentialLearnCurve pipes the solved transcript into qa-learncurve: its report must equal the
// one evaluate_metric.py wrote on evaluate.py's results for the same run (to 1e-9).
func TestSequentialLearnCurve(t *testing.T) {
	srv := newReplayServer(t, loadTranscript(t))
	var predicted, stderr, report bytes.Buffer
	err := Run(context.Background(), append([]string{"qa-predict"}, seqArgs(t, srv.URL)...), strings.NewReader(seqInput(t)), &predicted, &stderr)
	if err != nil {
		t.Fatalf("qa-predict: %v\n%s", err, stderr.String())
	}
	err = learncurve.Run(context.Background(), []string{"qa-learncurve", "--problems", "7", "--warmup", "3"}, &predicted, &report, &stderr)
	if err != nil {
		t.Fatalf("qa-learncurve: %v\n%s", err, stderr.String())
	}
	wantJSON, err := os.ReadFile("testdata/evalearn/report_M7_K3.json")
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if err := json.Unmarshal(report.Bytes(), &got); err != nil {
		t.Fatalf("qa-learncurve report: %v\n%s", err, report.String())
	}
	if err := json.Unmarshal(wantJSON, &want); err != nil {
		t.Fatal(err)
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 1e-9 })
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("learning-curve report differs from evaluate_metric.py's (-want +got):\n%s", d)
	}
}
