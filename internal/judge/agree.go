package judge

import (
	"math/rand/v2"
	"sort"

	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/pkg/record"
)

// Item is one record's verdicts from the judges being compared (categories, in judge order).
type Item struct {
	ID, Type string
	Ratings  []int
}

// Agreement summarises how often judges agree over a set of items.
type Agreement struct {
	Group   string
	N       int
	Raw     float64
	RawCI   stats.Interval
	Kappa   float64 // Cohen's κ for two judges, Fleiss' κ for more
	KappaCI stats.Interval
}

// KappaName names the coefficient used for k judges.
func KappaName(k int) string {
	if k == 2 {
		return "Cohen's kappa"
	}
	return "Fleiss' kappa"
}

// Agree computes raw agreement and κ over items with percentile bootstrap intervals (resampling
// items), overall (the first row, Group "overall") and per type, types sorted (a type may be
// named "overall" too: the rows are told apart by their place). Items without a type are in the
// overall row alone.
//
// The overall row's resamples are drawn from seed, each type's from seed and the type's name
// (typeRand), as qa-score's groups' are, so that two types do not draw the same indices and a
// type's intervals are the same in a run over that type alone. When every item is of one type,
// the overall row, whose figures are the type's, has the type's intervals too.
func Agree(items []Item, reps int, level float64, seed uint64) []Agreement {
	groups := map[string][]Item{}
	for _, it := range items {
		if it.Type != "" {
			groups[it.Type] = append(groups[it.Type], it)
		}
	}
	types := make([]string, 0, len(groups))
	for t := range groups {
		types = append(types, t)
	}
	sort.Strings(types)
	overall := func() *rand.Rand { return stats.NewRand(seed) }
	if len(types) == 1 && len(groups[types[0]]) == len(items) {
		overall = typeRand(seed, types[0])
	}
	out := []Agreement{agreement("overall", items, reps, level, overall)}
	for _, t := range types {
		out = append(out, agreement(t, groups[t], reps, level, typeRand(seed, t)))
	}
	return out
}

// typeRand returns the random sources of type t's intervals, from seed and the type's name, as
// qa-learncurve draws a type's.
func typeRand(seed uint64, t string) func() *rand.Rand {
	return func() *rand.Rand { return stats.NewGroupRand(seed, "type\x00"+t) }
}

// agreement is the row of items named group, each figure's interval resampled from a source of
// its own, new from src, so that agreement and κ draw the same resamples.
func agreement(group string, items []Item, reps int, level float64, src func() *rand.Rand) Agreement {
	ratings := make([][]int, len(items))
	for i, it := range items {
		ratings[i] = it.Ratings
	}
	pick := func(idx []int) [][]int {
		r := make([][]int, len(idx))
		for i, k := range idx {
			r[i] = ratings[k]
		}
		return r
	}
	a := Agreement{Group: group, N: len(items), Raw: stats.RawAgreement(ratings), Kappa: kappa(ratings)}
	a.RawCI = stats.Bootstrap(src(), len(items), reps, level, func(idx []int) float64 { return stats.RawAgreement(pick(idx)) })
	a.KappaCI = stats.Bootstrap(src(), len(items), reps, level, func(idx []int) float64 { return kappa(pick(idx)) })
	return a
}

func kappa(ratings [][]int) float64 {
	if len(ratings) > 0 && len(ratings[0]) == 2 {
		a, b := make([]int, len(ratings)), make([]int, len(ratings))
		for i, r := range ratings {
			a[i], b[i] = r[0], r[1]
		}
		return stats.CohenKappa(a, b)
	}
	return stats.FleissKappa(ratings)
}

// Category turns rec's judgment j into a category: 1 if its score is at least threshold, else 0.
// On an EvaLearn record (dataset evalearn) the score is evalearn.Counted's, as qa-score's
// judge_score reads it, and qa-learncurve counts it: the judgment's score, else the judge's raw
// reply read by EvaLearn's rule (EvaLearn's own results, qa-load --format evalearn-results, hold
// the reply alone; an empty one scores 0); unread then says why a reply gave no score by the rule
// (category 0, EvaLearn's outcome). ok is false when j is nil, failed (it carries an error) or,
// on another benchmark's record, holds no score.
//
// Note: the rule is not applied to a raw reply alone on other benchmarks' records, as in
// qa-score: it reads EvaLearn's {"answer_score": N} and would take any other judge's reply for 0.
func Category(rec *record.Record, j *record.Judgment, threshold float64) (cat int, ok bool, unread string) {
	if j == nil || j.Error != "" {
		return 0, false, ""
	}
	var score float64
	switch {
	case rec.InDataset("evalearn"):
		score, ok, unread = evalearn.Counted(j)
	case j.Score != nil:
		score, ok = *j.Score, true
	}
	if !ok {
		return 0, false, ""
	}
	if score >= threshold {
		return 1, true, unread
	}
	return 0, true, unread
}
