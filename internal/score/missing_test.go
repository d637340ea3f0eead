package score

import (
	"encoding/json"
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
