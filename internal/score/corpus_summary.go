package score

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/metric"
)

// Corpus is the summary's section for the corpus metrics: each family's full report. Their
// headline values also appear in overall.metrics (mean = the value, count = the records it is
// computed from, and the interval of resampling its units: corpus_boot.go).
type Corpus struct {
	Classification *Classification `json:"classification,omitempty"`
	AUC            *AUC            `json:"auc,omitempty"`
	Pairwise       *Pairwise       `json:"pairwise,omitempty"`
	Ranking        *Ranking        `json:"ranking,omitempty"`
	Chunk          *ChunkSummary   `json:"chunk,omitempty"`
	Perplexity     *Perplexity     `json:"perplexity,omitempty"`
	CorpusBLEU     *CorpusBLEU     `json:"corpus_bleu,omitempty"`
	// GenEval is null when the corpus has no reference token (gen_eval raises there).
	GenEval *GenEval `json:"gen_eval,omitempty"`
}

// Classification is scikit-learn's classification report of the labels.
type Classification struct {
	Records      int     `json:"records"`
	Average      string  `json:"average"`
	ZeroDivision float64 `json:"zero_division"`
	PosLabel     string  `json:"pos_label"`
	// LabelOrder is "numeric" when every label is an integer, else "code point".
	LabelOrder string `json:"label_order"`
	metric.ClassReport
}

// AUC is the ROC AUC of the scores; AUC is null when one class is absent.
type AUC struct {
	Records   int      `json:"records"`
	Positives int      `json:"positives"`
	Negatives int      `json:"negatives"`
	AUC       *float64 `json:"auc"`
}

// Pairwise is ERNIE's Pn and pairwise accuracy over query groups. When no pair is wrong (no pairs
// at all included) the reference's ratio is +Inf: PN is then PNCap and PNInf is true, the
// convention of the golden vectors, since JSON cannot hold +Inf. So it is with no record at all
// (none has a label, a score and a group), as the golden case pairs_empty has it; PairwiseAcc is
// then null, and the headline pn has no mean, as any metric of count 0.
type Pairwise struct {
	Records       int      `json:"records"`
	Groups        int      `json:"groups"`
	Pairs         int      `json:"pairs"`
	Right         int      `json:"right"`
	Wrong         int      `json:"wrong"`
	Ties          int      `json:"ties"`
	PN            *float64 `json:"pn"`
	PNInf         bool     `json:"pn_inf"`
	PairwiseAcc   *float64 `json:"pairwise_acc"`
	PNTiesSkipped float64  `json:"pn_ties_skipped"`
}

// PNCap is the value reported for an infinite Pn.
const PNCap = 128.0

// Ranking is MRR and MAP over the query groups.
type Ranking struct {
	Records int      `json:"records"`
	Queries int      `json:"queries"`
	MRR     *float64 `json:"mrr"` // null over no query
	MAP     *float64 `json:"map"`
}

// ChunkSummary is conlleval's chunk counts and ratios, overall and per chunk type.
type ChunkSummary struct {
	Records int `json:"records"`
	ChunkStat
	Tokens       int                  `json:"tokens"`
	TokenCorrect int                  `json:"token_correct"`
	PerType      map[string]ChunkStat `json:"per_type"`
}

// ChunkStat is one set of chunk counts with precision, recall and F1.
type ChunkStat struct {
	Label   int `json:"gold_chunks"`
	Infer   int `json:"predicted_chunks"`
	Correct int `json:"correct_chunks"`
	metric.PRF
}

// Perplexity is ERNIE-kit's Ppl. A figure that overflows (a loss sum past the largest float, or
// ppl past it) is null, and so is ppl_int then.
type Perplexity struct {
	Records   int      `json:"records"`
	WordCount int      `json:"word_count"`
	MeanLoss  *float64 `json:"mean_loss"`
	TotalLoss *float64 `json:"total_loss"`
	AveLoss   *float64 `json:"ave_loss"`
	PPL       *float64 `json:"ppl"`
	PPLInt    *int64   `json:"ppl_int"`
}

// CorpusBLEU is NLTK corpus_bleu with its parts; Ratio is hyp_len/ref_len (null when ref_len is 0).
type CorpusBLEU struct {
	Records      int       `json:"records"`
	BLEU         float64   `json:"bleu"`
	Precisions   []float64 `json:"precisions"`
	Numerators   []int     `json:"numerators"`
	Denominators []int     `json:"denominators"`
	BP           float64   `json:"bp"`
	Ratio        *float64  `json:"ratio"`
	HypLen       int       `json:"hyp_len"`
	RefLen       int       `json:"ref_len"`
}

// GenEval is ERNIE-kit's gen_eval corpus BLEU.
type GenEval struct {
	BLEU              float64   `json:"bleu"`
	Precisions        []float64 `json:"precisions"`
	BP                float64   `json:"bp"`
	Ratio             float64   `json:"ratio"`
	TranslationLength int       `json:"translation_length"`
	ReferenceLength   int       `json:"reference_length"`
}

// corpusAcc accumulates the facts of every record, overall, by record type and by the value of
// each --by field.
//
// Memory: each record's labelled entry (two label strings, a group string, a float64) and loss
// are held once overall, once more in their type's group when records have types, and once more
// for each --by field they have a value at.
type corpusAcc struct {
	cfg     *corpusConfig
	all     *corpusGroup
	byType  map[string]*corpusGroup
	byPaths byFields
	by      []map[string]*corpusGroup // by[i]: the groups by the value at byPaths[i]
}

func newCorpusAcc(cfg *corpusConfig, by byFields) *corpusAcc {
	a := &corpusAcc{cfg: cfg, all: newCorpusGroup(cfg), byType: map[string]*corpusGroup{}, byPaths: by}
	for range by {
		a.by = append(a.by, map[string]*corpusGroup{})
	}
	return a
}

// add takes in one record's facts; typ is its type and by its values at the --by fields.
func (a *corpusAcc) add(typ string, by []byValue, f corpusFacts) {
	if !f.any() {
		return
	}
	a.all.add(f)
	if typ != "" {
		a.groupIn(a.byType, typ).add(f)
	}
	for i, v := range by {
		if v.ok && i < len(a.by) {
			a.groupIn(a.by[i], v.text).add(f)
		}
	}
}

// groupIn returns the group of key in groups, made when missing.
func (a *corpusAcc) groupIn(groups map[string]*corpusGroup, key string) *corpusGroup {
	g := groups[key]
	if g == nil {
		g = newCorpusGroup(a.cfg)
		groups[key] = g
	}
	return g
}

// attach adds the corpus section, the headline values (overall and by type) and the overall
// warnings to s.
func (a *corpusAcc) attach(s *Summary) {
	if a == nil || a.cfg == nil || len(a.cfg.want) == 0 {
		return
	}
	reps, seed := s.Bootstrap, uint64(s.Seed)
	c, vals, warn := a.all.summarize()
	s.Corpus = c
	ivs := a.all.intervals(seed^hashOf("corpus overall", 0), reps, s.Level)
	var flat []string // the degenerate-interval warnings, one a group
	flatOf := func(label string, stats []*Stat, vals []value) {
		var names []string
		for i, st := range stats {
			units := vals[i].n // what the interval resamples: records, or query groups
			if vals[i].queries > 0 {
				units = vals[i].queries
			}
			// One resample gives every interval equal bounds: only more can agree.
			if st.CI != nil && st.CI[0] == st.CI[1] && units > 1 && reps > 1 {
				names = append(names, vals[i].name)
			}
		}
		if len(names) > 0 {
			flat = append(flat, fmt.Sprintf("%s: %s: every resample gives the same value, so %s degenerate", label,
				strings.Join(names, ", "), english.Form(len(names), "the interval is", "their intervals are")))
		}
	}
	stats := make([]*Stat, len(vals))
	for i, v := range vals {
		stats[i] = corpusStatOf(v, ivs)
		s.Overall.Metrics[v.name] = stats[i]
	}
	flatOf("overall", stats, vals)
	s.Warnings = append(s.Warnings, warn...)
	if s.Errors > 0 && s.ErrorsAsZero {
		// A failed prediction has no label, score or text to count, so the corpus metrics leave
		// it out whatever --errors-as-zero says of the per-record ones.
		s.Warnings = append(s.Warnings, fmt.Sprintf("the corpus metrics (%s) leave out the %s: --errors-as-zero counts %s as 0 in the per-record metrics only",
			strings.Join(a.cfg.want, ", "), english.Count(s.Errors, "record with a prediction or judge error", "records with prediction or judge errors"), english.Form(s.Errors, "it", "them")))
	}
	// headlines puts each group's values in its Group; label (and the key) seeds its intervals,
	// shown (and the key as cell.Value writes it) names it in warnings as the per-record
	// metrics' warnings do.
	headlines := func(label, shown string, groups map[string]*corpusGroup, into func(key string) *Group) {
		for key, g := range groups {
			grp := into(key)
			if grp == nil {
				continue
			}
			_, vals, _ := g.summarize()
			ivs := g.intervals(seed^hashOf("corpus "+label+key, 0), reps, s.Level)
			var stats []*Stat
			var kept []value
			for _, v := range vals {
				if v.n > 0 {
					st := corpusStatOf(v, ivs)
					grp.Metrics[v.name] = st
					stats, kept = append(stats, st), append(kept, v)
				}
			}
			flatOf(shown+cell.Value(key), stats, kept)
		}
	}
	headlines("type ", "type ", a.byType, func(t string) *Group { return s.ByType[t] })
	for i, p := range a.byPaths {
		bd := s.By[p.String()]
		if bd == nil {
			continue
		}
		headlines("by "+p.String()+"=", p.String()+" ", a.by[i], func(v string) *Group { return bd.Groups[v] })
	}
	slices.Sort(flat)
	kept, more := capGroupWarnings(flat, "corpus metrics whose every resample gives the same value, so their intervals are degenerate")
	s.Warnings = append(s.Warnings, kept...)
	if more != "" {
		s.Warnings = append(s.Warnings, more)
	}
}

// corpusStatOf is the Stat of a headline value, with its interval from ivs when it has one.
func corpusStatOf(v value, ivs map[string][2]float64) *Stat {
	st := &Stat{Mean: v.v, Count: v.n, queries: v.queries}
	if iv, ok := ivs[v.name]; ok && v.v != nil {
		st.CI = &iv
	}
	return st
}

// corpusGroup accumulates the facts of one set of records.
type corpusGroup struct {
	cfg           *corpusConfig
	labs          []labelled
	loss          []float64
	tokens        []int
	chunk         ChunkSummary
	bleu          *metric.BLEUCounts
	bleuN         int
	chunkPerType  map[string]metric.ChunkCounts
	chunkTotalCnt metric.ChunkCounts
	// Each record's chunk and BLEU counts, resampled for the intervals.
	chunks []metric.ChunkCounts
	bleus  []*metric.BLEUCounts
}

func newCorpusGroup(cfg *corpusConfig) *corpusGroup {
	return &corpusGroup{cfg: cfg, chunkPerType: map[string]metric.ChunkCounts{}}
}

func (a *corpusGroup) add(f corpusFacts) {
	if f.lab != nil {
		a.labs = append(a.labs, *f.lab)
	}
	if f.hasLoss {
		a.loss = append(a.loss, f.loss)
		a.tokens = append(a.tokens, f.tokens)
	}
	if f.chunk != nil {
		a.chunk.Records++
		a.chunk.Tokens += f.chunk.Tokens
		a.chunk.TokenCorrect += f.chunk.TokenCorrect
		for t, c := range f.chunk.PerType {
			p := a.chunkPerType[t]
			p.Label, p.Infer, p.Correct = p.Label+c.Label, p.Infer+c.Infer, p.Correct+c.Correct
			a.chunkPerType[t] = p
		}
		t := &a.chunkTotalCnt
		t.Label, t.Infer, t.Correct = t.Label+f.chunk.Total.Label, t.Infer+f.chunk.Total.Infer, t.Correct+f.chunk.Total.Correct
		a.chunks = append(a.chunks, f.chunk.Total)
	}
	if f.bleu != nil {
		if a.bleu == nil {
			a.bleu = metric.NewBLEUCounts(len(a.cfg.bleuWeights))
		}
		a.bleu.Merge(f.bleu)
		a.bleuN++
		a.bleus = append(a.bleus, f.bleu)
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
	}
	if a.cfg.wants("pn", "pairwise_acc") {
		a.putPairwise(c, o)
	}
	if a.cfg.wants("mrr", "map") {
		c.Ranking = a.ranking()
		o.putQueries("mrr", c.Ranking.MRR, c.Ranking.Records, c.Ranking.Queries)
		o.putQueries("map", c.Ranking.MAP, c.Ranking.Records, c.Ranking.Queries)
		if c.Ranking.Queries == 0 {
			o.warn = append(o.warn, noGroupWarning(a.cfg.selected("mrr", "map")))
		}
	}
	if a.cfg.wants("chunk_p", "chunk_r", "chunk_f1") {
		a.putChunk(c, o)
	}
	if a.cfg.wants("perplexity") {
		c.Perplexity = a.perplexity()
		o.put("perplexity", c.Perplexity.PPL, c.Perplexity.Records)
	}
	if a.cfg.wants("corpus_bleu", "gen_eval_bleu") {
		a.putBLEU(c, o)
	}
	return c, o.vals, o.warn
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
	n := len(a.labs)
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
	case c.Pairwise.PNInf:
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
}

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

func (a *corpusGroup) chunkSummary() *ChunkSummary {
	c := a.chunk
	c.ChunkStat = chunkStat(a.chunkTotalCnt)
	c.PerType = map[string]ChunkStat{}
	for t, n := range a.chunkPerType {
		c.PerType[t] = chunkStat(n)
	}
	return &c
}

func chunkStat(c metric.ChunkCounts) ChunkStat {
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
