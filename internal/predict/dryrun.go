package predict

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
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// --dry-run: what predicting each record would send, with no call.

// dryCall is one request a record's prediction would send.
type dryCall struct {
	Stage       string   `json:"stage"` // answer, notes (LongMemEval con-separate), or student or judge (EvaLearn)
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature,omitempty"` // where the call carries it (model.Request.SentTemperature)
	TopP        *float64 `json:"top_p,omitempty"`       // where the call carries it (model.Request.SentTopP)
	TopK        *int     `json:"top_k,omitempty"`       // where the call carries it (model.Request.SentTopK)
	MaxTokens   int      `json:"max_tokens,omitempty"`  // as the call carries it (model.Request.SentMaxTokens)
	// MaxTokensField is the member an openai call carries MaxTokens in (model.Request.SentMaxTokensField).
	MaxTokensField string `json:"max_tokens_field,omitempty"`
	Seed           *int   `json:"seed,omitempty"`    // --seed, where the call carries it (model.Request.SentSeed)
	NumCtx         int    `json:"num_ctx,omitempty"` // --num-ctx, where the call carries it (model.Request.SentNumCtx)
	// Stop is --stop's sequences, which every provider's call carries.
	Stop []string `json:"stop,omitempty"`
	// GeminiSafety is the threshold of the safetySettings a googleai call carries (--gemini-safety).
	GeminiSafety string          `json:"gemini_safety,omitempty"`
	Messages     []model.Message `json:"messages"` // as the call carries them (model.Request.SentMessages)
	// PromptSHA256 is the prediction's: of the messages as made, before SentMessages; a judge
	// call's is its judgment's, of the judge's template.
	PromptSHA256 string `json:"prompt_sha256"`
	InputTokens  int    `json:"input_tokens"` // as the call is counted (model.Request.SentInputTokens)
	// Cached says that --cache holds the reply the run would be served, with no call (cache.Look).
	Cached bool `json:"cached,omitempty"`
	// Error is the error the run's prediction gets from that reply: an empty one a --empty-reply
	// keep run stored, which a run without keep serves as its error (and takes out), or, under
	// --think strip, one cut in its thinking or with nothing after it (servedClient).
	Error string `json:"error,omitempty"`
	// reply is the text of the reply the run is served from --cache, where it gives no Error: a
	// LoCoMo batch's answers, or a LongMemEval note, which the reading call's prompt holds.
	reply string
	// cut is model.Response.CutNote's on that reply: where it stopped, when it was cut short.
	cut string
	// counted says how InputTokens was counted (model.Request.InputTokensCounted).
	counted string
}

// dryPrediction is one line of --dry-run output. Then names the calls that follow and cannot be
// shown, because their prompts hold replies not yet given.
type dryPrediction struct {
	ID               string    `json:"id"`
	Requests         []dryCall `json:"requests,omitempty"`
	Then             string    `json:"then,omitempty"`
	Asks             []string  `json:"asks,omitempty"`       // a LoCoMo batch's request: the records whose questions it asks
	AskedWith        string    `json:"asked_with,omitempty"` // a LoCoMo question asked in the request on this record's line
	AlreadyPredicted bool      `json:"already_predicted,omitempty"`
	Error            string    `json:"error,omitempty"`
	// failedCached says that Error is the one the run's prediction gets from the reply --cache
	// serves, with no call: a question of a LoCoMo batch the cached reply fails (dryLoCoMo).
	failedCached bool
}

// dryTally counts a dry run's requests, by model, and the input tokens of those the cache does
// not answer.
type dryTally struct {
	records, already, errors, later, batched int
	carried                                  int  // of the already predicted, those the run counts as failed
	looked                                   bool // --cache was read (cache.Look)
	failedCached                             int  // the records a reply the cache answers with fails (dryCall.Error)
	prices                                   model.Prices
	model                                    string // the --model, whose requests the summary counts first
	// byModel counts the requests to each model: the --model's, and the EvaLearn judge's apart,
	// even under the same name.
	byModel map[dryModel]*dryModelTally
}

// dryModel is whom a dry run's request goes to: a model, as the EvaLearn judge or not.
type dryModel struct {
	name  string
	judge bool
}

// dryModelTally counts a dry run's requests to one model.
type dryModelTally struct {
	requests, tokens int
	cached           int              // the requests the cache answers
	input            model.InputTally // the others' input by the rate each is priced at
	counted          string           // how the tokens were counted (dryCall.counted)
}

// dryRunAll writes, for every record in input order, the requests predicting it would send: the
// prompts byte for byte, for reading them and for pricing a run before it is paid for.
func (a *app) dryRunAll(ctx context.Context, src *command.Source) error {
	interrupt.NoCalls(ctx, "qa-predict")
	t := dryTally{prices: a.prices, model: a.modelName, looked: a.look != nil}
	enc := json.NewEncoder(record.LineSafe(a.stdout))
	enc.SetEscapeHTML(false)
	needsJudge := "" // a record with a sequence, when no --judge-model is given
	err := batches(a.unused.see(src.Each), a.blockOf(), maxClosed)(func(b *batch) error {
		if err := interrupt.Err(ctx); err != nil { // a dry run makes no call: it stops at once
			return err
		}
		lines, judged := a.dryBatch(b)
		if needsJudge == "" {
			needsJudge = judged
		}
		return a.writeDry(enc, &t, b, lines)
	})
	if err == nil { // a signal while it waited for input that then ended: interrupted all the same
		err = interrupt.Err(ctx)
	}
	if err != nil {
		return err
	}
	a.unused.warn(a.stderr)
	if w := a.look.Warning(); w != "" {
		fmt.Fprintf(a.stderr, "qa-predict: warning: %s\n", w)
	}
	a.tally.warnOthers(a.stderr, true) // as the run would warn
	a.tally.warnTextless(a.stderr, true)
	t.summarize(a.stderr, a.maxCost)
	a.prompts.reportCut(a.stderr)
	a.seq.warnGaps(a)
	if needsJudge != "" {
		fmt.Fprintf(a.stderr, "qa-predict: warning: a run needs --judge-model: the input has records with a sequence (%s), each answer judged before the next is asked (give it to the dry run too, to see the requests)\n", needsJudge)
	}
	// A failed prediction passed through fails the run (exit 3), and so the dry run, which says
	// what the run would do.
	return command.BadRecords(src.Bad,
		command.Count{N: t.errors, Singular: "record the run would fail without a call (see the error on its line)",
			Plural: "records the run would fail without a call (see the errors on their lines)"},
		command.Count{N: t.carried, Singular: "record that would pass through failed (--retry-errors predicts it again)",
			Plural: "records that would pass through failed (--retry-errors predicts them again)"},
		command.Count{N: t.failedCached, Singular: "record whose reply in the cache would fail it (see the error on its line)",
			Plural: "records whose replies in the cache would fail them (see the errors on their lines)"})
}

// dryBatch is the dry-run lines of b's records, in order, and, when there is no --judge-model,
// the id of the first record of a sequence that a run would ask, and so judge ("" for none).
func (a *app) dryBatch(b *batch) (lines []dryPrediction, judged string) {
	switch {
	case b.block != "":
		lines = a.dryLoCoMo(b)
	case b.seq == "":
		lines = []dryPrediction{a.dryPlain(b.recs[0])}
	default:
		a.seq.checkWhole(b, func(rec *record.Record) bool { return !a.passesSolved(rec) }) // as drySequence asks
		lines = a.drySequence(b)
		for _, d := range lines { // the first that a run would ask, and so judge
			if judged == "" && d.Error == errNeedsJudge {
				judged = d.ID
			}
		}
	}
	return lines, judged
}

// writeDry counts lines, the dry-run lines of b's records, in t and the tally, and writes them.
func (a *app) writeDry(enc *json.Encoder, t *dryTally, b *batch, lines []dryPrediction) error {
	for i, d := range lines { // lines[i] is b.recs[i]'s
		t.count(d)
		if d.AlreadyPredicted {
			a.tally.kept(b.recs[i].Prediction)
			if carriesFailure(b.recs[i], b.seq != "" && b.block == "") {
				t.carried++
			}
		}
		if err := enc.Encode(d); err != nil {
			return err
		}
	}
	return nil
}

// dryRequest is the dry-run view of req (dryView), marked cached when --cache holds the reply the
// run is served, with the error the run's prediction gets from it, or its text.
func (a *app) dryRequest(stage string, req model.Request) dryCall {
	c := a.dryView(stage, req)
	// The request as the run gives it to the cache, keyed alike, and served alike.
	if resp, ok, err := a.look.Reply(req); ok {
		c.Cached = true
		resp, err := a.servedClient(resp, err).Generate(context.Background(), req)
		if err != nil {
			c.Error = err.Error()
		} else {
			c.reply, c.cut = resp.Text, resp.CutNote(req)
		}
	}
	return c
}

// dryView is the dry-run view of req: its fields as its call carries them on the wire.
func (a *app) dryView(stage string, req model.Request) dryCall {
	c := dryCall{Stage: stage, Model: req.Model, Temperature: req.SentTemperature(), TopP: req.SentTopP(), TopK: req.SentTopK(),
		MaxTokens: req.SentMaxTokens(), MaxTokensField: req.SentMaxTokensField(), Seed: req.SentSeed(), NumCtx: req.SentNumCtx(), Stop: req.Stop, Messages: req.SentMessages(), PromptSHA256: promptSHA256(req.Messages)}
	if req.Provider == "googleai" {
		c.GeminiSafety = a.geminiSafety
	}
	c.InputTokens, c.counted = req.SentInputTokens(), req.InputTokensCounted()
	return c
}

// servedClient is the run's client over resp and err, the reply and error its cache serves a
// request: the thinking read under --think strip (model.Thinking, which forgets nothing here), and
// an empty reply that stopped of itself kept as "" under --empty-reply keep (emptyKept). It errs
// where the run's prediction fails on that reply with no call: a reply cut in its thinking, or
// with nothing after it, or a stored empty one without keep.
func (a *app) servedClient(resp model.Response, err error) model.Client {
	client := a.thinking(storedReply{resp, err})
	if a.keepEmpty {
		client = emptyKept{next: client, tally: &tally{}} // the dry run's tally counts no reply
	}
	return client
}

// storedReply is a client that serves one reply and its error, as the cache stored them.
type storedReply struct {
	resp model.Response
	err  error
}

func (s storedReply) Generate(context.Context, model.Request) (model.Response, error) {
	return s.resp, s.err
}

// dryPlain is what predicting a record without a sequence would send.
func (a *app) dryPlain(rec *record.Record) dryPrediction {
	d := dryPrediction{ID: rec.ID}
	if a.passes(rec) {
		d.AlreadyPredicted = true
		return d
	}
	if err := a.prompts.blankQuestion(rec); err != nil {
		d.Error = fmt.Sprintf("prompt: %v", err)
		return d
	}
	if a.prompts.takesNotes(rec) {
		a.prompts.readerNotice() // as takeNotes warns
		a.prompts.textNotice(rec)
		asks, err := prompt.LongMemEvalNotePrompts(rec, a.prompts.history)
		if err != nil {
			d.Error = fmt.Sprintf("prompt: %v", err)
			return d
		}
		if len(asks) > 0 {
			notes := make([]string, len(asks)) // the replies --cache serves, while it serves each
			for i, ask := range asks {
				c := a.dryRequest("notes", a.chat(ask.Prompt, prompt.LongMemEvalNoteLength))
				d.Requests = append(d.Requests, c)
				if c.Error != "" { // the reply --cache serves fails the record: the run asks nothing after it (takeNotes)
					return d
				}
				if notes != nil && c.Cached {
					notes[i] = textnorm.Strip(c.reply) // as takeNotes keeps it
				} else {
					notes = nil
				}
			}
			if notes == nil {
				d.Then = "the reading call over the notes (its prompt holds the replies)"
				return d
			}
			// Every note from the cache: the reading call's prompt is the one the run makes of them.
			text, cut, err := prompt.LongMemEvalNotesPrompt(rec, asks, notes, a.prompts.history)
			if err != nil {
				d.Error = fmt.Sprintf("prompt: %v", err)
				return d
			}
			if cut {
				a.prompts.cut.Add(1)
			}
			d.Requests = append(d.Requests, a.dryRequest("answer", a.request(rec, text)))
			return d
		}
		// No block to take notes on: the run asks none and sends the reading call at once
		// (no-retrieval), or stops on the empty history.
		text, _, err := prompt.LongMemEvalNotesPrompt(rec, nil, nil, a.prompts.history)
		if err != nil {
			d.Error = fmt.Sprintf("prompt: %v", err)
			return d
		}
		d.Requests = []dryCall{a.dryRequest("answer", a.request(rec, text))}
		return d
	}
	text, _, err := a.prompts.render(rec)
	if err != nil {
		d.Error = fmt.Sprintf("prompt: %v", err)
		return d
	}
	d.Requests = []dryCall{a.dryRequest("answer", a.request(rec, text))}
	return d
}

// drySequence is what solving a sequence would send, in the batch's input order: the request of
// its first position to answer, with the history of the positions passed through before it;
// the later positions' prompts hold answers and verdicts not yet given.
func (a *app) drySequence(b *batch) []dryPrediction {
	var out map[*record.Record]dryPrediction
	if b.reappeared {
		out = a.dryReappeared(b)
	} else {
		out = a.dryInOrder(b)
	}
	lines := make([]dryPrediction, len(b.recs))
	for i, rec := range b.recs {
		lines[i] = out[rec]
	}
	return lines
}

// dryReappeared is the dry-run line of each record of b, a sequence that reappears after other
// records: passed through where the run passes it, else failed.
func (a *app) dryReappeared(b *batch) map[*record.Record]dryPrediction {
	out := make(map[*record.Record]dryPrediction, len(b.recs))
	for _, rec := range b.recs {
		d := dryPrediction{ID: rec.ID, AlreadyPredicted: a.passesSolved(rec)} // as the run passes it
		if !d.AlreadyPredicted {
			d.Error = reappeared(b.seq)
		}
		out[rec] = d
	}
	return out
}

// dryInOrder is the dry-run line of each record of b, a sequence, walked in the order of its
// positions (drySolver).
func (a *app) dryInOrder(b *batch) map[*record.Record]dryPrediction {
	out := make(map[*record.Record]dryPrediction, len(b.recs))
	order := slices.Clone(b.recs)
	slices.SortStableFunc(order, func(x, y *record.Record) int { return x.Sequence.Position - y.Sequence.Position })
	s := &drySolver{a: a, seq: b.seq}
	for i, rec := range order {
		dup := i > 0 && order[i-1].Sequence.Position == rec.Sequence.Position
		out[rec] = s.line(rec, dup)
	}
	return out
}

// drySolver walks one sequence's positions in order for drySequence: the history of the positions
// passed through, the position asked, why the positions left are skipped, and whether one is
// being solved.
type drySolver struct {
	a       *app
	seq     string
	history []prompt.EvaLearnRecord
	asked   int    // the position asked, once one is
	broken  string // why the positions after a failed one are skipped, once one is
	solving bool   // a position is asked, or fails to be: those after it are not passed
	// unjudged: a position would be asked with no --judge-model, which the run fails, and every
	// position after it (unjudged), asking none.
	unjudged bool
}

// line is the dry-run line of rec, the next position in order; dup says it repeats the position
// before it.
func (s *drySolver) line(rec *record.Record, dup bool) dryPrediction {
	a := s.a
	d := dryPrediction{ID: rec.ID}
	switch {
	case s.unjudged && a.passesSolved(rec): // as the run keeps it (unjudged)
		d.AlreadyPredicted = true
	case s.unjudged:
		d.Error = errNeedsJudge
	case rec.Sequence.Position < 1 && !a.passesSolved(rec): // as the run fails it
		d.Error = noPosition(rec, s.seq)
	case (s.broken != "" || dup) && !s.solving && a.passesSolved(rec): // as the run keeps it
		d.AlreadyPredicted = true
	case s.broken != "":
		d.Error = "skipped: " + s.broken
	case dup:
		d.Error = fmt.Sprintf("duplicate position %d in sequence %s", rec.Sequence.Position, s.seq)
	case s.asked > 0:
		// What fails a position whatever the history (no rubric, nothing to ask) fails it when the
		// run comes to it, or it is skipped: either way it fails, and so do the positions after it.
		if _, err := studentFault(rec); err != nil {
			d.Error = err.Error()
			s.broken = fmt.Sprintf("position %d failed", rec.Sequence.Position)
			break
		}
		d.Then = fmt.Sprintf("the student call, once position %d is answered and judged (its prompt holds them)", s.asked)
	case !s.solving && a.passesSolved(rec): // a failed verdict is solved again under --retry-errors, as in the run
		// Once a position is solved, from the cache alone too, those after it are asked with its
		// answer and verdict, as the run asks them (settled).
		d.AlreadyPredicted = true
		if h, why := a.earlier(rec); why != "" {
			s.broken = why
		} else {
			s.history = append(s.history, h)
		}
	case a.seq.judge == nil: // no --judge-model: the run asks none of the positions left (unjudged)
		s.unjudged = true
		d.Error = errNeedsJudge
	default:
		s.solving = true
		req, err := a.studentRequest(rec, s.history)
		if err != nil { // as the run fails it, and skips the positions after it
			d.Error = err.Error()
			s.broken = fmt.Sprintf("position %d failed", rec.Sequence.Position)
			break
		}
		c := a.dryRequest("student", req)
		answer := textnorm.Strip(c.reply) // as answer keeps it
		if c.Cached && c.Error == "" && answer == "" && !a.keepEmpty {
			c.Error = errEmptyAnswer
		}
		d.Requests = []dryCall{c}
		if c.Error != "" { // the reply --cache serves fails it: no verdict, as in the run
			s.broken = fmt.Sprintf("position %d failed", rec.Sequence.Position)
			break
		}
		if !c.Cached {
			d.Then = "EvaLearn's rubric judge on the answer (--judge-model)"
			s.asked = rec.Sequence.Position
			break
		}
		s.judge(&d, rec, answer)
	}
	return d
}

// judge adds to d, the line of rec, the judge's request on answer, the student's reply --cache
// serves, made as the run makes it (judge.Judge.DryRegrade): marked cached when --cache holds the
// replies the run's judge reads, with the error they fail the verdict with, if they do; and goes
// on as the run goes on from that verdict, to the next position with it in the history, or
// skipping the positions after one that gives none. A judge call the cache does not hold leaves
// the positions after it waiting for its verdict.
func (s *drySolver) judge(d *dryPrediction, rec *record.Record, answer string) {
	a := s.a
	pos := rec.Sequence.Position
	solved := *rec
	solved.Prediction = &record.Prediction{Provider: a.provider, Model: a.modelName, Text: answer}
	req, cached, jg := a.seq.judge.DryRegrade(context.Background(), a.look, a.strip, &solved, rec.Judgments[judgeKey])
	switch {
	case req != nil:
		c := a.dryView("judge", *req)
		// The judgment's prompt_sha256, as the run writes it.
		c.PromptSHA256, c.Cached = jg.PromptSHA256, cached
		if !cached { // its verdict comes from a call: the positions after it wait for it
			d.Requests = append(d.Requests, c)
			s.asked = pos
			return
		}
		c.Error = jg.Error
		d.Requests = append(d.Requests, c)
	case jg == nil: // not judged: none of EvaLearn's plans skips a record, and the run would stop here
		s.broken = fmt.Sprintf("position %d has no verdict", pos)
		return
	case jg.Error != "": // judged with no call, failed: a record without a rubric, say
		d.Error = "judge: " + jg.Error
	}
	verdict := a.verdictText(jg)
	if verdict == "" {
		s.broken = fmt.Sprintf("position %d has no verdict", pos)
		return
	}
	s.history = append(s.history, prompt.EvaLearnRecord{Position: pos, Turns: studentTurns(rec), Answer: answer,
		Rubric: rec.Rubric, Judgment: textnorm.Strip(verdict)})
}

// count counts d, a dry-run line, and its requests' input tokens.
func (t *dryTally) count(d dryPrediction) {
	t.records++
	failed := d.failedCached
	for _, c := range d.Requests {
		failed = failed || c.Error != ""
		to := dryModel{name: c.Model, judge: c.Stage == "judge"}
		m := t.byModel[to]
		if m == nil {
			m = &dryModelTally{}
			if t.byModel == nil {
				t.byModel = map[dryModel]*dryModelTally{}
			}
			t.byModel[to] = m
		}
		m.requests++
		m.counted = cmp.Or(m.counted, c.counted)
		if c.Cached { // no call: nothing paid
			m.cached++
			continue
		}
		m.tokens += c.InputTokens
		m.input.Add(t.prices, c.Model, c.InputTokens)
	}
	switch {
	case d.AlreadyPredicted:
		t.already++
	case failed:
		t.failedCached++
		if d.AskedWith != "" {
			t.batched++
		}
	case d.Error != "":
		t.errors++
	case d.Then != "":
		t.later++
	case d.AskedWith != "":
		t.batched++
	}
}

// summarize writes the dry run's one-line summary, pricing the input of the requests the cache
// does not answer, by model, the --model's first, when the model has a price (saying so when calls
// that need replies first are left out of it), after a warning when that alone is over --max-cost.
func (t *dryTally) summarize(w io.Writer, maxCost float64) {
	student := dryModel{name: t.model}
	others := slices.SortedFunc(maps.Keys(t.byModel), func(x, y dryModel) int {
		return cmp.Or(cmp.Compare(x.name, y.name), boolCompare(x.judge, y.judge))
	})
	others = slices.DeleteFunc(others, func(m dryModel) bool { return m == student })
	var parts []string
	var input model.Dollars // the priced input of every model, summed exactly as the run sums its spend
	for _, to := range append([]dryModel{student}, others...) {
		name := to.name
		m := cmp.Or(t.byModel[to], &dryModelTally{})
		price := ""
		switch c := m.input.Cost(t.prices, name); {
		case m.tokens == 0:
		case c == nil:
			price = ", " + model.NoPriceNote // a silent omission read as a line that forgot its price
		default:
			price = fmt.Sprintf(", input $%s", english.USD(*c))
			if t.later > 0 {
				// The calls an answer or verdict must come first for cannot be counted: EvaLearn's
				// later positions and its judge are most of its run's cost.
				price += " for these requests alone"
			}
			input.Add(*c)
		}
		cached := ""
		if t.looked {
			cached = fmt.Sprintf(", %d answered by the cache; the other %d:", m.cached, m.requests-m.cached)
		}
		requests := english.Count(m.requests, "request", "requests")
		if to.judge {
			requests = english.Count(m.requests, "judge request", "judge requests")
		}
		parts = append(parts, fmt.Sprintf("%s to %s%s %s (%s)%s", requests, name, cmp.Or(cached, ","),
			english.Count(m.tokens, "input token", "input tokens"), cmp.Or(m.counted, bpe.ForModel(name).Name()), price))
	}
	if warn := model.DryRunWarning(input.Float64(), maxCost); warn != "" {
		fmt.Fprintf(w, "qa-predict: %s\n", warn)
	}
	batched := ""
	if t.batched > 0 {
		batched = fmt.Sprintf(", %d asked in another record's request (--batch-size)", t.batched)
	}
	carried := carriedNote(t.carried)
	fmt.Fprintf(w, "qa-predict: dry run, no calls: %s: %s; %d %s%s, %d already predicted%s, %s\n",
		english.Count(t.records, "record", "records"), strings.Join(parts, "; "),
		t.later, english.Form(t.later, "with a call that needs replies first", "with calls that need replies first"), batched,
		t.already, carried, english.Count(t.errors, "error", "errors"))
}

// boolCompare orders false before true.
func boolCompare(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return 1
	}
	return -1
}
