package judge

import (
	"cmp"
	"context"
	"errors"
	"strings"

	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// request is the request of p's sample: a run sends it, and a dry run shows it. Its max_tokens
// and temperature are the judge's when set, else the plan's. A --seed is sent as the sample's
// own (model.SampleSeed: seed + sample), as qa-predict's --sample-index sends it: a re-ask of an
// unparsable reply with the seed of the first ask would get the same reply again from a server
// that follows the seed, and could never succeed. A sum past the largest int sends the seed.
func (j *Judge) request(p Plan, sample int) model.Request {
	maxTokens, temperature := p.MaxTokens, p.Temperature
	if j.MaxTokens > 0 {
		maxTokens = j.MaxTokens
	}
	if j.Temperature != nil {
		temperature = j.Temperature
	}
	seed := j.Seed
	if seed != nil && sample > 0 {
		if s, ok := model.SampleSeed(*seed, sample); ok {
			seed = &s
		}
	}
	return model.Request{Provider: j.Provider, BaseURL: j.BaseURL, Model: cmp.Or(p.Model, j.Model), Messages: p.Messages,
		Temperature: temperature, MaxTokens: maxTokens, NumCtx: j.NumCtx, Seed: seed, Sample: sample, ResponseFormat: p.ResponseFormat,
		MaxTokensField: j.MaxTokensField, GeminiSafety: j.GeminiSafety}
}

// call asks the model, re-asking unparsable replies as distinct samples (ParseRetries more), and
// fills jg; past those it reads on through the samples a cache holds, asking nothing. The first
// sample asked is jg.Attempts (the replies an earlier run had already). Its usage and cost_usd are
// those of this run's replies, cached or not, as a prediction's are: a rerun from the cache writes
// the same judgment, marked cached.
func (j *Judge) call(ctx context.Context, p Plan, jg *record.Judgment) error {
	r := callReplies{allCached: true}
	if err := j.asks(ctx, j.Client, p, jg, &r); err != nil {
		return err
	}
	j.charge(jg, &r)
	return nil
}

// asks is call's asking of client, with the replies in r: a dry run asks a client that reads the
// cache alone (dryClient) the same way, to learn whether the run would call the model.
func (j *Judge) asks(ctx context.Context, client model.Client, p Plan, jg *record.Judgment, r *callReplies) error {
	first := jg.Attempts
	for attempt := 0; ; attempt++ {
		if attempt > 0 && interrupt.Asked(ctx) {
			return nil // finishing: asking again is a new call; the unparsable reply stands
		}
		done, err := j.ask(ctx, client, p, jg, first+attempt, attempt > j.ParseRetries, r)
		if err != nil || done {
			return err
		}
	}
}

// callReplies is what call's replies used, for the judgment's usage and cost.
type callReplies struct {
	usage     record.Usage
	calls     []record.Usage // each reply's, priced as its own call
	fromCache []record.Usage // each reply's that the cache served
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
	r.usage.CacheWriteInputTokens += resp.Usage.CacheWriteInputTokens
	// A reply's call may have been billed for failed generations before it, retried: each is
	// priced as its own too (model.Response.Billed).
	r.calls = append(r.calls, resp.Billed()...)
	if resp.Cached {
		r.fromCache = append(r.fromCache, resp.Billed()...)
	}
	r.noUsage = r.noUsage || resp.NoUsage
	r.allCached = r.allCached && resp.Cached
}

// ask makes one of call's attempts, asking client for sample of p's request (read from the cache
// alone, storedOnly, once the re-asks are used up), and fills jg from what came back. It reports
// whether call is done asking; its error is ctx's, when ctx is done.
func (j *Judge) ask(ctx context.Context, client model.Client, p Plan, jg *record.Judgment, sample int, storedOnly bool, r *callReplies) (done bool, err error) {
	callCtx := ctx
	if storedOnly {
		// The re-asks are used up, and the reply is still unparsable. An earlier run may have
		// asked for later samples (a --retry-errors run asks on from its input's attempts), and
		// a cache holds them: they are read on, never asked, so that judging from the first
		// sample again (--force, or a rerun of the pipeline) comes to the verdict that run
		// reached rather than stopping at the replies it had found unparsable.
		callCtx = model.StoredOnly(ctx)
	}
	req := j.request(p, sample)
	resp, err := client.Generate(callCtx, req)
	if errors.Is(err, model.ErrNotStored) {
		return true, nil // no later sample stored: the unparsable reply stands
	}
	if !model.NotMade(err) {
		jg.Attempts++
	}
	if errors.Is(err, model.ErrEmptyReply) && (resp.Cut || errors.As(err, new(*model.RefusedError))) {
		// No text before max_tokens ran out (a reasoning model's hidden reasoning spent it), or
		// a refusal in its place: paid for, and cut or refused again if asked again, so not
		// asked again; the error names the budget, or gives the refusal. The reply is kept as
		// it came (a thinking model's thinking and nothing after it, under --think strip), and
		// the thinking, sent apart or taken out: it says where the budget went.
		r.paid(resp)
		jg.Error, jg.Raw, jg.Thinking = callFailed+err.Error(), resp.AsCame(), resp.Reasoning
		return true, nil
	}
	if err != nil && !errors.Is(err, model.ErrEmptyReply) {
		return true, failedCall(ctx, err, resp, jg, r)
	}
	done = readReply(p, resp, jg, r)
	if !done && err != nil {
		// An empty reply, unparsable: the parser's "empty reply" does not say what the server
		// sent, which the client's error does, in the words qa-predict's gives it ("empty reply
		// (no choices)", "(stop reason stop; content null)"), from the cache as well.
		jg.Error = ErrUnparsable.Error() + ": " + model.ReplyFailure(req, err)
	}
	if !done && resp.Cut && err == nil {
		// Text, cut short before the verdict could be read: the same budget cuts it again, so
		// it is not asked again, and the error says where it stopped, which the parser's words
		// ("unterminated string") do not.
		jg.Error += resp.CutNote(req)
		return true, nil
	}
	return done, nil
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
		// A verdict read from a reply cut short stands (LongMemEval's 10 tokens often stop
		// after its "yes"); cut says so, as a prediction's does.
		jg.Error, jg.Cut = "", resp.CutAt()
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
	// Every reply came from the cache, an empty one among them (which the cache stores too).
	jg.Cached = r.allCached && r.replied
	if r.noUsage { // the server did not say what a reply used: unknown, not free
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
		if jg.CostUSD != nil && !jg.Cached && len(r.fromCache) > 0 {
			// Some replies came from the cache, and others were asked for: the cache's
			// part is counted apart for the summary (CachedPart).
			if c := j.Prices.CostOf(jg.Model, r.fromCache...); c != nil {
				j.partMu.Lock()
				j.part.Add(*c)
				j.partMu.Unlock()
			}
		}
	}
}
