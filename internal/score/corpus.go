package score

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Corpus metrics are functions of the whole set of records (accuracy, AUC, corpus BLEU, ...), not
// means of per-record values: records get no score for them, and the summary reports them overall.
// They run only when named in --metrics.
//
// Memory: each group (overall, by type, by --by value) keeps the running figures the metrics are
// finished from, which do not grow with the records: the classification table (a count per
// (gold, predicted) label pair), the chunk and corpus BLEU counts summed, and the perplexity's
// record and token counts and its loss summed as pysum.Numpy sums it (one block of 8192 losses
// held). Two families keep a part of each record by their nature: auc sorts every scored record
// (its score and class, 16 bytes), and pn, pairwise_acc, mrr and map pair or rank the records of
// each query group, which may come anywhere in the input (a record's group, relevance and score).
// With intervals the bootstrap resamples each record's part, so it is kept as well: its two label
// ids (8 bytes), loss and token count (16), chunk counts (24) and BLEU counts (120 at four n-gram
// orders); none of it with --bootstrap 0 (corpus_group.go).

// corpusMetric is one line of the corpus part of --help.
type corpusMetric struct {
	names []string
	about string
}

var corpusMetrics = []corpusMetric{
	{[]string{"accuracy"}, "fraction of records whose predicted label equals the gold label"},
	{[]string{"precision", "recall", "f1_score"}, "scikit-learn precision/recall/F1 of the labels, averaged by --average"},
	{[]string{"auc"}, "ROC AUC of prediction.score for gold label == --pos-label (trapezoid, sklearn roc_curve)"},
	{[]string{"pn", "pairwise_acc"}, "ERNIE Pn: right/wrong ordered (higher label, lower label) score pairs within each group, and right/pairs"},
	{[]string{"mrr", "map"}, "mean reciprocal rank and mean average precision of each group ranked by prediction.score"},
	{[]string{"chunk_p", "chunk_r", "chunk_f1"}, "conlleval chunk precision/recall/F1 of BIO/IOB/IOBES tag sequences, chunked by seqeval"},
	{[]string{"perplexity"}, "exp(total loss / total tokens) from per-record summed loss (nats) and token counts"},
	{[]string{"corpus_bleu", "gen_eval_bleu"}, "NLTK corpus_bleu (weights 0.25×4) and ERNIE gen_eval BLEU over split() tokens, case kept"},
}

// metricGroups are names in --metrics that stand for several metrics.
var metricGroups = map[string][]string{
	"classification": {"accuracy", "precision", "recall", "f1_score"},
	"pairwise":       {"pn", "pairwise_acc"},
	"ranking":        {"mrr", "map"},
	"chunk":          {"chunk_p", "chunk_r", "chunk_f1"},
	// the twelve figures hotpot_evaluate_v1.py prints
	"hotpot": {"hotpot_em", "hotpot_f1", "hotpot_prec", "hotpot_recall", "sp_em", "sp_f1", "sp_prec", "sp_recall",
		"joint_em", "joint_f1", "joint_prec", "joint_recall"},
}

func corpusNames() []string {
	var names []string
	for _, m := range corpusMetrics {
		names = append(names, m.names...)
	}
	return names
}

// averages are the --average values.
var averages = []string{"macro", "micro", "weighted", "binary"}

// corpusConfig is what the corpus metrics need from the flags.
type corpusConfig struct {
	want                                       []string // selected corpus metric names, in corpusNames order
	labelPath                                  fieldPath
	labels                                     labelMap
	average                                    string
	zeroDiv                                    float64
	zeroDivWarn                                bool // --zero-division warn, the default: ill-defined ratios are warned of, as sklearn's "warn" does
	posLabel                                   string
	posLabelGiven                              bool // --pos-label (or QA_POS_LABEL) given, not its default
	groupPath, scorePath, lossPath, tokensPath fieldPath
	classes                                    []string  // --labels: the classes, in order (nil: every label seen)
	bleuWeights                                []float64 // --bleu-weights: one per n-gram order
}

// uniformWeights reports whether every weight is 1/len(w), the only case ERNIE-kit's gen_eval covers.
func uniformWeights(w []float64) bool {
	for _, x := range w {
		if x != 1/float64(len(w)) {
			return false
		}
	}
	return true
}

// selected returns those of names that are selected, in the order given.
func (c *corpusConfig) selected(names ...string) []string {
	var out []string
	for _, n := range names {
		if slices.Contains(c.want, n) {
			out = append(out, n)
		}
	}
	return out
}

func (c *corpusConfig) wants(names ...string) bool {
	for _, n := range names {
		if slices.Contains(c.want, n) {
			return true
		}
	}
	return false
}

func (c *corpusConfig) labelled() bool {
	return c.wants("accuracy", "precision", "recall", "f1_score", "auc", "pn", "pairwise_acc", "mrr", "map")
}

// takesPart reports whether a record with label facts l takes part in a selected label metric:
// the classification metrics take every labelled record with a predicted label (a prediction
// with a text), auc those with a score, and the pairwise and ranking metrics those with a score
// and a query group. A record that takes part in none is no scored record.
func (c *corpusConfig) takesPart(l *labelled) bool {
	switch {
	case l.hasText && c.wants("accuracy", "precision", "recall", "f1_score"):
		return true
	case math.IsNaN(l.score):
		return false
	}
	return c.wants("auc") || l.grouped && c.wants("pn", "pairwise_acc", "mrr", "map")
}

// corpusFacts are the values one record contributes to the corpus metrics, taken in a worker.
type corpusFacts struct {
	lab      *labelled
	loss     float64
	tokens   int
	hasLoss  bool
	chunk    *metric.ChunkReport
	bleu     *metric.BLEUCounts
	problems []corpusProblem // why this record left out metrics it should have had
}

// corpusProblem is why a record left out the selected corpus metrics it names.
type corpusProblem struct {
	metrics []string
	msg     string
}

// problem records that the record left out the selected ones of metrics, and why.
func (c *corpusConfig) problem(f *corpusFacts, msg string, metrics ...string) {
	var sel []string
	for _, m := range metrics {
		if c.wants(m) {
			sel = append(sel, m)
		}
	}
	f.problems = append(f.problems, corpusProblem{metrics: sel, msg: msg})
}

// any reports whether the record takes part in some corpus metric.
func (f corpusFacts) any() bool {
	return f.lab != nil || f.hasLoss || f.chunk != nil || f.bleu != nil
}

// labelled is a record's part in the label metrics.
type labelled struct {
	gold, pred, group string
	grouped           bool
	// hasText: the prediction gives a label; one without a text (a score alone) gives none, not
	// the empty label "", and the classification metrics leave it out.
	hasText  bool
	badScore bool    // the score is no number, a metric error reported of the record
	score    float64 // NaN when the record has none
}

// extract takes the facts of one record. A record without a prediction, or whose prediction
// failed, takes part in nothing; one whose prediction has no text (a score, a loss or supporting
// facts alone) gives no answer, not the empty one, so it takes part in none of the metrics that
// read the text: the classification metrics, chunk and corpus BLEU.
func (c *corpusConfig) extract(data []byte, rec *record.Record) (corpusFacts, error) {
	var f corpusFacts
	if len(c.want) == 0 || rec.Prediction == nil || rec.Prediction.Error != "" {
		return f, nil
	}
	var top map[string]json.RawMessage
	if c.labelPath != nil || c.labelled() || c.wants("perplexity") {
		var err error
		if top, err = topMembers(data); err != nil {
			return f, err
		}
	}
	gold, hasGold, badGold := c.gold(rec, top)
	if badGold {
		c.problem(&f, fmt.Sprintf("%s is no string, number or boolean", c.labelPath),
			"accuracy", "precision", "recall", "f1_score", "auc", "pn", "pairwise_acc", "mrr", "map", "chunk_p", "chunk_r", "chunk_f1")
	}
	pred, hasText := rec.Prediction.Text, rec.Prediction.HasText()
	if c.labelled() && hasGold {
		l := &labelled{gold: c.labels.normalize(gold), pred: c.labels.normalize(pred), hasText: hasText, score: math.NaN()}
		// The score is read only for the metrics that take it: one that is no number is no error
		// of the classification metrics, which never read it.
		if raw, ok := c.scorePath.lookup(top); ok && c.wants("auc", "pn", "pairwise_acc", "mrr", "map") {
			if v, ok := rawNumber(raw); ok {
				l.score = v
			} else {
				l.badScore = true
				c.problem(&f, fmt.Sprintf("%s is not a number", c.scorePath), "auc", "pn", "pairwise_acc", "mrr", "map")
			}
		}
		if raw, ok := c.groupPath.lookup(top); ok {
			l.group, l.grouped = rawLabel(raw)
		}
		if c.takesPart(l) {
			f.lab = l
		}
	}
	if c.wants("perplexity") {
		c.perplexityFacts(top, &f)
	}
	if c.wants("chunk_p", "chunk_r", "chunk_f1") && hasGold && hasText {
		g, p := strings.Fields(gold), strings.Fields(pred)
		if len(g) == len(p) {
			r := metric.EvalChunks([][]string{g}, [][]string{p})
			r.Gold, r.Pred = nil, nil
			f.chunk = &r
		} else {
			c.problem(&f, fmt.Sprintf("chunk: %s for %s", english.Count(len(p), "predicted tag", "predicted tags"), english.Count(len(g), "gold tag", "gold tags")),
				"chunk_p", "chunk_r", "chunk_f1")
		}
	}
	if c.wants("corpus_bleu", "gen_eval_bleu") && len(rec.Answers) > 0 && hasText {
		f.bleu = newBleuCounts(pred, rec.Answers, len(c.bleuWeights))
	}
	return f, nil
}

// gold returns the gold label: answers[0], or the value at --label-field. bad: the field holds a
// value that is no label (an array, an object), which cannot be read, not one missing or null.
func (c *corpusConfig) gold(rec *record.Record, top map[string]json.RawMessage) (label string, ok, bad bool) {
	if c.labelPath == nil {
		if len(rec.Answers) == 0 {
			return "", false, false
		}
		return rec.Answers[0], true, false
	}
	raw, ok := c.labelPath.lookup(top)
	if !ok {
		return "", false, false
	}
	label, ok = rawLabel(raw)
	return label, ok, !ok
}

// maxTokens is the largest token count of one record that perplexity takes: far more than any
// text holds, and small enough that the int sum of the counts of every record a run can hold
// does not overflow. A count of 2^62 on two records once summed to -2^63 tokens (a perplexity
// of 1 over a negative word_count), and one past 2^63, converted to an int, to 0 tokens (no
// perplexity, said to overflow exp()).
const maxTokens = math.MaxInt32

func (c *corpusConfig) perplexityFacts(top map[string]json.RawMessage, f *corpusFacts) {
	rl, okl := c.lossPath.lookup(top)
	rt, okt := c.tokensPath.lookup(top)
	if !okl && !okt {
		return
	}
	loss, okl := rawNumber(rl)
	tokens, okt := rawNumber(rt)
	if !okl || !okt || tokens != math.Trunc(tokens) || tokens < 1 || tokens > maxTokens || math.IsInf(loss, 0) || math.IsNaN(loss) {
		c.problem(f, fmt.Sprintf("perplexity: want a finite number at %s and a whole token count from 1 to %d at %s", c.lossPath, maxTokens, c.tokensPath), "perplexity")
		return
	}
	f.loss, f.tokens, f.hasLoss = loss, int(tokens), true
}

// newBleuCounts returns one record's corpus BLEU counts over split() tokens, compared as exact
// strings, case and all, as NLTK's corpus_bleu and ERNIE's gen_eval compare the token lists they
// are given (sentence BLEU, bleu1 to bleu4, lower-cases first, as its contract says); the summary
// merges them and finishes once with metric.BLEUCounts.
func newBleuCounts(pred string, answers []string, orders int) *metric.BLEUCounts {
	refs := make([][]string, len(answers))
	for i, a := range answers {
		refs[i] = textnorm.Split(a)
	}
	c := metric.NewBLEUCounts(orders)
	c.Add(textnorm.Split(pred), refs)
	return c
}

// corpusBLEU finishes NLTK's corpus_bleu from the summed counts.
func corpusBLEU(c *metric.BLEUCounts, weights []float64, records int) *CorpusBLEU {
	r := c.NLTK(weights)
	out := &CorpusBLEU{Records: records, BLEU: r.BLEU, Precisions: r.Precisions, Numerators: r.Numerators,
		Denominators: r.Denominators, BP: r.BP, HypLen: r.HypLen, RefLen: r.RefLen}
	if !math.IsNaN(r.Ratio) {
		out.Ratio = ptr(r.Ratio)
	}
	return out
}

// genEval finishes ERNIE-kit's gen_eval BLEU; nil when the reference would raise (no reference
// tokens) or the weights are not uniform (gen_eval has none).
func genEval(c *metric.BLEUCounts, weights []float64) *GenEval {
	g, ok := c.GenEval()
	if !ok || !uniformWeights(weights) {
		return nil
	}
	return &GenEval{BLEU: g.BLEU, Precisions: g.Precisions, BP: g.BP, Ratio: g.Ratio,
		TranslationLength: g.TranslationLength, ReferenceLength: g.ReferenceLength}
}
