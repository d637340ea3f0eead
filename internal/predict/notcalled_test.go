package predict

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestNotCalledOneWording: the run is asked to finish while record a's last note is asked for
// (LongMemEval's con-separate reading), so the client itself stops a's reading call, and record
// b is never handed to the model. Both carry the one wording of a call not made, with no
// provider or model before it, and both are counted as not called.
func TestNotCalledOneWording(t *testing.T) {
	ctx, finish := interrupt.WithFinish(context.Background())
	var mu sync.Mutex
	notes := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		notes++
		if notes == 2 { // a's last note: the run is asked to finish while it is in flight
			finish()
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"a note"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`)
	}))
	t.Cleanup(srv.Close)
	args := []string{"--provider", "openai", "--model", "gpt-4o", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--reading", "con-separate", "--history-sessions", "2", "--concurrency", "1"}
	in := jsonl(t, longMemEvalRecord("longmemeval:a", ""), longMemEvalRecord("longmemeval:b", ""))
	recs, stderr, err := run(t, ctx, in, args...)
	if command.ExitCode(err) != command.ExitInterrupted || len(recs) != 2 {
		t.Fatalf("qa-predict: %v (exit %d, %d records), want exit 130 and 2 records\n%s", err, command.ExitCode(err), len(recs), stderr)
	}
	for _, rec := range recs {
		if p := rec.Prediction; p.Error != "interrupted before the call was made" || p.Text != "" {
			t.Errorf("%s: prediction %+v, want the error %q", rec.ID, p, "interrupted before the call was made")
		}
	}
	if want := "2 errors (2 of them not called: interrupted)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if notes != 2 {
		t.Errorf("%d calls reached the server, want 2 (a's notes)", notes)
	}
}

// TestExtractiveAfterFinish: the extractive predictor calls no model, so a run asked to finish
// still answers every record it reads, as qa-judge's rules judge theirs: an error "interrupted
// before the call was made" would name a call that no record needed, and a rerun to fill it in.
func TestExtractiveAfterFinish(t *testing.T) {
	ctx, finish := interrupt.WithFinish(context.Background())
	finish()
	var in []*record.Record
	for _, id := range []string{"a", "b"} {
		in = append(in, &record.Record{Schema: record.SchemaVersion, ID: id, Question: "Who wrote Hamlet?",
			Answers: []string{"Shakespeare"}, Context: []record.Passage{{Title: "Hamlet", Text: "Hamlet was written by Shakespeare."}}})
	}
	recs, stderr, err := run(t, ctx, jsonl(t, in...), "--provider", "extractive")
	if command.ExitCode(err) != command.ExitInterrupted || len(recs) != 2 {
		t.Fatalf("qa-predict: %v (exit %d, %d records), want exit 130 and 2 records\n%s", err, command.ExitCode(err), len(recs), stderr)
	}
	for _, rec := range recs {
		if p := rec.Prediction; p.Error != "" || p.Text == "" {
			t.Errorf("%s: prediction %+v, want an answer", rec.ID, p)
		}
	}
	if want := "2 predicted (0 cached), 0 passed through, 0 errors"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}
