package score

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/pkg/record"
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
	if o.failed {
		a.failed++
		for _, g := range in {
			g.failed++
		}
		if !a.errorsAsZero {
			return
		}
	}
	any := false
	if len(o.missing) > 0 {
		a.missing++
		if !o.unpredicted {
			a.missingPart++
		}
	}
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
		switch a.names[k] {
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
				a.addLoCoMoJudge(o, v)
			}
		}
	}
	if o.embedFailed || len(o.corpus.problems) > 0 {
		a.metricErrors++
	}
	// A record no selected metric applies to is unscored, a failed one too under --errors-as-zero
	// (without it, failed records went back above): no zero stands for it in any mean.
	if !any && !o.corpus.any() {
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
	// The overall columns hold the records type by type; their means take the sums made in
	// input order, as Python's sum adds a benchmark's records, so that they are its figures to
	// the last bit whatever the records' types.
	s.Overall = a.group("overall", "overall", a.records, a.failed, overall, a.sums, reps, seed, true, s)
	a.breakdowns(reps, seed, s)
	s.LoCoMo = a.locomoSummary()
	s.LongMemEval = a.lmeSummary(s)
	s.LoCoMoJudge = a.locomoJudgeSummary(s)
	slices.Sort(s.degenerate)
	kept, more := capGroupWarnings(s.degenerate, "metrics whose values are all equal, so their intervals are degenerate")
	s.Warnings = append(s.Warnings, kept...)
	slices.Sort(s.Warnings) // the degenerate-interval ones and LongMemEval's, in a stable order
	if more != "" {
		s.Warnings = append(s.Warnings, more)
	}
	corpus.attach(s)
	s.warnings()
	return s
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

// locomoSummary is LoCoMo's own report of locomo_f1: the mean per category (evaluation_stats.py's
// analyze_acc) and over all records, summed in input order as evaluate_gpts.py's main() sums them
// (sum(ems)/len(ems)), not category by category, which can differ in the last digit.
func (a *aggregator) locomoSummary() *LoCoMo {
	if len(a.locomo) == 0 {
		return nil
	}
	l := &LoCoMo{Metric: "locomo_f1"}
	for c := 1; c <= 5; c++ {
		m, ok := a.locomo[c]
		if !ok {
			continue
		}
		l.Categories = append(l.Categories, Category{Category: c, Type: record.LoCoMoType(c), Mean: m.mean(), Count: m.n})
	}
	l.Overall = Stat{Mean: a.locomoF1.mean(), Count: a.locomoF1.n}
	return l
}

// convAcc is judge_score over one LoCoMo conversation: all its values, and by category.
type convAcc struct {
	all  meanAcc
	cats map[int]*meanAcc
}

// addLoCoMoJudge takes in the judge_score v of a LoCoMo record.
func (a *aggregator) addLoCoMoJudge(o outcome, v float64) {
	acc(a.locomoJudge, o.locomoCat).add(v)
	a.locomoAll[0].add(v) // summed in the records' order, as MAGMA sums them
	if o.locomoCat != 5 {
		a.locomoAll[1].add(v)
	}
	if o.locomoConv == "" {
		a.locomoNoConv++
		return
	}
	c := a.locomoConvAt[o.locomoConv]
	if c == nil {
		c = &convAcc{cats: map[int]*meanAcc{}}
		a.locomoConvAt[o.locomoConv] = c
		a.locomoConvs = append(a.locomoConvs, c)
	}
	c.all.add(v)
	acc(c.cats, o.locomoCat).add(v)
}

// locomoJudgeSummary is judge_score over LoCoMo records as the LoCoMo judges' own code reports it.
// mem0's generate_scores.py pools the questions of every conversation: the mean and count per
// category, and the mean over all (category 5 has no judgment under mem0's mode, so it is not
// among them). MAGMA's test_fixed_memory.py pools the questions of one conversation (a sample):
// per category, over all (with category 5 when it was judged) and over all but category 5; over
// several conversations it prints the mean of the conversations' means, each conversation
// weighing the same whatever its number of questions, and per category the mean over the
// conversations that have the category. Those are conversation_averaged, the conversation read
// from the record's id (locomo:<sample_id>:<index>); null, with a warning, when an id names none.
func (a *aggregator) locomoJudgeSummary(s *Summary) *LoCoMoJudge {
	if len(a.locomoJudge) == 0 {
		return nil
	}
	l := &LoCoMoJudge{Metric: "judge_score"}
	for c := 1; c <= 5; c++ {
		if m, ok := a.locomoJudge[c]; ok {
			l.Categories = append(l.Categories, Category{Category: c, Type: record.LoCoMoType(c), Mean: m.mean(), Count: m.n})
		}
	}
	l.Overall = Stat{Mean: a.locomoAll[0].mean(), Count: a.locomoAll[0].n}
	l.WithoutCategory5 = Stat{Mean: a.locomoAll[1].mean(), Count: a.locomoAll[1].n}
	if a.locomoNoConv > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("locomo_judge: %s no conversation (locomo:<sample_id>:<index>, as qa-load writes it): no conversation-averaged figures",
			english.Count(a.locomoNoConv, "record's id names", "records' ids name")))
		return l
	}
	l.Conversations = ptrInt(len(a.locomoConvs))
	// Summed in the conversations' order, as MAGMA sums its samples' figures in theirs (mean).
	ca := &ConversationAveraged{}
	var means []float64
	for _, c := range a.locomoConvs {
		means = append(means, *c.all.mean())
	}
	ca.Overall = Stat{Mean: ptr(mean(means)), Count: len(means)}
	for cat := 1; cat <= 5; cat++ {
		means = means[:0]
		for _, c := range a.locomoConvs {
			if m, ok := c.cats[cat]; ok {
				means = append(means, *m.mean())
			}
		}
		if len(means) > 0 {
			ca.Categories = append(ca.Categories, Category{Category: cat, Type: record.LoCoMoType(cat), Mean: ptr(mean(means)), Count: len(means)})
		}
	}
	l.ConversationAveraged = ca
	return l
}

// lmeSummary is LongMemEval's own report: accuracy per question type, the task-averaged accuracy
// (the mean of the means of LongMemEval's six question types), the overall accuracy and the
// accuracy on abstention questions. A type that is none of the six (a record without a type, a
// misspelt one) has its accuracy in by_type and its records in the overall accuracy, as upstream's
// overall counts every question, but it is no task of the benchmark's, so it is left out of the
// task-averaged accuracy, with a warning.
// longMemEvalTypes are LongMemEval's question types in print_qa_metrics.py's order.
var longMemEvalTypes = []string{"single-session-user", "single-session-preference", "single-session-assistant",
	"multi-session", "temporal-reasoning", "knowledge-update"}

func (a *aggregator) lmeSummary(s *Summary) *LongMemEval {
	if len(a.lme) == 0 {
		return nil
	}
	l := &LongMemEval{Metric: "judge_score", ByType: map[string]Stat{}}
	var all meanAcc
	var means []float64
	var others []string
	// The six type means are summed in print_qa_metrics.py's order (np.mean of six values adds
	// them in turn), so that the figure is upstream's to the last bit and the same on every run.
	for _, t := range slices.Sorted(maps.Keys(a.lme)) {
		m := a.lme[t]
		l.ByType[t] = Stat{Mean: m.mean(), Count: m.n}
		all.merge(m)
		if !slices.Contains(longMemEvalTypes, t) {
			others = append(others, strconv.Quote(t))
		}
	}
	for _, t := range longMemEvalTypes {
		if m, ok := a.lme[t]; ok {
			means = append(means, *m.mean())
		}
	}
	tasks := len(means)
	if tasks > 0 {
		l.TaskAveraged = ptr(mean(means))
	}
	l.Overall = Stat{Mean: all.mean(), Count: all.n}
	l.Abstention = Stat{Mean: a.lmeAbs.mean(), Count: a.lmeAbs.n}
	if tasks != len(longMemEvalTypes) {
		s.Warnings = append(s.Warnings, fmt.Sprintf("longmemeval: task-averaged accuracy is over %s, not the benchmark's 6", english.Count(tasks, "question type", "question types")))
	}
	if len(others) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("longmemeval: %s %s %s none of LongMemEval's six question types: %s in by_type and overall but not in the task-averaged accuracy",
			english.Form(len(others), "type", "types"), strings.Join(others, ", "), english.Form(len(others), "is", "are"), english.Form(len(others), "it is", "they are")))
	}
	return l
}

// lmeTasks is how many of LongMemEval's six question types the task-averaged accuracy is over.
func (l *LongMemEval) lmeTasks() int {
	n := 0
	for _, t := range longMemEvalTypes {
		if _, ok := l.ByType[t]; ok {
			n++
		}
	}
	return n
}

// warnings puts the caveats a reader of the summary should not miss before the warnings of its
// parts (degenerate intervals, LongMemEval's types, the corpus metrics).
func (s *Summary) warnings() {
	var w []string
	if s.Records == 0 {
		w = append(w, "no records: every count is zero")
	}
	if s.Errors > 0 {
		switch zeroed := s.Errors - s.failedUnscored; {
		case s.ErrorsAsZero && zeroed == s.Errors:
			w = append(w, english.Count(s.Errors, "record carries a prediction or judge error and counts", "records carry prediction or judge errors and count")+" as 0 (--errors-as-zero)")
		case s.ErrorsAsZero:
			// A failed record that no selected metric reads (no answers, no judgment for
			// judge_score) gets no 0: it is among the unscored.
			w = append(w, fmt.Sprintf("%s: %d %s as 0 (--errors-as-zero), %d no selected metric reads (unscored)",
				english.Count(s.Errors, "record carries a prediction or judge error", "records carry prediction or judge errors"),
				zeroed, english.Form(zeroed, "counts", "count"), s.failedUnscored))
		default:
			w = append(w, fmt.Sprintf("%s excluded (--errors-as-zero counts %s as 0)",
				english.Count(s.Errors, "record carries a prediction or judge error and is", "records carry prediction or judge errors and are"), english.Form(s.Errors, "it", "them")))
		}
	}
	if n := s.MissingAsZero; n > 0 {
		if s.missingPart == 0 {
			w = append(w, fmt.Sprintf("%s no prediction and %s as 0 in %s, as the benchmark's script scores a question it has no answer for (--missing-as-zero)",
				english.Count(n, "record has", "records have"), english.Form(n, "counts", "count"), strings.Join(s.missingIn, ", ")))
		} else {
			w = append(w, fmt.Sprintf("%s no prediction (%d) or one without the answer or the supporting facts a metric reads (%d), and %s as 0 in %s, as the benchmark's script scores a question it has no answer or facts for (--missing-as-zero)",
				english.Count(n, "record has", "records have"), n-s.missingPart, s.missingPart, english.Form(n, "counts", "count"), strings.Join(s.missingIn, ", ")))
		}
	}
	if s.Unscored > 0 {
		w = append(w, unscoredWarning(s.Unscored, s.Records, s.unpredicted, s.unjudged, s.unjudgedBare))
	}
	if s.RepeatedIDs > 0 {
		w = append(w, english.Count(s.RepeatedIDs, "record repeats", "records repeat")+" the id of an earlier record: each counts in every figure as a record of its own (an input given twice?)"+
			english.Form(s.RepeatedIDs, ": ", "; the first is ")+s.firstRepeat)
	}
	if n := s.WithoutType; n > 0 {
		w = append(w, fmt.Sprintf("%d of %d records %s no type: %s in overall but in no type's group", n, s.Records,
			english.Form(n, "has", "have"), english.Form(n, "it is", "they are")))
	}
	w = append(w, s.byMissing()...)
	if warn := s.factsWarning(); warn != "" {
		w = append(w, warn)
	}
	if warn := s.answerWarning(); warn != "" {
		w = append(w, warn)
	}
	if few := stats.FewResamples(s.Bootstrap, s.Level, stats.DefaultResamples); few != "" && s.Records > 0 {
		w = append(w, few)
	}
	w = append(w, s.unreliable()...)
	s.Warnings = append(w, s.Warnings...)
}

// factsWarning says, when some records have HotpotQA's supporting-fact scores and others have
// gold facts but a prediction without any, that the means are over the first alone, where
// hotpot_evaluate_v1.py counts the others as 0 ("missing sp fact") and divides by all; else "".
//
// Note: scoring those records 0 would make the scores of a run that predicts no facts at all
// zeros, where none apply; the warning says how the official means would differ instead.
func (s *Summary) factsWarning() string {
	if s.factsUnpredicted == 0 || s.Overall == nil {
		return ""
	}
	var names, counted []string
	n, same := 0, true
	for _, name := range []string{"sp_em", "sp_f1", "joint_em", "joint_f1"} {
		if st := s.Overall.Metrics[name]; st != nil && st.Count > 0 {
			same = same && (n == 0 || st.Count == n)
			names, n = append(names, name), max(n, st.Count)
			counted = append(counted, fmt.Sprintf("%s over %d", name, st.Count))
		}
	}
	if n == 0 {
		return ""
	}
	if !same {
		// The joint scores need the answer too: a prediction of facts alone has sp scores and
		// no joint ones, so their counts differ, and so do the script's denominators.
		return fmt.Sprintf("%s: the means leave out %s gold facts and a prediction without any, which hotpot_evaluate_v1.py scores 0 and counts in its means (--missing-as-zero counts %s so)",
			strings.Join(counted, ", "), english.Count(s.factsUnpredicted, "record that has", "records that have"), english.Form(s.factsUnpredicted, "it", "them"))
	}
	return fmt.Sprintf("%s: the means are over the %s whose prediction carries supporting facts; %s gold facts and a prediction without any, which hotpot_evaluate_v1.py scores 0 and counts in its means (over %d)",
		strings.Join(names, ", "), english.Count(n, "record", "records"), english.Count(s.factsUnpredicted, "more record has", "more records have"), n+s.factsUnpredicted)
}

// answerWarning says, when records have a prediction of HotpotQA's supporting facts alone (its
// official file gave their "sp" and no "answer") and an answer metric hotpot_evaluate_v1.py
// scores is selected, that those leave the records out, where the script counts them 0
// ("missing answer") and divides by all; else "".
func (s *Summary) answerWarning() string {
	if s.answerUnpredicted == 0 || s.Overall == nil {
		return ""
	}
	var names []string
	for _, name := range []string{"em", "f1", "hotpot_em", "hotpot_f1", "joint_em", "joint_f1"} {
		if s.Overall.Metrics[name] != nil {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%s supporting facts and no answer: %s %s %s out, where hotpot_evaluate_v1.py scores %s 0 (\"missing answer\") and counts %s in its means (--missing-as-zero counts %s so)",
		english.Count(s.answerUnpredicted, "record's prediction carries", "records' predictions carry"), strings.Join(names, ", "),
		english.Form(len(names), "leaves", "leave"), english.Form(s.answerUnpredicted, "it", "them"), english.Form(s.answerUnpredicted, "it", "them"), english.Form(s.answerUnpredicted, "it", "them"), english.Form(s.answerUnpredicted, "it", "them"))
}

// unscoredWarning says that unscored of records records got no score, and why that may be:
// unpredicted of them have no prediction and unjudged no judgment for judge_score (none at all:
// a stage run before qa-predict or qa-judge, which it names), or what else the metrics read;
// otherwise they would be silent, for they take no part in any mean. bare of the unjudged have no
// gold answers either, which the warning adds: the metrics need them, and so do most judge modes
// (EvaLearn's grades by a rubric, and the rules grade a question to decline without), so qa-judge
// alone may not score them.
func unscoredWarning(unscored, records, unpredicted, unjudged, bare int) string {
	const why = "lacking what the selected metrics read: prediction text, answers, the judgment, the language or fields a metric needs; or a metric error reported above"
	head := fmt.Sprintf("%d of %d records got no score", unscored, records)
	if unscored == records {
		head = "no record got a score"
	}
	noAnswers := "" // "N of them have no gold answers either, …"
	if bare > 0 {
		noAnswers = fmt.Sprintf("%s no gold answers either, which the metrics and most judge modes need", english.Count(bare, "of them has", "of them have"))
	}
	var lack []string
	if unpredicted > 0 {
		lack = append(lack, english.Count(unpredicted, "has no prediction", "have no prediction"))
	}
	if unjudged > 0 {
		l := english.Count(unjudged, "has no judgment", "have no judgment")
		if noAnswers != "" {
			l += " (" + noAnswers + ")"
		}
		lack = append(lack, l)
	}
	switch {
	case unpredicted == records:
		return head + ": none has a prediction (run qa-predict first)"
	case unjudged == records && bare == 0:
		return head + ": none has a judgment (run qa-judge first)"
	case unjudged == records:
		return head + ": none has a judgment (run qa-judge first); " + noAnswers
	case len(lack) == 0:
		return fmt.Sprintf("%s (%s)", head, why)
	case unpredicted+unjudged == unscored:
		return head + ": " + strings.Join(lack, ", ")
	}
	return fmt.Sprintf("%s (%s); of them, %s", head, why, strings.Join(lack, ", "))
}
