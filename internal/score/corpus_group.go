package score

import (
	"fmt"
	"math"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/pysum"
)

// corpusGroup accumulates the facts of one set of records: the running figures each selected
// corpus metric is finished from, which do not grow with the records, and, for the intervals
// alone (keep), what each record contributes, which the bootstrap resamples.
//
// Two families need each record whatever keep says, and keep only what they read of it: auc
// sorts every scored record by its score (scored: the score and whether the gold label is
// --pos-label), and pn, pairwise_acc, mrr and map pair or rank the records of each query group,
// whose records may come anywhere in the input, so that no group is complete before its end
// (ranked: the group, the relevance and the score).
type corpusGroup struct {
	cfg  *corpusConfig
	keep bool // keep each record's part for the intervals
	// Running figures: the labelled records (leftOut), the classification table, the perplexity
	// sums, and the chunk and BLEU counts.
	labelled, noScore, noGroup, grouped int
	noText                              int // labelled records without a predicted label (no text)
	classes                             classTable
	lossSum                             pysum.Adder
	lossN, words, negLoss               int
	chunk                               ChunkSummary
	chunkPerType                        map[string]metric.ChunkCounts
	chunkTotalCnt                       metric.ChunkCounts
	bleu                                *metric.BLEUCounts
	bleuN                               int
	// Each record's part, whatever keep says (auc; pn, pairwise_acc, mrr and map).
	scored []scoredRecord
	ranked []rankedRecord
	// auc's gold labels that make them other than 0/1 or -1/1 (see aucLabels).
	aucOther       string // the first label neither 0, 1 nor -1
	aucOthers      int    // the records with such a label
	aucWord        bool   // such a label that is no spelling of 1, 0 or -1 (binarySpelling)
	aucZero, aucM1 bool   // a label 0, a label -1 seen
	// Gold labels that differ from --pos-label only in case or surrounding white space ("Yes" for
	// yes), which compare as another label: the records of auc and of the query groups' metrics
	// that hold one, and the first.
	posTwinAUC, posTwinRank int
	posTwin                 string
	// Each record's part for the intervals, with keep: its label pair (two ids of classes, gold
	// first), loss and token count, chunk counts, and BLEU counts, bleuWidth ints of bleus in one
	// slice for the resamples to read in order (bleuStat).
	labelIDs []int32
	loss     []float64
	tokens   []int
	chunks   []metric.ChunkCounts
	bleus    []int
}

// scoredRecord is a scored record's part in auc.
type scoredRecord struct {
	score float64
	pos   bool // its gold label is --pos-label
}

// rankedRecord is a scored record's part in the metrics of its query group.
type rankedRecord struct {
	group      string
	rel, score float64
}

// bleuWidth is how many ints a record's BLEU counts of orders n-gram orders take in
// corpusGroup.bleus: its numerators, denominators and possible matches, then its three lengths.
func bleuWidth(orders int) int { return 3*orders + 3 }

// newCorpusGroup returns an empty group; keep says to keep each record's part for the intervals.
func newCorpusGroup(cfg *corpusConfig, keep bool) *corpusGroup {
	return &corpusGroup{cfg: cfg, keep: keep, chunkPerType: map[string]metric.ChunkCounts{}}
}

func (a *corpusGroup) add(f corpusFacts) {
	if f.lab != nil {
		a.addLabelled(f.lab)
	}
	if f.hasLoss {
		a.lossSum.Add(f.loss)
		a.lossN++
		a.words += f.tokens
		if f.loss < 0 {
			a.negLoss++
		}
		if a.keep {
			a.loss = append(a.loss, f.loss)
			a.tokens = append(a.tokens, f.tokens)
		}
	}
	if f.chunk != nil {
		a.addChunk(f.chunk)
	}
	if f.bleu != nil {
		if a.bleu == nil {
			a.bleu = metric.NewBLEUCounts(len(a.cfg.bleuWeights))
		}
		a.bleu.Merge(f.bleu)
		a.bleuN++
		if a.keep {
			a.bleus = append(append(append(a.bleus, f.bleu.Numerators...), f.bleu.Denominators...), f.bleu.PossibleMatches...)
			a.bleus = append(a.bleus, f.bleu.HypLen, f.bleu.RefLen, f.bleu.ShortestRefLen)
		}
	}
}

// addLabelled counts a labelled record, in the classification table when it is selected, and
// keeps its part in auc and the query groups' metrics when they are.
func (a *corpusGroup) addLabelled(l *labelled) {
	a.labelled++
	if !l.hasText {
		a.noText++
	} else if a.cfg.wants("accuracy", "precision", "recall", "f1_score") {
		g, p := a.classes.add(l.gold, l.pred)
		if a.keep {
			a.labelIDs = append(a.labelIDs, g, p)
		}
	}
	switch {
	case l.badScore:
		return
	case math.IsNaN(l.score):
		a.noScore++
		return
	case !l.grouped:
		a.noGroup++
	default:
		a.grouped++
	}
	twin := l.gold != a.cfg.posLabel && strings.EqualFold(strings.TrimSpace(l.gold), strings.TrimSpace(a.cfg.posLabel))
	if a.cfg.wants("auc") {
		if twin {
			a.posTwinAUC++
			a.firstTwin(l.gold)
		}
		a.scored = append(a.scored, scoredRecord{l.score, l.gold == a.cfg.posLabel})
		switch l.gold {
		case "1":
		case "0":
			a.aucZero = true
		case "-1":
			a.aucM1 = true
		default:
			if a.aucOthers == 0 {
				a.aucOther = l.gold
			}
			a.aucOthers++
			a.aucWord = a.aucWord || !binarySpelling(l.gold)
		}
	}
	if l.grouped && a.cfg.wants("pn", "pairwise_acc", "mrr", "map") {
		rel := relevance(l.gold, a.cfg.posLabel)
		if twin && rel == 0 {
			a.posTwinRank++
			a.firstTwin(l.gold)
		}
		a.ranked = append(a.ranked, rankedRecord{l.group, rel, l.score})
	}
}

// firstTwin keeps gold as the label the --pos-label twin warning names, when it is the first
// such label the warning counts.
func (a *corpusGroup) firstTwin(gold string) {
	if a.posTwin == "" {
		a.posTwin = gold
	}
}

// relevance is a gold label's relevance in its query group: the label when it is a number, read
// as a score is (rawNumber: a finite decimal, blanks around it ignored, as Python's float()
// ignores them), else 1 when it is pos and 0 otherwise. "NaN" is no number: read as one, mrr and
// map counted it relevant (NaN != 0) while pn and pairwise_acc paired it with nothing; nor is a
// hex float ("0x1p0", which float() refuses), and " 1" is 1, not a label that is no number.
func relevance(gold, pos string) float64 {
	// A label that cannot start a decimal ("yes", "relevant") is no number: asked of every
	// record, ParseDecimal would build an error for each.
	if s := strings.TrimSpace(gold); s != "" && strings.ContainsRune("+-.0123456789", rune(s[0])) {
		if r, err := command.ParseDecimal(s); err == nil {
			return r
		}
	}
	if gold == pos {
		return 1
	}
	return 0
}

// addChunk adds a record's chunk counts to the group's.
func (a *corpusGroup) addChunk(r *metric.ChunkReport) {
	a.chunk.Records++
	a.chunk.Tokens += r.Tokens
	a.chunk.TokenCorrect += r.TokenCorrect
	for t, c := range r.PerType {
		p := a.chunkPerType[t]
		p.Label, p.Infer, p.Correct = p.Label+c.Label, p.Infer+c.Infer, p.Correct+c.Correct
		a.chunkPerType[t] = p
	}
	t := &a.chunkTotalCnt
	t.Label, t.Infer, t.Correct = t.Label+r.Total.Label, t.Infer+r.Total.Infer, t.Correct+r.Total.Correct
	if a.keep {
		a.chunks = append(a.chunks, r.Total)
	}
}

// value is one headline number for overall.metrics: v over n records, and for the metrics whose
// resampled unit is the query group (pn, pairwise_acc, mrr, map) over that many queries.
type value struct {
	name    string
	v       *float64
	n       int
	queries int
}

// summarize computes the corpus section, the headline values and the warnings.
func (a *corpusGroup) summarize() (*Corpus, []value, []string) {
	c := &Corpus{}
	o := &corpusOut{cfg: a.cfg}
	if a.cfg.wants("accuracy", "precision", "recall", "f1_score") {
		a.putClassification(c, o)
	}
	if a.cfg.wants("auc") {
		c.AUC = a.auc()
		o.put("auc", c.AUC.AUC, c.AUC.Records)
		if c.AUC.AUC == nil {
			o.warn = append(o.warn, fmt.Sprintf("auc: needs records of both classes with a score (positives %d, negatives %d)", c.AUC.Positives, c.AUC.Negatives))
		}
		if w := a.aucLabels(); w != "" {
			o.warn = append(o.warn, w)
		}
	}
	if a.cfg.wants("pn", "pairwise_acc") {
		a.putPairwise(c, o)
	}
	if a.cfg.wants("mrr", "map") {
		var relMRR, relMAP int
		c.Ranking, relMRR, relMAP = a.ranking()
		o.putQueries("mrr", c.Ranking.MRR, c.Ranking.Records, c.Ranking.Queries)
		o.putQueries("map", c.Ranking.MAP, c.Ranking.Records, c.Ranking.Queries)
		if c.Ranking.Queries == 0 {
			o.warn = append(o.warn, noGroupWarning(a.cfg.selected("mrr", "map")))
		} else {
			// Each query without a relevant record scores 0, as in the reference; but a corpus
			// without one is most likely labels read as no number (yes/no without --label-map):
			// say so, rather than leave the 0 silent.
			var none []string
			if relMRR == 0 && a.cfg.wants("mrr") {
				none = append(none, "mrr")
			}
			if relMAP == 0 && a.cfg.wants("map") {
				none = append(none, "map")
			}
			if len(none) > 0 {
				o.warn = append(o.warn, fmt.Sprintf("%s: no record is relevant (the gold label as a number, else 1 for --pos-label %q and 0 for any other; mrr takes label != 0, map int(label) != 0), so every query scores 0",
					strings.Join(none, ", "), a.cfg.posLabel))
			}
		}
	}
	if w := a.posTwinWarning(); w != "" {
		o.warn = append(o.warn, w)
	}
	o.warn = append(o.warn, a.leftOut()...)
	if a.cfg.wants("chunk_p", "chunk_r", "chunk_f1") {
		a.putChunk(c, o)
	}
	if a.cfg.wants("perplexity") {
		c.Perplexity = a.perplexity()
		o.put("perplexity", c.Perplexity.PPL, c.Perplexity.Records)
		if n := a.negLoss; n > 0 {
			o.warn = append(o.warn, fmt.Sprintf("perplexity: %s a negative loss at %s, where a summed negative log-likelihood is 0 or more: a log-likelihood must be negated first; the perplexity counts it all the same, as ERNIE-kit's Ppl does",
				english.Count(n, "record has", "records have"), a.cfg.lossPath))
		}
		if c.Perplexity.Records == 0 {
			o.warn = append(o.warn, fmt.Sprintf("perplexity: no record has a loss at %s and a token count at %s, so it has no value", a.cfg.lossPath, a.cfg.tokensPath))
		}
		if p := c.Perplexity; p.Records > 0 && p.PPL == nil {
			// exp of a mean loss per token past about 709.78 nats overflows a float64 (and
			// ERNIE-kit's Ppl with it): say so, rather than leave a null unexplained.
			o.warn = append(o.warn, fmt.Sprintf("perplexity: no value: the loss per token (total loss / %d tokens) is too large for exp() of it to be a number (ERNIE-kit's Ppl overflows alike): are the losses at %s summed over tokens, in nats?",
				p.WordCount, a.cfg.lossPath))
		}
	}
	if a.cfg.wants("corpus_bleu", "gen_eval_bleu") {
		a.putBLEU(c, o)
	}
	return c, o.vals, o.warn
}

// aucLabels warns, when --pos-label was not given, of gold labels other than 0/1 or -1/1 among
// auc's records: the default takes those labelled 1 as the positives and every other label as a
// negative, where scikit-learn's roc_curve refuses such labels without a pos_label (and
// roc_auc_score would take the larger of two labels as the positive class); "" when there is
// nothing to say.
func (a *corpusGroup) aucLabels() string {
	if a.cfg.posLabelGiven {
		return ""
	}
	var what string
	why := " (scikit-learn's roc_curve refuses such labels without a pos_label)"
	switch {
	case a.aucOthers > 0:
		what = fmt.Sprintf("%s a gold label other than 0, 1 and -1 (the first: %q)", english.Count(a.aucOthers, "record has", "records have"), a.aucOther)
		if !a.aucWord {
			why = ", a label being compared as its text (scikit-learn's roc_curve, given numbers or booleans, reads 1.0 and true as 1)"
		}
	case a.aucZero && a.aucM1:
		what = "the gold labels are 0, -1 and perhaps 1, not 0/1 nor -1/1"
	default:
		return ""
	}
	return fmt.Sprintf("auc: %s and --pos-label is not given: the records labelled %q are the positives and every other label a negative%s; give --pos-label to say which label is positive",
		what, a.cfg.posLabel, why)
}

// posTwinWarning warns of gold labels that differ from --pos-label only in case or surrounding
// white space: labels compare exactly, so auc counts such a record a negative, and the query
// groups' metrics give it relevance 0, as the classification metrics' classes are kept apart
// (caseTwins); "" when there is none.
func (a *corpusGroup) posTwinWarning() string {
	var names []string
	n := 0
	if a.posTwinAUC > 0 {
		names, n = append(names, "auc"), a.posTwinAUC
	}
	if a.posTwinRank > 0 {
		names, n = append(names, a.cfg.selected("pn", "pairwise_acc", "mrr", "map")...), max(n, a.posTwinRank)
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s a gold label that differs from --pos-label %q only in case or surrounding white space (the first: %q): labels compare exactly, so %s negative (relevance 0); --label-map joins them (%s=%s)",
		strings.Join(names, ", "), english.Count(n, "record has", "records have"), a.cfg.posLabel, a.posTwin,
		english.Form(n, "it is", "they are"), strings.ToLower(strings.TrimSpace(a.cfg.posLabel)), strings.TrimSpace(a.cfg.posLabel))
}

// binarySpelling reports whether label, a gold label other than "1", "0" and "-1", is one of
// them spelt otherwise as a JSON number or boolean reads (1.0, -1e0, true, false): its text
// here, but the number itself to scikit-learn, which takes such labels as 0/1 or -1/1.
func binarySpelling(label string) bool {
	if label == "true" || label == "false" {
		return true
	}
	v, err := command.ParseDecimal(label)
	return err == nil && (v == 0 || v == 1 || v == -1)
}

// corpusOut gathers the headline values of the selected corpus metrics, and the warnings, as
// summarize fills the corpus section.
type corpusOut struct {
	cfg  *corpusConfig
	vals []value
	warn []string
}

// put adds the value of the metric name over n records, when it is selected.
func (o *corpusOut) put(name string, v *float64, n int) {
	if o.cfg.wants(name) {
		o.vals = append(o.vals, value{name: name, v: v, n: n})
	}
}

// putQueries puts a value whose resampled unit is the query group.
func (o *corpusOut) putQueries(name string, v *float64, n, queries int) {
	if o.cfg.wants(name) {
		o.vals = append(o.vals, value{name: name, v: v, n: n, queries: queries})
	}
}

// putClassification fills c's classification section and puts accuracy and the averaged
// precision, recall and F1.
func (a *corpusGroup) putClassification(c *Corpus, o *corpusOut) {
	cl, w := a.classification()
	c.Classification = cl
	o.warn = append(o.warn, w...)
	var acc, p, r, f *float64
	if cl != nil {
		acc = ptr(cl.Accuracy)
		if avg := cl.average(); avg != nil {
			p, r, f = ptr(avg.Precision), ptr(avg.Recall), ptr(avg.F1)
		}
	}
	n := a.labelled - a.noText // the records with a predicted label
	o.put("accuracy", acc, n)
	o.put("precision", p, n)
	o.put("recall", r, n)
	o.put("f1_score", f, n)
}

// putPairwise fills c's pairwise section and puts pn and pairwise_acc, warning when no pair
// could be made or none is ordered wrongly.
func (a *corpusGroup) putPairwise(c *Corpus, o *corpusOut) {
	c.Pairwise = a.pairwise()
	pn := c.Pairwise.PN
	if c.Pairwise.Records == 0 {
		pn = nil // a metric of count 0 has no mean; the section keeps the reference's figure
	}
	o.putQueries("pn", pn, c.Pairwise.Records, c.Pairwise.Groups)
	o.putQueries("pairwise_acc", c.Pairwise.PairwiseAcc, c.Pairwise.Records, c.Pairwise.Groups)
	switch {
	case c.Pairwise.Records == 0:
		names := a.cfg.selected("pn", "pairwise_acc")
		w := noGroupWarning(names)
		if a.cfg.wants("pn") {
			w = fmt.Sprintf("%s: no record has a gold label, a score and a query group, so %s no mean (corpus.pairwise gives the reference's figures for no pair: pn %g, pn_inf true)",
				strings.Join(names, ", "), english.Form(len(names), "it has", "they have"), PNCap)
		}
		o.warn = append(o.warn, w)
	case c.Pairwise.Pairs == 0:
		// Not "no pair is ordered wrongly", as though there had been pairs; and say why
		// pairwise_acc is null.
		names := a.cfg.selected("pn", "pairwise_acc")
		w := fmt.Sprintf("%s: no query group has two records of different relevance (the gold label as a number, else 1 for --pos-label %q and 0 for any other), so there is no pair",
			strings.Join(names, ", "), a.cfg.posLabel)
		if a.cfg.wants("pairwise_acc") {
			w += ": pairwise_acc has no value"
		}
		if a.cfg.wants("pn") {
			w += fmt.Sprintf("; pn is the reference's figure for no pair, %g with pn_inf true", PNCap)
		}
		o.warn = append(o.warn, w)
	case c.Pairwise.PNInf && a.cfg.wants("pn"):
		o.warn = append(o.warn, fmt.Sprintf("pn: no pair is ordered wrongly, so the ratio is infinite (reported as %g, pn_inf true)", PNCap))
	}
}

// putChunk fills c's chunk section and puts chunk precision, recall and F1.
func (a *corpusGroup) putChunk(c *Corpus, o *corpusOut) {
	c.Chunk = a.chunkSummary()
	var p, r, f *float64
	if c.Chunk.Records > 0 {
		p, r, f = ptr(c.Chunk.Precision), ptr(c.Chunk.Recall), ptr(c.Chunk.F1)
	}
	o.put("chunk_p", p, c.Chunk.Records)
	o.put("chunk_r", r, c.Chunk.Records)
	o.put("chunk_f1", f, c.Chunk.Records)
	if c.Chunk.Records == 0 {
		// No row in the table: said, as of a per-record metric named that no record gave a value.
		names := a.cfg.selected("chunk_p", "chunk_r", "chunk_f1")
		o.warn = append(o.warn, fmt.Sprintf("%s: no record has gold tags and as many predicted ones (a prediction text), so %s no value",
			strings.Join(names, ", "), english.Form(len(names), "it has", "they have")))
	}
	if c.Chunk.Records > 0 && c.Chunk.Label == 0 && c.Chunk.Infer == 0 {
		// The reference's 0 for 0/0: said, so that it is not read as every chunk missed.
		o.warn = append(o.warn, fmt.Sprintf("%s: no record has a chunk, gold or predicted (every tag O, or none the scheme reads as one), so each is the reference's 0 for 0 of 0",
			strings.Join(a.cfg.selected("chunk_p", "chunk_r", "chunk_f1"), ", ")))
	}
}

// putBLEU fills c's corpus BLEU and GenEval sections, when any record had BLEU counts, and puts
// corpus_bleu and gen_eval_bleu.
func (a *corpusGroup) putBLEU(c *Corpus, o *corpusOut) {
	if a.bleuN > 0 {
		c.CorpusBLEU = corpusBLEU(a.bleu, a.cfg.bleuWeights, a.bleuN)
		c.GenEval = genEval(a.bleu, a.cfg.bleuWeights)
	}
	var b, g *float64
	if c.CorpusBLEU != nil {
		b = ptr(c.CorpusBLEU.BLEU)
	}
	if c.GenEval != nil {
		g = ptr(c.GenEval.BLEU)
	}
	o.put("corpus_bleu", b, a.bleuN)
	o.put("gen_eval_bleu", g, a.bleuN)
	// Say why gen_eval_bleu has no value, rather than leave the null unexplained.
	switch {
	case a.bleuN == 0:
		names := a.cfg.selected("corpus_bleu", "gen_eval_bleu")
		o.warn = append(o.warn, fmt.Sprintf("%s: no record has both a prediction text and answers, so %s no value",
			strings.Join(names, ", "), english.Form(len(names), "it has", "they have")))
	case g != nil || !a.cfg.wants("gen_eval_bleu"):
	case !uniformWeights(a.cfg.bleuWeights):
		o.warn = append(o.warn, "gen_eval_bleu: no value: ERNIE-kit's gen_eval weighs its n-gram orders the same, and --bleu-weights are not uniform")
	default:
		o.warn = append(o.warn, "gen_eval_bleu: no value: every record's shortest answer is empty, a reference length of 0, which ERNIE-kit's gen_eval divides by")
	}
}

// leftOut says how many labelled records the selected score metrics leave out for want of a
// score (auc, pn, pairwise_acc, mrr, map) or, scored, of a query group (pn, pairwise_acc, mrr,
// map): where the classification metrics take them, they are no unscored records, and the
// smaller count alone told of them. A score that is no number is no missing one: its record's
// metric error names it, and says the record was not fully scored.
func (a *corpusGroup) leftOut() []string {
	noScore, noGroup, scored, labelled := a.noScore, a.noGroup, a.noGroup+a.grouped, a.labelled
	var w []string
	// A prediction without a text (a score alone) gives no label: not the class "".
	if names := a.cfg.selected("accuracy", "precision", "recall", "f1_score"); a.noText > 0 && len(names) > 0 {
		w = append(w, fmt.Sprintf("%s: %d of %d %s %s no predicted label (a prediction without a text) and %s left out",
			strings.Join(names, ", "), a.noText, labelled, english.Form(labelled, "labelled record", "labelled records"),
			english.Form(a.noText, "has", "have"), english.Form(a.noText, "is", "are")))
	}
	// Where every one is left out, the warning that the metric has no value says why.
	if names := a.cfg.selected("auc", "pn", "pairwise_acc", "mrr", "map"); noScore > 0 && noScore < labelled && len(names) > 0 {
		w = append(w, fmt.Sprintf("%s: %d of %d %s %s no score at %s and %s left out",
			strings.Join(names, ", "), noScore, labelled, english.Form(labelled, "labelled record", "labelled records"),
			english.Form(noScore, "has", "have"), a.cfg.scorePath, english.Form(noScore, "is", "are")))
	}
	if names := a.cfg.selected("pn", "pairwise_acc", "mrr", "map"); noGroup > 0 && noGroup < scored && len(names) > 0 {
		w = append(w, fmt.Sprintf("%s: %d of %d %s %s no query group at %s and %s left out",
			strings.Join(names, ", "), noGroup, scored, english.Form(scored, "record with a score", "records with a score"),
			english.Form(noGroup, "has", "have"), a.cfg.groupPath, english.Form(noGroup, "is", "are")))
	}
	return w
}
