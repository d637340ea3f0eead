package judge

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestUnjudgedNamed: a record whose prediction failed, or that has none, is written with a
// failed judgment named as its judgment would be: under auto, a HotpotQA record's as the
// approximate rules' (no model), a LoCoMo category-5 record's as the rule's that decides it,
// a LongMemEval record's with the model its protocol calls; not as mode auto with a model that
// was never going to judge it. A record no plan names (mem0 skips category 5) keeps the judge's
// mode and model.
func TestUnjudgedNamed(t *testing.T) {
	const failed = "prediction failed: model call: 500"
	rec := func(dataset, typ, meta string) *record.Record {
		r := &record.Record{ID: dataset + ":1", Dataset: dataset, Type: typ, Question: "Q", Answers: []string{"gold"},
			Prediction: &record.Prediction{Error: "model call: 500"}}
		if meta != "" {
			r.Meta = map[string]json.RawMessage{"category": json.RawMessage(meta)}
		}
		return r
	}
	cat5 := prompt.Must(prompt.MAGMACat5).SHA256
	user := prompt.Must(prompt.LongMemEvalJudgeDefault).SHA256
	tests := []struct {
		name   string
		mode   string
		routes Routes
		rec    *record.Record
		want   record.Judgment
	}{
		{"auto, hotpotqa", ModeAuto, nil, rec("hotpotqa", "bridge", ""),
			record.Judgment{Mode: RulesMode, Error: failed}},
		{"auto, no prediction", ModeAuto, nil, &record.Record{ID: "squad:1", Dataset: "squad", Question: "Q", Answers: []string{"gold"}},
			record.Judgment{Mode: RulesMode, Error: "no prediction to judge: run qa-predict first"}},
		{"auto, locomo category 5", ModeAuto, nil, rec("locomo", "adversarial", "5"),
			record.Judgment{Mode: ModeAdversarial, PromptSHA256: cat5, Error: failed}},
		{"auto, locomo category 1", ModeAuto, nil, rec("locomo", "multi_hop", "1"),
			record.Judgment{Mode: ModeLoCoMo, PromptSHA256: prompt.Must(prompt.MAGMAUser).SHA256, Model: "gpt-4o", Error: failed}},
		{"auto, longmemeval", ModeAuto, nil, rec("longmemeval", "single-session-user", ""),
			record.Judgment{Mode: ModeLongMemEval, PromptSHA256: user, Model: "gpt-4o-2024-08-06", Error: failed}},
		{"locomo-continuous, category 5", ModeLoCoMo, nil, rec("locomo", "adversarial", "5"),
			record.Judgment{Mode: ModeAdversarial, PromptSHA256: cat5, Error: failed}},
		{"auto routing locomo to mem0, category 5", ModeAuto, Routes{"locomo": ModeMem0, "*": ModeRules}, rec("locomo", "adversarial", "5"),
			record.Judgment{Mode: ModeAuto, Model: "gpt-4o", Error: failed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &Judge{Mode: tt.mode, Model: "gpt-4o", Routes: tt.routes}
			if j.Routes == nil {
				j.Routes = DefaultRoutes()
			}
			got, err := j.Grade(context.Background(), tt.rec)
			if err != nil || got == nil {
				t.Fatalf("Grade = %v, %v; want a failed judgment", got, err)
			}
			if d := cmp.Diff(tt.want, *got); d != "" {
				t.Errorf("Grade(%s) (-want +got):\n%s", tt.rec.ID, d)
			}
		})
	}
}
