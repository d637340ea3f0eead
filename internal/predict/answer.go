package predict

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// setPrediction gives rec the new prediction p. The judgments and scores rec carries graded the
// prediction p replaces, so they go with it, and are counted; so do the score errors, which say
// why a score of that prediction is missing. Members that are empty grade nothing: they are kept
// as they came, as every empty member is, and not counted.
func (a *app) setPrediction(rec *record.Record, p *record.Prediction) {
	if len(rec.Judgments) > 0 || len(rec.Scores) > 0 || len(rec.ScoreErrors) > 0 {
		rec.Judgments, rec.Scores, rec.ScoreErrors = nil, nil, nil
		a.tally.mu.Lock()
		a.tally.stale++
		a.tally.mu.Unlock()
	}
	rec.Prediction = p
}

// made counts p, a prediction this run made for its record, of whose cost the cache served
// cachedPart (a LongMemEval reading some of whose notes came from the cache). A failed one
// without a text is written without one (record.Prediction.ClearText): "text":"" is the empty
// answer, which declines, and a reader that looks no further than the text would take a failure
// for it.
func (a *app) made(p *record.Prediction, cachedPart float64) {
	if p.Error != "" && p.Text == "" {
		p.ClearText()
	}
	a.tally.addSpent(p, false, cachedPart)
}

// passes reports whether rec goes through unanswered: it has a prediction, and neither --force
// nor, for a failed one, --retry-errors asks for another.
func (a *app) passes(rec *record.Record) bool {
	return rec.Prediction != nil && !a.force && !(a.retryErrors && rec.Prediction.Error != "")
}

// predict answers one record. Only an interruption is an error: a failed call is recorded in the
// prediction, as is the call a finishing run does not make.
func (a *app) predict(ctx context.Context, rec *record.Record) (*record.Record, error) {
	if a.passes(rec) {
		a.tally.add(rec.Prediction, true)
		return rec, nil
	}
	// A --template reads the record as it came, as the dry run renders it: its prediction (the one
	// --force replaces), judgments and scores, which setPrediction takes away.
	asked := *rec
	p := &record.Prediction{Provider: a.provider, Model: a.modelName}
	a.setPrediction(rec, p)
	if interrupt.Asked(ctx) && a.provider != "extractive" { // finishing: no new record goes to the model
		// The extractive baseline calls none, so it answers on, as qa-judge's rules judge on.
		p.Error = interrupt.ErrNotCalled.Error()
		a.made(p, 0)
		return rec, nil
	}
	var text string
	var opts []string
	var notes spent
	var err error
	if err := a.prompts.blankQuestion(rec); err != nil {
		p.Error = fmt.Sprintf("prompt: %v", err)
		a.made(p, 0)
		return rec, nil
	}
	tookNotes := a.prompts.takesNotes(rec)
	if tookNotes {
		var ok bool
		if text, notes, ok = a.takeNotes(ctx, rec, p); !ok {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			a.made(p, notes.cachedCost)
			return rec, nil
		}
	} else if text, opts, err = a.prompts.render(&asked); err != nil {
		p.Error = fmt.Sprintf("prompt: %v", err)
		a.made(p, 0)
		return rec, nil
	}
	req := a.request(rec, text)
	p.PromptSHA256 = promptSHA256(req.Messages)
	start := a.clock()
	resp, err := a.client.Generate(ctx, req)
	if ctx.Err() != nil {
		return nil, ctx.Err() // interrupted: this record is not complete and is not written
	}
	if a.settle(p, resp, err, start, a.provider != "extractive") {
		p.Text = textnorm.Strip(resp.Text) // Python's strip(), as the readers' scripts do
		if opts != nil {
			p.Text = textnorm.Strip(prompt.LoCoMoCat5Answer(p.Text, opts))
		}
	}
	if tookNotes {
		// The reading call's reply, an answer or not, came without usage: the whole is unknown.
		notes.noUsage = notes.noUsage || resp.NoUsage
		notes.last = resp.Billed()
		a.addNotes(p, &notes) // answered or not, the notes were paid for
	}
	a.made(p, notes.cachedCost)
	return rec, nil
}

// clock reads a.now, or the system's clock when none was injected.
func (a *app) clock() time.Time {
	if a.now == nil {
		return time.Now()
	}
	return a.now()
}

// since is the time from start to now in whole milliseconds, as latency_ms keeps it.
func (a *app) since(start time.Time) int64 {
	return a.clock().Sub(start).Milliseconds()
}

// settle records the outcome of one model call on p: the error and attempts of a failed call (with
// its reasoning, and the usage, cost and latency of a reply that was paid for), or the model,
// attempts, cache flag, cost and (withUsage) usage and latency of an answer. It reports
// whether the call succeeded; the caller sets the text.
func (a *app) settle(p *record.Prediction, resp model.Response, err error, start time.Time, withUsage bool) bool {
	var ce *model.CallError
	switch {
	case errors.As(err, &ce):
		p.Error, p.Attempts = err.Error(), ce.Attempts
		// A reply that is no answer (empty, or cut before any text) keeps the thinking its server
		// sent apart, which says where the budget went.
		p.Reasoning = resp.Reasoning
		if !resp.Usage.IsZero() { // paid for: its usage, cost and latency, as an answer's
			// A reply that is no answer and that the cache keeps (one cut in its thinking,
			// which the same max_tokens would cut again) is, served from there, the cache's,
			// as an answer is: the summary counts its cost in the part the cache served.
			u := resp.Usage
			p.Usage, p.CostUSD, p.Cached = &u, a.prices.CostOf(cmp.Or(resp.Model, p.Model), resp.Billed()...), resp.Cached
			if withUsage && !resp.Cached {
				p.LatencyMS = a.since(start)
			}
		}
		if resp.NoUsage && withUsage {
			// Paid for too, at a cost its server did not report: unknown, not free, which the
			// summary's totals say they leave out, as they do for an answer without usage.
			if !resp.Cached {
				p.LatencyMS = a.since(start)
			}
			a.tally.noteNoUsage()
		}
		return false
	case err != nil:
		p.Error, p.Attempts = err.Error(), resp.Attempts
		return false
	}
	if resp.Model != "" {
		p.Model = resp.Model
	}
	// A reply cut short is the answer all the same, as the benchmarks' scripts take it; cut says
	// where it stopped, on the record (a LoCoMo batch's others get it from p), served from the
	// cache too, which stores the stop with the reply.
	p.Attempts, p.Cached, p.Reasoning, p.Cut = resp.Attempts, resp.Cached, resp.Reasoning, resp.CutAt()
	if withUsage {
		if !resp.Cached {
			p.LatencyMS = a.since(start)
		}
		a.tally.noteReply(resp, false)
		if resp.NoUsage { // unknown, not free: no usage and no cost
			return true
		}
		u := resp.Usage
		p.Usage = &u
	}
	// Each reply of the call priced as its own: a failed generation retried was paid for too
	// (model.Response.Billed).
	p.CostUSD = a.prices.CostOf(p.Model, resp.Billed()...)
	return true
}

// locomoMaxTokens is the max_tokens of LoCoMo's QA calls one question at a time (run_chatgpt).
const locomoMaxTokens = 32

// request builds the model request for rec with the user prompt text.
func (a *app) request(rec *record.Record, text string) model.Request {
	maxTokens, role := a.maxTokens, "user"
	switch {
	case a.prompts.custom != nil:
	case rec.InDataset("longmemeval"):
		maxTokens = a.genLength() // the reader's gen_length
	case rec.InDataset("locomo"):
		maxTokens, role = a.locomoMaxTokens(), a.prompts.locomoRole()
	}
	req := a.chatAs(role, text, maxTokens)
	if a.provider == "extractive" {
		req.Question, req.Context = rec.Question, rec.Context
	}
	return req
}

// chat is the request of one user message, after --system if given.
func (a *app) chat(text string, maxTokens int) model.Request {
	return a.chatAs("user", text, maxTokens)
}

// chatAs is the request of one message of role, after --system if given.
func (a *app) chatAs(role, text string, maxTokens int) model.Request {
	var msgs []model.Message
	if a.system != "" {
		msgs = append(msgs, model.Message{Role: "system", Content: a.system})
	}
	msgs = append(msgs, model.Message{Role: role, Content: text})
	temp := a.temperature
	return model.Request{Provider: a.provider, BaseURL: a.baseURL, Model: a.modelName, Messages: msgs,
		Temperature: &temp, MaxTokens: maxTokens, TopP: a.topP, TopK: a.topK, NumCtx: a.numCtx, Seed: a.seed, Sample: a.sample,
		MaxTokensField: a.maxTokensField, Stop: a.stop, GeminiSafety: a.geminiSafety}
}
