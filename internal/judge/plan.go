package judge

import (
	"errors"
	"fmt"
	"strings"

	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Plan is how one record is judged: either a Rule verdict (no model) or a model request whose reply
// Parse reads.
type Plan struct {
	// Mode is what the judgment's mode field says (e.g. "longmemeval", "rules-approximate").
	Mode string
	// Template names the protocol template; PromptSHA256 is the sha256 of its bytes.
	Template     string
	PromptSHA256 string
	Messages     []model.Message
	Temperature  *float64
	// MaxTokens is the protocol's max_tokens (0: it sends none); Judge.MaxTokens replaces it.
	MaxTokens int
	// ResponseFormat is the protocol's response_format: model.ResponseJSON for MAGMA and mem0,
	// whose judges ask OpenAI for {"type": "json_object"}; "" (free text) otherwise.
	ResponseFormat string
	Parse          func(raw string) (Verdict, error)
	// Rule, when set, is the verdict; no model is called.
	Rule *Verdict
	// Skip leaves the record without a judgment (mem0 does not score LoCoMo category 5).
	Skip bool
	// Model, when set, is the model the protocol calls in place of the judge's (LongMemEval's
	// aliases: gpt-4o is gpt-4o-2024-08-06).
	Model string
}

func temp(t float64) *float64 { return &t }

// longMemEvalMaxTokens is the max_tokens LongMemEval's judge sends; the other protocols' judges
// send none.
const longMemEvalMaxTokens = 10

// evaLearnTemperature is the temperature EvaLearn's judge sends; the other protocols' judges
// send 0.
const evaLearnTemperature = 0.2

// protocolCall is what a protocol's judge call sends besides its messages: max_tokens (0: none)
// and temperature.
type protocolCall struct {
	maxTokens   int
	temperature float64
}

// protocolCalls holds the call parameters of the modes that are protocols calling a model: the
// rules call none, and a custom prompt is no protocol's. The plans (Judge.Plan) send these values
// (TestProtocolCalls).
var protocolCalls = map[string]protocolCall{
	ModeLongMemEval: {maxTokens: longMemEvalMaxTokens},
	ModeLoCoMo:      {},
	ModeMem0:        {},
	ModeEvaLearn:    {temperature: evaLearnTemperature},
}

// modeFor returns the protocol that judges rec: the judge's mode, or in auto mode the routing
// table's choice.
func (j *Judge) modeFor(rec *record.Record) (string, error) {
	if j.Mode == "" || j.Mode == ModeAuto {
		return j.Routes.Route(rec)
	}
	return j.Mode, nil
}

// Plan decides how rec is judged.
func (j *Judge) Plan(rec *record.Record) (Plan, error) {
	mode, err := j.modeFor(rec)
	if err != nil {
		return Plan{}, err
	}
	pred := ""
	if rec.Prediction != nil {
		pred = rec.Prediction.Text
	}
	gold := ""
	if len(rec.Answers) > 0 {
		gold = rec.Answers[0]
	}
	switch mode {
	case ModeSkip:
		return Plan{Skip: true}, nil
	case ModeRules:
		v, err := RulesVerdict(rec, pred)
		if err != nil {
			return Plan{}, err
		}
		return Plan{Mode: RulesMode, Rule: &v}, nil
	case ModeAdversarial, ModeUnanswerable:
		return rulePlan(mode, Unanswerable(pred)), nil
	case ModeLongMemEval:
		return longMemEvalPlan(rec, gold, pred, j.Model)
	case ModeLoCoMo:
		return magmaPlan(rec, gold, pred)
	case ModeMem0:
		return mem0Plan(rec, gold, pred)
	case ModeEvaLearn:
		return evaLearnPlan(rec, pred)
	case ModeCustom:
		if j.Custom == nil {
			return Plan{}, errors.New("custom mode without a prompt")
		}
		return j.Custom.Plan(rec, pred)
	}
	return Plan{}, fmt.Errorf("unknown mode %q", mode)
}

// longMemEvalPlan is the plan of LongMemEval's judge for rec, whose first gold answer is gold and
// prediction pred, asking judgeModel under LongMemEval's alias.
func longMemEvalPlan(rec *record.Record, gold, pred, judgeModel string) (Plan, error) {
	abs, err := rec.Abstention()
	if err != nil {
		return Plan{}, err
	}
	if len(rec.Answers) == 0 {
		return Plan{}, errNoGold("LongMemEval")
	}
	text, t, err := prompt.LongMemEvalJudge(abs, rec.Type, rec.Question, gold, pred)
	if err != nil {
		return Plan{}, err
	}
	return Plan{Mode: ModeLongMemEval, Template: t.Name, PromptSHA256: t.SHA256, Temperature: temp(0), MaxTokens: longMemEvalMaxTokens,
		Messages: []model.Message{{Role: "user", Content: text}}, Parse: ParseYesNo, Model: prompt.LongMemEvalJudgeModel(judgeModel)}, nil
}

// magmaPlan is the plan of MAGMA's LoCoMo judge for rec: an empty gold answer scored 0 without
// a call, category 5 by the adversarial rule, else the model's continuous score. MAGMA's
// evaluator tests the gold first, in every category (a category-5 question's gold is its
// adversarial answer, which qa-load gives as the record's), and grades only with one: one that
// is true to Python, as the dataset gives it (test_harness.py's `if qa.final_answer`), so an
// answer of 0, 0.0 or false is no gold either, though its text ("0") is not empty.
func magmaPlan(rec *record.Record, gold, pred string) (Plan, error) {
	cat, _, err := rec.LoCoMoCategory()
	if err != nil {
		return Plan{}, err
	}
	if gold == "" || falseGold(rec, cat) {
		v := Verdict{Score: 0, Label: "0", Reasoning: "empty gold answer: MAGMA scores 0 without a call"}
		if gold != "" {
			v.Reasoning = fmt.Sprintf("gold answer %s is false to Python: MAGMA scores 0 without a call", gold)
		}
		return Plan{Mode: ModeLoCoMo, Rule: &v}, nil
	}
	if cat == 5 {
		return rulePlan(ModeAdversarial, Unanswerable(pred)), nil
	}
	sys, user := prompt.MAGMAJudge(rec.Question, gold, pred)
	t := prompt.Must(prompt.MAGMAUser)
	return Plan{Mode: ModeLoCoMo, Template: t.Name, PromptSHA256: t.SHA256, Temperature: temp(0), ResponseFormat: model.ResponseJSON,
		Messages: []model.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, Parse: ParseMAGMA}, nil
}

// falseGold reports whether rec's gold answer, as the dataset gives it, is false to Python (0,
// 0.0, false): qa-load keeps a LoCoMo answer that is no string as meta.answer, and a category-5
// question's gold is meta.adversarial_answer where there is one. A string gold is its text.
func falseGold(rec *record.Record, cat int) bool {
	raw, ok := rec.Meta["answer"]
	if adv, has := rec.Meta["adversarial_answer"]; cat == 5 && has && strings.TrimSpace(string(adv)) != "null" {
		raw, ok = adv, true
	}
	if !ok {
		return false
	}
	v, err := python.Loads(string(raw))
	return err == nil && !v.Truth()
}

// mem0Plan is the plan of mem0's judge for rec, which skips LoCoMo category 5.
func mem0Plan(rec *record.Record, gold, pred string) (Plan, error) {
	cat, _, err := rec.LoCoMoCategory()
	if err != nil {
		return Plan{}, err
	}
	if cat == 5 {
		return Plan{Skip: true}, nil
	}
	if len(rec.Answers) == 0 {
		return Plan{}, errNoGold("mem0")
	}
	t := prompt.Must(prompt.Mem0User)
	return Plan{Mode: ModeMem0, Template: t.Name, PromptSHA256: t.SHA256, Temperature: temp(0), ResponseFormat: model.ResponseJSON,
		Messages: []model.Message{{Role: "user", Content: prompt.Mem0Judge(rec.Question, gold, pred)}}, Parse: ParseMem0}, nil
}

// evaLearnPlan is the plan of EvaLearn's rubric judge for rec, which needs a rubric.
func evaLearnPlan(rec *record.Record, pred string) (Plan, error) {
	if textnorm.Strip(rec.Rubric) == "" {
		return Plan{}, ErrNoRubric
	}
	t := prompt.Must(prompt.EvaLearnJudgeUser)
	return Plan{Mode: ModeEvaLearn, Template: t.Name, PromptSHA256: t.SHA256, Temperature: temp(evaLearnTemperature),
		Messages: []model.Message{{Role: "system", Content: ""},
			{Role: "user", Content: prompt.EvaLearnJudge(rec.Rubric, textnorm.Strip(pred))}},
		Parse: parseEvaLearnVerdict}, nil
}

// errNoGold is the error of a record with no gold answers (answers missing or []) under a
// protocol whose judge compares the prediction with one (whose, LongMemEval's or mem0's).
//
// Note: sent on, the judge would read an empty gold answer and grade against nothing: a call
// paid for and a verdict (most likely 0) given without a word. The benchmarks' own references
// always have an answer, so no upstream figure is lost.
func errNoGold(whose string) error {
	return fmt.Errorf("no gold answers (answers is missing or []): %s's judge compares the prediction with the gold answer", whose)
}

// ErrNoRubric is the error of a record with no rubric (missing, empty or white space alone)
// under EvaLearn's judge, which grades the answer against the rubric and sees nothing else: it
// would be asked to grade against nothing (upstream, every problem has one).
var ErrNoRubric = errors.New("no rubric: EvaLearn's judge grades the answer against the problem's rubric alone")

func rulePlan(mode string, unanswerable bool) Plan {
	v := Verdict{Score: 0, Label: "answered", Reasoning: "prediction does not abstain (MAGMA category-5 rule)"}
	if unanswerable {
		v = Verdict{Score: 1, Label: "unanswerable", Reasoning: "prediction abstains (MAGMA category-5 rule)"}
	}
	return Plan{Mode: mode, Template: prompt.MAGMACat5, PromptSHA256: prompt.Must(prompt.MAGMACat5).SHA256, Rule: &v}
}

func parseEvaLearnVerdict(raw string) (Verdict, error) {
	if empty(raw) {
		return Verdict{}, errEmptyReply
	}
	s, ok, reason := evalearn.ParseReply(raw)
	if !ok {
		return Verdict{}, unparsable("%s", reason)
	}
	return Verdict{Score: s, Label: fmt.Sprint(s)}, nil
}
