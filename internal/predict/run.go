package predict

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/pipeline"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// tally counts what happened to the records; it is updated from worker goroutines.
type tally struct {
	mu         sync.Mutex
	records    int
	predicted  int
	cached     int
	passed     int
	carried    int // passed through with a failed prediction
	errors     int
	verdicts   int           // predicted records whose EvaLearn verdict failed (sequence mode)
	notCalled  int           // errors that are calls a finishing run did not make
	stopped    command.Stops // errors that are calls not made as the server was never reached or refused every call
	stale      int           // records whose judgments, scores or score errors went with the prediction they graded
	noUsage    int           // replies whose server reported no token usage
	cut        int           // replies that stopped at max_tokens
	window     int           // replies that stopped at the model's context window
	filtered   int           // replies with text stopped by a content filter or as a refusal
	usage      record.Usage
	cost       float64
	cachedCost float64 // the part of cost the cache served
	unpriced   map[string]int

	provider, model string         // what this run asks
	others          map[string]int // passed through with another model's prediction, by provider/model
	// textless counts the records passed through with a prediction that has no text and no
	// error (HotpotQA's supporting facts, or a score, alone): no answer (see warnTextless).
	textless int
}

// spend adds p's usage and cost, of which cachedPart (when p is not Cached as a whole) the cache
// served; a usage without a price is counted by model for the warning (a reply without usage is
// counted by noteReply). The caller holds t.mu.
func (t *tally) spend(p *record.Prediction, cachedPart float64) {
	if p.Usage != nil {
		t.usage.InputTokens += p.Usage.InputTokens
		t.usage.OutputTokens += p.Usage.OutputTokens
	}
	switch {
	case p.CostUSD != nil:
		t.cost += *p.CostUSD
		if p.Cached {
			t.cachedCost += *p.CostUSD
		} else {
			t.cachedCost += cachedPart
		}
	case p.Usage != nil:
		if t.unpriced == nil {
			t.unpriced = make(map[string]int)
		}
		t.unpriced[p.Model]++
	}
}

func (t *tally) add(p *record.Prediction, passed bool) { t.addSpent(p, passed, 0) }

// addPart counts p, a prediction made in this run, of whose cost the cache served cachedPart (a
// LongMemEval reading some of whose notes came from the cache).
func (t *tally) addPart(p *record.Prediction, cachedPart float64) { t.addSpent(p, false, cachedPart) }

func (t *tally) addSpent(p *record.Prediction, passed bool, cachedPart float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.records++
	switch {
	case passed:
		t.passed++
		if p.Error != "" {
			t.carried++
		}
		t.noteOther(p)
		t.noteTextless(p)
		return
	case strings.HasSuffix(p.Error, interrupt.ErrNotCalled.Error()) || sequenceNotAsked(p.Error):
		// Not made, whether the record never started or the client stopped it at a limiter,
		// both "interrupted before …", or a LongMemEval note call was not made ("notes on
		// history block 2 of 3: interrupted before …"), as qa-judge counts them; or an EvaLearn
		// position's answer or verdict was not asked (its answer, if any, paid for).
		t.errors++
		t.notCalled++
		t.spend(p, cachedPart) // LongMemEval's notes asked before it were paid for
		return
	case t.stopped.Count(p.Error):
		t.errors++
		return
	case p.Error != "":
		t.errors++
		t.spend(p, cachedPart) // a failed call that was paid for (an empty reply)
		return
	}
	t.predicted++
	if p.Cached {
		t.cached++
	}
	t.spend(p, cachedPart)
}

// asks reports whether p could be an answer of the provider and model this run asks: the same
// names, or a dated or tagged version of the model (model.VersionOf). A name the prediction
// leaves out matches any.
func (t *tally) asks(p *record.Prediction) bool {
	return (p.Provider == "" || p.Provider == t.provider) &&
		(p.Model == "" || p.Model == t.model || model.VersionOf(p.Model, t.model))
}

// noteOther counts p, a prediction passed through, for warnOthers when another provider or
// model made it. The caller holds t.mu.
func (t *tally) noteOther(p *record.Prediction) {
	if t.asks(p) {
		return
	}
	if t.others == nil {
		t.others = make(map[string]int)
	}
	t.others[strings.TrimPrefix(p.Provider+"/"+p.Model, "/")]++
}

// kept counts p, a prediction a dry run would pass through, for warnOthers and warnTextless.
func (t *tally) kept(p *record.Prediction) {
	if p == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.noteOther(p)
	t.noteTextless(p)
}

// noteTextless counts p, a prediction passed through, for warnTextless when it has no text and
// no error. The caller holds t.mu.
func (t *tally) noteTextless(p *record.Prediction) {
	if !p.HasText() && p.Error == "" {
		t.textless++
	}
}

// warnTextless warns of the records passed through with a prediction without a text, such as
// HotpotQA's supporting facts alone (qa-load --predictions writes them for an id its file gives
// "sp" and no "answer" for): they have a prediction, so they pass as every predicted record
// does, and no answer; dry words it for a dry run.
//
// Note: answering them would put this model's answer beside another system's facts, whose joint
// scores would grade neither; --force replaces the prediction whole.
func (t *tally) warnTextless(w io.Writer, dry bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.textless == 0 {
		return
	}
	passed := english.Count(t.textless, "record passed", "records passed")
	if dry {
		passed = english.Count(t.textless, "record would pass", "records would pass")
	}
	fmt.Fprintf(w, "qa-predict: warning: %s through with a prediction that has no text (supporting facts or a score alone), so no answer: qa-score leaves %s answer unscored and qa-judge fails %s; --force answers %s, replacing the prediction\n",
		passed, english.Form(t.textless, "its", "their"), english.Form(t.textless, "it", "them"), english.Form(t.textless, "it", "them"))
}

// warnOthers warns of the records passed through with a prediction of another provider or model,
// which a run asking a new model keeps without --force; dry words it for a dry run, which passes
// nothing through.
func (t *tally) warnOthers(w io.Writer, dry bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.others) == 0 {
		return
	}
	n, names := 0, make([]string, 0, len(t.others))
	for name, k := range t.others {
		n += k
		names = append(names, name)
	}
	sort.Strings(names)
	passed := english.Count(n, "record passed", "records passed")
	if dry {
		passed = english.Count(n, "record would pass", "records would pass")
	}
	fmt.Fprintf(w, "qa-predict: warning: %s through keeping a prediction by %s, not by %s/%s as asked: --force predicts %s again\n",
		passed, strings.Join(names, ", "), t.provider, t.model, english.Form(n, "it", "them"))
}

// noteReply counts a reply without token usage, cut at max_tokens or at the context window, or
// stopped by a filter.
func (t *tally) noteReply(resp model.Response) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if resp.NoUsage {
		t.noUsage++
	}
	switch {
	case resp.Window:
		t.window++
	case resp.Cut:
		t.cut++
	}
	if resp.Filtered {
		t.filtered++
	}
}

// warnReplies writes the warnings about replies: without usage, cut short, or filtered.
func (t *tally) warnReplies(w io.Writer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.noUsage > 0 {
		fmt.Fprintf(w, "qa-predict: warning: %s without token usage from the server: %s usage and cost_usd are left empty (unknown, not free), and the totals leave %s out\n",
			english.Count(t.noUsage, "reply came", "replies came"), english.Form(t.noUsage, "its", "their"), english.Form(t.noUsage, "it", "them"))
	}
	if t.cut > 0 {
		fmt.Fprintf(w, "qa-predict: warning: %s at max_tokens, cut short (as the benchmark's own script would take %s); a larger --max-tokens lets %s finish\n",
			english.Count(t.cut, "reply stopped", "replies stopped"), english.Form(t.cut, "it", "them"), english.Form(t.cut, "it", "them"))
	}
	if t.window > 0 {
		fmt.Fprintf(w, "qa-predict: warning: %s at the model's context window (stop reason model_context_window_exceeded), cut short: the prompt left too little room, and a larger --max-tokens does not help; %s text is kept as the answer\n",
			english.Count(t.window, "reply stopped", "replies stopped"), english.Form(t.window, "its", "their"))
	}
	if t.filtered > 0 {
		fmt.Fprintf(w, "qa-predict: warning: %s by the provider's content filter or as a refusal (stop reason content_filter or refusal): %s text, perhaps partial, is kept as the answer\n",
			english.Count(t.filtered, "reply was stopped", "replies were stopped"), english.Form(t.filtered, "its", "their"))
	}
}

func (t *tally) line() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	carried := ""
	if t.carried > 0 {
		carried = fmt.Sprintf(" (%d %s)", t.carried, english.Form(t.carried,
			"with a failed prediction: --retry-errors predicts it again", "with failed predictions: --retry-errors predicts them again"))
	}
	verdicts := "" // sequence mode: answers predicted whose verdict, asked in the run, failed
	if t.verdicts > 0 {
		verdicts = fmt.Sprintf(", %d with a failed verdict", t.verdicts)
	}
	s := fmt.Sprintf("%s: %d predicted (%d cached%s), %d passed through%s, %s%s; tokens %d in, %d out; %s",
		english.Count(t.records, "record", "records"), t.predicted, t.cached, verdicts, t.passed, carried,
		english.Count(t.errors, "error", "errors"), command.NotCalledNote(t.notCalled, t.errors)+t.stopped.Note(t.errors),
		t.usage.InputTokens, t.usage.OutputTokens, command.CostNote(t.cost, t.cachedCost))
	if n := len(t.unpriced); n > 0 {
		models := make([]string, 0, n)
		for m := range t.unpriced {
			models = append(models, m)
		}
		sort.Strings(models)
		s += fmt.Sprintf(" (not counting %s: no price)", strings.Join(models, ", "))
	}
	return s
}

func (a *app) run(ctx context.Context, c *cli.Context) error {
	src := &command.Source{Args: c.Args().Slice(), Stdin: a.stdin, Stderr: a.stderr, Prog: "qa-predict", Strict: c.Bool("strict"), MaxLine: a.maxLine}
	if a.dryRun {
		return a.dryRunAll(ctx, src)
	}
	out := record.NewWriter(a.stdout)
	defer out.FlushWhenIdle()() // each record comes out soon after it is done, not 64 kB at a time
	progress := command.NewRecordProgress(a.stderr, a.stdout, "qa-predict", c.Args().Slice(), c.Bool("progress"), a.tally.short)
	opts := pipeline.Options{Concurrency: a.concurrency, Finished: progress.Finished()}
	fails := &command.Failures{Prog: "qa-predict", Of: failureOf, NotMade: func(msg string) bool {
		return command.NotMade(msg) || sequenceNotAsked(msg)
	}}
	each := func(yield func(*record.Record) error) error {
		return src.Each(func(rec *record.Record) error {
			fails.Read(rec, src.At(rec.ID, nil))
			return yield(rec)
		})
	}
	written := 0
	err := a.mapRecords(ctx, opts, each, func(rec *record.Record) error { // sequences: batch.go, sequential.go
		written++
		fails.Wrote(rec)
		return out.Write(rec)
	})
	a.tally.mu.Lock()
	err = command.Interruption(err, written, a.tally.records)
	a.tally.mu.Unlock()
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = ferr // "write /dev/stdout: …", as when a write before the end fails
	}
	progress.Finish()
	fails.End(a.stderr)
	if a.endsAlone(err) {
		return err
	}
	a.warnUnpriced()
	a.tally.warnOthers(a.stderr, false)
	a.tally.warnTextless(a.stderr, false)
	a.tally.warnReplies(a.stderr)
	if w := a.budget.Warning(); w != "" {
		fmt.Fprintf(a.stderr, "qa-predict: %s\n", w)
	}
	if w := a.transport.StopWarning("rerun on the output with --retry-errors"); w != "" {
		fmt.Fprintf(a.stderr, "qa-predict: %s\n", w)
	}
	if a.tally.stale > 0 {
		fmt.Fprintf(a.stderr, "qa-predict: warning: %s judgments, scores or score errors of the prediction now replaced; they were removed, as they do not grade the new one\n",
			english.Count(a.tally.stale, "record had", "records had"))
	}
	fmt.Fprintf(a.stderr, "qa-predict: %s\n", a.tally.line())
	a.prompts.reportCut(a.stderr)
	if err != nil {
		return err
	}
	// Named as every command names its own: the bad lines, then the records that failed.
	failed := command.Count{N: a.tally.errors + a.tally.carried + a.tally.verdicts, Singular: "record with a prediction error", Plural: "records with prediction errors"}
	if a.tally.verdicts > 0 {
		failed.Singular, failed.Plural = "record with a prediction or verdict error", "records with prediction or verdict errors"
	}
	return command.BadRecords(src.Bad, failed)
}

// endsAlone reports whether err, a run's error, ends it with the error alone: a failure (an
// input that cannot be read, a bad line under --strict, a file that holds no records, output that
// cannot be written) before any record was read, where a summary before the error ("0 records: 0
// predicted ...") would read as the run's result, as qa-judge's and the dry run's do. A run that
// read records says what it predicted and spent before its error, and so does an interrupted one.
func (a *app) endsAlone(err error) bool {
	a.tally.mu.Lock()
	defer a.tally.mu.Unlock()
	return failedRun(err) && a.tally.records == 0
}

// failedRun reports whether err, a run's error, ends it as a failure, not an interruption.
func failedRun(err error) bool { return err != nil && !errors.Is(err, context.Canceled) }

// failureOf is what a record failed with in qa-predict (command.Failures.Of): its prediction's
// error, or the error of the EvaLearn judge's verdict on its answer, after "verdict: ", as the
// summary counts it ("verdict: judge call: openai j: …", "verdict: unparsable judge reply: …").
//
// Note: it was "judge: ", which the judgment's errors say already ("judge: judge call: …").
func failureOf(rec *record.Record) (any, string) {
	if p := rec.Prediction; p != nil && p.Error != "" {
		return p, p.Error
	}
	if jg := rec.Judgments[judgeKey]; rec.Sequence != nil && jg != nil && jg.Error != "" {
		return jg, "verdict: " + jg.Error
	}
	return nil, ""
}

func (t *tally) short() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return fmt.Sprintf("tokens %d/%d  $%.4f  errors %d", t.usage.InputTokens, t.usage.OutputTokens, t.cost, t.errors+t.verdicts)
}

func (a *app) warnUnpriced() {
	a.tally.mu.Lock()
	defer a.tally.mu.Unlock()
	models := make([]string, 0, len(a.tally.unpriced))
	for m := range a.tally.unpriced {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		fmt.Fprintf(a.stderr, "qa-predict: warning: no price for model %q: cost_usd left empty on %s (add it with --prices)\n", m, english.Count(a.tally.unpriced[m], "record", "records"))
	}
}

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
	p := &record.Prediction{Provider: a.provider, Model: a.modelName}
	a.setPrediction(rec, p)
	if interrupt.Asked(ctx) { // finishing: no new record goes to the model
		p.Error = interrupt.ErrNotCalled.Error()
		a.tally.add(p, false)
		return rec, nil
	}
	var text string
	var opts []string
	var notes spent
	var err error
	tookNotes := a.prompts.takesNotes(rec)
	if tookNotes {
		var ok bool
		if text, notes, ok = a.takeNotes(ctx, rec, p); !ok {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			a.tally.addPart(p, notes.cachedCost)
			return rec, nil
		}
	} else if text, opts, err = a.prompts.render(rec); err != nil {
		p.Error = fmt.Sprintf("prompt: %v", err)
		a.tally.add(p, false)
		return rec, nil
	}
	req := a.request(rec, text)
	p.PromptSHA256 = promptSHA256(req.Messages)
	start := time.Now()
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
		a.addNotes(p, &notes) // answered or not, the notes were paid for
	}
	a.tally.addPart(p, notes.cachedCost)
	return rec, nil
}

// settle records the outcome of one model call on p: the error and attempts of a failed call, or
// the model, attempts, cache flag, cost and (withUsage) usage and latency of an answer. It reports
// whether the call succeeded; the caller sets the text.
func (a *app) settle(p *record.Prediction, resp model.Response, err error, start time.Time, withUsage bool) bool {
	var ce *model.CallError
	switch {
	case errors.As(err, &ce):
		p.Error, p.Attempts = err.Error(), ce.Attempts
		if !resp.Usage.IsZero() { // a reply that is no answer (empty), but paid for
			u := resp.Usage
			p.Usage, p.CostUSD = &u, a.prices.Cost(cmp.Or(resp.Model, p.Model), u)
		}
		return false
	case err != nil:
		p.Error, p.Attempts = err.Error(), resp.Attempts
		return false
	}
	if resp.Model != "" {
		p.Model = resp.Model
	}
	p.Attempts, p.Cached, p.Reasoning = resp.Attempts, resp.Cached, resp.Reasoning
	if withUsage {
		if !resp.Cached {
			p.LatencyMS = time.Since(start).Milliseconds()
		}
		a.tally.noteReply(resp)
		if resp.NoUsage { // unknown, not free: no usage and no cost
			return true
		}
		u := resp.Usage
		p.Usage = &u
	}
	p.CostUSD = a.prices.Cost(p.Model, resp.Usage)
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
		MaxTokensField: a.maxTokensField}
}
