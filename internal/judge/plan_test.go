package judge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

func TestPlanModes(t *testing.T) {
	loc := func(cat int, typ string) *record.Record {
		return &record.Record{ID: "locomo:c:1", Dataset: "locomo", Type: typ, Question: "Q", Answers: []string{"gold"},
			Meta: map[string]json.RawMessage{"category": json.RawMessage(string(rune('0' + cat)))}, Prediction: &record.Prediction{Text: "p"}}
	}
	tests := []struct {
		mode     string
		rec      *record.Record
		wantMode string
		template string
		skip     bool
		rule     bool
	}{
		{ModeMem0, loc(4, "single_hop"), ModeMem0, prompt.Mem0User, false, false},
		{ModeMem0, loc(5, "adversarial"), "", "", true, false},
		{ModeLoCoMo, loc(5, "adversarial"), ModeAdversarial, prompt.MAGMACat5, false, true},
		{ModeLoCoMo, loc(1, "multi_hop"), ModeLoCoMo, prompt.MAGMAUser, false, false},
		{ModeRules, loc(1, "multi_hop"), RulesMode, "", false, true},
		{ModeUnanswerable, loc(1, "multi_hop"), ModeUnanswerable, prompt.MAGMACat5, false, true},
		{ModeLongMemEval, &record.Record{ID: "x_abs", Type: "single-session-preference", Answers: []string{"gold"}, Prediction: &record.Prediction{}}, ModeLongMemEval, prompt.LongMemEvalJudgeAbstention, false, false},
		{ModeLongMemEval, &record.Record{ID: "x", Type: "single-session-preference", Answers: []string{"gold"}, Prediction: &record.Prediction{}}, ModeLongMemEval, prompt.LongMemEvalJudgePreference, false, false},
		{ModeLongMemEval, &record.Record{ID: "x", Type: "knowledge-update", Answers: []string{"gold"}, Prediction: &record.Prediction{}}, ModeLongMemEval, prompt.LongMemEvalJudgeKnowledge, false, false},
	}
	for _, tt := range tests {
		j := &Judge{Mode: tt.mode, Routes: DefaultRoutes()}
		p, err := j.Plan(tt.rec)
		if err != nil {
			t.Fatalf("Plan(%s, %s): %v", tt.mode, tt.rec.ID, err)
		}
		if p.Skip != tt.skip || p.Mode != tt.wantMode || p.Template != tt.template || (p.Rule != nil) != tt.rule {
			t.Errorf("Plan(%s, %s) = mode %q template %q skip %v rule %v, want %q %q %v %v",
				tt.mode, tt.rec.ID, p.Mode, p.Template, p.Skip, p.Rule != nil, tt.wantMode, tt.template, tt.skip, tt.rule)
		}
	}
	// MAGMA: empty gold scores 0 without a call, as the upstream callers do.
	r := loc(1, "multi_hop")
	r.Answers = []string{""}
	if p, _ := (&Judge{Mode: ModeLoCoMo}).Plan(r); p.Rule == nil || p.Rule.Score != 0 {
		t.Errorf("Plan(locomo, empty gold) = %+v, want a rule verdict of 0", p)
	}
	// MAGMA reads a category-5 question's adversarial answer as its gold, and scores an empty one 0
	// without a call, before its phrase rule could give an abstaining prediction 1.
	r = loc(5, "adversarial")
	r.Answers = []string{""}
	r.Prediction.Text = "Not mentioned in the conversation."
	if p, _ := (&Judge{Mode: ModeLoCoMo}).Plan(r); p.Rule == nil || p.Rule.Score != 0 || p.Mode != ModeLoCoMo {
		t.Errorf("Plan(locomo, category 5, empty gold) = %+v, want a rule verdict of 0", p)
	}
	r.Answers = []string{"trap"}
	if p, _ := (&Judge{Mode: ModeLoCoMo}).Plan(r); p.Rule == nil || p.Rule.Score != 1 || p.Mode != ModeAdversarial {
		t.Errorf("Plan(locomo, category 5, abstaining) = %+v, want the phrase rule's 1", p)
	}
	// Unknown LongMemEval type: an error, as upstream raises.
	if _, err := (&Judge{Mode: ModeLongMemEval}).Plan(&record.Record{ID: "x", Type: "new-type"}); err == nil {
		t.Error("Plan(longmemeval, unknown type): no error")
	}
}

// TestPlanRecordFacts: every mode reads a record's LoCoMo category and abstention flag the one
// way (record.LoCoMoCategory, record.Abstention), and one it cannot read is an error (a judgment
// error), never taken as absent.
func TestPlanRecordFacts(t *testing.T) {
	rec := func(id, dataset, typ, meta string) *record.Record {
		r := &record.Record{ID: id, Dataset: dataset, Type: typ, Question: "Q", Answers: []string{"gold"}, Prediction: &record.Prediction{Text: "p"}}
		if meta != "" {
			if err := json.Unmarshal([]byte(meta), &r.Meta); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	for _, tt := range []struct {
		mode     string
		rec      *record.Record
		wantMode string
		template string
		skip     bool
	}{
		// A category given as a string, and one that differs from the type: meta.category wins.
		{ModeLoCoMo, rec("c1", "locomo", "single_hop", `{"category":"5"}`), ModeAdversarial, prompt.MAGMACat5, false},
		{ModeMem0, rec("c1", "locomo", "single_hop", `{"category":"5"}`), "", "", true},
		{ModeMem0, rec("c1", "locomo", "adversarial", `{"category":4}`), ModeMem0, prompt.Mem0User, false},
		// meta.abstention chooses LongMemEval's abstention template as an "_abs" id does.
		{ModeLongMemEval, rec("x", "longmemeval", "multi-session", `{"abstention":true}`), ModeLongMemEval, prompt.LongMemEvalJudgeAbstention, false},
		{ModeLongMemEval, rec("x", "longmemeval", "multi-session", `{"abstention":null}`), ModeLongMemEval, prompt.LongMemEvalJudgeDefault, false},
	} {
		p, err := (&Judge{Mode: tt.mode}).Plan(tt.rec)
		if err != nil {
			t.Fatalf("Plan(%s, %s): %v", tt.mode, tt.rec.Meta, err)
		}
		if p.Skip != tt.skip || p.Mode != tt.wantMode || p.Template != tt.template {
			t.Errorf("Plan(%s, %s) = mode %q template %q skip %v, want %q %q %v", tt.mode, tt.rec.Meta, p.Mode, p.Template, p.Skip, tt.wantMode, tt.template, tt.skip)
		}
	}
	// The rules judge: meta.abstention and a string category make the answer one to decline.
	for _, r := range []*record.Record{rec("x", "longmemeval", "multi-session", `{"abstention":true}`), rec("c1", "locomo", "single_hop", `{"category":" 5 "}`)} {
		p, err := (&Judge{Mode: ModeRules}).Plan(r)
		if err != nil || p.Rule == nil || p.Rule.Reasoning != "answers a question that should be declined" {
			t.Errorf("Plan(rules, %s) = %+v, %v; want the verdict on a question to decline", r.Meta, p.Rule, err)
		}
	}
	for _, tt := range []struct {
		mode string
		rec  *record.Record
		want string
	}{
		{ModeLoCoMo, rec("c1", "locomo", "single_hop", `{"category":7}`), "meta.category: want a LoCoMo category, 1 to 5, got 7"},
		{ModeMem0, rec("c1", "locomo", "single_hop", `{"category":"five"}`), `meta.category: want a LoCoMo category, 1 to 5, got "five"`},
		{ModeRules, rec("c1", "locomo", "single_hop", `{"category":[5]}`), "meta.category: want a LoCoMo category, 1 to 5, got [5]"},
		{ModeRules, rec("x", "longmemeval", "multi-session", `{"abstention":"yes"}`), `meta.abstention: want true or false, got "yes"`},
		{ModeLongMemEval, rec("x", "longmemeval", "multi-session", `{"abstention":1}`), "meta.abstention: want true or false, got 1"},
	} {
		if _, err := (&Judge{Mode: tt.mode}).Plan(tt.rec); err == nil || err.Error() != tt.want {
			t.Errorf("Plan(%s, %s): error %v, want %q", tt.mode, tt.rec.Meta, err, tt.want)
		}
	}
}

// TestPlanNothingToGradeBy: a record that lacks what its protocol's judge grades by (the gold
// answer LongMemEval's and mem0's judges compare with, the rubric EvaLearn's grades against)
// cannot be planned, rather than send the judge an empty slot to grade against; a gold or
// rubric that is there, even empty, is sent as the protocol sends it, and MAGMA scores an empty
// gold 0 without a call, as its callers do.
func TestPlanNothingToGradeBy(t *testing.T) {
	rec := func(dataset, typ, meta string, answers []string, rubric string) *record.Record {
		r := &record.Record{ID: dataset + ":1", Dataset: dataset, Type: typ, Question: "Q", Answers: answers, Rubric: rubric,
			Prediction: &record.Prediction{Text: "p"}}
		if meta != "" {
			if err := json.Unmarshal([]byte(meta), &r.Meta); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	const noGold = "no gold answers (answers is missing or []): %s's judge compares the prediction with the gold answer"
	for _, tt := range []struct {
		name string
		mode string
		rec  *record.Record
		want string // the error; "" for a plan that calls the model
		skip bool
		rule bool
	}{
		{"longmemeval no answers", ModeLongMemEval, rec("longmemeval", "multi-session", "", nil, ""), fmt.Sprintf(noGold, "LongMemEval"), false, false},
		{"longmemeval answers []", ModeLongMemEval, rec("longmemeval", "multi-session", "", []string{}, ""), fmt.Sprintf(noGold, "LongMemEval"), false, false},
		{"longmemeval abstention no answers", ModeLongMemEval, rec("longmemeval", "multi-session", `{"abstention":true}`, nil, ""), fmt.Sprintf(noGold, "LongMemEval"), false, false},
		{"longmemeval empty gold", ModeLongMemEval, rec("longmemeval", "multi-session", "", []string{""}, ""), "", false, false},
		{"mem0 no answers", ModeMem0, rec("locomo", "multi_hop", `{"category":1}`, nil, ""), fmt.Sprintf(noGold, "mem0"), false, false},
		{"mem0 empty gold", ModeMem0, rec("locomo", "multi_hop", `{"category":1}`, []string{""}, ""), "", false, false},
		{"mem0 category 5 no answers", ModeMem0, rec("locomo", "adversarial", `{"category":5}`, nil, ""), "", true, false},
		{"magma no answers", ModeLoCoMo, rec("locomo", "multi_hop", `{"category":1}`, nil, ""), "", false, true},
		{"magma category 5 no answers", ModeLoCoMo, rec("locomo", "adversarial", `{"category":5}`, nil, ""), "", false, true},
		{"evalearn no rubric", ModeEvaLearn, rec("evalearn", "Logical Reasoning", "", nil, ""), "no rubric: EvaLearn's judge grades the answer against the problem's rubric alone", false, false},
		{"evalearn blank rubric", ModeEvaLearn, rec("evalearn", "Logical Reasoning", "", nil, " \n\u3000"), "no rubric: EvaLearn's judge grades the answer against the problem's rubric alone", false, false},
		{"evalearn rubric", ModeEvaLearn, rec("evalearn", "Logical Reasoning", "", nil, "Full marks for 4."), "", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := (&Judge{Mode: tt.mode}).Plan(tt.rec)
			switch {
			case tt.want != "":
				if err == nil || err.Error() != tt.want {
					t.Errorf("Plan(%s) error = %v, want %q", tt.mode, err, tt.want)
				}
			case err != nil:
				t.Errorf("Plan(%s) error = %v, want a plan", tt.mode, err)
			case p.Skip != tt.skip || (p.Rule != nil) != tt.rule || !tt.skip && !tt.rule && len(p.Messages) == 0:
				t.Errorf("Plan(%s) = skip %v rule %v, %d messages, want skip %v rule %v", tt.mode, p.Skip, p.Rule != nil, len(p.Messages), tt.skip, tt.rule)
			}
		})
	}
}

func TestCustomPrompt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.txt")
	os.WriteFile(path, []byte("Q: {question}\nGold: {answers}\nPred: {prediction}\nSay yes or no."), 0o644)
	c, err := LoadCustom(path, FormatYesNo)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Plan(&record.Record{ID: "a", Question: "{prediction}?", Answers: []string{"it's", "b"}}, "no {question}")
	if err != nil {
		t.Fatal(err)
	}
	want := "Q: {prediction}?\nGold: [\"it's\", 'b']\nPred: no {question}\nSay yes or no."
	if got := p.Messages[0].Content; got != want || p.Mode != "custom:yes-no" || p.PromptSHA256 != c.SHA256 {
		t.Errorf("custom Plan = %q mode %q, want %q custom:yes-no", got, p.Mode, want)
	}
	if v, err := p.Parse("Yes"); err != nil || v.Score != 1 {
		t.Errorf("custom parse(Yes) = %v, %v", v, err)
	}
	if _, err := LoadCustom(path, "xml"); err == nil {
		t.Error("LoadCustom(format xml): no error")
	}
	if c.Unknown != nil {
		t.Errorf("LoadCustom(%q).Unknown = %q, want none", c.Text, c.Unknown)
	}
	os.WriteFile(path, []byte(`Gold: {gold} {answer}; say {"score": 1} for {prediction}, {Prediction}, {gold}`), 0o644)
	c, err = LoadCustom(path, FormatJSONScore)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"{gold}", "{Prediction}"}; !slices.Equal(c.Unknown, want) {
		t.Errorf("LoadCustom(unknown tokens).Unknown = %q, want %q", c.Unknown, want)
	}
}

// TestLoadCustomFieldRefs: a prompt written for Python's str.format reaches into a field
// ({meta.category}, {answers[0]}) or converts one ({prediction!r}, {answer:>10}); Render replaces
// none of them, so each is sent as written and named among the unknown placeholders, as {gold} is.
// JSON and prose in braces are no such field.
func TestLoadCustomFieldRefs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.txt")
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"{prediction} {meta.category} {answers[0]} {prediction!r} {answer:>10} {meta.category}",
			[]string{"{meta.category}", "{answers[0]}", "{prediction!r}", "{answer:>10}"}},
		{"{gold} {prediction} {meta[\"lang\"]}", []string{"{gold}", "{meta[\"lang\"]}"}},
		{"{prediction} {réponse} {答案}", []string{"{réponse}", "{答案}"}},
		{`{prediction} say {"score": 1} or {score: 0.5}, {a b}, {}, {1x.y}`, nil},
	} {
		os.WriteFile(path, []byte(tt.text), 0o644)
		c, err := LoadCustom(path, FormatJSONScore)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Unknown, tt.want) {
			t.Errorf("LoadCustom(%q).Unknown = %q, want %q", tt.text, c.Unknown, tt.want)
		}
	}
}

func TestLoadRoutes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	os.WriteFile(path, []byte(`{"locomo": "mem0", "LongMemEval/temporal-reasoning": "rules"}`), 0o644)
	r, _, err := LoadRoutes(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ ds, typ, want string }{
		// A dataset key decides all its types: mem0 itself skips category 5.
		{"locomo", "single_hop", ModeMem0}, {"locomo", "adversarial", ModeMem0},
		{"longmemeval", "temporal-reasoning", ModeRules}, {"longmemeval", "multi-session", ModeLongMemEval},
		{"squad", "has_answer", ModeRules}, {"evalearn", "Summarization", ModeEvaLearn},
		// Dataset names match whatever their case, in records and in the route file.
		{"LoCoMo", "single_hop", ModeMem0}, {"LOCOMO", "adversarial", ModeMem0},
		{"longmemeval", "temporal-reasoning", ModeRules}, {"EvaLearn", "Summarization", ModeEvaLearn},
	} {
		if got, _ := r.Route(&record.Record{Dataset: tt.ds, Type: tt.typ}); got != tt.want {
			t.Errorf("Route(%s/%s) = %q, want %q", tt.ds, tt.typ, got, tt.want)
		}
	}
	// Routed to mem0, a category-5 question is skipped as mem0's evals.py skips it; by default it
	// is decided by MAGMA's rule.
	cat5 := &record.Record{ID: "locomo:c:1", Dataset: "locomo", Type: "adversarial", Answers: []string{"x"},
		Meta: map[string]json.RawMessage{"category": json.RawMessage("5")}, Prediction: &record.Prediction{Text: "Not mentioned"}}
	for _, tt := range []struct {
		routes   Routes
		skip     bool
		template string
	}{{r, true, ""}, {DefaultRoutes(), false, prompt.MAGMACat5}} {
		j := &Judge{Mode: ModeAuto, Routes: tt.routes}
		p, err := j.Plan(cat5)
		if err != nil || p.Skip != tt.skip || p.Template != tt.template {
			t.Errorf("category 5 with routes %v: plan skip %v template %q (%v), want skip %v template %q", tt.routes, p.Skip, p.Template, err, tt.skip, tt.template)
		}
	}
}

func BenchmarkRulesVerdict(b *testing.B) {
	r := &record.Record{ID: "h", Answers: []string{"the Eiffel Tower in Paris", "Eiffel Tower"}}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		RulesVerdict(r, "It is the Eiffel tower, which stands in Paris, France.")
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

// TestRouteUse: the warning names the route file's keys, as written, that routed no record,
// and nothing when every key routed one.
func TestRouteUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	os.WriteFile(path, []byte(`{"LoCoMo": "mem0", "squad/Has_Answer": "rules"}`), 0o644)
	r, keys, err := LoadRoutes(path)
	if err != nil {
		t.Fatal(err)
	}
	many := make([]*record.Record, 30)
	for i := range many {
		many[i] = &record.Record{Dataset: "squad", Type: fmt.Sprintf("t%02d", i)}
	}
	for _, tt := range []struct {
		name string
		recs []*record.Record
		want string // in the warning; "" for none
	}{
		{"all used", []*record.Record{{Dataset: "LOCOMO", Type: "x"}, {Dataset: "Squad", Type: "Has_Answer"}}, ""},
		{"type case", []*record.Record{{Dataset: "locomo"}, {Dataset: "squad", Type: "has_answer"}},
			`no record routed by "squad/Has_Answer" (a dataset matches in any case, a type only as written; the records' dataset/type: "locomo", "squad/has_answer")`},
		{"many pairs", many, `"squad/t19", …)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := newRouteUse(path, r, keys)
			for _, rec := range tt.recs {
				u.note(rec)
			}
			got := u.warning()
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("warning() = %q, want %q in it", got, tt.want)
			}
		})
	}
}

// TestLoadRoutesAuto: "auto" is what --mode names to use the routes, not a mode a route can name
// (the help lists the modes a route may take, and auto is not among them).
func TestLoadRoutesAuto(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	os.WriteFile(path, []byte(`{"locomo": "auto"}`), 0o644)
	if _, _, err := LoadRoutes(path); err == nil || !strings.Contains(err.Error(), `key "locomo": unknown mode "auto"`) {
		t.Errorf("LoadRoutes(%s) error = %v, want the unknown mode \"auto\"", path, err)
	}
}

// TestLoadRoutesSameKey: two keys that differ only in the case of their dataset name one route;
// which mode won depended on map order, so the file is refused.
func TestLoadRoutesSameKey(t *testing.T) {
	for _, body := range []string{`{"LoCoMo": "mem0", "locomo": "rules"}`, `{"LoCoMo/temporal": "mem0", "locomo/temporal": "mem0"}`} {
		path := filepath.Join(t.TempDir(), "r.json")
		os.WriteFile(path, []byte(body), 0o644)
		for range 20 {
			// the same message every run, the keys in sorted order whatever the map's
			want := path + `: keys "LoCoMo" and "locomo" name the same route (dataset names match in any case)`
			if strings.Contains(body, "/") {
				want = path + `: keys "LoCoMo/temporal" and "locomo/temporal" name the same route (dataset names match in any case)`
			}
			if _, _, err := LoadRoutes(path); err == nil || err.Error() != want {
				t.Fatalf("LoadRoutes(%s) error = %v, want %q", body, err, want)
			}
		}
	}
}

func BenchmarkRulesVerdictChinese(b *testing.B) {
	r := &record.Record{ID: "c", Lang: "zh", Answers: []string{"北京大学", "北大"}}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		RulesVerdict(r, "他毕业于北京的一所大学，后来在北京大学任教。")
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

// TestCustomEveryPlaceholderAndFormat: each placeholder of a custom prompt takes its own field
// ({answer} the first gold), and each declared format reads its replies with its own protocol's
// parser.
func TestCustomEveryPlaceholderAndFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.txt")
	if err := os.WriteFile(path, []byte("{id}|{type}|{question}|{answer}|{answers}|{rubric}|{prediction}"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &record.Record{ID: "r1", Type: "t1", Question: "q1", Answers: []string{"g1", "g2"}, Rubric: "rb1"}
	for _, tt := range []struct {
		format, reply string
		score         float64
		label         string
	}{
		{FormatJSONScore, `{"score": 0.5}`, 0.5, "0.5"},
		{FormatLabel, `{"label": "CORRECT"}`, 1, "CORRECT"},
		{FormatYesNo, "Yes.", 1, "yes"},
	} {
		c, err := LoadCustom(path, tt.format)
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Plan(rec, "p1")
		if err != nil {
			t.Fatal(err)
		}
		if want := "r1|t1|q1|g1|['g1', 'g2']|rb1|p1"; p.Messages[0].Content != want {
			t.Errorf("custom %s Plan = %q, want %q", tt.format, p.Messages[0].Content, want)
		}
		if v, err := p.Parse(tt.reply); err != nil || v.Score != tt.score || v.Label != tt.label {
			t.Errorf("custom %s parse(%q) = %+v, %v; want score %v labelled %q", tt.format, tt.reply, v, err, tt.score, tt.label)
		}
	}
}

// TestPlanMAGMAFalsyGold: MAGMA's callers grade only when the gold answer, as the dataset gives it,
// is true to Python (test_harness.py: `if self.evaluator and qa.final_answer`), and score 0
// without a call otherwise. A LoCoMo answer of 0, 0.0 or false is such a gold although its text
// ("0", "0.0", "False") is not empty; the string "0" is true to Python and is graded.
func TestPlanMAGMAFalsyGold(t *testing.T) {
	tests := []struct {
		name     string
		cat      int
		gold     string
		meta     string // the record's meta besides its category
		pred     string
		wantRule bool
		score    float64
	}{
		{"int 0", 1, "0", `{"answer":0}`, "zero", true, 0},
		{"float 0.0", 2, "0.0", `{"answer":0.0}`, "zero", true, 0},
		{"float -0.0", 3, "-0.0", `{"answer":-0.0}`, "zero", true, 0},
		{"exponent zero", 4, "0.0", `{"answer":0e5}`, "zero", true, 0},
		{"false", 1, "False", `{"answer":false}`, "no", true, 0},
		{"string 0", 1, "0", `{}`, "zero", false, 0},
		{"int 2022", 2, "2022", `{"answer":2022}`, "2022", false, 0},
		{"true", 1, "True", `{"answer":true}`, "yes", false, 0},
		{"category 5 adversarial false", 5, "False", `{"adversarial_answer":false}`, "Not mentioned", true, 0},
		{"category 5 adversarial 0", 5, "0", `{"adversarial_answer":0,"answer":"x"}`, "unknown", true, 0},
		{"category 5 adversarial 1", 5, "1", `{"adversarial_answer":1}`, "unknown", true, 1},
		{"category 5 string 0", 5, "0", `{"adversarial_answer":"0"}`, "unknown", true, 1},
	}
	for _, tt := range tests {
		meta := map[string]json.RawMessage{}
		if err := json.Unmarshal([]byte(tt.meta), &meta); err != nil {
			t.Fatal(err)
		}
		meta["category"] = json.RawMessage(fmt.Sprint(tt.cat))
		r := &record.Record{ID: "locomo:c:1", Dataset: "locomo", Question: "How many?", Answers: []string{tt.gold}, Meta: meta,
			Prediction: &record.Prediction{Text: tt.pred}}
		p, err := (&Judge{Mode: ModeLoCoMo}).Plan(r)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if (p.Rule != nil) != tt.wantRule || p.Rule != nil && p.Rule.Score != tt.score {
			t.Errorf("%s: Plan = rule %+v messages %d, want rule %v score %v", tt.name, p.Rule, len(p.Messages), tt.wantRule, tt.score)
		}
	}
}

// TestLoadRoutesErrors: a route file that does not read names the line and column of a syntax
// error, and the key whose mode is no string; of several faulty keys, the first in sorted order,
// the same every run.
func TestLoadRoutesErrors(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"trailing comma", "{\n \"squad\": \"rules\",\n}\n", `:3: invalid character '}' looking for beginning of object key string at column 1`},
		{"mode a number", "{\n \"squad\": \"rules\",\n \"locomo\": 1\n}\n", `: key "locomo": want a mode name, got a number`},
		{"mode null", `{"locomo": null}`, `: key "locomo": want a mode name, got null`},
		{"not an object", `["locomo"]`, `: want an object of "dataset/type", "dataset" or "*" to a mode, got a list`},
		{"cut", "{\n \"squad\": \"rules\"\n\n", `:2: unexpected end of JSON input`},
		{"first bad key", `{"x": "nope", "b": 3, "a": "rule"}`, `: key "a": unknown mode "rule"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.json")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			for range 20 {
				if _, _, err := LoadRoutes(path); err == nil || !strings.HasPrefix(err.Error(), path+tt.want) {
					t.Fatalf("LoadRoutes(%q) error = %v, want %q", tt.body, err, path+tt.want)
				}
			}
		})
	}
}
