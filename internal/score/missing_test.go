package score

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestMissingAsZero checks which default metrics --missing-as-zero counts as 0 for a record
// without a prediction: those whose benchmark's script scores a question it has no answer for 0
// (em, f1 by evaluate-v1.1.py; hotpot_*, sp_*, joint_* by hotpot_evaluate_v1.py, sp and joint
// only with gold facts; cmrc_* by cmrc2018_evaluate.py, on Chinese records; locomo_f1 by
// LoCoMo's analyze_aggr_acc, on LoCoMo records with a category), never squad2_*, the other
// metrics or a record that has a prediction, and none without the flag.
func TestMissingAsZero(t *testing.T) {
	sel, err := selectMetrics(registry(), "")
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]json.RawMessage{"supporting_facts": json.RawMessage(`[["A",0]]`)}
	answer := []string{"a"}
	for _, c := range []struct {
		name string
		rec  record.Record
		flag bool
		want []string
	}{
		{"english", record.Record{Answers: answer}, true, []string{"em", "f1", "hotpot_em", "hotpot_f1"}},
		{"without the flag", record.Record{Answers: answer}, false, nil},
		{"predicted", record.Record{Answers: answer, Prediction: &record.Prediction{Text: "b"}}, true, nil},
		{"no gold answers", record.Record{}, true, nil},
		{"chinese", record.Record{Lang: "zh", Answers: answer}, true, []string{"em", "f1", "hotpot_em", "hotpot_f1", "cmrc_em", "cmrc_f1"}},
		{"gold facts", record.Record{Answers: answer, Meta: facts}, true,
			[]string{"em", "f1", "hotpot_em", "hotpot_f1", "sp_em", "sp_f1", "joint_em", "joint_f1"}},
		// analyze_aggr_acc counts every question of evaluate_qa.py's output file in its
		// category, 0 for one without <model>_f1, category 5 too (where em and f1, which leave
		// category 5 out, count nothing).
		{"locomo", record.Record{Dataset: "locomo", Type: "single_hop", Answers: answer}, true,
			[]string{"em", "f1", "hotpot_em", "hotpot_f1", "locomo_f1"}},
		{"locomo category 5", record.Record{Dataset: "locomo", Type: "adversarial", Answers: answer}, true, []string{"locomo_f1"}},
		{"locomo category 5 without the flag", record.Record{Dataset: "locomo", Type: "adversarial", Answers: answer}, false, nil},
		{"locomo category 5 predicted", record.Record{Dataset: "locomo", Type: "adversarial", Answers: answer,
			Prediction: &record.Prediction{Text: "b"}}, true, nil},
		// No category, no place in analyze_aggr_acc's counts (a KeyError there): locomo_f1 leaves
		// it out, as it does with a prediction.
		{"locomo without a category", record.Record{Dataset: "locomo", Type: "single-hop", Answers: answer}, true,
			[]string{"em", "f1", "hotpot_em", "hotpot_f1"}},
		{"locomo without gold", record.Record{Dataset: "locomo", Type: "adversarial"}, true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := newScorer(sel, "")
			sc.missingAsZero = c.flag
			rec := c.rec
			rec.Schema, rec.ID, rec.Question = 1, "q", "q?"
			o := sc.score(&rec)
			var got []string
			for _, k := range o.missing {
				got = append(got, sel.names[k])
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("score(%s).missing = %v, want %v (-want +got):\n%s", c.name, got, c.want, diff)
			}
		})
	}
}

// TestMissingAsZeroJudged: a record without a prediction that qa-judge has been run over carries
// a failed judgment ("no prediction to judge"), which says no more than that the prediction is
// missing: the record is unpredicted, not failed, so that --missing-as-zero counts it 0 as before
// judging (else LoCoMo's section, evaluate_qa.py's stats, lost it after qa-judge), and
// judge_score, which scores the answered questions, leaves it out.
func TestMissingAsZeroJudged(t *testing.T) {
	sel, err := selectMetrics(registry(), "")
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]*record.Judgment{"mem0/m": {Mode: "mem0", Model: "m", Error: "no prediction to judge: run qa-predict first"}}
	rec := record.Record{Schema: 1, ID: "locomo:c:0", Question: "q?", Dataset: "locomo", Type: "single_hop",
		Answers: []string{"a"}, Judgments: failed}
	sc := newScorer(sel, "")
	sc.missingAsZero = true
	o := sc.score(&rec)
	var got []string
	for _, k := range o.missing {
		got = append(got, sel.names[k])
	}
	if o.failed || !o.unpredicted {
		t.Errorf("failed %v, unpredicted %v; want false, true", o.failed, o.unpredicted)
	}
	if diff := cmp.Diff([]string{"em", "f1", "hotpot_em", "hotpot_f1", "locomo_f1"}, got); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
}

// TestJudgedWithoutPrediction: judge_score leaves out a record without a prediction whose
// judgment failed for want of one, under --errors-as-zero too, as it leaves out one never judged.
func TestJudgedWithoutPrediction(t *testing.T) {
	sel, err := selectMetrics(registry(), "judge_score")
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]*record.Judgment{"mem0/m": {Mode: "mem0", Model: "m", Error: "no prediction to judge: run qa-predict first"}}
	rec := record.Record{Schema: 1, ID: "locomo:c:0", Question: "q?", Dataset: "locomo", Type: "single_hop",
		Answers: []string{"a"}, Judgments: failed}
	o := newScorer(sel, "").score(&rec)
	if k := sel.index("judge_score"); o.failed || !math.IsNaN(o.vals[k]) {
		t.Errorf("failed %v, judge_score %v; want false, NaN", o.failed, o.vals[k])
	}
}
