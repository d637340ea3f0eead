package judge

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/goccy/go-json"

	"github.com/qapipe/qapipe/internal/bpe"
	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// dryRequest is one line of --dry-run output: what judging a record would do. Exactly one of
// Messages (a model request), Rule, Skip, AlreadyJudged and Error is set.
type dryRequest struct {
	ID             string          `json:"id"`
	Judge          string          `json:"judge"`
	Mode           string          `json:"mode,omitempty"`
	Template       string          `json:"template,omitempty"`
	PromptSHA256   string          `json:"prompt_sha256,omitempty"`
	Model          string          `json:"model,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`      // where the call carries it (model.Request.SentTemperature)
	TopP           *float64        `json:"top_p,omitempty"`            // where the call carries one (model.Request.SentTopP: googleai's)
	TopK           *int            `json:"top_k,omitempty"`            // where the call carries one (model.Request.SentTopK: googleai's)
	MaxTokens      int             `json:"max_tokens,omitempty"`       // as the call carries it (model.Request.SentMaxTokens)
	MaxTokensField string          `json:"max_tokens_field,omitempty"` // the member an openai call carries it in (model.Request.SentMaxTokensField)
	Seed           *int            `json:"seed,omitempty"`             // --seed, where the call carries it (model.Request.SentSeed)
	NumCtx         int             `json:"num_ctx,omitempty"`          // --num-ctx, where the call carries it (model.Request.SentNumCtx)
	GeminiSafety   string          `json:"gemini_safety,omitempty"`    // the threshold of a googleai call's safetySettings (--gemini-safety)
	ResponseFormat string          `json:"response_format,omitempty"`  // where the call asks for one (model.Request.SentResponseFormat)
	Messages       []model.Message `json:"messages,omitempty"`         // as the call carries them (model.Request.SentMessages)
	InputTokens    int             `json:"input_tokens,omitempty"`     // as the call is counted (model.Request.SentInputTokens)
	// Cached says that --cache holds the replies the run would read for the record, with no call
	// (dryLook).
	Cached        bool     `json:"cached,omitempty"`
	Rule          *dryRule `json:"rule,omitempty"`
	Skip          bool     `json:"skip,omitempty"`
	AlreadyJudged bool     `json:"already_judged,omitempty"`
	Error         string   `json:"error,omitempty"`
}

type dryRule struct {
	Score     float64 `json:"score"`
	Label     string  `json:"label"`
	Reasoning string  `json:"reasoning,omitempty"`
}

// dryTally counts a dry run's requests by model ("" when none was given), and the input tokens
// of those the cache does not answer.
type dryTally struct {
	requests, tokens    map[string]int
	counted             map[string]string           // how the tokens were counted (model.Request.InputTokensCounted)
	looked              bool                        // --cache was read (cache.Look)
	cached              map[string]int              // the requests the cache answers
	input               map[string]model.InputTally // by the rate each request is priced at
	rule, skip, already int
	carried             int // of the already judged, those whose judgment failed: failed still, as in the run
	errors              int
	routed              int        // named the judge model, as the run counts them for warnModelUnused
	ruled               int        // judged, or failed, on a rule's route, as the run counts them
	others              others     // would pass through, judged by another mode or model
	replaced            int64      // would lose the judgment MODE that failed for want of a model
	unjudged            int64      // would lose the judgment NAME that this run's mode leaves out
	golds               firstGolds // would be sent with their first gold answer alone
}

// dryRunAll writes, for every record in input order, what judging it would do, and calls no
// model: the requests with their messages byte for byte, for reading the protocols' prompts
// and for pricing a run before it is paid for.
func (cfg *config) dryRunAll(ctx context.Context, src *command.Source, stdout, stderr io.Writer) error {
	interrupt.NoCalls(ctx, "qa-judge")
	t := dryTally{requests: map[string]int{}, tokens: map[string]int{}, counted: map[string]string{}, input: map[string]model.InputTally{},
		looked: cfg.look != nil, cached: map[string]int{}}
	enc := json.NewEncoder(record.LineSafe(stdout))
	enc.SetEscapeHTML(false)
	// The run's source: it notes the routes, and refuses a first record the judge model predicted.
	err := cfg.source(src, nil)(func(rec *record.Record) error {
		if err := interrupt.Err(ctx); err != nil { // a dry run makes no call: it stops at once
			return err
		}
		return enc.Encode(cfg.dryRequest(ctx, rec, &t))
	})
	if err == nil { // a signal while it waited for input that then ended: interrupted all the same
		err = interrupt.Err(ctx)
	}
	if err != nil {
		return err
	}
	cfg.warnRoutes(stderr)
	cfg.warnModelUnused(stderr, int64(t.routed), int64(t.ruled))
	if w := cfg.look.Warning(); w != "" {
		fmt.Fprintf(stderr, "qa-judge: warning: %s\n", w)
	}
	warnReplaced(stderr, cfg.bare, cfg.name, t.replaced, true) // as the run would warn
	warnUnjudged(stderr, cfg.name, t.unjudged, true)
	t.others.warn(stderr, cfg.name, true)
	t.golds.warn(stderr, true)
	t.summarize(stderr, cfg.name, cfg.judge.Prices, cfg.maxCost)
	// A failed judgment passed through fails the run (exit 3), and so the dry run, which says
	// what the run would do.
	return command.BadRecords(src.Bad,
		command.Count{N: t.errors, Singular: "record could not be judged (see its error field)", Plural: "records could not be judged (see their error fields)"},
		command.Count{N: t.carried, Singular: "judgment would pass through failed (--retry-errors judges it again)",
			Plural: "judgments would pass through failed (--retry-errors judges them again)"})
}

// dryRequest is what judging rec would do, counted in t.
func (cfg *config) dryRequest(ctx context.Context, rec *record.Record, t *dryTally) dryRequest {
	d := dryRequest{ID: rec.ID, Judge: cfg.name}
	if cfg.replacesFailed(rec) {
		t.replaced++
	}
	if pass, failed := cfg.passes(rec); pass {
		d.AlreadyJudged = true
		t.already++
		if failed {
			t.carried++
		}
		t.others.note(cfg.judge, rec, rec.Judgments[cfg.name])
		return d
	}
	if jg := cfg.selfJudging(rec); jg != nil {
		d.Error = jg.Error
		t.errors++
		t.routed++ // refused for the model
		return d
	}
	p, err := cfg.judge.Plan(rec)
	if cfg.dryUnplanned(rec, p, err, t, &d) {
		return d
	}
	d.Mode, d.Template, d.PromptSHA256 = p.Mode, p.Template, p.PromptSHA256
	if p.Rule != nil {
		d.Rule = &dryRule{p.Rule.Score, p.Rule.Label, p.Rule.Reasoning}
		t.rule++
		t.ruled++
		return d
	}
	// Over a judgment whose replies were unparsable, the run asks on from its attempts.
	cfg.dryCall(ctx, p, cfg.judge.firstSample(p, rec.Judgments[cfg.name]), t, &d)
	t.golds.note(rec, p.Mode)
	return d
}

// dryUnplanned reports whether rec is judged by no plan, as its plan p skips it, its prediction
// cannot be judged, or planning failed (err); d then says so, counted in t as the run counts it.
func (cfg *config) dryUnplanned(rec *record.Record, p Plan, err error, t *dryTally, d *dryRequest) bool {
	j := cfg.judge
	switch {
	case err == nil && p.Skip: // its prediction failed or not, as the run skips it (unjudged)
		d.Skip = true
		t.skip++
		if rec.Judgments[cfg.name] != nil { // --force or --retry-errors: the run removes it
			t.unjudged++
		}
		return true
	case unjudgeable(rec) != "":
		d.Error = unjudgeable(rec)
		t.errors++
		switch jg := j.unjudged(rec, d.Error); {
		case jg.Model != "":
			t.routed++ // the run's judgment names the judge model, as its route calls it
		case ruleJudgment(jg):
			t.ruled++
		}
		return true
	case err != nil:
		d.Error = err.Error()
		t.errors++
		switch jg := j.unplanned(rec, d.Error); {
		case jg.Model != "":
			t.routed++ // the run's judgment names the judge model, as its mode calls it (unplanned)
		case ruleJudgment(jg):
			t.ruled++
		}
		return true
	}
	return false
}

// dryCall fills d with the request p's first call would send, of sample (Judge.firstSample), its
// input tokens counted, and counts the request in t: with --cache, the first the cache does not
// answer, or, marked cached, the first it does when it answers the record whole (dryLook).
func (cfg *config) dryCall(ctx context.Context, p Plan, sample int, t *dryTally, d *dryRequest) {
	req := cfg.judge.request(p, sample)
	if cfg.look != nil {
		if sent, cached, failed := cfg.dryLook(ctx, p, sample); cached {
			d.Cached = true
			if failed != "" { // the run's judgment fails on the cached replies alone (exit 3)
				d.Error = failed
				t.errors++
			}
		} else {
			req = sent
		}
	}
	// The fields as the call carries them on the wire.
	d.Model, d.Temperature, d.MaxTokens, d.Seed = req.Model, req.SentTemperature(), req.SentMaxTokens(), req.SentSeed()
	d.TopP, d.TopK, d.NumCtx, d.MaxTokensField = req.SentTopP(), req.SentTopK(), req.SentNumCtx(), req.SentMaxTokensField()
	d.ResponseFormat, d.Messages = req.SentResponseFormat(), req.SentMessages()
	if req.Provider == "googleai" {
		d.GeminiSafety = cfg.judge.GeminiSafety
	}
	d.InputTokens = req.SentInputTokens()
	t.requests[d.Model]++
	if _, ok := t.counted[d.Model]; !ok {
		t.counted[d.Model] = req.InputTokensCounted()
	}
	if d.Model != "" {
		t.routed++
	}
	if d.Cached { // no call: nothing paid
		t.cached[d.Model]++
		return
	}
	t.tokens[d.Model] += d.InputTokens
	in := t.input[d.Model]
	in.Add(cfg.judge.Prices, d.Model, d.InputTokens)
	t.input[d.Model] = in
}

// dryLook reports whether the run, with --cache, would judge with p's request from sample on
// reading the cache alone (cached), and then the error its judgment fails with, if it does (failed:
// the cached replies unparsable to the last the run reads, say); or else the request of the first
// call it would make (sent).
// It follows the run's own asking (Judge.asks) over the replies the cache holds, as the run's
// client serves them (the thinking stripped under --think strip, from outside the cache): a
// reply that parses, or one the run does not ask again (cut, refused, blocked), answers the
// record; an unparsable one is asked again, as the next sample, read from the cache where it holds
// it, sent where it does not, and past the re-asks read from the cache alone.
func (cfg *config) dryLook(ctx context.Context, p Plan, sample int) (sent model.Request, cached bool, failed string) {
	jg := &record.Judgment{Attempts: sample}
	if sent, ok := cfg.judge.dryAsks(ctx, cfg.look, cfg.strip, p, jg); !ok {
		return sent, false, ""
	}
	return model.Request{}, true, jg.Error
}

// dryAsks asks p's request as call does, from jg.Attempts on, of a client that reads look alone
// as the run's cache client (KeepEmpty) serves it, the thinking stripped from outside the cache
// under strip (model.Thinking), and fills jg as call would; it reports whether the cache answered
// the judgment whole (ok), and else the request of the first call the run would make (sent).
func (j *Judge) dryAsks(ctx context.Context, look *cache.Look, strip bool, p Plan, jg *record.Judgment) (sent model.Request, ok bool) {
	first := jg.Attempts
	dc := &dryClient{look: look}
	var client model.Client = dc
	if strip {
		client = model.Thinking{Next: dc}
	}
	r := callReplies{allCached: true}
	if err := j.asks(ctx, client, p, jg, &r); err != nil {
		return j.request(p, first), false // interrupted: counted as sent
	}
	if dc.sent != nil {
		return *dc.sent, false
	}
	jg.Cached = r.allCached && r.replied
	return model.Request{}, true
}

// DryRegrade is what Regrade(ctx, rec, prior) would do, read from look (--cache) alone with no
// call, for a dry run that shows it: the request its first call sends (req nil when it calls
// none: a record it cannot judge, or a rule's; jg is then the judgment, nil for a record the plan
// skips); cached when look holds every reply the run would read, and then jg is the judgment the
// run writes from them (its verdict, or its error: replies unparsable to the last re-ask, say).
// Where a call the cache does not hold comes first, jg is the judgment begun, its mode, template
// and model named, and no verdict nor error yet. strip says the run's client strips the thinking
// from the replies (--think strip), from outside the cache.
func (j *Judge) DryRegrade(ctx context.Context, look *cache.Look, strip bool, rec *record.Record, prior *record.Judgment) (req *model.Request, cached bool, jg *record.Judgment) {
	if msg := unjudgeable(rec); msg != "" {
		return nil, false, j.unjudged(rec, msg)
	}
	p, err := j.Plan(rec)
	if err != nil {
		return nil, false, j.unplanned(rec, err.Error())
	}
	if p.Skip {
		return nil, false, nil
	}
	jg = &record.Judgment{Mode: p.Mode, PromptSHA256: p.PromptSHA256}
	if p.Rule != nil {
		jg.Score, jg.Label, jg.Reasoning = &p.Rule.Score, p.Rule.Label, p.Rule.Reasoning
		return nil, false, jg
	}
	jg.Model = cmp.Or(p.Model, j.Model)
	jg.Attempts = j.firstSample(p, prior)
	first := j.request(p, jg.Attempts)
	if look == nil {
		return &first, false, jg
	}
	begun := *jg
	sent, ok := j.dryAsks(ctx, look, strip, p, jg)
	if !ok {
		return &sent, false, &begun
	}
	return &first, true, jg
}

// dryClient answers a dry run's requests from --cache as the run's cache client (KeepEmpty)
// serves them, and calls nothing: a request the cache holds no reply to is one the run would send,
// unless it asks for stored replies alone (model.StoredOnly); sent is the first.
type dryClient struct {
	look *cache.Look
	sent *model.Request
}

func (c *dryClient) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	if resp, ok, err := c.look.Reply(req); ok {
		return resp, err
	}
	if !model.IsStoredOnly(ctx) && c.sent == nil {
		c.sent = &req
	}
	return model.Response{}, model.ErrNotStored // the run asks no further before this reply
}

// summarize writes the dry run's one-line summary: requests and input tokens per model, priced
// when the model has a price (input only: the replies' length is not known), after a warning
// when that alone is over --max-cost. With --cache, the tokens and price are those of the requests
// the cache does not answer.
func (t *dryTally) summarize(w io.Writer, name string, prices model.Prices, maxCost float64) {
	var parts []string
	var input model.Dollars // the priced input of every model, summed exactly as the run sums its spend
	for _, m := range slices.Sorted(maps.Keys(t.requests)) {
		cached := ""
		if t.looked && m != "" {
			cached = fmt.Sprintf(", %d answered by the cache, the other %d:", t.cached[m], t.requests[m]-t.cached[m])
		}
		part := fmt.Sprintf("%s%s %s (%s)", english.Count(t.requests[m], "request", "requests"), cmp.Or(cached, ","),
			english.Count(t.tokens[m], "input token", "input tokens"), cmp.Or(t.counted[m], bpe.ForModel(m).Name()))
		if m == "" {
			part += " with no model given"
		} else {
			part += " to " + m
			if c := t.input[m].Cost(prices, m); c != nil {
				part += fmt.Sprintf(", input $%s", english.USD(*c))
				input.Add(*c)
			} else {
				part += ", " + model.NoPriceNote
			}
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		parts = []string{"0 requests"}
	}
	if warn := model.DryRunWarning(input.Float64(), maxCost); warn != "" {
		fmt.Fprintf(w, "qa-judge: %s\n", warn)
	}
	carried := ""
	if t.carried > 0 {
		carried = fmt.Sprintf(" (%d failed: --retry-errors judges %s again)", t.carried, english.Form(t.carried, "it", "them"))
	}
	fmt.Fprintf(w, "qa-judge: %s: dry run, no calls: %s; %d by rule, %d skipped, %d already judged%s, %s\n",
		name, strings.Join(parts, "; "), t.rule, t.skip, t.already, carried, english.Count(t.errors, "error", "errors"))
}
