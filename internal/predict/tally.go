package predict

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// tally counts what happened to the records; it is updated from worker goroutines.
type tally struct {
	mu      sync.Mutex
	records int // records finished: predicted, passed through or failed
	// abandoned counts the records read and finished when the run abandoned calls in flight (a
	// second signal), after which fewer were finished than read (command.Abandoned); "" otherwise.
	abandoned string
	predicted int
	cached    int
	passed    int
	carried   int // passed through with a failed prediction, or in a sequence a failed verdict
	// carriedVerdicts is how many of carried failed by their verdict alone, their prediction good.
	carriedVerdicts int
	errors          int
	verdicts        int           // predicted records whose EvaLearn verdict failed (sequence mode)
	notCalled       int           // errors that are calls a finishing run did not make
	stopped         command.Stops // errors that are calls not made as the server was never reached or refused every call
	stale           int           // records whose judgments, scores or score errors went with the prediction they graded
	noUsage         int           // replies whose server reported no token usage
	cut             int           // replies that stopped at max_tokens
	window          int           // replies that stopped at the model's context window
	notesCut        int           // LongMemEval reading notes that stopped at max_tokens or the context window
	filtered        int           // replies with text stopped by a content filter or as a refusal
	keptEmpty       int           // empty replies that stopped of themselves, kept as the answer "" (--empty-reply keep)
	usage           record.Usage
	cost            model.Dollars
	cachedCost      model.Dollars // the part of cost the cache served
	unpriced        map[string]int

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
		t.cost.Add(*p.CostUSD)
		if p.Cached {
			t.cachedCost.Add(*p.CostUSD)
		} else {
			t.cachedCost.Add(cachedPart)
		}
	case p.Usage != nil:
		if t.unpriced == nil {
			t.unpriced = make(map[string]int)
		}
		t.unpriced[p.Model]++
	}
}

func (t *tally) add(p *record.Prediction, passed bool) { t.addSpent(p, passed, 0) }

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
// stopped by a filter. A LongMemEval reading note (note) cut short is counted apart: its
// max_tokens is LongMemEval's own, which --max-tokens does not change, and no prediction.cut
// marks it.
func (t *tally) noteReply(resp model.Response, note bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if resp.NoUsage {
		t.noUsage++
	}
	switch {
	case note && resp.Cut:
		t.notesCut++
	case resp.Window:
		t.window++
	case resp.Cut:
		t.cut++
	}
	if resp.Filtered {
		t.filtered++
	}
}

// noteNoUsage counts a reply that is no answer (an empty one) and came without token usage: paid
// for, at a cost unknown, which the totals leave out (noteReply counts an answer's).
func (t *tally) noteNoUsage() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.noUsage++
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
		it := english.Form(t.cut, "it", "them")
		fmt.Fprintf(w, "qa-predict: warning: %s at max_tokens, cut short (as the benchmark's own script would take %s; prediction.cut is %q on the records read from %s); a larger --max-tokens lets %s finish\n",
			english.Count(t.cut, "reply stopped", "replies stopped"), it, record.CutMaxTokens, it, it)
	}
	if t.window > 0 {
		fmt.Fprintf(w, "qa-predict: warning: %s at the model's context window (stop reason model_context_window_exceeded), cut short: the prompt left too little room, and a larger --max-tokens does not help; %s text is kept as the answer, and prediction.cut is %q on the records read from %s\n",
			english.Count(t.window, "reply stopped", "replies stopped"), english.Form(t.window, "its", "their"), record.CutContextWindow, english.Form(t.window, "it", "them"))
	}
	if t.notesCut > 0 {
		fmt.Fprintf(w, "qa-predict: warning: %s cut short, at LongMemEval's max_tokens %d for a note (which --max-tokens does not change) or at the model's context window, and kept as its script keeps %s\n",
			english.Count(t.notesCut, "LongMemEval reading note was", "LongMemEval reading notes were"), prompt.LongMemEvalNoteLength, english.Form(t.notesCut, "it", "them"))
	}
	if t.keptEmpty > 0 {
		// "" is what the mode reads: an answer, a LongMemEval reading note, or a LoCoMo batch's
		// reply, which its reader then finds no answer in.
		fmt.Fprintf(w, "qa-predict: warning: %s empty, kept as \"\" (--empty-reply keep)\n",
			english.Count(t.keptEmpty, "reply was", "replies were"))
	}
	if t.filtered > 0 {
		fmt.Fprintf(w, "qa-predict: warning: %s by the provider's content filter or as a refusal (stop reason content_filter or refusal): %s text, perhaps partial, is kept as the answer\n",
			english.Count(t.filtered, "reply was stopped", "replies were stopped"), english.Form(t.filtered, "its", "their"))
	}
}

// carriedNote is what the summaries add to the count of records passed through of the n (0 for
// none) whose prediction failed, or, in an EvaLearn sequence, whose verdict failed: " (2 failed:
// --retry-errors asks them again)".
func carriedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d failed: --retry-errors asks %s again)", n, english.Form(n, "it", "them"))
}

func (t *tally) line() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	carried := carriedNote(t.carried)
	verdicts := "" // sequence mode: answers predicted whose verdict, asked in the run, failed
	if t.verdicts > 0 {
		verdicts = fmt.Sprintf(", %d with a failed verdict", t.verdicts)
	}
	records := english.Count(t.records, "record", "records")
	if t.abandoned != "" {
		records = t.abandoned // the records not finished are not counted below, nor written
	}
	s := fmt.Sprintf("%s: %d predicted (%d cached%s), %d passed through%s, %s%s; tokens %d in, %d out; %s",
		records, t.predicted, t.cached, verdicts, t.passed, carried,
		english.Count(t.errors, "error", "errors"), command.NotCalledNote(t.notCalled, t.errors)+t.stopped.Note(t.errors),
		t.usage.InputTokens, t.usage.OutputTokens, command.CostNote(t.cost.Float64(), t.cachedCost.Float64()))
	if n := len(t.unpriced); n > 0 {
		models := make([]string, 0, n)
		for m := range t.unpriced {
			models = append(models, m)
		}
		sort.Strings(models)
		s += fmt.Sprintf(" (not counting %s: no price)", strings.Join(models, ", "))
	}
	if t.noUsage > 0 { // unknown, not 0: the totals would pass them off as free
		s += fmt.Sprintf(" (not counting %s without token usage)", english.Count(t.noUsage, "reply", "replies"))
	}
	return s
}

func (t *tally) short() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return fmt.Sprintf("tokens %d/%d  %s  errors %d", t.usage.InputTokens, t.usage.OutputTokens, command.ShortCost(t.cost.Float64(), len(t.unpriced) > 0), t.errors+t.verdicts)
}
