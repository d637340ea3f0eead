// Package stats holds the numbers about numbers: bootstrap confidence intervals, agreement
// coefficients and least squares, over plain slices.
//
// Note: bootstrap resamples units (records, sequences) by index and asks the caller for the
// statistic, so callers resample sufficient statistics rather than rerunning metrics.
package stats

import (
	"fmt"
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

// MinResamples is the fewest resamples for which percentile-bootstrap intervals at level are
// percentiles of the resampled values rather than their extremes: 100 at 0.95, 50 at 0.9, 500 at
// 0.99, that is minTail resamples beyond each bound, 2·minTail/(1-level).
//
// A bound is read between the resampled values ranked about N(1-level)/2 from an end. Below one
// beyond it (N < 40 at 95%) it is the most extreme value itself, and the interval is the range of
// N draws, whose expected coverage, (N-1)/(N+1), is set by N, not by the level (82% for N = 10).
// With one or two beyond it, the bound moves with the draw of one or two resamples: for a
// statistic whose resampled values are normal, its Monte Carlo standard error at 95% is
// √(q(1-q)/N)/φ(z_q) = 2.67/√N standard deviations, against the 1.96 of the half-width, 43% of
// it at N = 10 and 21% at 40, but 14% at 100, from where the bounds say something (Efron and
// Tibshirani advise about 1000 for percentile intervals, qapipe's default).
func MinResamples(level float64) int {
	// The product is rounded down by a hair first: 5/(1-0.9) is 50.00000000000001 in float64.
	return int(math.Ceil(2*minTail/(1-level) - 1e-9))
}

// FewResamples is the warning for intervals at level from n resamples, when n is more than 0 and
// fewer than MinResamples(level); else "". It names def, the command's default number of
// resamples, when that is enough: qa-learncurve's default is 0, no intervals, so it names none.
func FewResamples(n int, level float64, def int) string {
	need := MinResamples(level)
	if n <= 0 || n >= need {
		return ""
	}
	dflt := ""
	if def >= need {
		dflt = fmt.Sprintf("; the default is %d", def)
	}
	return fmt.Sprintf("--bootstrap %d is too few resamples for %s intervals: each bound is then among the most extreme resampled values, not a percentile of them, and moves with a draw or two (give at least %d%s)",
		n, Percent(level), need, dflt)
}

// DefaultResamples is qa-score's and qa-judge agree's --bootstrap default, the 1000 that Efron
// and Tibshirani advise for percentile intervals.
const DefaultResamples = 1000

// minTail is how many resamples MinResamples wants beyond each bound.
const minTail = 2.5

// NewRand returns the deterministic random source every command derives from --seed.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}
