// Package stats holds the numbers about numbers: bootstrap confidence intervals, agreement
// coefficients and least squares, over plain slices.
//
// Note: bootstrap resamples units (records, sequences) by index and asks the caller for the
// statistic, so callers resample sufficient statistics rather than rerunning metrics.
package stats

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
)

// Interval is a two-sided confidence interval.
type Interval struct {
	Lo, Hi float64
	Level  float64 // e.g. 0.95
	// Undefined counts the resamples Bootstrap left out because the statistic had no value
	// there, for the caller to say that the interval is over the others.
	Undefined int
	// Same reports that every resample with a value gave one and the same value (Bootstrap and
	// BootstrapVec set it): equal bounds alone do not say so, since a low level reads both near
	// the median.
	Same bool
}

// Partial reports whether the interval, from reps resamples, leaves out more than a tenth of
// them as undefined: it is then over a part that may be biased (κ of a small sample defined
// only where the ratings differ), which callers warn of; a smaller share moves the bounds
// little.
func (iv Interval) Partial(reps int) bool { return iv.Undefined*10 > reps }

// Percent writes a confidence level as people read it in a heading: 0.95 as "95%", 0.999 as
// "99.9%". level*100 is rounded to 12 significant digits, so that 0.57 is "57%", not the
// "56.99999999999999%" of its product in float64.
func Percent(level float64) string {
	return strconv.FormatFloat(level*100, 'g', 12, 64) + "%"
}

// Bootstrap returns the percentile bootstrap interval of stat over reps resamples (with
// replacement) of n units. stat receives the resampled unit indices; idx is reused between calls.
// A resample where stat is NaN (undefined, as κ when every rating is the same category) is left
// out. With n == 0, reps == 0 or no resample defined it returns NaN bounds, which callers must
// report as "no interval"; Same says when every resample defined gave the same value.
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
	vals = slices.DeleteFunc(vals, math.IsNaN)
	slices.Sort(vals)
	iv := Percentile(vals, level)
	iv.Undefined = reps - len(vals)
	iv.Same = len(vals) > 0 && vals[0] == vals[len(vals)-1]
	return iv
}

// Quantile returns the q-quantile of sorted values, interpolated linearly between order
// statistics exactly as numpy's default "linear" method computes it for a float q, to the last
// bit: the virtual index h = (n-1)·q, and from its fraction t between the values a and b either
// side a + (b-a)·t when t < 0.5 or b - (b-a)·(1-t) (numpy's _lerp, which keeps the result
// monotonic in q). At and past the last value numpy takes it for both a and b, with t = h+1 (its
// index -1 subtracted): the value itself, but NaN when it is infinite (∞-∞); at q = 0 it still
// interpolates towards the next value, so that an infinity there gives NaN too (0·∞), and a -0
// first value before a positive one gives +0. A q below 0, which numpy refuses, takes the first
// value for both, with t = h; a NaN q gives NaN.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 || math.IsNaN(q) {
		return math.NaN()
	}
	h := float64(float64(n-1) * q) // rounded, as numpy's index is: no fused h - lo below
	var i, j int
	var t float64
	switch {
	case h >= float64(n-1):
		i, j, t = n-1, n-1, h+1
	case h < 0:
		t = h
	default:
		lo := math.Floor(h)
		i = int(lo)
		j, t = i+1, h-lo
	}
	a, b := sorted[i], sorted[j]
	d := b - a
	// The conversions round each product, so that no fused multiply-add changes the result.
	if t >= 0.5 {
		return b - float64(d*(1-t))
	}
	return a + float64(d*t)
}

// Tails returns the quantiles that bound a two-sided interval at level: 50(1-level)% and
// 50(1+level)%, computed in decimal from level's shortest decimal form and rounded once, so that
// level 0.95 gives exactly 0.025 and 0.975, the numbers numpy is given for the 2.5th and 97.5th
// percentiles, where (1-0.95)/2 in float64 is 0.025000000000000022.
func Tails(level float64) (lo, hi float64) {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(level, 'g', -1, 64))
	if !ok { // NaN or an infinity: no decimal form; the callers reject such levels first.
		return (1 - level) / 2, (1 + level) / 2
	}
	one, two := big.NewRat(1, 1), big.NewRat(2, 1)
	lo, _ = new(big.Rat).Quo(new(big.Rat).Sub(one, r), two).Float64()
	hi, _ = new(big.Rat).Quo(new(big.Rat).Add(one, r), two).Float64()
	return lo, hi
}

// Percentile returns the percentile interval at level of sorted values: their Tails(level)
// quantiles.
func Percentile(sorted []float64, level float64) Interval {
	lo, hi := Tails(level)
	return Interval{Lo: Quantile(sorted, lo), Hi: Quantile(sorted, hi), Level: level}
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
	// Computed in decimal from level's shortest decimal form, as Tails takes it: in float64
	// 5/(1-0.9999) is 50000.0000000055, which rounds up to 50001, where the level wants 50000.
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(level, 'g', -1, 64))
	one := big.NewRat(1, 1)
	if !ok || r.Cmp(one) >= 0 { // no decimal form, or no interval short of everything
		return int(math.Ceil(2*minTail/(1-level) - 1e-9))
	}
	need := new(big.Rat).Quo(new(big.Rat).SetFloat64(2*minTail), new(big.Rat).Sub(one, r))
	q, m := new(big.Int).QuoRem(need.Num(), need.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return int(q.Int64())
}

// FewResamples is the warning for intervals at level from n resamples, when n is more than 0 and
// fewer than MinResamples(level); else "". It names def, the command's default number of
// resamples, when that is enough: qa-learncurve's default is 0, no intervals, so it names none.
func FewResamples(n int, level float64, def int) string {
	need := MinResamples(level)
	if n <= 0 || n >= need {
		return ""
	}
	if need > MaxResamples {
		return fmt.Sprintf("--bootstrap %d is too few resamples for %s intervals: each bound is then among the most extreme resampled values, not a percentile of them, and moves with a draw or two (they would take at least %d, more than the %d --bootstrap allows: give a lower --level)",
			n, Percent(level), need, MaxResamples)
	}
	dflt := ""
	if def >= need {
		dflt = fmt.Sprintf("; the default is %d", def)
	}
	return fmt.Sprintf("--bootstrap %d is too few resamples for %s intervals: each bound is then among the most extreme resampled values, not a percentile of them, and moves with a draw or two (give at least %d%s)",
		n, Percent(level), need, dflt)
}

// MaxResamples bounds every command's --bootstrap. Each interval keeps every resample's value to
// take its percentiles from (8 bytes each): a million resamples are 8 MB a statistic, and more
// than enough for a 95% interval's two percentiles; a billion were an out-of-memory crash after
// all the input had been read. Levels above 99.9995% would want more (MinResamples); FewResamples
// then asks for a lower level.
const MaxResamples = 1_000_000

// DefaultResamples is qa-score's and qa-judge agree's --bootstrap default, the 1000 that Efron
// and Tibshirani advise for percentile intervals.
const DefaultResamples = 1000

// minTail is how many resamples MinResamples wants beyond each bound.
const minTail = 2.5

// NewRand returns the deterministic random source every command derives from --seed.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// NewGroupRand returns the random source of one group's resamples (a type's, say), derived from
// --seed and the group's name alone (GroupSeed), so that the group's intervals are the same
// whatever other groups the input holds, as in a run over that group alone.
func NewGroupRand(seed uint64, group string) *rand.Rand {
	return NewRand(GroupSeed(seed, group))
}

// GroupSeed is the seed of one group's resamples: seed, --seed, with the FNV-1a hash of the
// group's name. Every command derives its groups' seeds so, qa-score's by a name that holds the
// group's label and size (its columns of one length share a resample).
func GroupSeed(seed uint64, group string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(group))
	return seed ^ h.Sum64()
}
