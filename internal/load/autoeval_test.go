package load

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/internal/judge"
	"github.com/qapipe/qapipe/internal/score"
)

// TestLabelMode: the judgments made of autoeval_labels are named and moded as qa-judge's
// LongMemEval mode names its own, so that qa-judge takes them for its judgments.
func TestLabelMode(t *testing.T) {
	if judgeModeLongMemEval != judge.ModeLongMemEval {
		t.Errorf("autoeval_label judgments have mode %q, qa-judge's LongMemEval mode is %q", judgeModeLongMemEval, judge.ModeLongMemEval)
	}
}

// TestAutoevalLabelsPrintQAMetrics: LongMemEval's evaluate_qa.py results loaded with --predictions
// give qa-score --summary print_qa_metrics.py's figures, without a judge call. The results file
// longmemeval_synthetic.hyp.jsonl.eval-results-gpt-4o in the repository's testdata/longmemeval
// labels the seven questions of longmemeval_synthetic.json there, four true and three false, the
// _abs one true.
// The expected figures are the output of upstream's src/evaluation/print_qa_metrics.py
// (xiaowu0162/LongMemEval, commit 9e0b455f4ef0e2ab8f2e582289761153549043fc), run with Python 3 and
// NumPy 1.24.2 as `python3 print_qa_metrics.py <results> <data>`:
//
//	single-session-user: 0.5 (2)
//	single-session-preference: 0.0 (1)
//	single-session-assistant: 1.0 (1)
//	multi-session: 1.0 (1)
//	temporal-reasoning: 0.0 (1)
//	knowledge-update: 1.0 (1)
//	Task-averaged Accuracy: 0.5833
//	Overall Accuracy: 0.5714
//	Abstention Accuracy: 1.0 (1)
//
// and unrounded (the same script printing repr(float(np.mean(...))) in place of round(..., 4)):
// task-averaged 0.5833333333333334, overall 0.5714285714285714, the others as above.
func TestAutoevalLabelsPrintQAMetrics(t *testing.T) {
	var records, loadErr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", "--format", "longmemeval",
		"--predictions", "../../testdata/longmemeval/longmemeval_synthetic.hyp.jsonl.eval-results-gpt-4o",
		"../../testdata/longmemeval/longmemeval_synthetic.json"}, strings.NewReader(""), &records, &loadErr)
	if err != nil || loadErr.Len() > 0 {
		t.Fatalf("qa-load: %v\n%s", err, loadErr.String())
	}
	var out, scoreErr bytes.Buffer
	if err := score.Run(context.Background(), []string{"qa-score", "--metrics", "judge_score", "--summary", "-"},
		&records, &out, &scoreErr); err != nil {
		t.Fatalf("qa-score: %v\n%s", err, scoreErr.String())
	}
	var s struct {
		Records     int `json:"records"`
		Scored      int `json:"scored"`
		LongMemEval struct {
			ByType       map[string]stat `json:"by_type"`
			TaskAveraged float64         `json:"task_averaged"`
			Overall      stat            `json:"overall"`
			Abstention   stat            `json:"abstention"`
		} `json:"longmemeval"`
	}
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, out.String())
	}
	if s.Records != 7 || s.Scored != 7 {
		t.Errorf("summary of %d records, %d scored; want 7 and 7 (no judge call)", s.Records, s.Scored)
	}
	l := s.LongMemEval
	wantTypes := map[string]stat{
		"single-session-user":       {0.5, 2},
		"single-session-preference": {0.0, 1},
		"single-session-assistant":  {1.0, 1},
		"multi-session":             {1.0, 1},
		"temporal-reasoning":        {0.0, 1},
		"knowledge-update":          {1.0, 1},
	}
	if diff := cmp.Diff(wantTypes, l.ByType); diff != "" {
		t.Errorf("accuracy by type differs from print_qa_metrics.py's (-upstream +qa-score):\n%s", diff)
	}
	for _, c := range []struct {
		name      string
		got, want stat
	}{
		{"task-averaged", stat{l.TaskAveraged, 6}, stat{0.5833333333333334, 6}},
		{"overall", l.Overall, stat{0.5714285714285714, 7}},
		{"abstention", l.Abstention, stat{1.0, 1}},
	} {
		if c.got != c.want {
			t.Errorf("%s accuracy = %v, print_qa_metrics.py's %v", c.name, c.got, c.want)
		}
	}
}

// stat is a mean and the count it is over, as qa-score's summary and print_qa_metrics.py give it.
type stat struct {
	Mean  float64 `json:"mean"`
	Count int     `json:"count"`
}
