package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/load"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// TestRandomTranscripts solves random EvaLearn problems and sequences against a server that
// replays what EvaLearn's own evaluate.py sent for them (scripts/random-evalearn-transcript.py):
// every request qa-predict makes must be one evaluate.py made, byte for byte, each made once, and
// the answers and verdicts must be the ones evaluate.py wrote. The committed cases are in
// testdata/evalearn/random; QA_EVALEARN_TRANSCRIPTS names a folder of more.
func TestRandomTranscripts(t *testing.T) {
	eachCase(t, "testdata/evalearn/random", "QA_EVALEARN_TRANSCRIPTS", checkRandomTranscript)
}

// eachCase runs check as a subtest on every case* folder of dir, or of the folder the
// environment variable env names when it is set.
func eachCase(t *testing.T, dir, env string, check func(t *testing.T, dir string)) {
	if d := os.Getenv(env); d != "" {
		dir = d
	}
	cases, _ := filepath.Glob(filepath.Join(dir, "case*"))
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", dir)
	}
	for _, c := range cases {
		t.Run(filepath.Base(c), func(t *testing.T) { check(t, c) })
	}
}

func checkRandomTranscript(t *testing.T, dir string) {
	var input, stderr bytes.Buffer
	err := load.Run(context.Background(), []string{"qa-load", filepath.Join(dir, "EvaLearn_Problem.json"),
		filepath.Join(dir, "EvaLearn_Sequence.json")}, nil, &input, &stderr)
	if err != nil {
		t.Fatalf("qa-load: %v\n%s", err, stderr.String())
	}
	calls := readTranscript(t, filepath.Join(dir, "transcript.jsonl"))
	var results []evaluatePyResult
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil || json.Unmarshal(b, &results) != nil || len(results) == 0 {
		t.Fatalf("results.json: %v", err)
	}
	want := map[string]evaluatePyResult{}
	for _, r := range results {
		want[fmt.Sprintf("evalearn:%d:%d", r.Sequence, r.Position)] = r
	}
	srv := newReplayServer(t, calls)
	recs, errs, err := seqRun(t, input.String(), seqArgs(t, srv.URL, "--concurrency", "4")...)
	srv.check(t) // names any request evaluate.py did not send
	if err != nil {
		t.Fatalf("qa-predict: %v\n%s", err, errs)
	}
	if n := srv.answeredTotal(); n != len(calls) {
		t.Errorf("%d requests answered, want the transcript's %d", n, len(calls))
	}
	// Two sequences may open with the same question: the same request, recorded twice, which
	// the server counts against the last of them.
	times := map[int]int{}
	for _, c := range calls {
		times[srv.byKey[requestKey(c.Request.Model, c.Request.Messages)]]++
	}
	for i, n := range times {
		if got := srv.asked(i); got != n {
			t.Errorf("call %d asked %d times, want %d", i, got, n)
		}
	}
	if len(recs) != len(results) {
		t.Fatalf("%d records, want %d (evaluate.py's results)", len(recs), len(results))
	}
	for _, rec := range recs {
		r, ok := want[rec.ID]
		if !ok {
			t.Errorf("record %s is not in evaluate.py's results", rec.ID)
			continue
		}
		if rec.Prediction == nil || rec.Prediction.Text != r.GPT4Res {
			t.Errorf("%s: answer %+v, want %q", rec.ID, rec.Prediction, r.GPT4Res)
		}
		if j := rec.Judgments["evalearn"]; j == nil || textnorm.Strip(j.Raw) != r.GPT4Judge {
			t.Errorf("%s: verdict %+v, want %q", rec.ID, j, r.GPT4Judge)
		}
	}
}

// TestRandomLongMemEval asks LongMemEval questions against a server that replays what
// LongMemEval's own run_generation.py sent for the same entries and options
// (scripts/random-longmemeval-requests.py): every request must be one it made, byte for byte,
// and each answer its stripped reply. Committed cases are in testdata/longmemeval/random;
// QA_LONGMEMEVAL_REQUESTS names a folder of more.
func TestRandomLongMemEval(t *testing.T) {
	eachCase(t, "testdata/longmemeval/random", "QA_LONGMEMEVAL_REQUESTS", checkRandomLongMemEval)
}

func checkRandomLongMemEval(t *testing.T, dir string) {
	var opts struct {
		Flags []string `json:"qa_predict_flags"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "options.json"))
	if err != nil || json.Unmarshal(b, &opts) != nil {
		t.Fatalf("options.json: %v", err)
	}
	var input, stderr bytes.Buffer
	if err := load.Run(context.Background(), []string{"qa-load", "--format", "longmemeval", filepath.Join(dir, "entries.json")},
		nil, &input, &stderr); err != nil {
		t.Fatalf("qa-load: %v\n%s", err, stderr.String())
	}
	calls := readTranscript(t, filepath.Join(dir, "transcript.jsonl"))
	srv := newReplayServer(t, calls)
	args := append([]string{"--provider", "openai", "--model", "gpt-4o", "--base-url", srv.URL,
		"--api-key-file", keyFile(t), "--max-retries", "0"}, opts.Flags...)
	recs, errs, err := seqRun(t, input.String(), args...)
	srv.check(t) // names any request run_generation.py did not send
	if err != nil {
		t.Fatalf("qa-predict %v: %v\n%s", opts.Flags, err, errs)
	}
	if srv.answeredTotal() != len(calls) {
		t.Fatalf("%d requests answered, want %d", srv.answeredTotal(), len(calls))
	}
	// Each entry's calls: its con-separate note requests, if any, then its reading request.
	var readings []call
	var notes [][]string
	var pending []string
	for _, c := range calls {
		content := c.Request.Messages[len(c.Request.Messages)-1].Content
		if strings.HasPrefix(content, "I will give you a chat history") {
			pending = append(pending, textnorm.Strip(c.Raw))
			continue
		}
		readings, notes, pending = append(readings, c), append(notes, pending), nil
	}
	if len(recs) != len(readings) {
		t.Fatalf("%d records, want %d", len(recs), len(readings))
	}
	for i, rec := range recs {
		if want := textnorm.Strip(readings[i].Raw); rec.Prediction == nil || rec.Prediction.Text != want {
			t.Errorf("%s: answer %+v, want %q", rec.ID, rec.Prediction, want)
			continue
		}
		if !slices.Equal(rec.Prediction.Notes, notes[i]) || (rec.Prediction.Notes == nil) != (notes[i] == nil) {
			t.Errorf("%s: notes %q, want %q", rec.ID, rec.Prediction.Notes, notes[i])
		}
	}
}
