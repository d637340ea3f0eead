package prompt

import (
	"encoding/json"
	"os"
	"testing"
)

// TestLongMemEvalJudgeModel checks the aliases against the protocol's model_aliases (from
// evaluate_qa.py's model_zoo); other names are called as given.
func TestLongMemEvalJudgeModel(t *testing.T) {
	b, err := os.ReadFile("testdata/longmemeval_protocol.json")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Judge struct {
			Aliases       map[string]string `json:"model_aliases"`
			OfficialModel string            `json:"official_model"`
		} `json:"judge"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Judge.Aliases) != 3 {
		t.Fatalf("protocol has %d aliases, want 3", len(p.Judge.Aliases))
	}
	for alias, want := range p.Judge.Aliases {
		if got := LongMemEvalJudgeModel(alias); got != want {
			t.Errorf("LongMemEvalJudgeModel(%q) = %q, want %q", alias, got, want)
		}
	}
	if got := LongMemEvalJudgeModel("gpt-4o"); got != p.Judge.OfficialModel {
		t.Errorf("LongMemEvalJudgeModel(gpt-4o) = %q, want the official judge %q", got, p.Judge.OfficialModel)
	}
	for _, name := range []string{"gpt-4o-2024-11-20", "claude-3-5-sonnet", "GPT-4o", ""} {
		if got := LongMemEvalJudgeModel(name); got != name {
			t.Errorf("LongMemEvalJudgeModel(%q) = %q, want it unchanged", name, got)
		}
	}
}

// TestLongMemEvalJudgeTemplateUnknownType: a type none of LongMemEval's six has no template, and
// the error names the six and the one a misspelt type (an underscore for a dash, say) means.
func TestLongMemEvalJudgeTemplateUnknownType(t *testing.T) {
	const six = "(LongMemEval's are single-session-user, single-session-preference, single-session-assistant, multi-session, temporal-reasoning, knowledge-update)"
	for _, tc := range []struct{ typ, want string }{
		{"temporal_reasoning", `longmemeval judge: unknown question type "temporal_reasoning" ` + six + `; did you mean "temporal-reasoning"?`},
		{"Multi-Session", `longmemeval judge: unknown question type "Multi-Session" ` + six + `; did you mean "multi-session"?`},
		{"bridge", `longmemeval judge: unknown question type "bridge" ` + six},
	} {
		if _, err := LongMemEvalJudgeTemplate(false, tc.typ); err == nil || err.Error() != tc.want {
			t.Errorf("LongMemEvalJudgeTemplate(false, %q) error = %v, want %s", tc.typ, err, tc.want)
		}
	}
	if tpl, err := LongMemEvalJudgeTemplate(false, "temporal-reasoning"); err != nil || tpl.Name != LongMemEvalJudgeTemporal {
		t.Errorf("LongMemEvalJudgeTemplate(false, temporal-reasoning) = %v, %v; want %s", tpl, err, LongMemEvalJudgeTemporal)
	}
}
