package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// BootstrapVec is Bootstrap for k statistics computed from the same resamples: stat receives the
// resampled unit indices and fills out (length k); the result holds one percentile interval per
// statistic. Resampling all statistics together keeps them consistent (one replicate is one
// resampled data set) and costs one pass per replicate instead of k. A statistic that is NaN in a
// replicate (undefined on that resample, such as a ROC AUC drawn with one class) leaves that
// replicate out of its interval, and is counted in its Undefined. With n == 0 or reps == 0, or a statistic NaN in every replicate,
// the bounds are NaN.
func BootstrapVec(rng *rand.Rand, n, reps, k int, level float64, stat func(idx []int, out []float64)) []Interval {
	return BootstrapStrata(rng, []int{n}, reps, k, level, stat)
}

// BootstrapStrata is BootstrapVec over units in strata of the given sizes, numbered stratum by
// stratum: a replicate draws each stratum's units (with replacement) from that stratum alone, as
// many as it has, so that every stratum is in every replicate with its own weight (the stratified
// bootstrap of a design whose strata sizes are fixed, such as a benchmark's sequences per type).
// Units are drawn in order, stratum by stratum, so that one stratum draws as BootstrapVec does.
func BootstrapStrata(rng *rand.Rand, sizes []int, reps, k int, level float64, stat func(idx []int, out []float64)) []Interval {
	n := 0
	for _, s := range sizes {
		n += s
	}
	ivs := make([]Interval, k)
	if n == 0 || reps == 0 {
		for i := range ivs {
			ivs[i] = Interval{Lo: math.NaN(), Hi: math.NaN(), Level: level}
		}
		return ivs
	}
	cols := make([][]float64, k)
	for i := range cols {
		cols[i] = make([]float64, reps)
	}
	idx := make([]int, n)
	out := make([]float64, k)
	for r := range reps {
		start := 0
		for _, size := range sizes {
			for i := start; i < start+size; i++ {
				idx[i] = start + rng.IntN(size)
			}
			start += size
		}
		stat(idx, out)
		for i, v := range out {
			cols[i][r] = v
		}
	}
	for i, col := range cols {
		col = slices.DeleteFunc(col, math.IsNaN)
		slices.Sort(col)
		ivs[i] = Percentile(col, level)
		ivs[i].Undefined = reps - len(col)
		ivs[i].Same = len(col) > 0 && col[0] == col[len(col)-1]
	}
	return ivs
}
