package score

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/stats"
)

// Summary is what --summary writes: counts, then each metric's mean, count and bootstrap interval
// overall and by record type, then the benchmark-specific aggregates, then warnings.
type Summary struct {
	Records      int  `json:"records"`
	Scored       int  `json:"scored"`
	Errors       int  `json:"errors"`
	ErrorsAsZero bool `json:"errors_as_zero"`
	Unscored     int  `json:"unscored"`
	// MissingAsZero counts the records without a prediction, or with one that lacks the answer or
	// the supporting facts a metric reads, that count as 0 in it (--missing-as-zero), among the
	// scored; omitted when 0.
	MissingAsZero int      `json:"missing_as_zero,omitempty"`
	missingIn     []string // the metrics that count them as 0, for the warning
	missingPart   int      // of MissingAsZero, those with a prediction that lacks an answer or facts
	unpredicted   int      // of Unscored, the records without a prediction, for its warning
	zeroNote      string   // what the warning says of those a benchmark's script scores 0 (aggregator.zeroNote)
	unjudged      int      // and those without a judgment, for judge_score
	unjudgedBare  int      // of unjudged, those without gold answers too
	// failedUnscored counts, under ErrorsAsZero, the records with errors among Unscored: no
	// selected metric reads them, so no 0 stands for them.
	failedUnscored int
	// named lists the per-record metrics --metrics names itself, for the warning of those that
	// no record gave a value (unvaluedWarning).
	named []string
	// grouped lists the groups --metrics names with their metrics it does not name itself, for
	// the same warning.
	grouped []namedGroup
	// factsUnpredicted counts the records with gold supporting facts and none predicted.
	factsUnpredicted int
	// answerUnpredicted counts the records with gold answers whose prediction gives supporting
	// facts and no answer.
	answerUnpredicted int
	uncategorised     int      // LoCoMo records (dataset locomo) without a category
	chineseLatin      int      // Chinese records (lang zh) that a metric reading English scored
	blankGold         int      // unanswerable records (answers [""]) scored 0 whatever their prediction
	blankIn           []string // the metrics that scored them so, in registry order
	unreadGold        int      // records whose gold answers ROUGE reads no token in, scored by it
	firstRepeat       string   // where the first record whose id an earlier one had is: FILE:LINE (id "ID")
	models            []string // the models whose answers the figures pool, sorted; empty when --by prediction.model parts them
	modelsCapped      bool     // models stopped at maxModels: there may be more
	byKnown           []string // paths the first records have values at, sorted, for --by's suggestion
	byFrom            string   // " from QA_BY" when the variable set --by, for its warnings
	degenerate        []string // the groups' degenerate-interval warnings, one a group, until summarize ends
	BadLines          int      `json:"bad_lines"`
	// MetricErrors counts records that lost a metric they should have had (a failed embedding
	// call, chunk tags of the wrong length, ...); omitted when 0.
	MetricErrors int `json:"metric_errors,omitempty"`
	// RepeatedIDs counts records whose id an earlier record had (a file beside a copy of it, say):
	// each still counts in every figure; omitted when 0.
	RepeatedIDs int     `json:"repeated_ids,omitempty"`
	Bootstrap   int     `json:"bootstrap"`
	Seed        int64   `json:"seed"`
	Level       float64 `json:"level"`
	Overall     *Group  `json:"overall"`
	// ByType is omitted when no record has a type.
	ByType map[string]*Group `json:"by_type,omitempty"`
	// WithoutType counts the records with no type, when others have one: they are in overall
	// but in none of ByType's groups. Omitted when 0, and when ByType is.
	WithoutType int `json:"without_type,omitempty"`
	// By holds the breakdown by each --by field, keyed by its path; omitted without --by.
	By          map[string]*Breakdown `json:"by,omitempty"`
	LoCoMo      *LoCoMo               `json:"locomo,omitempty"`
	LongMemEval *LongMemEval          `json:"longmemeval,omitempty"`
	// LoCoMoJudge is judge_score over LoCoMo records as mem0's and MAGMA's code report it.
	LoCoMoJudge *LoCoMoJudge `json:"locomo_judge,omitempty"`
	// Judgments names the judgments judge_score read, with how many records' each (a judgment
	// whose judge failed among them), so that the summary says which judge its figures are of;
	// omitted when judge_score read none.
	Judgments map[string]int `json:"judgments,omitempty"`
	// Corpus holds the corpus metrics' full reports, when any is selected.
	Corpus   *Corpus  `json:"corpus,omitempty"`
	Warnings []string `json:"warnings"`
}

// Group is the summary of a set of records: how many, how many failed, and each metric's figures.
type Group struct {
	Records int              `json:"records"`
	Errors  int              `json:"errors"`
	Metrics map[string]*Stat `json:"metrics"`
}

// Stat is one metric over a group: mean (null with no values), count and the bootstrap interval
// of the mean (left out when there is none).
type Stat struct {
	Mean  *float64    `json:"mean"`
	Count int         `json:"count"`
	CI    *[2]float64 `json:"ci,omitempty"`
	// queries is how many query groups the interval resamples, for the metrics whose unit is
	// the query group (pn, pairwise_acc, mrr, map); 0 for those whose unit is the record.
	queries int
}

// LoCoMo holds LoCoMo's official report: locomo_f1 per category and the micro average.
type LoCoMo struct {
	Metric     string     `json:"metric"`
	Categories []Category `json:"categories"`
	Overall    Stat       `json:"overall"`
}

// Category is one LoCoMo category's mean, with its bootstrap interval (left out when there is
// none).
type Category struct {
	Category int         `json:"category"`
	Type     string      `json:"type"`
	Mean     *float64    `json:"mean"`
	Count    int         `json:"count"`
	CI       *[2]float64 `json:"ci,omitempty"`
}

// LoCoMoJudge holds judge_score over LoCoMo records, by category (meta.category, else the type):
// pooled over all records (mem0's generate_scores.py; MAGMA's figures for one conversation), and
// averaged over conversations (MAGMA's aggregate over several samples; see locomoJudgeSummary).
type LoCoMoJudge struct {
	Metric           string     `json:"metric"`
	Categories       []Category `json:"categories"`
	Overall          Stat       `json:"overall"`
	WithoutCategory5 Stat       `json:"without_category_5"`
	// Conversations counts the conversations the ids name; null, as ConversationAveraged, when
	// a record's id names none, for the count would leave that record's conversation out.
	Conversations *int `json:"conversations"`
	// ConversationAveraged is null when a record's id names no conversation.
	ConversationAveraged *ConversationAveraged `json:"conversation_averaged"`
}

// ConversationAveraged holds the means of the conversations' means: over each conversation's
// records (Overall; its count is the conversations'), and per category over the conversations
// that have the category (each Category's count is theirs).
type ConversationAveraged struct {
	Categories []Category `json:"categories"`
	Overall    Stat       `json:"overall"`
}

// LongMemEval holds LongMemEval's official report over judge_score.
type LongMemEval struct {
	Metric       string          `json:"metric"`
	ByType       map[string]Stat `json:"by_type"`
	TaskAveraged *float64        `json:"task_averaged"`
	// TaskAveragedCI is the task-averaged accuracy's bootstrap interval, left out when there is
	// none (see lmeSummary).
	TaskAveragedCI *[2]float64 `json:"task_averaged_ci,omitempty"`
	Overall        Stat        `json:"overall"`
	Abstention     Stat        `json:"abstention"`
}

// summarize computes the summary, with bootstrap intervals at level from reps resamples seeded by
// seed, and the corpus metrics of corpus (nil: none).
func (a *aggregator) summarize(reps int, seed uint64, level float64, badLines int, corpus *corpusAcc) *Summary {
	s := a.counts(reps, seed, level, badLines)
	overall := a.byTypes(reps, seed, s)
	// The overall columns' values are the type groups', type by type; their means take the sums
	// made in input order, as Python's sum adds a benchmark's records, so that they are its
	// figures to the last bit whatever the records' types.
	s.Overall = a.group("overall", "overall", a.records, a.failed, overall, reps, seed, true, s)
	a.breakdowns(reps, seed, s)
	s.LoCoMo = a.locomoSummary(s)
	s.LongMemEval = a.lmeSummary(s)
	s.LoCoMoJudge = a.locomoJudgeSummary(s)
	s.degenerateWarnings()
	corpus.attach(s)
	s.warnings()
	return s
}

// counts is the summary's start: the run's settings and the counts of the records read, scored,
// failed, unscored and repeated, before any metric.
func (a *aggregator) counts(reps int, seed uint64, level float64, badLines int) *Summary {
	s := &Summary{Records: a.records, Errors: a.failed, ErrorsAsZero: a.errorsAsZero, MetricErrors: a.metricErrors,
		Unscored: a.unscored, BadLines: badLines, RepeatedIDs: a.ids.Count(), Bootstrap: reps, Seed: int64(seed), Level: level}
	s.unpredicted, s.unjudged, s.unjudgedBare, s.factsUnpredicted = a.unpredicted, a.unjudged, a.unjudgedBare, a.factsUnpredicted
	s.answerUnpredicted, s.uncategorised, s.chineseLatin = a.answerUnpredicted, a.uncategorised, a.chineseLatin
	s.blankGold, s.unreadGold = a.blankGold, a.unreadGold
	for k, in := range a.blankIn {
		if in {
			s.blankIn = append(s.blankIn, a.names[k])
		}
	}
	s.MissingAsZero, s.missingPart = a.missing, a.missingPart
	s.zeroNote = a.zeroNote()
	for k, in := range a.missingIn {
		if in {
			s.missingIn = append(s.missingIn, a.names[k])
		}
	}
	s.failedUnscored = a.failedUnscored
	s.named, s.grouped = a.named, a.grouped
	if f := a.ids.First(); f != nil {
		s.firstRepeat = f.Place()
	}
	s.byKnown, s.byFrom = slices.Sorted(maps.Keys(a.byKnown)), a.byFrom
	if len(a.models) > 1 && !slices.ContainsFunc(a.byPaths, func(p fieldPath) bool { return p.String() == "prediction.model" }) {
		s.models, s.modelsCapped = slices.Sorted(maps.Keys(a.models)), len(a.models) == maxModels
	}
	s.Scored = a.records - a.failed - a.unscored
	if a.errorsAsZero {
		s.Scored = a.records - a.unscored
	}
	return s
}

// byTypes fills s's groups by record type, types sorted, and counts the records without a type
// when others have one. It returns the overall columns: their running figures, and with kept
// values every type's values, type by type.
func (a *aggregator) byTypes(reps int, seed uint64, s *Summary) []column {
	types := slices.Sorted(maps.Keys(a.groups))
	overall := slices.Clone(a.overall)
	for _, t := range types {
		g := a.groups[t]
		if a.keep == keepValues {
			for k := range overall {
				if len(types) == 1 {
					overall[k].vals = g.cols[k].vals // one group: no copy
				} else {
					overall[k].vals = append(overall[k].vals, g.cols[k].vals...)
				}
			}
		}
		if t == "" {
			continue
		}
		if s.ByType == nil {
			s.ByType = map[string]*Group{}
		}
		s.ByType[t] = a.group("type "+t, "type "+cell.Value(t), g.records, g.failed, g.cols, reps, seed, false, s)
	}
	if g := a.groups[""]; g != nil && s.ByType != nil {
		s.WithoutType = g.records
	}
	return overall
}

// degenerateWarnings adds the degenerate-interval warnings, capped, and sorts the warnings so far
// (those and LongMemEval's) into a stable order, the count of those left out last.
func (s *Summary) degenerateWarnings() {
	slices.Sort(s.degenerate)
	kept, more := capGroupWarnings(s.degenerate, "metrics whose values are all equal, so their intervals are degenerate")
	s.Warnings = append(s.Warnings, kept...)
	slices.Sort(s.Warnings) // the degenerate-interval ones and LongMemEval's, in a stable order
	if more != "" {
		s.Warnings = append(s.Warnings, more)
	}
}

// group summarises one set of columns. With all, every selected metric is listed, even with no
// values; otherwise only those with values. label seeds the intervals; shown names the group in
// warnings (its value as cell.Value writes it).
func (a *aggregator) group(label, shown string, records, failed int, cols []column, reps int, seed uint64, all bool, s *Summary) *Group {
	g := &Group{Records: records, Errors: failed, Metrics: map[string]*Stat{}}
	// Columns of equal length share one resample (see stats.BootstrapMeans).
	byLen := map[int][]int{}
	for k, c := range cols {
		if c.n > 0 || all {
			byLen[c.n] = append(byLen[c.n], k)
		}
	}
	var flat []flatMetric // metrics whose values are all equal
	for n, ks := range byLen {
		ivs := a.intervals(groupSeed(seed, label, n), cols, ks, reps, s.Level)
		for i, k := range ks {
			st := &Stat{Count: n}
			if n > 0 {
				st.Mean = ptr(cols[k].mean())
			}
			if ivs != nil && !math.IsNaN(ivs[i].Lo) {
				st.CI = &[2]float64{ivs[i].Lo, ivs[i].Hi}
				if n > 1 && allEqual(cols[k].vals) { // the bounds are that value
					flat = append(flat, flatMetric{a.names[k], n})
				}
			}
			g.Metrics[a.names[k]] = st
		}
	}
	if len(flat) > 0 {
		s.degenerate = append(s.degenerate, degenerate(shown, flat))
	}
	return g
}

// intervals returns the bootstrap intervals of the columns ks of cols, all of one length, from
// seed; nil when no values are kept, as without intervals (--bootstrap 0).
func (a *aggregator) intervals(seed uint64, cols []column, ks []int, reps int, level float64) []stats.Interval {
	if a.keep != keepValues {
		return nil
	}
	sub := make([][]float64, len(ks))
	for i, k := range ks {
		sub[i] = cols[k].vals
	}
	return bootstrapColumns(seed, sub, reps, level)
}

// allEqual reports whether every value of xs is the first.
//
// Note: the bounds being equal is not the test: a single resample (--bootstrap 1) gives every
// interval equal bounds, whatever the values, and the warning says the values are all equal.
func allEqual(xs []float64) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// flatMetric is a metric of a group and its n values there: all equal (degenerate), or too few
// for a reliable interval (units.few).
type flatMetric struct {
	name string
	n    int
}

// degenerate is the one warning of a group for its metrics whose values are all equal; their
// counts are said once when they agree.
func degenerate(label string, flat []flatMetric) string {
	if len(flat) == 1 {
		return fmt.Sprintf("%s: %s: all %d values are equal, so the interval is degenerate", label, flat[0].name, flat[0].n)
	}
	slices.SortFunc(flat, func(a, b flatMetric) int { return strings.Compare(a.name, b.name) })
	names := make([]string, len(flat))
	same := true
	for i, f := range flat {
		names[i] = fmt.Sprintf("%s (%d)", f.name, f.n)
		same = same && f.n == flat[0].n
	}
	if same {
		for i, f := range flat {
			names[i] = f.name
		}
		return fmt.Sprintf("%s: all %d values are equal in each of %s, so their intervals are degenerate", label, flat[0].n, strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s: all values are equal in each of %s, so their intervals are degenerate", label, strings.Join(names, ", "))
}

// groupSeed is the seed of the resamples of a group's n values (a group's columns of one length
// share them): --seed with the group's label and n (stats.GroupSeed), so that a group's interval
// does not change when other groups or metrics are added.
func groupSeed(seed uint64, label string, n int) uint64 {
	return stats.GroupSeed(seed, label+"\x00"+strconv.Itoa(n))
}

// mean is the mean of xs (at least one value): their sum, in order, over their count, as
// Python's scripts take it, but never outside the values' range, which rounding can leave (the
// mean of equal values is that value: 0.1 summed 37 times is not 3.7), and never infinite: when
// the sum overflows (values near the largest float) the values are divided by the count before
// they are summed.
func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return meanOfSum(s, xs)
}

// meanOfSum is mean(xs) with s for the sum of xs, added in an order of the caller's.
func meanOfSum(s float64, xs []float64) float64 {
	lo, hi := slices.Min(xs), slices.Max(xs)
	n := float64(len(xs))
	m := s / n
	if math.IsInf(m, 0) || math.IsNaN(m) {
		m = 0
		for _, x := range xs {
			m += x / n
		}
	}
	return stats.Clamp(m, lo, hi)
}

func ptr(v float64) *float64 { return &v }

func ptrInt(v int) *int { return &v }
