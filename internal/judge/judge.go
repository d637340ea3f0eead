package judge

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

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
	// Seed, when set, is sent with every request, a re-ask's plus its sample number (the
	// benchmarks' judges send none).
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
	// GeminiSafety is the threshold of the safetySettings every googleai request carries
	// (--gemini-safety; gemini.SafetyLevels), shown by the dry run; the client is built with it.
	GeminiSafety string
	// NoUsage counts the judgments one of whose replies came without token usage; their usage
	// and cost are left empty.
	NoUsage atomic.Int64

	partMu sync.Mutex
	// part is what the replies the cache served cost in the judgments it did not serve whole,
	// which asked for other replies too (CachedPart).
	part model.Dollars
}

// CachedPart is what the replies the cache served cost in the judgments it did not serve whole:
// a judgment that read unparsable replies back from the cache and asked for the one that parsed
// is not Cached, and its cost_usd counts both. A run's summary adds it to the cost of the
// Cached judgments for the part of its cost the cache served, as qa-predict adds the notes a
// LongMemEval reading read from the cache.
func (j *Judge) CachedPart() float64 {
	j.partMu.Lock()
	defer j.partMu.Unlock()
	return j.part.Float64()
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
// for none). When prior holds replies of the same model, mode and template that could not be
// parsed, they were asked as the samples 0 to prior.Attempts-1, which a cache may hold: the new
// replies are asked as the samples after those, and the judgment's attempts count on from
// prior's, so a --retry-errors run reaches the model instead of reading the same unparsable
// replies back from the cache. Replies to another protocol's prompt (--mode mem0 --force over a
// judgment MAGMA's judge failed) were asked of another request: this one starts at sample 0, its
// attempts counting its own asks alone.
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
	jg.Attempts = j.firstSample(p, prior) // call asks the samples after these
	return jg, j.call(ctx, p, jg)
}

// firstSample is the sample of p's request that a judgment made after prior (nil for none) asks
// first: prior's attempts when its replies, to the same model, mode and template, could not be
// parsed (see Regrade), else 0. A dry run shows that sample's request, as the run sends it.
func (j *Judge) firstSample(p Plan, prior *record.Judgment) int {
	if prior != nil && prior.Model == cmp.Or(p.Model, j.Model) && prior.Mode == p.Mode && prior.PromptSHA256 == p.PromptSHA256 &&
		strings.HasPrefix(prior.Error, ErrUnparsable.Error()) {
		return prior.Attempts
	}
	return 0
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
