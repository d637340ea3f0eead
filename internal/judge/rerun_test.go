package judge

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/score"
)

// locomoInput is LoCoMo records of each category: --mode auto sends 1 to 4 to MAGMA's judge and
// decides 5 by its rule.
var locomoInput = rec("locomo:c:1", "locomo", "multi_hop", "Where?", "Paris", "Paris", `{"category":1}`) +
	rec("locomo:c:2", "locomo", "temporal", "When?", "7 May 2023", "May 2023", `{"category":2}`) +
	rec("locomo:c:3", "locomo", "open_domain", "Why?", "rain", "the rain", `{"category":3}`) +
	rec("locomo:c:4", "locomo", "single_hop", "Who?", "Ann", "Bo", `{"category":4}`) +
	rec("locomo:c:5", "locomo", "adversarial", "What?", "a cat", "Not mentioned", `{"category":5}`) +
	rec("locomo:c:6", "locomo", "adversarial", "Which?", "a dog", "A sunset", `{"category":5}`)

// TestRerunWithModel is the flow of a first run without --model, whose judgments of the records
// routed to MAGMA fail for want of a model, then a run with one over its output: the failed
// judgments "auto" give way to "auto/j1", the rule's stay, and qa-score reads a judge_score for
// every record, by default and with --judge auto/j1.
func TestRerunWithModel(t *testing.T) {
	srv := newChatServer(t, protocolReply)
	first, stderr, code := runJudge(t, nil, locomoInput)
	if code != 3 {
		t.Fatalf("without --model: exit %d, want 3\n%s", code, stderr)
	}
	second, stderr, code := runJudge(t, []string{"--base-url", srv.URL, "--model", "j1", "--retry-errors"}, first)
	if code != 0 {
		t.Fatalf("with --model: exit %d, want 0\n%s", code, stderr)
	}
	if want := `qa-judge: warning: 4 records had the judgment "auto" of a run without --model, failed for want of one ("needs a judge model (--model)"): replaced by their judgment "auto/j1"`; !strings.Contains(stderr, want) {
		t.Errorf("with --model: stderr lacks %q:\n%s", want, stderr)
	}
	for _, r := range decodeAll(t, second) {
		auto, j1 := r.Judgments["auto"], r.Judgments["auto/j1"]
		switch {
		case j1 == nil || j1.Error != "":
			t.Errorf("%s: judgment auto/j1 = %+v, want one", r.ID, j1)
		case strings.HasSuffix(r.ID, ":5") || strings.HasSuffix(r.ID, ":6"):
			if auto == nil || auto.Error != "" || *auto.Score != *j1.Score {
				t.Errorf("%s: judgment auto = %+v, want the rule's kept (%v)", r.ID, auto, *j1.Score)
			}
		case auto != nil:
			t.Errorf("%s: judgment auto = %+v kept, want none", r.ID, auto)
		}
	}
	want := map[string]float64{"locomo:c:1": 0.8, "locomo:c:2": 0.8, "locomo:c:3": 0.8, "locomo:c:4": 0.8, "locomo:c:5": 1, "locomo:c:6": 0}
	for _, judge := range [][]string{nil, {"--judge", "auto/j1"}} {
		var out, errb bytes.Buffer
		err := score.Run(context.Background(), append([]string{"qa-score", "--metrics", "judge_score"}, judge...), strings.NewReader(second), &out, &errb)
		command.Report(&errb, "qa-score", err)
		if err != nil {
			t.Fatalf("qa-score %q: %v\n%s", judge, err, errb.String())
		}
		for _, r := range decodeAll(t, out.String()) {
			got, ok := r.Scores["judge_score"]
			if !ok || got != want[r.ID] {
				t.Errorf("qa-score %q: %s: judge_score = %v (%v), want %v", judge, r.ID, got, ok, want[r.ID])
			}
		}
		if strings.Contains(errb.String(), "error") {
			t.Errorf("qa-score %q: stderr counts errors:\n%s", judge, errb.String())
		}
		// Without --judge it reads the rule's kept "auto" where there is one, and says so.
		mixed := strings.Contains(errb.String(), `("auto" on 2, "auto/j1" on 4 records)`)
		if mixed != (judge == nil) {
			t.Errorf("qa-score %q: stderr says it read two names: %v, want %v\n%s", judge, mixed, judge == nil, errb.String())
		}
	}
}
