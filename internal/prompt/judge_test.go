package prompt

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
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

// TestLongMemEvalJudgeTemplateRouting checks every one of LongMemEval's six question types,
// abstention or not, against the protocol's routing (evaluate_qa.py's get_anscheck_prompt): an
// abstention question takes the abstention template whatever its type, and the others the
// template whose rule lists their type.
func TestLongMemEvalJudgeTemplateRouting(t *testing.T) {
	b, err := os.ReadFile("testdata/longmemeval_protocol.json")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Judge struct {
			Routing []struct{ File, When string } `json:"routing"`
		} `json:"judge"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	want := map[bool]map[string]string{false: {}, true: {}} // abstention → type → template
	for _, r := range p.Judge.Routing {
		name := "longmemeval/" + r.File
		if r.When == "'_abs' in question_id" {
			for _, typ := range record.LongMemEvalTypes {
				want[true][typ] = name
			}
			continue
		}
		const prefix = "'_abs' not in question_id and question_type in "
		var types []string
		if !strings.HasPrefix(r.When, prefix) || json.Unmarshal([]byte(strings.TrimPrefix(r.When, prefix)), &types) != nil {
			t.Fatalf("routing rule %q: not of the form %q[...]", r.When, prefix)
		}
		for _, typ := range types {
			want[false][typ] = name
		}
	}
	for _, abs := range []bool{false, true} {
		if len(want[abs]) != len(record.LongMemEvalTypes) {
			t.Fatalf("abstention %v: the protocol routes %d types, want all %d", abs, len(want[abs]), len(record.LongMemEvalTypes))
		}
		for _, typ := range record.LongMemEvalTypes {
			tpl, err := LongMemEvalJudgeTemplate(abs, typ)
			if err != nil || tpl.Name != want[abs][typ] {
				t.Errorf("LongMemEvalJudgeTemplate(%v, %q) = %v, %v; want %s", abs, typ, tpl, err, want[abs][typ])
			}
		}
	}
}
