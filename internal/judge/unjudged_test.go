package judge

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestUnjudgedNamed: a record whose prediction failed, or that has none, is written with a
// failed judgment named as its judgment would be: under auto, a HotpotQA record's as the
// approximate rules' (no model), a LoCoMo category-5 record's as the rule's that decides it,
// a LongMemEval record's with the model its protocol calls; not as mode auto with a model that
// was never going to judge it. A record its plan skips (mem0 leaves out category 5, a skip
// route) gets no judgment, as with a good prediction. One that cannot be planned either is
// named as TestUnplannedNamed's are.
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
		want   *record.Judgment // nil: none
	}{
		{"auto, hotpotqa", ModeAuto, nil, rec("hotpotqa", "bridge", ""),
			&record.Judgment{Mode: RulesMode, Error: failed}},
		{"auto, no prediction", ModeAuto, nil, &record.Record{ID: "squad:1", Dataset: "squad", Question: "Q", Answers: []string{"gold"}},
			&record.Judgment{Mode: RulesMode, Error: "no prediction to judge: run qa-predict first"}},
		{"auto, locomo category 5", ModeAuto, nil, rec("locomo", "adversarial", "5"),
			&record.Judgment{Mode: ModeAdversarial, PromptSHA256: cat5, Error: failed}},
		{"auto, locomo category 1", ModeAuto, nil, rec("locomo", "multi_hop", "1"),
			&record.Judgment{Mode: ModeLoCoMo, PromptSHA256: prompt.Must(prompt.MAGMAUser).SHA256, Model: "gpt-4o", Error: failed}},
		{"auto, longmemeval", ModeAuto, nil, rec("longmemeval", "single-session-user", ""),
			&record.Judgment{Mode: ModeLongMemEval, PromptSHA256: user, Model: "gpt-4o-2024-08-06", Error: failed}},
		{"locomo-continuous, category 5", ModeLoCoMo, nil, rec("locomo", "adversarial", "5"),
			&record.Judgment{Mode: ModeAdversarial, PromptSHA256: cat5, Error: failed}},
		{"auto routing locomo to mem0, category 5", ModeAuto, Routes{"locomo": ModeMem0, "*": ModeRules}, rec("locomo", "adversarial", "5"), nil},
		{"mem0, category 5", ModeMem0, nil, rec("locomo", "adversarial", "5"), nil},
		{"mem0, category 5, no prediction", ModeMem0, nil,
			&record.Record{ID: "locomo:1", Dataset: "locomo", Type: "adversarial", Question: "Q", Answers: []string{"gold"}}, nil},
		{"mem0, category 1", ModeMem0, nil, rec("locomo", "multi_hop", "1"),
			&record.Judgment{Mode: ModeMem0, PromptSHA256: prompt.Must(prompt.Mem0User).SHA256, Model: "gpt-4o", Error: failed}},
		{"auto, skip route", ModeAuto, Routes{"squad": ModeSkip, "*": ModeRules}, rec("squad", "", ""), nil},
		{"auto, longmemeval, unreadable abstention", ModeAuto, nil, abstention(rec("longmemeval", "single-session-user", ""), `"yes"`),
			&record.Judgment{Mode: ModeLongMemEval, Model: "gpt-4o-2024-08-06", Error: failed}},
		{"auto routing locomo to mem0, unreadable category", ModeAuto, Routes{"locomo": ModeMem0, "*": ModeRules}, rec("locomo", "adversarial", `"five"`),
			&record.Judgment{Mode: ModeMem0, Error: failed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gpt4oJudge(tt.mode, tt.routes).Grade(context.Background(), tt.rec)
			if err != nil {
				t.Fatalf("Grade(%s): %v", tt.rec.ID, err)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(record.Judgment{})); d != "" {
				t.Errorf("Grade(%s) (-want +got):\n%s", tt.rec.ID, d)
			}
		})
	}
}

// abstention sets r's meta.abstention to raw.
func abstention(r *record.Record, raw string) *record.Record {
	if r.Meta == nil {
		r.Meta = map[string]json.RawMessage{}
	}
	r.Meta["abstention"] = json.RawMessage(raw)
	return r
}

// TestUnplannedNamed: a record whose plan fails (a fact that cannot be read) has a failed judgment
// named by the mode that routes it, not mode auto: with the model only where that mode calls it
// whatever the fact says (LongMemEval's protocol, under its alias), so that it counts as routed to
// the model; a rule calls none, and a LoCoMo record whose category cannot be read may be one a rule
// decides (locomo-continuous) or that mem0 skips. A record no route names keeps the mode given.
func TestUnplannedNamed(t *testing.T) {
	rec := func(dataset, typ, key, raw string) *record.Record {
		return &record.Record{ID: dataset + ":1", Dataset: dataset, Type: typ, Question: "Q", Answers: []string{"gold"},
			Prediction: &record.Prediction{Text: "gold"}, Meta: map[string]json.RawMessage{key: json.RawMessage(raw)}}
	}
	const absErr = `meta.abstention: want true or false, got "yes"`
	tests := []struct {
		name   string
		mode   string
		routes Routes
		rec    *record.Record
		want   record.Judgment
	}{
		{"auto, hotpotqa, unreadable abstention", ModeAuto, nil, rec("hotpotqa", "bridge", "abstention", `"yes"`),
			record.Judgment{Mode: RulesMode, Error: absErr}},
		{"auto, longmemeval, unreadable abstention", ModeAuto, nil, rec("longmemeval", "single-session-user", "abstention", `"yes"`),
			record.Judgment{Mode: ModeLongMemEval, Model: "gpt-4o-2024-08-06", Error: absErr}},
		{"longmemeval, unknown type", ModeLongMemEval, nil, rec("longmemeval", "no-such-type", "x", "1"),
			record.Judgment{Mode: ModeLongMemEval, Model: "gpt-4o-2024-08-06", Error: `longmemeval judge: unknown question type "no-such-type" (LongMemEval's are single-session-user, single-session-preference, single-session-assistant, multi-session, temporal-reasoning, knowledge-update)`}},
		{"auto, locomo, unreadable category", ModeAuto, nil, rec("locomo", "multi_hop", "category", `"five"`),
			record.Judgment{Mode: ModeLoCoMo, Error: `meta.category: want a LoCoMo category, 1 to 5, got "five"`}},
		{"mem0, unreadable category", ModeMem0, nil, rec("locomo", "multi_hop", "category", `"five"`),
			record.Judgment{Mode: ModeMem0, Error: `meta.category: want a LoCoMo category, 1 to 5, got "five"`}},
		{"auto, hotpotqa, no answers", ModeAuto, nil, noAnswers(rec("hotpotqa", "bridge", "level", `"hard"`)),
			record.Judgment{Mode: RulesMode, Error: errNoAnswers.Error()}},
		{"auto, no route", ModeAuto, Routes{"locomo": ModeLoCoMo}, rec("squad", "", "x", "1"),
			record.Judgment{Mode: ModeAuto, Error: `no route for dataset "squad" type ""`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gpt4oJudge(tt.mode, tt.routes).Grade(context.Background(), tt.rec)
			if err != nil || got == nil {
				t.Fatalf("Grade = %v, %v; want a failed judgment", got, err)
			}
			if d := cmp.Diff(tt.want, *got, cmpopts.IgnoreUnexported(record.Judgment{})); d != "" {
				t.Errorf("Grade(%s) (-want +got):\n%s", tt.rec.ID, d)
			}
		})
	}
}

// noAnswers takes r's gold answers away, as a HotpotQA test item has none.
func noAnswers(r *record.Record) *record.Record {
	r.Answers = nil
	return r
}

// gpt4oJudge is a judge of mode calling gpt-4o, with routes, or the default ones when nil.
func gpt4oJudge(mode string, routes Routes) *Judge {
	if routes == nil {
		routes = DefaultRoutes()
	}
	return &Judge{Mode: mode, Model: "gpt-4o", Routes: routes}
}
