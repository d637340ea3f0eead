package score

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/pkg/record"
)

// sectionBoot draws the resamples of the benchmark sections' intervals (locomo, longmemeval,
// locomo_judge), as a group's are drawn: --bootstrap resamples of the values the figure averages,
// from --seed and a name of the figure's own (groupSeed), never a metric run again. A mean over
// records resamples its records; a mean of strata means (LongMemEval's task-averaged accuracy, the
// mean of its six type means; LoCoMo's conversation-averaged means) is a stratified bootstrap:
// each resample draws every stratum's records from that stratum alone and averages their means as
// the figure does, so that each stratum keeps its weight. A figure whose values are all equal has
// its point for both bounds, and so does a stratum's mean within a resample: the benchmark
// sections keep their scripts' sum over count, which rounding can leave a hair from the values.
type sectionBoot struct {
	reps  int
	seed  uint64
	level float64
	few   []string // the figures over fewer than minReliable records, "name (n)", for the warning
}

// sectionBoot returns the sections' resampler; nil without intervals (--bootstrap 0).
func (a *aggregator) sectionBoot(s *Summary) *sectionBoot {
	if a.keep != keepValues || s.Bootstrap <= 0 {
		return nil
	}
	return &sectionBoot{reps: s.Bootstrap, seed: uint64(s.Seed), level: s.Level}
}

// stratum is the resampled means of one set of values (at least one), drawn for label, and their
// point mean, which stands for every resample's when the values are all equal.
type stratum struct {
	rs    *stats.MeanResamples
	pt    float64
	equal bool
}

// stratum draws the resamples of vals, whose mean is pt, from the seed and label.
func (b *sectionBoot) stratum(label string, vals []float64, pt float64) stratum {
	rs := stats.ResampleMeans(stats.NewRand(groupSeed(b.seed, label, len(vals))), [][]float64{vals}, b.reps)
	return stratum{rs: rs, pt: pt, equal: allEqual(vals)}
}

// at is the stratum's mean over resample r.
func (st stratum) at(r int) float64 {
	if st.equal {
		return st.pt
	}
	return st.rs.Mean(0, r)
}

// ci is the interval of the stratum's mean. It sorts the resampled means: at is to be read before.
func (st stratum) ci(level float64) *[2]float64 {
	if st.equal {
		return &[2]float64{st.pt, st.pt}
	}
	iv := st.rs.Intervals(level)[0]
	return &[2]float64{iv.Lo, iv.Hi}
}

// meanCI is the interval of the mean pt of vals, resampled for label; nil without b, values or
// mean. row names the figure in the warning of those over few records.
func (b *sectionBoot) meanCI(label, row string, vals []float64, pt *float64) *[2]float64 {
	if b == nil || len(vals) == 0 || pt == nil {
		return nil
	}
	b.note(row, len(vals))
	return b.stratum(label, vals, *pt).ci(b.level)
}

// percentile is the interval of a figure's resampled values (sorted in place).
func (b *sectionBoot) percentile(vals []float64) *[2]float64 {
	slices.Sort(vals)
	iv := stats.Percentile(vals, b.level)
	return &[2]float64{iv.Lo, iv.Hi}
}

// note notes the figure row, over n records, when they are too few for a reliable interval.
func (b *sectionBoot) note(row string, n int) {
	if small(n) {
		b.few = append(b.few, fmt.Sprintf("%s (%d)", row, n))
	}
}

// warn adds the warning of section's figures over too few records, as the groups have theirs.
func (b *sectionBoot) warn(s *Summary, section string) {
	if b == nil || len(b.few) == 0 {
		return
	}
	s.Warnings = append(s.Warnings, fmt.Sprintf("%s: figures over fewer than %d scored records, whose intervals are unreliable: %s",
		section, minReliable, listGroups(b.few)))
}

// concat is the values of vals at keys, key by key.
func concat[K comparable](vals map[K][]float64, keys []K) []float64 {
	n := 0
	for _, k := range keys {
		n += len(vals[k])
	}
	out := make([]float64, 0, n)
	for _, k := range keys {
		out = append(out, vals[k]...)
	}
	return out
}

// locomoIntervals sets the intervals of l, locomo_f1's section: each category's over its records,
// the micro average's over all of them (the categories' records in turn, in the order 4, 1, 2,
// 3, 5 that the mean adds them).
func (a *aggregator) locomoIntervals(s *Summary, l *LoCoMo) {
	b := a.sectionBoot(s)
	if b == nil {
		return
	}
	for i, c := range l.Categories {
		l.Categories[i].CI = b.meanCI("locomo category "+strconv.Itoa(c.Category), "category "+strconv.Itoa(c.Category), a.locomoVals[c.Category], c.Mean)
	}
	l.Overall.CI = b.meanCI("locomo overall", "overall (micro)", concat(a.locomoVals, []int{4, 1, 2, 3, 5}), l.Overall.Mean)
	b.warn(s, "locomo")
}

// lmeIntervals sets the intervals of l, LongMemEval's section: each type's over its records (drawn
// as the type's group draws them, so that the two agree when they hold the same values), the
// overall accuracy's over all records (as the overall group draws them: the types' in turn, in
// sorted order), the abstention accuracy's over the abstention questions, and the task-averaged
// accuracy's, stratified: in each resample the mean of the six types' resampled means, those that
// give the types' own intervals, added as the figure adds them.
func (a *aggregator) lmeIntervals(s *Summary, l *LongMemEval) {
	b := a.sectionBoot(s)
	if b == nil {
		return
	}
	types := slices.Sorted(maps.Keys(a.lme))
	strata := map[string]stratum{}
	for _, t := range types {
		strata[t] = b.stratum("type "+t, a.lmeVals[t], *a.lme[t].mean())
		b.note("type "+cell.Value(t), len(a.lmeVals[t]))
	}
	if l.TaskAveraged != nil {
		var tasks []stratum
		n := 0
		for _, t := range record.LongMemEvalTypes {
			if st, ok := strata[t]; ok {
				tasks = append(tasks, st)
				n += len(a.lmeVals[t])
			}
		}
		samples := make([]float64, b.reps)
		means := make([]float64, len(tasks))
		for r := range samples {
			for i, st := range tasks {
				means[i] = st.at(r)
			}
			samples[r] = sumOverCount(means)
		}
		l.TaskAveragedCI = b.percentile(samples)
		b.note(fmt.Sprintf("task-averaged over %s", english.Count(len(tasks), "type", "types")), n)
	}
	for _, t := range types {
		st := l.ByType[t]
		st.CI = strata[t].ci(b.level)
		l.ByType[t] = st
	}
	l.Overall.CI = b.meanCI("overall", "overall", concat(a.lmeVals, types), l.Overall.Mean)
	l.Abstention.CI = b.meanCI("longmemeval abstention", "abstention", a.lmeAbsVals, l.Abstention.Mean)
	b.warn(s, "longmemeval")
}

// locomoJudgePooled is the LoCoMo judge scores in one copy, category by category in order of
// category, each category's conversation by conversation (in the order of their first records of
// that category, so that a category's part, and its interval, rests on its own records alone, as a
// group's does) and then those of records whose id names none; cats is the categories, in order.
// It returns the copy, each category's part of it and the part before category 5 (the last of the
// five): the pooled figures are drawn from it, without a copy of their own.
func (a *aggregator) locomoJudgePooled(cats []int) (all []float64, byCat map[int][]float64, without5 []float64) {
	n := 0
	for _, cat := range cats {
		n += a.locomoJudge[cat].n
	}
	all, byCat = make([]float64, 0, n), map[int][]float64{}
	end5 := -1
	for _, cat := range cats {
		start := len(all)
		for _, c := range a.locomoCatConvs[cat] {
			all = append(all, c.vals[cat]...)
		}
		all = append(all, a.locomoNoConvVals[cat]...)
		byCat[cat] = all[start:len(all):len(all)]
		if cat == 5 {
			end5 = start
		}
	}
	without5 = all
	if end5 >= 0 {
		without5 = all[:end5:end5] // category 5 is the last
	}
	return all, byCat, without5
}

// locomoJudgeIntervals sets the intervals of l, the locomo_judge section. The pooled figures are
// means over records and resample them: each category's, all categories' (in turn, in order of
// category) and all but category 5's. The conversation-averaged means are stratified, the
// conversations (LoCoMo's fixed ten, or a run's samples) being the design, as LongMemEval's six
// types are, not a sample of units to draw: each resample draws every conversation's questions of
// each category from among themselves, and averages as the figures do (a conversation's mean
// from its categories' resampled means, weighed by their counts).
//
// Note: a cluster bootstrap, drawing conversations, would measure how the figure varies from one
// set of conversations to another, over ten units at most for LoCoMo (too few for a percentile
// interval), and give a single conversation (MAGMA's run over one sample) no interval at all.
func (a *aggregator) locomoJudgeIntervals(s *Summary, l *LoCoMoJudge) {
	b := a.sectionBoot(s)
	if b == nil {
		return
	}
	all, pooled, without5 := a.locomoJudgePooled(slices.Sorted(maps.Keys(a.locomoJudge)))
	for i, c := range l.Categories {
		l.Categories[i].CI = b.meanCI("locomo_judge category "+strconv.Itoa(c.Category), "category "+strconv.Itoa(c.Category), pooled[c.Category], c.Mean)
	}
	l.Overall.CI = b.meanCI("locomo_judge overall", "overall (micro)", all, l.Overall.Mean)
	l.WithoutCategory5.CI = b.meanCI("locomo_judge without category 5", "without category 5 (micro)", without5, l.WithoutCategory5.Mean)
	if ca := l.ConversationAveraged; ca != nil {
		a.convIntervals(b, ca)
	}
	b.warn(s, "locomo_judge")
}

// convIntervals sets the intervals of the conversation-averaged means ca (see
// locomoJudgeIntervals), conversation by conversation, so that no more than one conversation's
// resampled means are held at a time.
func (a *aggregator) convIntervals(b *sectionBoot, ca *ConversationAveraged) {
	all := newConvMeans(b.reps, len(a.locomoConvs))
	byCat := map[int]*convMeans{}
	for _, c := range ca.Categories {
		byCat[c.Category] = newConvMeans(b.reps, c.Count)
	}
	records, catRecords := 0, map[int]int{}
	xs := make([]float64, b.reps)
	for _, c := range a.locomoConvs {
		cats := slices.Sorted(maps.Keys(c.vals))
		strata := make([]stratum, len(cats))
		lo, hi := math.Inf(1), math.Inf(-1)
		for i, cat := range cats {
			v := c.vals[cat]
			strata[i] = b.stratum("locomo_judge conversation "+c.name+" category "+strconv.Itoa(cat), v, *c.cats[cat].mean())
			lo, hi = min(lo, slices.Min(v)), max(hi, slices.Max(v))
			catRecords[cat] += len(v)
		}
		records += c.all.n
		for i, cat := range cats {
			if m := byCat[cat]; m != nil {
				for r := range xs {
					xs[r] = strata[i].at(r)
				}
				m.add(xs)
			}
		}
		for r := range xs {
			if lo == hi { // every value the same: the conversation's own mean, as the figure has it
				xs[r] = *c.all.mean()
				continue
			}
			x := 0.0
			for i, cat := range cats {
				w := float64(len(c.vals[cat])) / float64(c.all.n)
				x += float64(w * strata[i].at(r)) // rounded before the sum: no fused multiply-add
			}
			xs[r] = stats.Clamp(x, lo, hi)
		}
		all.add(xs)
	}
	ca.Overall.CI = b.percentile(all.values())
	b.note("conversation-averaged overall", records)
	for i, c := range ca.Categories {
		ca.Categories[i].CI = b.percentile(byCat[c.Category].values())
		b.note("conversation-averaged category "+strconv.Itoa(c.Category), catRecords[c.Category])
	}
}

// convMeans takes, resample by resample, the mean of n conversations' resampled means as mean
// takes the mean of their means: summed in the conversations' order over their count, held to
// their range, and from the values divided by the count first where the sum overflows.
type convMeans struct {
	n        float64
	added    int
	sum, div []float64
	lo, hi   []float64
}

func newConvMeans(reps, n int) *convMeans {
	return &convMeans{n: float64(n), sum: make([]float64, reps), div: make([]float64, reps), lo: make([]float64, reps), hi: make([]float64, reps)}
}

// add adds one conversation's means, xs[r] of resample r.
func (m *convMeans) add(xs []float64) {
	for r, x := range xs {
		if m.added == 0 {
			m.lo[r], m.hi[r] = x, x
		}
		m.lo[r], m.hi[r] = min(m.lo[r], x), max(m.hi[r], x)
		m.sum[r] += x
		m.div[r] += x / m.n
	}
	m.added++
}

// values is the means, resample by resample.
func (m *convMeans) values() []float64 {
	out := make([]float64, len(m.sum))
	for r := range out {
		v := m.sum[r] / m.n
		if math.IsInf(v, 0) || math.IsNaN(v) {
			v = m.div[r]
		}
		out[r] = stats.Clamp(v, m.lo[r], m.hi[r])
	}
	return out
}
