package score

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/internal/stats"
)

// aggregator collects what the summary needs, one outcome at a time.
//
// Memory: without a summary only counts are kept. With one, the bootstrap resamples per-record
// values, so the aggregator keeps one float64 per record per selected metric that applies to it:
// 8 bytes × records × metrics, held once, in the record's type group (1M records × 20 metrics =
// 160 MB). When the summary is computed the overall columns are assembled from the type groups,
// so with more than one type the peak is twice that. Each record's id hash is held in a set, 11
// to 21 bytes (repeat.IDs; repeated ids). Everything else is counts and sums.
type aggregator struct {
	names             []string
	errorsAsZero      bool
	keep              bool       // keep the values, for a summary
	ids               repeat.IDs // the records' ids, for a summary (repeated ids)
	records           int
	failed            int
	failedUnscored    int // of the failed, under --errors-as-zero, those no selected metric reads: no 0 stands for them
	unscored          int
	unpredicted       int                  // of the unscored, those without a prediction
	factsUnpredicted  int                  // records with gold supporting facts and none predicted
	answerUnpredicted int                  // records with gold answers and supporting facts alone predicted
	unjudged          int                  // and those with one but without a judgment, for judge_score
	unjudgedBare      int                  // of unjudged, those without gold answers too
	missing           int                  // records without a prediction counted as 0 (--missing-as-zero)
	missingPart       int                  // of them, those with a prediction that lacks an answer or facts
	missingIn         []bool               // missingIn[k]: names[k] counted one of them as 0
	metricErrors      int                  // records with a corpus-metric problem or a failed embedding call
	groups            map[string]*groupAcc // by record type; "" for records without one
	sums              []float64            // sums[k]: the values of names[k] summed in input order, for overall's mean
	locomo            map[int]*meanAcc     // locomo_f1 by LoCoMo category
	locomoF1          meanAcc              // locomo_f1 over all categories, summed in input order
	lme               map[string]*meanAcc  // LongMemEval judge_score by type
	locomoJudge       map[int]*meanAcc     // LoCoMo judge_score by category
	locomoConvs       []*convAcc           // LoCoMo judge_score by conversation, in order of first record
	locomoConvAt      map[string]*convAcc  // locomoConvs by conversation
	locomoNoConv      int                  // LoCoMo judge_scores whose record's id names no conversation
	locomoAll         [2]meanAcc           // LoCoMo judge_score over all categories, and over all but 5
	lmeAbs            meanAcc              // LongMemEval judge_score over abstention questions
	byPaths           byFields             // --by
	by                []byAcc              // by[i]: the breakdown by byPaths[i]
	byKnown           map[string]bool      // the paths with values in the first records (outcome.byKnown)
	in                []*groupAcc          // add's scratch: the groups a record counts in
}

type groupAcc struct {
	records, failed int
	vals            [][]float64 // vals[k]: values of names[k]
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

// newAggregator returns an aggregator of the values of names; keep says whether a summary is
// wanted: without one only the counts are kept, so memory does not grow with the input. by names
// the fields of the summary's further breakdowns (--by).
func newAggregator(names []string, errorsAsZero, keep bool, by byFields) *aggregator {
	a := &aggregator{names: names, errorsAsZero: errorsAsZero, keep: keep, groups: map[string]*groupAcc{}, sums: make([]float64, len(names)),
		locomo: map[int]*meanAcc{}, lme: map[string]*meanAcc{}, locomoJudge: map[int]*meanAcc{}, locomoConvAt: map[string]*convAcc{}, byPaths: by, byKnown: map[string]bool{}}
	for range by {
		a.by = append(a.by, byAcc{groups: map[string]*groupAcc{}})
	}
	return a
}

// groupIn returns the group of key in groups, made when missing.
func (a *aggregator) groupIn(groups map[string]*groupAcc, key string) *groupAcc {
	g := groups[key]
	if g == nil {
		g = &groupAcc{vals: make([][]float64, len(a.names))}
		groups[key] = g
	}
	return g
}

// addID takes in the id of the record read at file:line, when a summary is kept: one that an
// earlier record had is counted, and the first such is noted, so that the warning names it.
//
// Note: the hashes were appended to a slice and the repeats counted by sorting it at the end,
// which knew how many there were but not which came first; the set finds each as it comes, in
// about as much memory (repeat.IDs, unbounded here: the summary keeps a value per record anyway).
func (a *aggregator) addID(id, file string, line int) {
	if a.keep {
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
	if len(o.missing) > 0 {
		a.missing++
		if !o.unpredicted {
			a.missingPart++
		}
	}
	any := a.addValues(&o, in)
	if o.embedFailed || len(o.corpus.problems) > 0 {
		a.metricErrors++
	}
	// A record no selected metric applies to is unscored, a failed one too under --errors-as-zero
	// (without it, failed records went back above): no zero stands for it in any mean.
	if !any && !o.corpus.any() {
		a.countUnscored(&o)
	}
}

// groupsOf counts o's record in the groups it belongs to, for a summary (none without one): its
// type's group, and its value's group of each breakdown. It returns them, kept in a.in as the
// scratch the next record reuses.
func (a *aggregator) groupsOf(o *outcome) []*groupAcc {
	in := a.in[:0] // its type's group, and its value's group of each breakdown
	if a.keep {
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

// addValues adds o's metric values to the groups in, the sums and the benchmark accumulators, a
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
			g.vals[k] = append(g.vals[k], v)
		}
		a.sums[k] += v
		a.addBenchmark(o, a.names[k], v)
	}
	return any
}

// addBenchmark adds v, o's value of the metric name, to the LoCoMo and LongMemEval
// accumulators it belongs in.
func (a *aggregator) addBenchmark(o *outcome, name string, v float64) {
	switch name {
	case "locomo_f1":
		acc(a.locomo, o.locomoCat).add(v)
		a.locomoF1.add(v) // in the records' order, as evaluate_gpts.py sums them
	case "judge_score":
		if o.dataset == "longmemeval" {
			acc(a.lme, o.typ).add(v)
			if o.abstention {
				a.lmeAbs.add(v)
			}
		}
		if o.dataset == "locomo" && o.locomoCat > 0 {
			a.addLoCoMoJudge(*o, v)
		}
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

// summarize computes the summary, with bootstrap intervals at level from reps resamples seeded by
// seed, and the corpus metrics of corpus (nil: none).
func (a *aggregator) summarize(reps int, seed uint64, level float64, badLines int, corpus *corpusAcc) *Summary {
	s := a.counts(reps, seed, level, badLines)
	overall := a.byTypes(reps, seed, s)
	// The overall columns hold the records type by type; their means take the sums made in
	// input order, as Python's sum adds a benchmark's records, so that they are its figures to
	// the last bit whatever the records' types.
	s.Overall = a.group("overall", "overall", a.records, a.failed, overall, a.sums, reps, seed, true, s)
	a.breakdowns(reps, seed, s)
	s.LoCoMo = a.locomoSummary()
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
	s.answerUnpredicted = a.answerUnpredicted
	s.MissingAsZero, s.missingPart = a.missing, a.missingPart
	for k, in := range a.missingIn {
		if in {
			s.missingIn = append(s.missingIn, a.names[k])
		}
	}
	s.failedUnscored = a.failedUnscored
	if f := a.ids.First(); f != nil {
		s.firstRepeat = f.Place()
	}
	s.byKnown = slices.Sorted(maps.Keys(a.byKnown))
	s.Scored = a.records - a.failed - a.unscored
	if a.errorsAsZero {
		s.Scored = a.records - a.unscored
	}
	return s
}

// byTypes fills s's groups by record type, types sorted, and counts the records without a type
// when others have one. It returns the overall columns: every type's values, type by type.
func (a *aggregator) byTypes(reps int, seed uint64, s *Summary) [][]float64 {
	types := make([]string, 0, len(a.groups))
	for t := range a.groups {
		types = append(types, t)
	}
	slices.Sort(types)
	overall := make([][]float64, len(a.names))
	if len(types) == 1 {
		overall = a.groups[types[0]].vals // one group: no copy
	}
	for _, t := range types {
		g := a.groups[t]
		for k := range a.names {
			if len(types) > 1 {
				overall[k] = append(overall[k], g.vals[k]...)
			}
		}
		if t == "" {
			continue
		}
		if s.ByType == nil {
			s.ByType = map[string]*Group{}
		}
		s.ByType[t] = a.group("type "+t, "type "+cell.Value(t), g.records, g.failed, g.vals, nil, reps, seed, false, s)
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
// values; otherwise only those with values. sums[k], when sums is not nil, is the sum of cols[k]
// in the order its mean is to be taken in (else the column's own). label seeds the intervals;
// shown names the group in warnings (its value as cell.Value writes it).
func (a *aggregator) group(label, shown string, records, failed int, cols [][]float64, sums []float64, reps int, seed uint64, all bool, s *Summary) *Group {
	g := &Group{Records: records, Errors: failed, Metrics: map[string]*Stat{}}
	// Columns of equal length share one resample (see stats.BootstrapMeans).
	byLen := map[int][]int{}
	for k, c := range cols {
		if len(c) > 0 || all {
			byLen[len(c)] = append(byLen[len(c)], k)
		}
	}
	var flat []flatMetric // metrics whose values are all equal
	for n, ks := range byLen {
		sub := make([][]float64, len(ks))
		for i, k := range ks {
			sub[i] = cols[k]
		}
		ivs := bootstrapColumns(seed^hashOf(label, n), sub, reps, s.Level)
		for i, k := range ks {
			st := &Stat{Count: n}
			if n > 0 && sums != nil {
				st.Mean = ptr(meanOfSum(sums[k], cols[k]))
			} else if n > 0 {
				st.Mean = ptr(mean(cols[k]))
			}
			if !math.IsNaN(ivs[i].Lo) {
				st.CI = &[2]float64{ivs[i].Lo, ivs[i].Hi}
				if n > 1 && allEqual(cols[k]) { // the bounds are that value
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

// hashOf derives a per-group seed offset, so a group's interval does not change when other
// groups or metrics are added.
func hashOf(label string, n int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d", label, n)
	return h.Sum64()
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
