package judge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
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

// Judge grades records with one protocol (or the auto routing table) and one model.
type Judge struct {
	Client   model.Client // nil for rule-only modes
	Provider string
	BaseURL  string
	Model    string
	Mode     string
	Routes   Routes  // used by ModeAuto
	Custom   *Custom // used by ModeCustom
	// ParseRetries is how many more times an unparsable reply is asked again.
	ParseRetries int
	// Prices prices each judgment's replies, as qa-predict prices predictions; nil leaves cost_usd empty.
	Prices model.Prices
	// Seed, when set, is sent with every request (the benchmarks' judges send none).
	Seed *int
	// MaxTokens, when above 0, is the max_tokens of every request in place of the plan's
	// (--max-tokens: a reasoning judge's thinking counts in it, which LongMemEval's 10 cannot hold).
	MaxTokens int
	// Temperature, when set, is the temperature of every request in place of the plan's
	// (--temperature: OpenAI's o1 and o4-mini and Claude models after Opus 4.6 take only 1, and
	// are sent the protocol's).
	Temperature *float64
	// NumCtx, when above 0, is the context window every request asks an Ollama judge model to
	// run with (--num-ctx; Ollama's num_ctx), in place of the server's.
	NumCtx int
	// MaxTokensField is the member an openai request carries its token budget in
	// (--max-tokens-field; model.Request.MaxTokensField), "" or auto for the base URL's default.
	MaxTokensField string
	// NoUsage counts the judgments one of whose replies came without token usage; their usage
	// and cost are left empty.
	NoUsage atomic.Int64
}

// ErrNoModel ends the error of a judgment that a run without a model (--mode auto, no --model)
// gives a record routed to a protocol that calls one: "mode locomo-continuous needs a judge
// model (--model)".
var ErrNoModel = errors.New("needs a judge model (--model)")

// callFailed begins the error of a judgment whose call to the judge model failed or was not
// made: "judge call: interrupted before the call was made". A judgment that calls nothing, as
// when its prediction failed, has another.
const callFailed = "judge call: "

// callNotMade reports whether msg, a judgment's error, is that of a judge call this run did not
// make (command.NotMade). A failed prediction's words ("prediction failed: interrupted before the
// call was made") tell of qa-predict's calls: this run, which makes none for it, was neither
// interrupted nor stopped for them.
func callNotMade(msg string) bool {
	return strings.HasPrefix(msg, callFailed) && command.NotMade(msg)
}

// failedForModel reports whether jg is a judgment that failed only for want of a model: ErrNoModel's,
// which names no model.
func failedForModel(jg *record.Judgment) bool {
	return jg != nil && jg.Model == "" && jg.Score == nil && strings.HasPrefix(jg.Error, "mode ") &&
		strings.HasSuffix(jg.Error, " "+ErrNoModel.Error())
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
		return j.Custom.Plan(rec, pred), nil
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

// magmaPlan is the plan of MAGMA's LoCoMo judge for rec: category 5 by the adversarial rule, an
// empty gold answer scored 0 without a call, else the model's continuous score.
func magmaPlan(rec *record.Record, gold, pred string) (Plan, error) {
	cat, _, err := rec.LoCoMoCategory()
	if err != nil {
		return Plan{}, err
	}
	if cat == 5 {
		return rulePlan(ModeAdversarial, Unanswerable(pred)), nil
	}
	if gold == "" {
		v := Verdict{Score: 0, Label: "0", Reasoning: "empty gold answer: MAGMA scores 0 without a call"}
		return Plan{Mode: ModeLoCoMo, Rule: &v}, nil
	}
	sys, user := prompt.MAGMAJudge(rec.Question, gold, pred)
	t := prompt.Must(prompt.MAGMAUser)
	return Plan{Mode: ModeLoCoMo, Template: t.Name, PromptSHA256: t.SHA256, Temperature: temp(0), ResponseFormat: model.ResponseJSON,
		Messages: []model.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, Parse: ParseMAGMA}, nil
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
		return Plan{}, errNoRubric
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

// errNoRubric is the error of a record with no rubric (missing, empty or white space alone)
// under EvaLearn's judge, which grades the answer against the rubric and sees nothing else: it
// would be asked to grade against nothing (upstream, every problem has one).
var errNoRubric = errors.New("no rubric: EvaLearn's judge grades the answer against the problem's rubric alone")

func rulePlan(mode string, unanswerable bool) Plan {
	v := Verdict{Score: 0, Label: "answered", Reasoning: "prediction does not abstain (MAGMA category-5 rule)"}
	if unanswerable {
		v = Verdict{Score: 1, Label: "unanswerable", Reasoning: "prediction abstains (MAGMA category-5 rule)"}
	}
	return Plan{Mode: mode, Template: prompt.MAGMACat5, PromptSHA256: prompt.Must(prompt.MAGMACat5).SHA256, Rule: &v}
}

func parseEvaLearnVerdict(raw string) (Verdict, error) {
	s, ok, reason := evalearn.ParseReply(raw)
	if !ok {
		return Verdict{}, unparsable("%s", reason)
	}
	return Verdict{Score: s, Label: fmt.Sprint(s)}, nil
}

// NeedsModel reports whether any record could need a model call in j's mode.
func (j *Judge) NeedsModel() bool {
	switch j.Mode {
	case ModeRules, ModeAdversarial, ModeUnanswerable:
		return false
	case ModeAuto, "":
		for _, m := range j.Routes {
			if m != ModeRules && m != ModeAdversarial && m != ModeUnanswerable && m != ModeSkip {
				return true
			}
		}
		return false
	}
	return true
}

// Grade judges rec. It returns nil when the plan skips the record (its prediction failed or not),
// and an error only when ctx is done; every other failure is a Judgment with Error set and no Score, among them the call a
// finishing run does not make (interrupt.ErrNotCalled; rules still judge).
func (j *Judge) Grade(ctx context.Context, rec *record.Record) (*record.Judgment, error) {
	return j.Regrade(ctx, rec, nil)
}

// Regrade judges rec as Grade does, again after prior, the judgment an earlier run gave it (nil
// for none). When prior holds replies of the same model that could not be parsed, they were asked
// as the samples 0 to prior.Attempts-1, which a cache may hold: the new replies are asked as the
// samples after those, and the judgment's attempts count on from prior's, so a --retry-errors run
// reaches the model instead of reading the same unparsable replies back from the cache.
func (j *Judge) Regrade(ctx context.Context, rec *record.Record, prior *record.Judgment) (*record.Judgment, error) {
	if msg := unjudgeable(rec); msg != "" {
		return j.unjudged(rec, msg), nil
	}
	p, err := j.Plan(rec)
	if err != nil {
		return j.unplanned(rec, err.Error()), nil
	}
	if p.Skip {
		return nil, nil
	}
	jg := &record.Judgment{Mode: p.Mode, PromptSHA256: p.PromptSHA256}
	if p.Rule != nil {
		jg.Score, jg.Label, jg.Reasoning = &p.Rule.Score, p.Rule.Label, p.Rule.Reasoning
		return jg, nil
	}
	jg.Model = cmp.Or(p.Model, j.Model)
	if j.Client == nil {
		jg.Error = "mode " + p.Mode + " " + ErrNoModel.Error()
		return jg, nil
	}
	if interrupt.Asked(ctx) { // finishing: no new record goes to the model
		jg.Error = callFailed + interrupt.ErrNotCalled.Error()
		return jg, nil
	}
	if prior != nil && prior.Model == jg.Model && strings.HasPrefix(prior.Error, ErrUnparsable.Error()) {
		jg.Attempts = prior.Attempts // call asks the samples after these
	}
	return jg, j.call(ctx, p, jg)
}

// unjudged is the failed judgment of rec, whose prediction cannot be judged (msg says why),
// named as its judgment would be: by its plan's mode and template, with the model the plan
// calls, and none where a rule decides (under auto, a HotpotQA record's is the approximate
// rules', as their verdict is). A record its plan skips (mem0 leaves out LoCoMo category 5, a
// skip route) gets none, as it would with a good prediction: nil, its prediction's error left
// for qa-score to count. A record that cannot be planned is named as unplanned names it.
func (j *Judge) unjudged(rec *record.Record, msg string) *record.Judgment {
	p, err := j.Plan(rec)
	switch {
	case err != nil:
		return j.unplanned(rec, msg)
	case p.Skip:
		return nil
	}
	jg := &record.Judgment{Mode: p.Mode, PromptSHA256: p.PromptSHA256, Error: msg}
	if p.Rule == nil {
		jg.Model = cmp.Or(p.Model, j.Model)
	}
	return jg
}

// unplanned is the failed judgment (msg) of rec, whose plan failed: named by the mode that
// routes it (the judge's, where no route does), as far as that mode is known without the fact
// that failed. The model is named where the mode calls it whatever that fact says
// (LongMemEval's protocol, under its alias; EvaLearn's; a custom prompt), so that a run counts
// the record as routed to the model; a LoCoMo record whose category cannot be read may be one
// a rule decides or mem0 skips, and a rule calls none, so theirs name no model, nor a template.
func (j *Judge) unplanned(rec *record.Record, msg string) *record.Judgment {
	mode, err := j.modeFor(rec)
	if err != nil {
		mode = j.Mode
	}
	jg := &record.Judgment{Mode: mode, Error: msg}
	switch mode {
	case ModeRules:
		jg.Mode = RulesMode
	case ModeLongMemEval:
		jg.Model = prompt.LongMemEvalJudgeModel(j.Model)
	case ModeEvaLearn, ModeCustom:
		jg.Model = j.Model
	}
	return jg
}

// unjudgeable returns why rec's prediction cannot be judged (none, a failed one, or one without
// an answer), or "". A prediction without a text (HotpotQA's supporting facts alone, a score
// alone) gives no answer: judged, it would be the empty answer "", which declines.
func unjudgeable(rec *record.Record) string {
	switch {
	case rec.Prediction == nil:
		return "no prediction to judge: run qa-predict first"
	case rec.Prediction.Error != "":
		return "prediction failed: " + rec.Prediction.Error
	case !rec.Prediction.HasText():
		return "no answer to judge: the prediction has no text (supporting facts or a score alone)"
	}
	return ""
}

// request is the request of p's sample: a run sends it, and a dry run shows it. Its max_tokens
// and temperature are the judge's when set, else the plan's.
func (j *Judge) request(p Plan, sample int) model.Request {
	maxTokens, temperature := p.MaxTokens, p.Temperature
	if j.MaxTokens > 0 {
		maxTokens = j.MaxTokens
	}
	if j.Temperature != nil {
		temperature = j.Temperature
	}
	return model.Request{Provider: j.Provider, BaseURL: j.BaseURL, Model: cmp.Or(p.Model, j.Model), Messages: p.Messages,
		Temperature: temperature, MaxTokens: maxTokens, NumCtx: j.NumCtx, Seed: j.Seed, Sample: sample, ResponseFormat: p.ResponseFormat,
		MaxTokensField: j.MaxTokensField}
}

// call asks the model, re-asking unparsable replies as distinct samples (ParseRetries more), and
// fills jg; past those it reads on through the samples a cache holds, asking nothing. The first
// sample asked is jg.Attempts (the replies an earlier run had already). Its usage and cost_usd are
// those of this run's replies, cached or not, as a prediction's are: a rerun from the cache writes
// the same judgment, marked cached.
func (j *Judge) call(ctx context.Context, p Plan, jg *record.Judgment) error {
	r := callReplies{allCached: true}
	first := jg.Attempts
	for attempt := 0; ; attempt++ {
		if attempt > 0 && interrupt.Asked(ctx) {
			break // finishing: asking again is a new call; the unparsable reply stands
		}
		done, err := j.ask(ctx, p, jg, first+attempt, attempt > j.ParseRetries, &r)
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	j.charge(jg, &r)
	return nil
}

// callReplies is what call's replies used, for the judgment's usage and cost.
type callReplies struct {
	usage     record.Usage
	calls     []record.Usage // each reply's, priced as its own call
	replied   bool
	allCached bool
	noUsage   bool
}

// paid counts resp, a reply, which counts in the judgment's usage and cost.
func (r *callReplies) paid(resp model.Response) {
	r.replied = true
	r.usage.InputTokens += resp.Usage.InputTokens
	r.usage.OutputTokens += resp.Usage.OutputTokens
	r.usage.CachedInputTokens += resp.Usage.CachedInputTokens
	r.calls = append(r.calls, resp.Usage)
	r.noUsage = r.noUsage || resp.NoUsage
	r.allCached = r.allCached && resp.Cached
}

// ask makes one of call's attempts, asking for sample of p's request (read from the cache alone,
// storedOnly, once the re-asks are used up), and fills jg from what came back. It reports
// whether call is done asking; its error is ctx's, when ctx is done.
func (j *Judge) ask(ctx context.Context, p Plan, jg *record.Judgment, sample int, storedOnly bool, r *callReplies) (done bool, err error) {
	callCtx := ctx
	if storedOnly {
		// The re-asks are used up, and the reply is still unparsable. An earlier run may have
		// asked for later samples (a --retry-errors run asks on from its input's attempts), and
		// a cache holds them: they are read on, never asked, so that judging from the first
		// sample again (--force, or a rerun of the pipeline) comes to the verdict that run
		// reached rather than stopping at the replies it had found unparsable.
		callCtx = model.StoredOnly(ctx)
	}
	resp, err := j.Client.Generate(callCtx, j.request(p, sample))
	if errors.Is(err, model.ErrNotStored) {
		return true, nil // no later sample stored: the unparsable reply stands
	}
	if !model.NotMade(err) {
		jg.Attempts++
	}
	if errors.Is(err, model.ErrEmptyReply) && resp.Cut {
		// No text before max_tokens ran out (a reasoning model's hidden reasoning spent it):
		// paid for, and cut again if asked again with the same max_tokens, so not asked again;
		// the error names the budget.
		r.paid(resp)
		jg.Error = callFailed + err.Error()
		return true, nil
	}
	if err != nil && !errors.Is(err, model.ErrEmptyReply) {
		return true, failedCall(ctx, err, resp, jg, r)
	}
	return readReply(p, resp, jg, r), nil
}

// failedCall fills jg with the error of a call that failed (err), counting resp as paid for when
// the provider charged for it; it returns ctx's error instead when ctx is done.
func failedCall(ctx context.Context, err error, resp model.Response, jg *record.Judgment, r *callReplies) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	jg.Error = callFailed + err.Error()
	switch {
	case errors.As(err, new(*model.BlockedError)):
		// Blocked by the provider's filters: paid for, and blocked again if asked again.
		r.paid(resp)
	case errors.Is(err, model.ErrCutThinking):
		// Cut in its thinking: paid for, kept as it came, and cut again if asked again
		// with the same max_tokens.
		r.paid(resp)
		jg.Raw, jg.Thinking = resp.AsCame(), resp.Reasoning
	case !resp.Usage.IsZero() || resp.NoUsage:
		// A reply the client could not read (an Anthropic block of a type it does not
		// know): no verdict, but paid for.
		r.paid(resp)
	}
	return nil
}

// readReply fills jg from resp, a reply, perhaps an empty one, with p's verdict, or with the
// error of a reply p's parser calls unparsable; it reports whether the verdict was read.
func readReply(p Plan, resp model.Response, jg *record.Judgment, r *callReplies) bool {
	// A reply, perhaps an empty one: the parser calls that unparsable, and it is asked again.
	// The parser reads its answer, the text after any thinking that the client took out
	// (model.Thinking, --think strip); raw keeps it as it came, and thinking the judge's
	// thinking, sent apart or taken out.
	r.paid(resp)
	jg.Raw, jg.Thinking = resp.AsCame(), resp.Reasoning
	v, perr := p.Parse(resp.Text)
	if perr == nil {
		jg.Error = ""
		jg.Score, jg.Label, jg.Reasoning = &v.Score, v.Label, v.Reasoning
		return true
	}
	jg.Error = perr.Error()
	if !strings.HasPrefix(jg.Error, ErrUnparsable.Error()) {
		jg.Error = ErrUnparsable.Error() + ": " + jg.Error
	}
	return false
}

// charge marks jg cached when every reply came from the cache, and sets its usage and cost from
// r, or counts it in j.NoUsage when the server did not say what a reply used.
func (j *Judge) charge(jg *record.Judgment, r *callReplies) {
	jg.Cached = r.allCached && jg.Raw != "" // every reply came from the cache
	if r.noUsage {                          // the server did not say what a reply used: unknown, not free
		j.NoUsage.Add(1)
		return
	}
	if !r.usage.IsZero() {
		usage := r.usage
		jg.Usage = &usage
	}
	if r.replied && j.Prices != nil {
		// Each reply priced as its own call: prompts asked again can pass a long-context
		// price's threshold together that none of them does.
		jg.CostUSD = j.Prices.CostOf(jg.Model, r.calls...)
	}
}
