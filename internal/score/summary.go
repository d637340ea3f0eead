package score

import (
	"math"
	"slices"

	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/internal/stats"
)

// aggregator collects what the summary needs, one outcome at a time.
//
// Memory: without a summary only counts are kept. With one, each group (overall, each type, each
// --by value) keeps each metric's running figures, a column: count, sum, least and greatest value
// (what a mean needs). With intervals (--bootstrap above 0) the bootstrap resamples per-record
// values, so the columns also keep one float64 per record per selected metric that applies to it:
// 8 bytes × records × metrics, held once in the record's type group and once more in its group of
// each --by field (1M records × 20 metrics = 160 MB). When the summary is computed the overall
// columns' values are assembled from the type groups, so with more than one type the peak is
// twice that. Without intervals (--bootstrap 0) no value is kept, and the memory does not grow
// with the records but for the set of their id hashes, 11 to 21 bytes a record (repeat.IDs;
// repeated ids). The corpus metrics have an accumulator of their own, which likewise keeps
// running figures without intervals but for auc and the query groups' metrics (corpus.go).
type aggregator struct {
	names             []string
	named             []string     // of names, those --metrics names itself (selection.named)
	grouped           []namedGroup // the groups --metrics names (selection.grouped)
	errorsAsZero      bool
	keep              keeping
	ids               repeat.IDs // the records' ids, for a summary (repeated ids)
	records           int
	failed            int
	failedUnscored    int // of the failed, under --errors-as-zero, those no selected metric reads: no 0 stands for them
	unscored          int
	unpredicted       int                  // of the unscored, those without a prediction
	factsUnpredicted  int                  // records with gold supporting facts and none predicted
	answerUnpredicted int                  // records with gold answers and supporting facts alone predicted
	uncategorised     int                  // LoCoMo records without a category
	chineseLatin      int                  // Chinese records that a metric reading English scored
	blankGold         int                  // unanswerable records (answers [""]) that a metric of blankMetrics scored
	blankIn           []bool               // blankIn[k]: names[k] scored one of them
	unreadGold        int                  // records whose gold answers ROUGE reads no token in (outcome.unreadGold)
	unjudged          int                  // and those with one but without a judgment, for judge_score
	unjudgedBare      int                  // of unjudged, those without gold answers too
	missing           int                  // records without a prediction counted as 0 (--missing-as-zero)
	missingPart       int                  // of them, those with a prediction that lacks an answer or facts
	missingIn         []bool               // missingIn[k]: names[k] counted one of them as 0
	zeroable          int                  // of the unpredicted, those --missing-as-zero would count as 0 (outcome.zeroable)
	zeroableIn        []bool               // zeroableIn[k]: names[k] would count one of them as 0
	metricErrors      int                  // records with a corpus-metric problem, a failed embedding call or a judge score out of range
	groups            map[string]*groupAcc // by record type; "" for records without one
	overall           []column             // overall[k]: names[k]'s figures over all records, summed in input order; no values
	locomo            map[int]*meanAcc     // locomo_f1 by LoCoMo category
	lme               map[string]*meanAcc  // LongMemEval judge_score by type
	locomoJudge       map[int]*meanAcc     // LoCoMo judge_score by category
	locomoConvs       []*convAcc           // LoCoMo judge_score by conversation, in order of first record
	locomoConvAt      map[string]*convAcc  // locomoConvs by conversation
	locomoCatConvs    map[int][]*convAcc   // with intervals, by category the conversations that have it, in order of their first record of it
	locomoNoConv      int                  // LoCoMo judge_scores whose record's id names no conversation
	locomoAll         [2]meanAcc           // LoCoMo judge_score over all categories, and over all but 5
	lmeAbs            meanAcc              // LongMemEval judge_score over abstention questions
	lmeUnjudged       int                  // LongMemEval records with a prediction and no judgment judge_score reads
	locomoUnjudged    int                  // LoCoMo records of categories 1-4 with a prediction and no judgment judge_score reads
	judge             string               // --judge, which the judge sections' warnings name
	judgeFlag         string               // where judge came from: "--judge", "--judge from QA_JUDGE"
	byPaths           byFields             // --by
	byFrom            string               // " from QA_BY" when the variable set --by
	by                []byAcc              // by[i]: the breakdown by byPaths[i]
	byKnown           map[string]bool      // the paths with values in the first records (outcome.byKnown)
	models            map[string]bool      // the models whose answers the figures take in, up to maxModels
	in                []*groupAcc          // add's scratch: the groups a record counts in

	// The benchmark sections' values, kept with intervals (keepValues) for their bootstrap, in
	// input order: locomo_f1's stored scores by category, LongMemEval's judge scores by type and
	// those of its abstention questions, and the LoCoMo judge scores of records whose id names no
	// conversation by category (the others' are in their conversation's convAcc).
	locomoVals       map[int][]float64
	lmeVals          map[string][]float64
	lmeAbsVals       []float64
	locomoNoConvVals map[int][]float64
}

// keeping is what an aggregator keeps beside the run's counts.
type keeping int

const (
	keepCounts  keeping = iota // no summary: the counts alone
	keepFigures                // a summary without intervals: each group's columns' running figures
	keepValues                 // a summary with intervals: the columns' values too, for the bootstrap
)

type groupAcc struct {
	records, failed int
	cols            []column // cols[k]: the values of names[k]
}

// meanAcc is a running mean. Beside the sum it keeps the sum of the values divided by 2⁶⁴, which
// stays finite where the sum overflows (judge scores near the largest float): the mean is then
// taken from it, so that it is never infinite, as JSON cannot hold it.
type meanAcc struct {
	sum, scaled float64
	n           int
}

func (m *meanAcc) add(v float64) { m.sum += v; m.scaled += float64(v * 0x1p-64); m.n++ }

// merge adds o's values to m.
func (m *meanAcc) merge(o *meanAcc) { m.sum += o.sum; m.scaled += o.scaled; m.n += o.n }

func (m meanAcc) mean() *float64 {
	if m.n == 0 {
		return nil
	}
	v := m.sum / float64(m.n)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		v = min(max(m.scaled/float64(m.n)*0x1p64, -math.MaxFloat64), math.MaxFloat64)
	}
	return &v
}

// column is one metric's values in one group: their count, their sum in the order they came, and
// their least and greatest (the mean's bounds), which are all the mean needs; and, when kept, the
// values themselves, which the bootstrap resamples. Beside the sum it keeps, as meanAcc does,
// the sum of the values scaled by 2⁻⁶⁴, for a mean where the sum overflows.
type column struct {
	n           int
	sum, scaled float64
	lo, hi      float64
	vals        []float64 // nil unless kept
}

// add adds v, and appends it to the values with keep.
func (c *column) add(v float64, keep bool) {
	if c.n == 0 {
		c.lo, c.hi = v, v
	}
	// min and max order -0 below 0, as slices.Min and slices.Max over the values do.
	c.lo, c.hi = min(c.lo, v), max(c.hi, v)
	c.n++
	c.sum += v
	c.scaled += float64(v * 0x1p-64) // the conversion keeps the product from fusing into the sum
	if keep {
		c.vals = append(c.vals, v)
	}
}

// mean is the column's mean (at least one value): mean's, from its sum, whether or not the values
// are kept, so that a summary with intervals and one without have the same means to the bit.
// Where the sum overflows (values near the largest float, which only judge scores reach), the
// scaled sum stands in, divided by the count once, where mean divides each value by the count
// before summing them: the two can differ in the last bits (TestColumnMeanOverflow).
func (c *column) mean() float64 {
	n := float64(c.n)
	m := c.sum / n
	if math.IsInf(m, 0) || math.IsNaN(m) {
		m = c.scaled / n * 0x1p64 // infinite if it rounds above the largest float: the clamp brings it back
	}
	return stats.Clamp(m, c.lo, c.hi)
}

// newAggregator returns an aggregator of the values of names; keep says what a summary needs, if
// one is wanted: only with intervals do the kept values grow with the input. by names the fields
// of the summary's further breakdowns (--by).
func newAggregator(names []string, errorsAsZero bool, keep keeping, by byFields) *aggregator {
	a := &aggregator{names: names, errorsAsZero: errorsAsZero, keep: keep, groups: map[string]*groupAcc{}, overall: make([]column, len(names)),
		locomo: map[int]*meanAcc{}, lme: map[string]*meanAcc{}, locomoJudge: map[int]*meanAcc{}, locomoConvAt: map[string]*convAcc{},
		locomoVals: map[int][]float64{}, lmeVals: map[string][]float64{}, locomoNoConvVals: map[int][]float64{}, locomoCatConvs: map[int][]*convAcc{}, byPaths: by, byKnown: map[string]bool{}}
	for range by {
		a.by = append(a.by, byAcc{groups: map[string]*groupAcc{}})
	}
	return a
}

// groupIn returns the group of key in groups, made when missing.
func (a *aggregator) groupIn(groups map[string]*groupAcc, key string) *groupAcc {
	g := groups[key]
	if g == nil {
		g = &groupAcc{cols: make([]column, len(a.names))}
		groups[key] = g
	}
	return g
}

// addID takes in the id of the record read at file:line, when a summary is kept: one that an
// earlier record had is counted, and the first such is noted, so that the warning names it.
//
// Note: the hashes were appended to a slice and the repeats counted by sorting it at the end,
// which knew how many there were but not which came first; the set finds each as it comes, in
// about as much memory (repeat.IDs, unbounded here: the one thing a summary without intervals
// keeps per record).
func (a *aggregator) addID(id, file string, line int) {
	if a.keep != keepCounts {
		a.ids.Add(id, file, line)
	}
}

// add takes in one record's outcome.
func (a *aggregator) add(o outcome) {
	a.records++
	if o.factsUnpredicted {
		a.factsUnpredicted++
	}
	if o.answerUnpredicted {
		a.answerUnpredicted++
	}
	if o.uncategorised {
		a.uncategorised++
	}
	if o.chineseLatin {
		a.chineseLatin++
	}
	if len(o.blankIn) > 0 {
		a.blankGold++
		if a.blankIn == nil {
			a.blankIn = make([]bool, len(a.names))
		}
		for _, k := range o.blankIn {
			a.blankIn[k] = true
		}
	}
	if o.unreadGold {
		a.unreadGold++
	}
	in := a.groupsOf(&o)
	if o.failed {
		a.failed++
		for _, g := range in {
			g.failed++
		}
		if !a.errorsAsZero {
			return
		}
	}
	a.addModel(o.model)
	a.countBenchUnjudged(&o)
	if len(o.missing) > 0 {
		a.missing++
		if !o.unpredicted {
			a.missingPart++
		}
	}
	any := a.addValues(&o, in)
	if o.embedFailed || len(o.corpus.problems) > 0 || o.judgeRange != "" {
		a.metricErrors++
	}
	// A record no selected metric applies to is unscored, a failed one too under --errors-as-zero
	// (without it, failed records went back above): no zero stands for it in any mean.
	if !any && !o.corpus.any() {
		a.countUnscored(&o)
	}
}

// maxModels is how many models' names the summary's warning of pooled models lists at most.
const maxModels = 20

// addModel notes model, the prediction's model of a record the figures take in, for a summary;
// "" (no model named) is none.
//
// Note: two runs' records given together, of two models, were pooled in every figure without a
// word where their ids differed (two shards, say), and with one of repeated ids where they did
// not, which did not say that the runs were of other models; qa-learncurve warned of it.
func (a *aggregator) addModel(model string) {
	if model == "" || a.keep == keepCounts || len(a.models) == maxModels {
		return
	}
	if a.models == nil {
		a.models = map[string]bool{}
	}
	a.models[model] = true
}

// groupsOf counts o's record in the groups it belongs to, for a summary (none without one): its
// type's group, and its value's group of each breakdown. It returns them, kept in a.in as the
// scratch the next record reuses.
func (a *aggregator) groupsOf(o *outcome) []*groupAcc {
	in := a.in[:0] // its type's group, and its value's group of each breakdown
	if a.keep != keepCounts {
		in = append(in, a.groupIn(a.groups, o.typ))
		for _, p := range o.byKnown {
			a.byKnown[p] = true
		}
		for i, v := range o.by {
			if v.ok {
				in = append(in, a.groupIn(a.by[i].groups, v.text))
			} else {
				a.by[i].without++
			}
		}
		for _, g := range in {
			g.records++
		}
	}
	a.in = in
	return in
}

// addValues adds o's metric values to the groups in, the overall columns and the benchmark accumulators, a
// missing prediction's NaN as 0 where --missing-as-zero asks; it reports whether any value counted.
func (a *aggregator) addValues(o *outcome, in []*groupAcc) bool {
	any := false
	for k, v := range o.vals {
		if math.IsNaN(v) {
			if !slices.Contains(o.missing, k) {
				continue
			}
			v = 0 // no prediction, and the benchmark's script scores that 0 (--missing-as-zero)
			if a.missingIn == nil {
				a.missingIn = make([]bool, len(a.names))
			}
			a.missingIn[k] = true
		}
		if any = true; len(in) == 0 {
			break // counted as scored; its values are kept for a summary only
		}
		for _, g := range in {
			g.cols[k].add(v, a.keep == keepValues)
		}
		a.overall[k].add(v, false) // its values are the type groups', assembled when summarised
		a.addBenchmark(o, a.names[k], v)
	}
	return any
}

// addBenchmark adds v, o's value of the metric name, to the LoCoMo and LongMemEval
// accumulators it belongs in.
func (a *aggregator) addBenchmark(o *outcome, name string, v float64) {
	keep := a.keep == keepValues
	switch name {
	case "locomo_f1":
		stored := locomoStored(v, o.locomoCat)
		acc(a.locomo, o.locomoCat).add(stored)
		if keep {
			a.locomoVals[o.locomoCat] = append(a.locomoVals[o.locomoCat], stored)
		}
	case "judge_score":
		if o.dataset == "longmemeval" {
			acc(a.lme, o.typ).add(v)
			if o.abstention {
				a.lmeAbs.add(v)
			}
			if keep {
				a.lmeVals[o.typ] = append(a.lmeVals[o.typ], v)
				if o.abstention {
					a.lmeAbsVals = append(a.lmeAbsVals, v)
				}
			}
		}
		if o.dataset == "locomo" && o.locomoCat > 0 {
			a.addLoCoMoJudge(*o, v)
		}
	}
}

// countBenchUnjudged counts o's record when it has a prediction and no judgment that judge_score
// reads (none, or none of --judge's name, though it may carry others), for the warning of the
// LongMemEval and LoCoMo judge sections, which leave it out while the other metrics score it. A
// LoCoMo category-5 question is not counted: mem0's judge leaves it unjudged by design.
func (a *aggregator) countBenchUnjudged(o *outcome) {
	switch {
	case !o.judgeless:
	case o.dataset == "longmemeval":
		a.lmeUnjudged++
	case o.dataset == "locomo" && o.locomoCat > 0 && o.locomoCat != 5:
		a.locomoUnjudged++
	}
}

// countUnscored counts o's record as unscored, and by why: failed, without a prediction, without
// a judgment.
func (a *aggregator) countUnscored(o *outcome) {
	a.unscored++
	if o.failed {
		a.failedUnscored++
	}
	if o.unpredicted {
		a.unpredicted++
	}
	if o.unpredicted && len(o.zeroable) > 0 {
		a.zeroable++
		if a.zeroableIn == nil {
			a.zeroableIn = make([]bool, len(a.names))
		}
		for _, k := range o.zeroable {
			a.zeroableIn[k] = true
		}
	}
	if o.unjudged {
		a.unjudged++
	}
	if o.unjudgedBare {
		a.unjudgedBare++
	}
}

func acc[K comparable](m map[K]*meanAcc, k K) *meanAcc {
	if m[k] == nil {
		m[k] = &meanAcc{}
	}
	return m[k]
}
