package stats

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// meanBlocks is how many independent blocks BootstrapMeans splits its resamples into. It is a
// constant, not the CPU count, so the result is the same on every machine.
const meanBlocks = 8

// BootstrapMeans returns the percentile bootstrap interval of the mean of each column, all of
// length n, from reps resamples of n units with replacement. One resample of unit indices serves
// every column (a paired bootstrap when the columns describe the same units), so k metrics cost
// one set of random draws rather than k. A column of a different length than the first panics;
// with n == 0 or reps == 0 every bound is NaN.
//
// The resamples are split into a fixed number of blocks, each with its own random source seeded
// from rng, and the blocks run in parallel; the intervals depend only on rng's state, not on the
// number of CPUs.
//
// Every resample mean lies between the column's least and greatest value, and so do its bounds:
// they are held to that range, which rounding can leave (0.1 summed 37 times is not 3.7), so a
// column of equal values has that value for both. A column whose sums could pass the largest
// float (n times its largest magnitude does) is resampled divided by a power of two above n and
// its bounds multiplied back, so they are finite.
//
// Note: each resample is kept as unit counts and the means computed as dot products with the
// columns, which reads the columns sequentially instead of gathering them by random index; for
// large n that is several times faster than Bootstrap with a summing closure, and gives the
// same distribution.
func BootstrapMeans(rng *rand.Rand, cols [][]float64, reps int, level float64) []Interval {
	return ResampleMeans(rng, cols, reps).Intervals(level)
}

// MeanResamples holds the means of each column over the resamples of ResampleMeans, resample by
// resample, so that a caller can combine several columns' means within each resample (a stratified
// bootstrap: the mean of strata means, each stratum resampled alone) before it takes percentiles.
type MeanResamples struct {
	means  [][]float64 // means[i][r]: column i's mean over resample r, divided by scale[i]
	scale  []float64
	lo, hi []float64 // column i's least and greatest value
}

// ResampleMeans draws reps resamples of n units with replacement, one for every column (all of
// length n), and keeps each column's mean over each: BootstrapMeans's draws, the same for the
// same rng. A column of a different length than the first panics.
func ResampleMeans(rng *rand.Rand, cols [][]float64, reps int) *MeanResamples {
	n := 0
	if len(cols) > 0 {
		n = len(cols[0])
	}
	for _, c := range cols {
		if len(c) != n {
			panic("stats: BootstrapMeans columns differ in length")
		}
	}
	m := &MeanResamples{}
	if n == 0 || reps == 0 {
		m.means = make([][]float64, len(cols))
		return m
	}
	lo, hi, scale := make([]float64, len(cols)), make([]float64, len(cols)), make([]float64, len(cols))
	work := slices.Clone(cols)
	for i, c := range cols {
		lo[i], hi[i] = slices.Min(c), slices.Max(c)
		scale[i] = 1
		if max(-lo[i], hi[i])*float64(n) > math.MaxFloat64 {
			scale[i] = math.Ldexp(1, bits.Len(uint(n)))
			work[i] = make([]float64, n)
			for j, x := range c {
				work[i][j] = x / scale[i]
			}
		}
	}
	means := make([][]float64, len(cols))
	for i := range means {
		means[i] = make([]float64, reps)
	}
	var seeds [meanBlocks]uint64
	for b := range seeds {
		seeds[b] = rng.Uint64()
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for b := range meanBlocks {
		first, end := b*reps/meanBlocks, (b+1)*reps/meanBlocks
		if first == end {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			resampleMeans(NewRand(seeds[b]), work, n, first, end, means)
		})
	}
	wg.Wait()
	m.means, m.scale, m.lo, m.hi = means, scale, lo, hi
	return m
}

// Reps is how many resamples m holds: 0 with no units or no resamples.
func (m *MeanResamples) Reps() int {
	if len(m.means) == 0 {
		return 0
	}
	return len(m.means[0])
}

// Mean is column i's mean over resample r, held to the column's least and greatest value.
func (m *MeanResamples) Mean(i, r int) float64 {
	return Clamp(m.means[i][r]*m.scale[i], m.lo[i], m.hi[i])
}

// Intervals returns the percentile bootstrap interval at level of each column's mean, as
// BootstrapMeans does: bounds held to the column's least and greatest value, NaN with no units
// or no resamples. It sorts the resampled means: Mean is to be read before.
func (m *MeanResamples) Intervals(level float64) []Interval {
	out := make([]Interval, len(m.means))
	if m.Reps() == 0 {
		for i := range out {
			out[i] = Interval{Lo: math.NaN(), Hi: math.NaN(), Level: level}
		}
		return out
	}
	tlo, thi := Tails(level)
	for i, v := range m.means {
		slices.Sort(v)
		bound := func(q float64) float64 { return Clamp(Quantile(v, q)*m.scale[i], m.lo[i], m.hi[i]) }
		out[i] = Interval{Lo: bound(tlo), Hi: bound(thi), Level: level}
	}
	return out
}

// Clamp returns x held to [lo, hi]. An x equal to a bound is x itself: min and max put -0 below
// +0, and would turn the +0 of a mean of values that are all -0 (a sum starts at +0, in Python
// too, and +0 + -0 is +0) into a printed -0.
func Clamp(x, lo, hi float64) float64 {
	if x < lo || x > hi {
		return min(max(x, lo), hi)
	}
	return x
}

// resampleMeans fills means[i][lo:hi] with the means of cols[i] over resamples lo to hi-1.
func resampleMeans(rng *rand.Rand, cols [][]float64, n, lo, hi int, means [][]float64) {
	counts := make([]int32, n)
	// Columns go through dot8 in groups of as even a size as eight allows: one pass over the
	// counts per group, and a group's sums run side by side.
	groups := (len(cols) + 7) / 8
	var sums [8]float64
	for r := lo; r < hi; r++ {
		clear(counts)
		drawCounts(rng, counts)
		for g := range groups {
			a, b := g*len(cols)/groups, (g+1)*len(cols)/groups
			dot8(counts, cols[a:b], &sums)
			for i := a; i < b; i++ {
				means[i][r] = sums[i-a] / float64(n)
			}
		}
	}
}

// drawCounts draws len(counts) unit indices uniformly with replacement and counts them. Each
// 64-bit random value gives two 32-bit draws, mapped to [0, n) by Lemire's multiply-and-reject
// method, which is exactly uniform.
func drawCounts(rng *rand.Rand, counts []int32) {
	n := uint64(len(counts))
	if n > math.MaxUint32 {
		for range n {
			counts[rng.Uint64N(n)]++
		}
		return
	}
	threshold := uint32(-uint32(n)) % uint32(n) // 2^32 mod n
	draw := func(x uint32) bool {
		m := uint64(x) * n
		if uint32(m) < threshold {
			return false
		}
		counts[m>>32]++
		return true
	}
	for left := n; left > 0; {
		x := rng.Uint64()
		if draw(uint32(x)) {
			left--
		}
		if left > 0 && draw(uint32(x>>32)) {
			left--
		}
	}
}

// dot8 sets sums[i] to Σ counts[j]·cols[i][j], summed in order of j, for the (at most eight)
// columns: one load of each count serves every column, and the sums are independent, so their
// additions overlap instead of waiting on one another. Missing columns repeat the last, whose
// values are in cache already; their sums are not used.
func dot8(counts []int32, cols [][]float64, sums *[8]float64) {
	n := len(counts)
	var c [8][]float64
	for i := range c {
		c[i] = cols[min(i, len(cols)-1)] // the last column again where there are fewer than eight
	}
	c0, c1, c2, c3, c4, c5, c6, c7 := c[0][:n], c[1][:n], c[2][:n], c[3][:n], c[4][:n], c[5][:n], c[6][:n], c[7][:n]
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	// The conversions round each product, so that no fused multiply-add (arm64's) changes the
	// sums: the intervals are the same on every machine.
	for j, k := range counts {
		f := float64(k)
		s0 += float64(f * c0[j])
		s1 += float64(f * c1[j])
		s2 += float64(f * c2[j])
		s3 += float64(f * c3[j])
		s4 += float64(f * c4[j])
		s5 += float64(f * c5[j])
		s6 += float64(f * c6[j])
		s7 += float64(f * c7[j])
	}
	*sums = [8]float64{s0, s1, s2, s3, s4, s5, s6, s7}
}
