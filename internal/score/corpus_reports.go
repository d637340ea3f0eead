package score

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/metric"
)

// manyClasses is the class count above which the labels are probably not labels.
const manyClasses = 100

// labelOrder is numeric when every label is an integer, of any size (metric.LabelOrder compares
// them exactly), else by code point.
//
// Note: strconv.ParseInt took only those of 64 bits, so one label or query group past 2^63
// sorted every one of them by code point ("10" before "2").
func labelOrder(lists ...[]string) metric.LabelOrder {
	for _, l := range lists {
		for _, s := range l {
			if !isInteger(s) {
				return metric.LabelOrder{}
			}
		}
	}
	return metric.LabelOrder{Numeric: true}
}

// isInteger reports whether s is a decimal integer as strconv.ParseInt reads one, without its
// range: an optional sign, then one or more ASCII digits.
func isInteger(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (a *corpusGroup) classification() (*Classification, []string) {
	if len(a.labs) == 0 {
		return nil, []string{"classification: no record has both a gold and a predicted label"}
	}
	gold, pred := make([]string, len(a.labs)), make([]string, len(a.labs))
	for i, l := range a.labs {
		gold[i], pred[i] = l.gold, l.pred
	}
	order := labelOrder(gold, pred)
	opt := a.prfOptions(order)
	cl := &Classification{Records: len(a.labs), Average: a.cfg.average, ZeroDivision: a.cfg.zeroDiv,
		PosLabel: a.cfg.posLabel, LabelOrder: "code point", ClassReport: metric.Classify(gold, pred, opt)}
	if order.Numeric {
		cl.LabelOrder = "numeric"
	}
	var warn []string
	if n := len(cl.CMLabels); n > manyClasses {
		warn = append(warn, fmt.Sprintf("classification: %d distinct labels; free-text answers? map them to labels with --label-map", n))
	} else if twins := caseTwins(cl.CMLabels); len(twins) > 0 {
		warn = append(warn, caseTwinWarning(twins))
	}
	if absent := absentClasses(a.cfg.classes, gold, pred); len(absent) > 0 {
		warn = append(warn, fmt.Sprintf("classification: --labels names %s %s that no record has as its gold or predicted label (labels compare exactly; the records have %s): %s precision and recall are --zero-division's, and the macro average counts %s",
			english.Form(len(absent), "a class", "classes"), command.QuotedList(absent), command.QuotedList(cl.CMLabels), english.Form(len(absent), "its", "their"), english.Form(len(absent), "it", "them")))
	}
	if a.cfg.average == "binary" && cl.Binary == nil {
		warn = append(warn, fmt.Sprintf("classification: --average binary needs at most two labels, one of them --pos-label %q (labels: %s); precision, recall and f1_score are null", a.cfg.posLabel, command.QuotedList(cl.CMLabels)))
	}
	return cl, warn
}

// caseTwins returns the sets of labels, each in labels' order, that are the same once trimmed of
// white space and lower-cased ("Yes", "yes" and "YES "), in the order of their first label: a
// model's reply "Yes" counted as a class of its own beside the gold "yes" is more likely a
// mapping forgotten than a class meant.
func caseTwins(labels []string) [][]string {
	at := map[string]int{}
	var sets [][]string
	for _, l := range labels {
		k := strings.ToLower(strings.TrimSpace(l))
		if i, ok := at[k]; ok {
			sets[i] = append(sets[i], l)
			continue
		}
		at[k] = len(sets)
		sets = append(sets, []string{l})
	}
	return slices.DeleteFunc(sets, func(s []string) bool { return len(s) < 2 })
}

// caseTwinWarning names the first five sets of twins, and counts the others.
func caseTwinWarning(twins [][]string) string {
	var sets []string
	for _, t := range twins[:min(len(twins), 5)] {
		sets = append(sets, "("+command.QuotedList(t)+")")
	}
	if more := len(twins) - len(sets); more > 0 {
		sets = append(sets, fmt.Sprintf("%d more", more))
	}
	return fmt.Sprintf("classification: labels that differ only in case or surrounding white space are separate classes, as scikit-learn compares labels exactly: %s; --label-map joins them (yes=yes maps \"Yes\" and \"yes \" to \"yes\")",
		strings.Join(sets, ", "))
}

// absentClasses returns the classes, in order, that are neither a gold nor a predicted label.
func absentClasses(classes, gold, pred []string) []string {
	if len(classes) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(classes))
	for _, l := range gold {
		seen[l] = true
	}
	for _, l := range pred {
		seen[l] = true
	}
	var out []string
	for _, c := range classes {
		if !seen[c] {
			out = append(out, c)
		}
	}
	return out
}

// prfOptions are scikit-learn's options as the flags set them, for labels in order.
func (a *corpusGroup) prfOptions(order metric.LabelOrder) metric.PRFOptions {
	opt := metric.PRFOptions{ZeroDivision: a.cfg.zeroDiv, Order: order, Labels: a.cfg.classes}
	if a.cfg.average == "binary" {
		opt.PosLabel = &a.cfg.posLabel
	}
	return opt
}

// average returns the --average figures, or nil when they do not exist.
func (c *Classification) average() *metric.PRF {
	switch c.Average {
	case "micro":
		return &c.Micro
	case "weighted":
		return &c.Weighted
	case "binary":
		return c.Binary
	}
	return &c.Macro
}

func (a *corpusGroup) scored() []labelled {
	var out []labelled
	for _, l := range a.labs {
		if !math.IsNaN(l.score) {
			out = append(out, l)
		}
	}
	return out
}

func (a *corpusGroup) auc() *AUC {
	labs := a.scored()
	scores, pos := make([]float64, len(labs)), make([]bool, len(labs))
	for i, l := range labs {
		scores[i], pos[i] = l.score, l.gold == a.cfg.posLabel
	}
	roc := metric.ROCCurve(scores, pos)
	r := &AUC{Records: len(labs), Positives: roc.NPos, Negatives: roc.NNeg}
	if v := roc.AUC(); !math.IsNaN(v) {
		r.AUC = &v
	}
	return r
}

// grouped returns the scored records with a group, as parallel slices; a gold label that is a
// number is its relevance, any other is 1 when it equals --pos-label and 0 otherwise.
func (a *corpusGroup) grouped() (groups []string, rel, scores []float64) {
	for _, l := range a.scored() {
		if !l.grouped {
			continue
		}
		r, err := strconv.ParseFloat(l.gold, 64)
		if err != nil {
			r = 0
			if l.gold == a.cfg.posLabel {
				r = 1
			}
		}
		groups, rel, scores = append(groups, l.group), append(rel, r), append(scores, l.score)
	}
	return groups, rel, scores
}

// noGroupWarning says that the named metrics, which rank or pair records within query groups,
// have no value because no record could take part.
func noGroupWarning(names []string) string {
	return fmt.Sprintf("%s: no record has a gold label, a score and a query group, so %s no value",
		strings.Join(names, ", "), english.Form(len(names), "it has", "they have"))
}

func (a *corpusGroup) pairwise() *Pairwise {
	groups, rel, scores := a.grouped()
	pc := metric.CountGroupPairs(groups, rel, scores)
	p := &Pairwise{Records: len(groups), Groups: distinct(groups), Pairs: pc.Pairs, Right: pc.Right,
		Wrong: pc.Wrong, Ties: pc.Ties, PNTiesSkipped: pc.PNTiesSkipped()}
	pn, inf := pc.PN(PNCap)
	p.PN, p.PNInf = &pn, inf
	if acc, ok := pc.Accuracy(); ok {
		p.PairwiseAcc = &acc
	}
	return p
}

func (a *corpusGroup) ranking() *Ranking {
	groups, rel, scores := a.grouped()
	order := labelOrder(groups)
	r := metric.Rank(groups, rel, scores, func(x, y string) bool { return order.Compare(x, y) < 0 })
	k := &Ranking{Records: len(groups), Queries: len(r.Queries)}
	if k.Queries > 0 {
		k.MRR, k.MAP = ptr(r.MRR), ptr(r.MAP)
	}
	return k
}

func distinct(xs []string) int {
	seen := map[string]bool{}
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}

// chunkSummary is the group's chunk figures: its summed counts, overall and per chunk type, with
// their ratios, and the token accuracy.
func (a *corpusGroup) chunkSummary() *ChunkSummary {
	c := a.chunk
	c.ChunkStat = newChunkStat(a.chunkTotalCnt)
	if acc, ok := (metric.ChunkReport{Tokens: c.Tokens, TokenCorrect: c.TokenCorrect}).TokenAccuracy(); ok {
		c.TokenAcc = &acc
	}
	c.PerType = map[string]ChunkStat{}
	for t, n := range a.chunkPerType {
		c.PerType[t] = newChunkStat(n)
	}
	return &c
}

// newChunkStat is the counts c with their precision, recall and F1.
func newChunkStat(c metric.ChunkCounts) ChunkStat {
	return ChunkStat{Label: c.Label, Infer: c.Infer, Correct: c.Correct, PRF: c.PRF()}
}

func (a *corpusGroup) perplexity() *Perplexity {
	p := &Perplexity{Records: len(a.loss)}
	if len(a.loss) == 0 {
		return p
	}
	r := metric.Perplexity(a.loss, a.tokens)
	p.WordCount = r.WordCount
	finite := func(x float64) *float64 {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		return ptr(x)
	}
	p.MeanLoss, p.TotalLoss, p.AveLoss, p.PPL = finite(r.MeanLoss), finite(r.TotalLoss), finite(r.AveLoss), finite(r.PPL)
	if p.PPL != nil {
		p.PPLInt = &r.PPLInt
	}
	return p
}
