package judge

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// tally counts what happened to the records, and the tokens and dollars the judgments cost.
type tally struct {
	judged, rule, cached, skipped, already, unparsable, failed atomic.Int64
	neither                                                    atomic.Int64  // yes/no replies saying neither
	offLabels                                                  int           // mem0 labels neither CORRECT nor WRONG (under mu)
	offLabelSeen                                               []string      // the first few of them, distinct (under mu)
	offLabelMore                                               bool          // and others (under mu)
	carried                                                    atomic.Int64  // already judged, and failed
	notCalled                                                  atomic.Int64  // failed: calls a finishing run did not make
	stopped                                                    command.Stops // failed: calls not made as the server was never reached or refused every call
	selfJudged                                                 atomic.Int64  // failed: predicted by the judge model
	stale                                                      atomic.Int64  // judge_score (or its score error) removed with the judgment it may have read
	routed                                                     atomic.Int64  // judged by (or refused for) the model
	ruled                                                      atomic.Int64  // judged by a rule's route, its verdict or its failure
	replaced                                                   atomic.Int64  // lost the judgment MODE that failed for want of a model
	unjudged                                                   atomic.Int64  // lost the judgment NAME that this run's mode leaves out
	others                                                     others        // passed through, judged by another mode or model
	golds                                                      firstGolds    // sent with their first gold answer alone

	mu         sync.Mutex
	usage      record.Usage
	cost       model.Dollars
	cachedCost model.Dollars  // the part of cost the cache served
	unpriced   map[string]int // judgments with token usage but no price, by model

	// abandoned counts the records read and finished when the run abandoned calls in flight (a
	// second signal), after which fewer were finished than read (command.Abandoned); "" otherwise.
	abandoned string
}

// spend adds jg's usage and cost (as qa-predict's tally does for predictions).
func (t *tally) spend(jg *record.Judgment) {
	if jg.Usage == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.usage.InputTokens += jg.Usage.InputTokens
	t.usage.OutputTokens += jg.Usage.OutputTokens
	if jg.CostUSD != nil {
		t.cost.Add(*jg.CostUSD)
		if jg.Cached {
			t.cachedCost.Add(*jg.CostUSD)
		}
		return
	}
	if t.unpriced == nil {
		t.unpriced = map[string]int{}
	}
	t.unpriced[jg.Model]++
}

// maxOffLabels bounds the distinct labels the warning of offLabel names.
const maxOffLabels = 3

// offLabel counts a judgment read by mem0's rule whose label is neither CORRECT nor WRONG
// ("Correct", "PARTIALLY CORRECT"): the rule scores it 0, as upstream does, which without a
// word would pass for the judge's WRONG.
func (t *tally) offLabel(label string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.offLabels++
	switch {
	case slices.Contains(t.offLabelSeen, label):
	case len(t.offLabelSeen) < maxOffLabels:
		t.offLabelSeen = append(t.offLabelSeen, label)
	default:
		t.offLabelMore = true
	}
}

// short is the progress's text: the tokens and cost spent so far, as qa-predict's says them, once
// a model has been asked (a run of rules spends none), and the failed and unparsable judgments.
func (t *tally) short() string {
	t.mu.Lock()
	spent := ""
	if t.usage.InputTokens+t.usage.OutputTokens > 0 || t.cost.Sign() > 0 {
		spent = fmt.Sprintf("tokens %d/%d  %s  ", t.usage.InputTokens, t.usage.OutputTokens, command.ShortCost(t.cost.Float64(), len(t.unpriced) > 0))
	}
	t.mu.Unlock()
	return fmt.Sprintf("%sfailed %d  unparsable %d", spent, t.failed.Load(), t.unparsable.Load())
}

// warnUnjudged says how many records lost their judgment name, made otherwise, where this run's
// mode leaves them out (--force or --retry-errors over it); for a dry run (dry), how many would.
func warnUnjudged(w io.Writer, name string, n int64, dry bool) {
	if n == 0 {
		return
	}
	had, removed := lossWords(n, dry, "it was removed", "it would be removed")
	fmt.Fprintf(w, "qa-judge: warning: %s a judgment %q that this run's mode leaves out (mem0's category 5, a skip route): %s, as this run judges none there\n",
		had, name, removed)
}

// lossWords are a warning's words for n records that lose what they had: "N records had" and
// done, or for a dry run (dry), which changes nothing, "N records have" and wouldBe.
func lossWords(n int64, dry bool, done, wouldBe string) (had, verb string) {
	if dry {
		return english.Count(int(n), "record has", "records have"), wouldBe
	}
	return english.Count(int(n), "record had", "records had"), done
}

// warnReplaced says how many records lost the judgment MODE (bare) that failed for want of a
// model, replaced by their judgment MODE/MODEL (name); for a dry run (dry), how many would.
func warnReplaced(w io.Writer, bare, name string, n int64, dry bool) {
	if n == 0 {
		return
	}
	had, replaced := lossWords(n, dry, "replaced", "would be replaced")
	fmt.Fprintf(w, "qa-judge: warning: %s the judgment %q of a run without --model, failed for want of one (%q): %s by %s judgment %q\n",
		had, bare, ErrNoModel.Error(), replaced, english.Form(int(n), "its", "their"), name)
}

// warnModelUnused warns when --mode auto had a --model and routed every record it judged to a
// rule (ruled of them, routed to the model): the run asked no model, which only the "by rule"
// count of the summary showed. A record its rule's route judged counts whether it got the rule's
// verdict or failed there (its prediction failed, a fact or its gold answers could not be read),
// so that a run where every such record failed warns too. A dry run warns alike, of the run it
// shows, so its words hold for both.
func (cfg *config) warnModelUnused(w io.Writer, routed, ruled int64) {
	j := cfg.judge
	if j.Model == "" || (j.Mode != ModeAuto && j.Mode != "") || routed > 0 || ruled == 0 {
		return
	}
	fmt.Fprintf(w, "qa-judge: warning: --model %s judges no record: --mode auto routes every one to a rule (see MODES in --help); --mode or --prompt judges them with the model\n", j.Model)
}

// summarize writes a warning per unpriced model and the run's one-line summary, whose cost counts
// every judgment's replies, cached or not (as qa-predict's does); noUsage judgments had a reply
// without token usage, which the totals leave out.
func summarize(w io.Writer, name string, t *tally, noUsage int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	models := slices.Sorted(maps.Keys(t.unpriced))
	for _, m := range models {
		fmt.Fprintf(w, "qa-judge: warning: no price for model %q: cost_usd left empty on %s (add it with --prices)\n", m, english.Count(t.unpriced[m], "judgment", "judgments"))
	}
	if n := t.neither.Load(); n > 0 {
		fmt.Fprintf(w, "qa-judge: warning: %s neither yes nor no (a refusal?): scored 0 as LongMemEval's rule scores %s, labelled %q\n",
			english.Count(int(n), "yes/no reply says", "yes/no replies say"), english.Form(int(n), "it", "them"), LabelNeither)
	}
	if n := t.offLabels; n > 0 {
		seen := command.QuotedList(t.offLabelSeen)
		if t.offLabelMore {
			seen += ", …"
		}
		fmt.Fprintf(w, "qa-judge: warning: %s neither CORRECT nor WRONG (%s): scored 0 as mem0's rule scores %s\n",
			english.Count(n, "mem0 label is", "mem0 labels are"), seen, english.Form(n, "it", "them"))
	}
	if n := t.selfJudged.Load(); n > 0 {
		fmt.Fprintf(w, "qa-judge: warning: %s by the judge model, so not judged (see %s): --retry-errors --allow-self-judge over the output judges %s\n",
			english.Count(int(n), "record was predicted", "records were predicted"), english.Form(int(n), "its error field", "their error fields"), english.Form(int(n), "it", "them"))
	}
	warnUnjudged(w, name, t.unjudged.Load(), false)
	t.golds.warn(w, false)
	if n := t.stale.Load(); n > 0 {
		fmt.Fprintf(w, "qa-judge: warning: %s a judge_score, or a score error in its place, that may have read the judgment now replaced or removed, or another than the one qa-score now reads first; it was taken out too (qa-score computes it again)\n",
			english.Count(int(n), "record had", "records had"))
	}
	carried := ""
	if n := t.carried.Load(); n > 0 {
		carried = fmt.Sprintf(" (%d failed: --retry-errors judges %s again)", n, english.Form(int(n), "it", "them"))
	}
	notCalled := command.NotCalledNote(int(t.notCalled.Load()), int(t.failed.Load())) + t.stopped.Note(int(t.failed.Load()))
	read := "" // abandoned: the records not finished are not counted below, nor written
	if t.abandoned != "" {
		read = t.abandoned + ": "
	}
	fmt.Fprintf(w, "qa-judge: %s: %s%d judged (%d by rule, %d from cache), %d skipped, %d already judged%s; of the judged, %d unparsable, %d failed%s",
		name, read, t.judged.Load(), t.rule.Load(), t.cached.Load(), t.skipped.Load(), t.already.Load(), carried, t.unparsable.Load(), t.failed.Load(), notCalled)
	if !t.usage.IsZero() || t.cost.Sign() > 0 {
		fmt.Fprintf(w, "; tokens %d in, %d out; %s", t.usage.InputTokens, t.usage.OutputTokens, command.CostNote(t.cost.Float64(), t.cachedCost.Float64()))
		if len(models) > 0 {
			fmt.Fprintf(w, " (not counting %s: no price)", strings.Join(models, ", "))
		}
		if noUsage > 0 { // unknown, not 0: the totals would pass them off as free
			fmt.Fprintf(w, " (not counting %s without token usage)", english.Count(int(noUsage), "judgment", "judgments"))
		}
	}
	fmt.Fprintln(w)
}
