// Package stats holds the numbers about numbers: bootstrap confidence intervals, agreement
// coefficients and least squares, over plain slices.
//
// Note: bootstrap resamples units (records, sequences) by index and asks the caller for the
// statistic, so callers resample sufficient statistics rather than rerunning metrics.
package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
)

// Interval is a two-sided confidence interval.
type Interval struct {
	Lo, Hi float64
	Level  float64 // e.g. 0.95
}

// Percent writes a confidence level as people read it in a heading: 0.95 as "95%", 0.999 as
// "99.9%". level*100 is rounded to 12 significant digits, so that 0.57 is "57%", not the
// "56.99999999999999%" of its product in float64.
func Percent(level float64) string {
	return strconv.FormatFloat(level*100, 'g', 12, 64) + "%"
}

// Bootstrap returns the percentile bootstrap interval of stat over reps resamples (with
// replacement) of n units. stat receives the resampled unit indices; idx is reused between calls.
// With n == 0 or reps == 0 it returns NaN bounds, which callers must report as "no interval".
func Bootstrap(rng *rand.Rand, n, reps int, level float64, stat func(idx []int) float64) Interval {
	if n == 0 || reps == 0 {
		return Interval{Lo: math.NaN(), Hi: math.NaN(), Level: level}
	}
	vals := make([]float64, reps)
	idx := make([]int, n)
	for r := range vals {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		vals[r] = stat(idx)
	}
	slices.Sort(vals)
	alpha := (1 - level) / 2
	return Interval{Lo: Quantile(vals, alpha), Hi: Quantile(vals, 1-alpha), Level: level}
}

// Quantile returns the q-quantile of sorted values with linear interpolation between order
// statistics (numpy's default "linear" method).
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := q * float64(len(sorted)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// NewRand returns the deterministic random source every command derives from --seed.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}
