package score

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/python"
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

// classTable counts the labelled records' (gold, predicted) label pairs: what the
// classification report and its confusion matrix are computed from, however many records there
// are. Labels are numbered in the order they first come.
type classTable struct {
	labels []string         // the distinct labels, by id
	ids    map[string]int32 // each label's id
	pairs  map[[2]int32]int // each (gold, predicted) pair of ids's count
	n      int
}

// add counts a record's gold and predicted labels and returns their ids.
func (t *classTable) add(gold, pred string) (g, p int32) {
	if t.ids == nil {
		t.ids, t.pairs = map[string]int32{}, map[[2]int32]int{}
	}
	g, p = t.id(gold), t.id(pred)
	t.pairs[[2]int32{g, p}]++
	t.n++
	return g, p
}

func (t *classTable) id(label string) int32 {
	i, ok := t.ids[label]
	if !ok {
		i = int32(len(t.labels))
		t.ids[label] = i
		t.labels = append(t.labels, label)
	}
	return i
}

// sorted returns the labels in their order (labelOrder), and each id's index in them.
func (t *classTable) sorted() (all []string, at []int32) {
	all = labelOrder(t.labels).Sorted(t.labels)
	pos := make(map[string]int32, len(all))
	for i, l := range all {
		pos[l] = int32(i)
	}
	at = make([]int32, len(t.labels))
	for id, l := range t.labels {
		at[id] = pos[l]
	}
	return all, at
}

// report is metric.Classify of the records counted: the label counts' report, and the confusion
// matrix, over all, the labels in their order.
func (t *classTable) report(opt metric.PRFOptions) metric.ClassReport {
	all, at := t.sorted()
	c := metric.LabelCounts{All: all, TP: make([]int, len(all)), Predicted: make([]int, len(all)), Support: make([]int, len(all)), N: t.n}
	m := make([][]int, len(all))
	for i := range m {
		m[i] = make([]int, len(all))
	}
	for pair, k := range t.pairs {
		g, p := at[pair[0]], at[pair[1]]
		c.Support[g] += k
		c.Predicted[p] += k
		if g == p {
			c.TP[g] += k
			c.Correct += k
		}
		m[g][p] += k
	}
	r := c.Report(opt)
	r.Confusion = m
	return r
}

func (a *corpusGroup) classification() (*Classification, []string) {
	t := &a.classes
	if t.n == 0 {
		return nil, []string{"classification: no record has both a gold and a predicted label"}
	}
	order := labelOrder(t.labels)
	opt := a.prfOptions(order)
	cl := &Classification{Records: t.n, Average: a.cfg.average, ZeroDivision: a.cfg.zeroDiv,
		PosLabel: a.cfg.posLabel, LabelOrder: "code point", ClassReport: t.report(opt)}
	if order.Numeric {
		cl.LabelOrder = "numeric"
	}
	var warn []string
	if n := len(cl.CMLabels); n > manyClasses {
		warn = append(warn, fmt.Sprintf("classification: %d distinct labels; free-text answers? map them to labels with --label-map", n))
	} else {
		if twins := caseTwins(cl.CMLabels); len(twins) > 0 {
			warn = append(warn, caseTwinWarning(twins))
		}
		if twins := numberTwins(cl.CMLabels); len(twins) > 0 {
			warn = append(warn, numberTwinWarning(twins))
		}
	}
	absent := absentClasses(a.cfg.classes, t.ids)
	if len(absent) > 0 {
		warn = append(warn, fmt.Sprintf("classification: --labels names %s %s that no record has as its gold or predicted label (labels compare exactly; the records have %s): %s precision and recall are --zero-division's, and the macro average counts %s",
			english.Form(len(absent), "a class", "classes"), command.QuotedList(absent), command.QuotedList(cl.CMLabels), english.Form(len(absent), "its", "their"), english.Form(len(absent), "it", "them")))
	}
	if w := illDefined(cl.ClassReport, absent); w != "" && a.cfg.zeroDivWarn {
		warn = append(warn, w)
	}
	if a.cfg.average == "binary" && cl.Binary == nil {
		warn = append(warn, fmt.Sprintf("classification: --average binary needs at most two labels, one of them --pos-label %q (labels: %s); precision, recall and f1_score are null", a.cfg.posLabel, command.QuotedList(cl.CMLabels)))
	}
	return cl, warn
}

// illDefined is the warning of the classes whose precision (never predicted) or recall (no gold
// record) has a zero denominator, so that --zero-division's value stands in for it, in the per-class
// table and in the macro and weighted averages: scikit-learn's UndefinedMetricWarning under its
// default zero_division "warn". The classes --labels names that no record has (absent) are
// warned of apart. It is "" when there are none.
func illDefined(r metric.ClassReport, absent []string) string {
	var noPred, noGold []string
	for k, l := range r.Labels {
		if slices.Contains(absent, l) {
			continue
		}
		if r.Predicted[k] == 0 {
			noPred = append(noPred, strconv.Quote(l))
		}
		if r.Support[k] == 0 {
			noGold = append(noGold, strconv.Quote(l))
		}
	}
	var parts []string
	if len(noPred) > 0 {
		parts = append(parts, fmt.Sprintf("precision of %s %s (never predicted)", english.Form(len(noPred), "class", "classes"), english.FirstOf(noPred, 5)))
	}
	if len(noGold) > 0 {
		parts = append(parts, fmt.Sprintf("recall of %s %s (no record's gold)", english.Form(len(noGold), "class", "classes"), english.FirstOf(noGold, 5)))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("classification: %s %s 0/0, so --zero-division's value stands in, in the per-class table and the averages over classes (scikit-learn's UndefinedMetricWarning); --zero-division 0 or 1 chooses it and silences this",
		strings.Join(parts, " and "), english.Form(len(noPred)+len(noGold), "is", "are"))
}

// caseTwins returns the sets of labels, each in labels' order, that are the same once trimmed of
// white space and lower-cased ("Yes", "yes" and "YES "), in the order of their first label: a
// model's reply "Yes" counted as a class of its own beside the gold "yes" is more likely a
// mapping forgotten than a class meant.
func caseTwins(labels []string) [][]string {
	return twinSets(labels, func(l string) (string, bool) { return strings.ToLower(strings.TrimSpace(l)), true })
}

// caseTwinWarning names the first five sets of twins, and counts the others.
func caseTwinWarning(twins [][]string) string {
	return fmt.Sprintf("classification: labels that differ only in case or surrounding white space are separate classes, as scikit-learn compares labels exactly: %s; --label-map joins them (yes=yes maps \"Yes\" and \"yes \" to \"yes\")",
		twinList(twins))
}

// numberTwins returns the sets of labels, each in labels' order, that are one number written in
// two ways ("1" and "1.0", as a float column of a DataFrame writes the labels an int column holds
// as 1), in the order of their first label. Labels compare as text, so they are separate classes,
// where scikit-learn, given the numbers, would take 1 and 1.0 for one. Numbers are compared
// exactly (9007199254740993 is not 9007199254740992, though one float64 holds both); one with an
// exponent past 1000 either way is left out, as no label is likely to be written so. A number is
// a label that is a JSON number's text (python.NumberLen), as qa-load keeps a number label and
// pandas writes a number column.
func numberTwins(labels []string) [][]string {
	return twinSets(labels, func(l string) (string, bool) {
		if l == "" || python.NumberLen(l) != len(l) {
			return "", false
		}
		if i := strings.IndexAny(l, "eE"); i >= 0 && len(strings.TrimLeft(strings.TrimLeft(l[i+1:], "+-"), "0")) > 3 {
			return "", false
		}
		r, ok := new(big.Rat).SetString(l)
		if !ok {
			return "", false
		}
		return r.RatString(), true // -0 is 0
	})
}

// numberTwinWarning names the first five sets of number twins, and counts the others, with the
// --label-map that joins each set named into its first label.
func numberTwinWarning(twins [][]string) string {
	var pairs []string
	for _, t := range twins[:min(len(twins), 5)] {
		for _, l := range t[1:] {
			pairs = append(pairs, l+"="+t[0])
		}
	}
	return fmt.Sprintf("classification: labels that are one number written in two ways are separate classes, as labels compare as text: %s (a float column beside an int one?); --label-map joins them (%s)",
		twinList(twins), strings.Join(pairs, ","))
}

// twinSets returns the sets of two or more labels, each in labels' order, that key gives one key
// (a label it gives none, false, is in no set), in the order of their first label.
func twinSets(labels []string, key func(string) (string, bool)) [][]string {
	at := map[string]int{}
	var sets [][]string
	for _, l := range labels {
		k, ok := key(l)
		if !ok {
			continue
		}
		if i, ok := at[k]; ok {
			sets[i] = append(sets[i], l)
			continue
		}
		at[k] = len(sets)
		sets = append(sets, []string{l})
	}
	return slices.DeleteFunc(sets, func(s []string) bool { return len(s) < 2 })
}

// twinList names the first five sets of twins, ("Yes", "yes"), and counts the others.
func twinList(twins [][]string) string {
	var sets []string
	for _, t := range twins[:min(len(twins), 5)] {
		sets = append(sets, "("+command.QuotedList(t)+")")
	}
	if more := len(twins) - len(sets); more > 0 {
		sets = append(sets, fmt.Sprintf("%d more", more))
	}
	return strings.Join(sets, ", ")
}

// absentClasses returns the classes, in order, that are no label seen, neither a gold nor a
// predicted one.
func absentClasses(classes []string, seen map[string]int32) []string {
	var out []string
	for _, c := range classes {
		if _, ok := seen[c]; !ok {
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

func (a *corpusGroup) auc() *AUC {
	scores, pos := make([]float64, len(a.scored)), make([]bool, len(a.scored))
	for i, r := range a.scored {
		scores[i], pos[i] = r.score, r.pos
	}
	roc := metric.ROCCurve(scores, pos)
	r := &AUC{Records: len(a.scored), Positives: roc.NPos, Negatives: roc.NNeg}
	if v := roc.AUC(); !math.IsNaN(v) {
		r.AUC = &v
	}
	return r
}

// rankedSlices returns the scored records with a query group as parallel slices of their groups,
// relevances and scores.
func (a *corpusGroup) rankedSlices() (groups []string, rel, scores []float64) {
	groups, rel, scores = make([]string, len(a.ranked)), make([]float64, len(a.ranked)), make([]float64, len(a.ranked))
	for i, r := range a.ranked {
		groups[i], rel[i], scores[i] = r.group, r.rel, r.score
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
	groups, rel, scores := a.rankedSlices()
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

// ranking returns the group's ranking section, and how many records are relevant to mrr
// (label != 0) and to map (int(label) != 0).
func (a *corpusGroup) ranking() (k *Ranking, relevantMRR, relevantMAP int) {
	groups, rel, scores := a.rankedSlices()
	order := labelOrder(groups)
	r := metric.Rank(groups, rel, scores, func(x, y string) bool { return order.Compare(x, y) < 0 })
	k = &Ranking{Records: len(groups), Queries: len(r.Queries)}
	for _, q := range r.Queries {
		relevantMRR += q.RelevantMRR
		relevantMAP += q.RelevantMAP
	}
	if k.Queries > 0 {
		k.MRR, k.MAP = ptr(r.MRR), ptr(r.MAP)
	}
	return k, relevantMRR, relevantMAP
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
	p := &Perplexity{Records: a.lossN}
	if a.lossN == 0 {
		return p
	}
	r := metric.PerplexityOfSums(a.lossSum.Sum(), a.lossN, a.words)
	p.WordCount = r.WordCount
	finite := func(x float64) *float64 {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		return ptr(x)
	}
	p.MeanLoss, p.TotalLoss, p.AveLoss, p.PPL = finite(r.MeanLoss), finite(r.TotalLoss), finite(r.AveLoss), finite(r.PPL)
	if p.PPL != nil {
		n := json.Number(new(big.Float).SetFloat64(math.Trunc(r.PPL)).Text('f', 0)) // r.PPLInt is 0 past 2^63
		p.PPLInt = &n
	}
	return p
}
