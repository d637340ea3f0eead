package score

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/cell"
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
	TokenAcc     *float64             `json:"token_accuracy"` // conlleval's accuracy, token_correct / tokens; null of no tokens
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
// ppl past it) is null, and so is ppl_int then. ppl_int is int(ppl) as Python prints it, whole
// past 2^63 too, which no int64 holds.
type Perplexity struct {
	Records   int          `json:"records"`
	WordCount int          `json:"word_count"`
	MeanLoss  *float64     `json:"mean_loss"`
	TotalLoss *float64     `json:"total_loss"`
	AveLoss   *float64     `json:"ave_loss"`
	PPL       *float64     `json:"ppl"`
	PPLInt    *json.Number `json:"ppl_int"`
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
// Memory: what a group keeps of each record (corpus.go: the parts auc and the query groups'
// metrics need, and with intervals each record's part in every selected family) is held once
// overall, once more in its type's group when records have types, and once more for each --by
// field it has a value at.
type corpusAcc struct {
	cfg     *corpusConfig
	keep    bool
	all     *corpusGroup
	byType  map[string]*corpusGroup
	byPaths byFields
	by      []map[string]*corpusGroup // by[i]: the groups by the value at byPaths[i]
}

// newCorpusAcc returns an empty accumulator; keep says to keep each record's part for the
// intervals.
func newCorpusAcc(cfg *corpusConfig, by byFields, keep bool) *corpusAcc {
	a := &corpusAcc{cfg: cfg, keep: keep, all: newCorpusGroup(cfg, keep), byType: map[string]*corpusGroup{}, byPaths: by}
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
		g = newCorpusGroup(a.cfg, a.keep)
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
	// The degenerate-interval warnings, the partial-interval ones and those of no interval, one
	// a group.
	var iw intervalWarnings
	a.attachOverall(s, &iw)
	corpusHeadlines(s, "type ", "type ", a.byType, func(t string) *Group { return s.ByType[t] }, &iw)
	for i, p := range a.byPaths {
		bd := s.By[p.String()]
		if bd == nil {
			continue
		}
		corpusHeadlines(s, "by "+p.String()+"=", p.String()+" ", a.by[i], func(v string) *Group { return bd.Groups[v] }, &iw)
	}
	for _, ws := range []struct {
		list []string
		what string
	}{
		{iw.flat, "corpus metrics whose every resample gives the same value, so their intervals are degenerate"},
		{iw.partial, "corpus metrics whose intervals leave out more than a tenth of the resamples, where the metric had no value"},
		{iw.none, "corpus metrics with a value but no interval, no resample giving them one (give a larger --bootstrap)"},
	} {
		slices.Sort(ws.list)
		kept, more := capGroupWarnings(ws.list, ws.what)
		s.Warnings = append(s.Warnings, kept...)
		if more != "" {
			s.Warnings = append(s.Warnings, more)
		}
	}
}

// intervalWarnings are the corpus metrics' warnings of their intervals, one a group of each kind:
// degenerate, partial, and none for a metric with a value.
type intervalWarnings struct {
	flat, partial, none []string
}

// addGaps adds the warnings of the group named label of the metrics in part, those of vals with a
// value: of a partial interval and of none.
func (iw *intervalWarnings) addGaps(label string, part []partialIV, vals []value) {
	var some, none, over []partialIV
	for _, p := range withValue(part, vals) {
		switch {
		case p.overflow:
			over = append(over, p)
		case p.defined == 0:
			none = append(none, p)
		default:
			some = append(some, p)
		}
	}
	for _, p := range over {
		iw.none = append(iw.none, fmt.Sprintf("%s: %s: the metric has no interval: its upper bound is past the largest float (exp() of the loss per token overflows in the resamples that draw more of the larger losses)", label, p.name))
	}
	if w := partialWarning(label, some); w != "" {
		iw.partial = append(iw.partial, w)
	}
	if w := noIntervalWarning(label, none); w != "" {
		iw.none = append(iw.none, w)
	}
}

// attachOverall adds the corpus section, the overall headline values and the overall warnings to
// s, and the overall warnings of the intervals, if any, to iw.
func (a *corpusAcc) attachOverall(s *Summary, iw *intervalWarnings) {
	reps, seed := s.Bootstrap, uint64(s.Seed)
	c, vals, warn := a.all.summarize()
	s.Corpus = c
	ivs, same, part := a.all.intervals(groupSeed(seed, "corpus overall", 0), reps, s.Level)
	stats := make([]*Stat, len(vals))
	for i, v := range vals {
		stats[i] = corpusStatOf(v, ivs)
		s.Overall.Metrics[v.name] = stats[i]
	}
	if w := flatWarning("overall", stats, vals, same, reps); w != "" {
		iw.flat = append(iw.flat, w)
	}
	iw.addGaps("overall", part, vals)
	s.Warnings = append(s.Warnings, warn...)
	if s.Errors > 0 && s.ErrorsAsZero {
		// A failed prediction has no label, score or text to count, so the corpus metrics leave
		// it out whatever --errors-as-zero says of the per-record ones.
		s.Warnings = append(s.Warnings, fmt.Sprintf("the corpus metrics (%s) leave out the %s: --errors-as-zero counts %s as 0 in the per-record metrics only",
			strings.Join(a.cfg.want, ", "), english.Count(s.Errors, "record with a prediction or judge error", "records with prediction or judge errors"), english.Form(s.Errors, "it", "them")))
	}
}

// corpusHeadlines puts each group's values in its Group (into; none where it returns nil) and
// adds the warnings of their intervals to iw; label (and the key) seeds its intervals, shown (and
// the key as cell.Value writes it) names it in warnings as the per-record metrics' warnings do.
func corpusHeadlines(s *Summary, label, shown string, groups map[string]*corpusGroup, into func(key string) *Group, iw *intervalWarnings) {
	reps, seed := s.Bootstrap, uint64(s.Seed)
	for key, g := range groups {
		grp := into(key)
		if grp == nil {
			continue
		}
		_, vals, _ := g.summarize()
		ivs, same, part := g.intervals(groupSeed(seed, "corpus "+label+key, 0), reps, s.Level)
		iw.addGaps(shown+cell.Value(key), part, vals)
		var stats []*Stat
		var kept []value
		for _, v := range vals {
			if v.n > 0 {
				st := corpusStatOf(v, ivs)
				grp.Metrics[v.name] = st
				stats, kept = append(stats, st), append(kept, v)
			}
		}
		if w := flatWarning(shown+cell.Value(key), stats, kept, same, reps); w != "" {
			iw.flat = append(iw.flat, w)
		}
	}
}

// withValue returns the metrics of part that have a headline value in vals: a metric with none
// (precision under --average binary with a --pos-label no record has) shows no interval, so its
// resamples leave nothing out of one, and its want of one is no news.
func withValue(part []partialIV, vals []value) []partialIV {
	var out []partialIV
	for _, p := range part {
		if i := slices.IndexFunc(vals, func(v value) bool { return v.name == p.name }); i >= 0 && vals[i].v != nil {
			out = append(out, p)
		}
	}
	return out
}

// partialWarning says of the group named label that the intervals of the metrics in part are
// over the resamples where each had a value alone ("auc (over 850 of 1000)"), or is "". It says
// what auc and pairwise_acc need of a resample when it names them, and nothing of auc when it
// does not.
func partialWarning(label string, part []partialIV) string {
	if len(part) == 0 {
		return ""
	}
	var named []string
	for _, p := range part {
		named = append(named, fmt.Sprintf("%s (over %d of %d)", p.name, p.defined, p.reps))
	}
	n := len(part)
	return fmt.Sprintf("%s: %s: %s over the resamples where %s a value%s, more than a tenth of them left out", label, strings.Join(named, ", "),
		english.Form(n, "the interval is", "their intervals are"), english.Form(n, "the metric has", "each metric has"), needs(part))
}

// noIntervalWarning says of the group named label that the metrics in none, which have a value,
// have no interval, as qa-judge agree says of a kappa: none of their reps resamples gave them a
// value (auc drawn with one class in each of a few resamples of a few records), leaving none to
// place the bounds; or it is "". partialWarning names the metrics with some.
func noIntervalWarning(label string, none []partialIV) string {
	if len(none) == 0 {
		return ""
	}
	var named []string
	for _, p := range none {
		named = append(named, p.name)
	}
	n, reps := len(none), none[0].reps
	return fmt.Sprintf("%s: %s: %s no interval: %s no value in %s%s, too few to place %s bounds (give a larger --bootstrap)", label, strings.Join(named, ", "),
		english.Form(n, "the metric has", "the metrics have"), english.Form(n, "it had", "they had"),
		english.Form(reps, "the one resample", fmt.Sprintf("each of the %d resamples", reps)), needs(none), english.Form(n, "its", "their"))
}

// needs says what auc and pairwise_acc need of a resample to have a value, in parentheses, when
// part names them, or is "".
func needs(part []partialIV) string {
	var why []string
	for _, p := range part {
		switch p.name {
		case "auc":
			why = append(why, "auc needs both classes drawn")
		case "pairwise_acc":
			why = append(why, "pairwise_acc a pair not tied")
		}
	}
	if len(why) == 0 {
		return ""
	}
	return " (" + strings.Join(why, ", ") + ")"
}

// flatWarning is the warning of the group label's headline values (vals, with their stats) whose
// every one of reps resamples gives the same value (same, by name), or "" when none does.
//
// Note: equal bounds are not the test: at a low --level both are read near the median, which
// many resamples of a metric of few values (accuracy over 4 records) share.
func flatWarning(label string, stats []*Stat, vals []value, same map[string]bool, reps int) string {
	var names []string
	for i, st := range stats {
		units := vals[i].n // what the interval resamples: records, or query groups
		if vals[i].queries > 0 {
			units = vals[i].queries
		}
		// One resample gives every interval equal bounds: only more can agree.
		if st.CI != nil && same[vals[i].name] && units > 1 && reps > 1 {
			names = append(names, vals[i].name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s: every resample gives the same value, so %s degenerate", label,
		strings.Join(names, ", "), english.Form(len(names), "the interval is", "their intervals are"))
}

// corpusStatOf is the Stat of a headline value, with its interval from ivs when it has one.
func corpusStatOf(v value, ivs map[string][2]float64) *Stat {
	st := &Stat{Mean: v.v, Count: v.n, queries: v.queries}
	if iv, ok := ivs[v.name]; ok && v.v != nil {
		st.CI = &iv
	}
	return st
}
