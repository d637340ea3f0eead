package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// BootstrapMeans returns the percentile bootstrap interval of the mean of each column, all of
// length n, from reps resamples of n units with replacement. One resample of unit indices serves
// every column (a paired bootstrap when the columns describe the same units), so k metrics cost
// one set of random draws rather than k. A column of a different length than the first panics;
// with n == 0 or reps == 0 every bound is NaN.
//
// Note: each resample is kept as unit counts and the means computed as dot products with the
// columns, which reads the columns sequentially instead of gathering them by random index; for
// large n that is several times faster than Bootstrap with a summing closure, and gives the
// same distribution.
func BootstrapMeans(rng *rand.Rand, cols [][]float64, reps int, level float64) []Interval {
	out := make([]Interval, len(cols))
	n := 0
	if len(cols) > 0 {
		n = len(cols[0])
	}
	for _, c := range cols {
		if len(c) != n {
			panic("stats: BootstrapMeans columns differ in length")
		}
	}
	if n == 0 || reps == 0 {
		for i := range out {
			out[i] = Interval{Lo: math.NaN(), Hi: math.NaN(), Level: level}
		}
		return out
	}
	means := make([][]float64, len(cols))
	for i := range means {
		means[i] = make([]float64, reps)
	}
	counts := make([]int32, n)
	for r := range reps {
		clear(counts)
		for range n {
			counts[rng.IntN(n)]++
		}
		for i, c := range cols {
			s := 0.0
			for j, k := range counts {
				s += float64(k) * c[j]
			}
			means[i][r] = s / float64(n)
		}
	}
	alpha := (1 - level) / 2
	for i, m := range means {
		slices.Sort(m)
		out[i] = Interval{Lo: Quantile(m, alpha), Hi: Quantile(m, 1-alpha), Level: level}
	}
	return out
}
