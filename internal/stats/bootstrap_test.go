package stats

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"
)

func TestQuantile(t *testing.T) {
	s := []float64{1, 2, 3, 4}
	tests := []struct{ q, want float64 }{{0, 1}, {1, 4}, {0.5, 2.5}, {0.25, 1.75}}
	for _, tt := range tests {
		if got := Quantile(s, tt.q); got != tt.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", s, tt.q, got, tt.want)
		}
	}
}

// TestQuantileEnds holds Quantile to numpy 1.24.2's np.quantile(np.array(s, dtype=float), q) for
// a float q at the ends and beside infinities and signed zeros, bit for bit (NaN as NaN): at
// q = 0 numpy still interpolates towards the next value (0·∞ is NaN, -0 + 0 is +0), and at and
// past the last value it takes that value for both ends with t = h+1 (∞-∞ is NaN). Returning
// the end values themselves, as Quantile did, gave 1 where numpy gives NaN, and -0 where it
// gives 0.
func TestQuantileEnds(t *testing.T) {
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	tests := []struct {
		s       []float64
		q, want float64
	}{
		{[]float64{1, inf}, 0, nan},
		{[]float64{1, inf}, 1, nan},
		{[]float64{-inf, 1}, 0, nan},
		{[]float64{-inf, 1}, 1, 1},
		{[]float64{2, inf, inf}, 0, nan},
		{[]float64{inf}, 0.5, nan},
		{[]float64{3, inf}, 0.975, nan},
		{[]float64{-inf, -inf}, 0.025, nan},
		{[]float64{5}, 0.3, 5},
		{[]float64{negZero}, 1, negZero},
		{[]float64{negZero}, 0.5, negZero},
		{[]float64{negZero, 1}, 0, 0},
		{[]float64{negZero, 1}, 1, 1},
		{[]float64{negZero, negZero}, 0, 0},
		{[]float64{1, 2, 3, 4}, 0, 1},
		{[]float64{1, 2, 3, 4}, 1, 4},
		{[]float64{1.5, 2.5}, 0, 1.5},
		// No numpy answer (it refuses the q): the first value, and NaN for a NaN q.
		{[]float64{1, 2}, -0.5, 1},
		{[]float64{1, 2}, nan, nan},
	}
	for _, tt := range tests {
		if got := Quantile(tt.s, tt.q); math.Float64bits(got) != math.Float64bits(tt.want) && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tt.s, tt.q, got, tt.want)
		}
	}
}

// TestQuantileNumpy checks Quantile against numpy.quantile's answers (testdata/
// quantile_numpy_gen.py) to the bit: samples of resampled-mean fractions, uniform values and
// values of both signs spread over twelve orders of magnitude, at the bounds of the usual levels
// and at random quantiles.
func TestQuantileNumpy(t *testing.T) {
	data, err := os.ReadFile("testdata/quantile_numpy.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Kind            string
			Values, Q, Want []float64
		}
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	checked, differ := 0, 0
	for _, c := range file.Cases {
		for j, q := range c.Q {
			checked++
			if got := Quantile(c.Values, q); got != c.Want[j] {
				differ++
				if differ <= 10 {
					t.Errorf("%s n=%d: Quantile(q=%v) = %v, numpy %v", c.Kind, len(c.Values), q, got, c.Want[j])
				}
			}
		}
	}
	if differ > 0 || checked < 1000 {
		t.Errorf("%d of %d quantiles differ from numpy's", differ, checked)
	}
}

func TestTails(t *testing.T) {
	tests := []struct{ level, lo, hi float64 }{
		{0.95, 0.025, 0.975}, {0.9, 0.05, 0.95}, {0.99, 0.005, 0.995}, {0.999, 0.0005, 0.9995},
		{0.57, 0.215, 0.785}, {0.5, 0.25, 0.75}, {0.683, 0.1585, 0.8415}, {0, 0.5, 0.5}, {1, 0, 1},
		// Levels whose upper tail is not 1 minus the lower in float64 (1-0.07 is
		// 0.9299999999999999, 1-0.195 is 0.8049999999999999, 1-0.18 is 0.8200000000000001):
		// each tail is rounded from its own decimal, as numpy is given the 93rd percentile.
		{0.86, 0.07, 0.93}, {0.61, 0.195, 0.805}, {0.64, 0.18, 0.82},
	}
	for _, tt := range tests {
		if lo, hi := Tails(tt.level); lo != tt.lo || hi != tt.hi {
			t.Errorf("Tails(%v) = %v, %v; want %v, %v", tt.level, lo, hi, tt.lo, tt.hi)
		}
	}
	// The float64 arithmetic it replaces misses the first of them (a variable, as Go's constant
	// arithmetic is exact).
	level := 0.95
	if lo := (1 - level) / 2; lo == 0.025 {
		t.Errorf("(1-0.95)/2 = %v: the test no longer tells decimal tails from float64 ones", lo)
	}
}

func TestBootstrapMean(t *testing.T) {
	vals := make([]float64, 400)
	for i := range vals {
		if i%4 == 0 {
			vals[i] = 1
		}
	}
	mean := func(idx []int) float64 {
		s := 0.0
		for _, i := range idx {
			s += vals[i]
		}
		return s / float64(len(idx))
	}
	a := Bootstrap(NewRand(7), len(vals), 2000, 0.95, mean)
	b := Bootstrap(NewRand(7), len(vals), 2000, 0.95, mean)
	if a != b {
		t.Fatalf("same seed gave %v and %v", a, b)
	}
	// normal approximation: 0.25 ± 1.96*sqrt(.25*.75/400) = [0.2076, 0.2924]
	if math.Abs(a.Lo-0.2076) > 0.015 || math.Abs(a.Hi-0.2924) > 0.015 {
		t.Errorf("Bootstrap = [%v, %v], want about [0.2076, 0.2924]", a.Lo, a.Hi)
	}
	if e := Bootstrap(NewRand(1), 0, 10, 0.95, mean); !math.IsNaN(e.Lo) {
		t.Errorf("empty Bootstrap = %v, want NaN bounds", e)
	}
}

// TestBootstrapVecUndefined: a replicate in which a statistic is NaN is left out of that
// statistic's interval only; a statistic NaN in every replicate has NaN bounds.
func TestBootstrapVecUndefined(t *testing.T) {
	vals := []float64{0, 1, 2, 3}
	below := 0 // the replicates whose sum is under 6, where statistic 1 is undefined
	ivs := BootstrapVec(NewRand(3), len(vals), 400, 3, 0.95, func(idx []int, out []float64) {
		s := 0.0
		for _, i := range idx {
			s += vals[i]
		}
		out[0], out[1], out[2] = s, s, math.NaN()
		if s < 6 {
			out[1] = math.NaN() // defined only where the sum is at least 6
			below++
		}
	})
	if got := []int{ivs[0].Undefined, ivs[1].Undefined, ivs[2].Undefined}; !slices.Equal(got, []int{0, below, 400}) || below == 0 {
		t.Errorf("Undefined = %v, want [0 %d 400]", got, below)
	}
	if ivs[0].Lo >= 6 {
		t.Fatalf("the sum's interval %+v does not reach below 6, so the test shows nothing", ivs[0])
	}
	if ivs[1].Lo < 6 || math.IsNaN(ivs[1].Lo) || ivs[1].Hi != ivs[0].Hi {
		t.Errorf("interval of the sum where it is at least 6 = %+v, want a low bound of at least 6 and the high bound %v", ivs[1], ivs[0].Hi)
	}
	if !math.IsNaN(ivs[2].Lo) || !math.IsNaN(ivs[2].Hi) {
		t.Errorf("interval of a statistic never defined = %+v, want NaN bounds", ivs[2])
	}
}

func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		level float64
		want  string
	}{{0.95, "95%"}, {0.5, "50%"}, {0.9, "90%"}, {0.999, "99.9%"}, {0.57, "57%"}, {0.07, "7%"}, {0.125, "12.5%"},
		{0.1234567890123, "12.3456789012%"}, {0.99999999999999, "100%"}} {
		if got := Percent(tt.level); got != tt.want {
			t.Errorf("Percent(%v) = %q, want %q", tt.level, got, tt.want)
		}
	}
}

// TestMinResamples: 2.5 resamples beyond each bound, so 100 at 95%, and whole numbers where the
// level's complement is not exact in binary.
func TestMinResamples(t *testing.T) {
	for _, tc := range []struct {
		level float64
		want  int
	}{{0.95, 100}, {0.9, 50}, {0.99, 500}, {0.8, 25}, {0.5, 10}, {0.999, 5000}, {0.97, 167},
		// 1-level is inexact in binary, and 5/(1-level) past a whole number by more than a hair.
		{0.9999, 50000}, {0.9995, 10000}, {0.99999, 500000}, {0.99999999, 500000000}} {
		if got := MinResamples(tc.level); got != tc.want {
			t.Errorf("MinResamples(%v) = %d, want %d", tc.level, got, tc.want)
		}
	}
}

// TestFewResamples: the warning is given for 1 to MinResamples-1 resamples, naming the level, the
// count wanted and the command's default when that is enough (qa-learncurve's, 0, is not), or
// a lower level when the count wanted is past what --bootstrap allows, and not for none (no
// intervals) or enough.
func TestFewResamples(t *testing.T) {
	for _, tc := range []struct {
		n, def int
		level  float64
		want   string
	}{
		{0, 1000, 0.95, ""}, {100, 1000, 0.95, ""}, {1000, 1000, 0.95, ""}, {50, 1000, 0.9, ""}, {50, 0, 0.9, ""},
		{99, 1000, 0.95, "--bootstrap 99 is too few resamples for 95% intervals: each bound is then among the most extreme resampled values, not a percentile of them, and moves with a draw or two (give at least 100; the default is 1000)"},
		{1, 1000, 0.99, "--bootstrap 1 is too few resamples for 99% intervals: each bound is then among the most extreme resampled values, not a percentile of them, and moves with a draw or two (give at least 500; the default is 1000)"},
		{20, 0, 0.9, "--bootstrap 20 is too few resamples for 90% intervals: each bound is then among the most extreme resampled values, not a percentile of them, and moves with a draw or two (give at least 50)"},
		{1000, 1000, 0.999999, "--bootstrap 1000 is too few resamples for 99.9999% intervals: each bound is then among the most extreme resampled values, not a percentile of them, and moves with a draw or two (they would take at least 5000000, more than the 1000000 --bootstrap allows: give a lower --level)"},
		{MaxResamples, 1000, 0.999999, "--bootstrap 1000000 is too few resamples for 99.9999% intervals: each bound is then among the most extreme resampled values, not a percentile of them, and moves with a draw or two (they would take at least 5000000, more than the 1000000 --bootstrap allows: give a lower --level)"},
		{999999, 0, 0.999995, "--bootstrap 999999 is too few resamples for 99.9995% intervals: each bound is then among the most extreme resampled values, not a percentile of them, and moves with a draw or two (give at least 1000000)"},
		// The default exactly what the level wants (2·2.5/0.005 = 1000 at 99.5%) is enough to name.
		{999, 1000, 0.995, "--bootstrap 999 is too few resamples for 99.5% intervals: each bound is then among the most extreme resampled values, not a percentile of them, and moves with a draw or two (give at least 1000; the default is 1000)"},
		{99, 50, 0.95, "--bootstrap 99 is too few resamples for 95% intervals: each bound is then among the most extreme resampled values, not a percentile of them, and moves with a draw or two (give at least 100)"},
	} {
		if got := FewResamples(tc.n, tc.level, tc.def); got != tc.want {
			t.Errorf("FewResamples(%d, %v, %d) = %q, want %q", tc.n, tc.level, tc.def, got, tc.want)
		}
	}
}

// FuzzQuantile checks what the interpolation promises for any sorted finite values (below 1e307
// in size, as b-a overflows past half the largest float, in numpy too): a quantile
// lies between the two values around it, and a higher q never gives a lower value (numpy's
// two-sided formula keeps this where a + (b-a)t alone can step back by an ulp).
func FuzzQuantile(f *testing.F) {
	f.Add(0.3, 1e-300, 0.1, 0.2, 0.975, 0.025)
	f.Add(-1e300, 1e300, 3.0, 0.0, 0.5, 0.5000000000000001)
	f.Fuzz(func(t *testing.T, a, b, c, d, q1, q2 float64) {
		vals := []float64{a, b, c, d}
		for _, v := range vals {
			if math.IsNaN(v) || math.Abs(v) > 1e307 {
				return
			}
		}
		if !(q1 >= 0 && q1 <= 1 && q2 >= 0 && q2 <= 1) {
			return
		}
		slices.Sort(vals)
		if q1 > q2 {
			q1, q2 = q2, q1
		}
		x1, x2 := Quantile(vals, q1), Quantile(vals, q2)
		if x1 > x2 {
			t.Errorf("Quantile(%v, %v) = %v > Quantile(…, %v) = %v", vals, q1, x1, q2, x2)
		}
		h := 3 * q1
		i := min(int(math.Floor(h)), 2)
		if x1 < vals[i] || x1 > vals[i+1] || math.IsNaN(x1) {
			t.Errorf("Quantile(%v, %v) = %v, outside [%v, %v]", vals, q1, x1, vals[i], vals[i+1])
		}
	})
}

func TestBootstrapLeavesOutNaN(t *testing.T) {
	// The statistic is undefined on every resample that draws unit 0 twice or more: those are
	// left out, and the interval is read from the rest.
	// Undefined counts them.
	nan := 0
	stat := func(idx []int) float64 {
		zeros := 0
		for _, i := range idx {
			if i == 0 {
				zeros++
			}
		}
		if zeros > 1 {
			nan++
			return math.NaN()
		}
		return float64(zeros)
	}
	iv := Bootstrap(NewRand(3), 4, 500, 0.95, stat)
	if iv.Lo != 0 || iv.Hi != 1 {
		t.Errorf("Bootstrap = [%v, %v], want [0, 1] from the defined resamples", iv.Lo, iv.Hi)
	}
	if iv.Undefined != nan || nan == 0 {
		t.Errorf("Bootstrap's Undefined = %d, want %d, the resamples where stat was NaN", iv.Undefined, nan)
	}
	none := Bootstrap(NewRand(3), 4, 50, 0.95, func([]int) float64 { return math.NaN() })
	if !math.IsNaN(none.Lo) || !math.IsNaN(none.Hi) || none.Undefined != 50 {
		t.Errorf("Bootstrap with no defined resample = [%v, %v], %d undefined; want NaN bounds, 50", none.Lo, none.Hi, none.Undefined)
	}
}

func TestQuantileOutside(t *testing.T) {
	s := []float64{1, 2, 3}
	for _, tt := range []struct{ q, want float64 }{{-0.1, 1}, {1.5, 3}} {
		if got := Quantile(s, tt.q); got != tt.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", s, tt.q, got, tt.want)
		}
	}
}

func TestIntervalPartial(t *testing.T) {
	for _, tt := range []struct {
		undefined, reps int
		want            bool
	}{{0, 1000, false}, {100, 1000, false}, {101, 1000, true}, {1, 10, false}, {1, 9, true}, {1, 1, true}} {
		if got := (Interval{Undefined: tt.undefined}).Partial(tt.reps); got != tt.want {
			t.Errorf("Interval{Undefined: %d}.Partial(%d) = %v, want %v", tt.undefined, tt.reps, got, tt.want)
		}
	}
}

// TestBootstrapStrata checks that a stratified replicate draws each stratum's units from that
// stratum, as many as it has, and that one stratum is BootstrapVec, draw for draw.
func TestBootstrapStrata(t *testing.T) {
	sizes := []int{3, 1, 5}
	bad := 0
	BootstrapStrata(NewRand(1), sizes, 200, 1, 0.95, func(idx []int, out []float64) {
		start := 0
		for _, n := range sizes {
			for _, i := range idx[start : start+n] {
				if i < start || i >= start+n {
					bad++
				}
			}
			start += n
		}
		out[0] = 0
	})
	if bad > 0 {
		t.Errorf("%d draws fell outside their stratum", bad)
	}
	stat := func(idx []int, out []float64) {
		out[0], out[1] = float64(idx[0]), float64(idx[3]+idx[6])
	}
	one, vec := BootstrapStrata(NewRand(9), []int{7}, 300, 2, 0.9, stat), BootstrapVec(NewRand(9), 7, 300, 2, 0.9, stat)
	if !slices.Equal(one, vec) {
		t.Errorf("one stratum = %+v, want BootstrapVec's %+v", one, vec)
	}
	for _, sizes := range [][]int{nil, {}, {0}} {
		if ivs := BootstrapStrata(NewRand(1), sizes, 10, 1, 0.95, stat); !math.IsNaN(ivs[0].Lo) {
			t.Errorf("no units (%v) = %+v, want NaN bounds", sizes, ivs)
		}
	}
}

// TestBootstrapSame checks that Bootstrap says when every resample with a value gave the same
// one, which equal bounds alone do not: at --level 0.1 resamples that differ read both bounds
// near their median.
func TestBootstrapSame(t *testing.T) {
	vals := []float64{0, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	mean := func(idx []int) float64 {
		s := 0.0
		for _, i := range idx {
			s += vals[i]
		}
		return s / float64(len(idx))
	}
	for _, tt := range []struct {
		name  string
		stat  func([]int) float64
		level float64
		want  bool
	}{
		{"constant", func([]int) float64 { return 1 }, 0.95, true},
		{"constant where defined", func(idx []int) float64 {
			if idx[0] == 0 {
				return math.NaN()
			}
			return 0
		}, 0.95, true},
		{"spread", mean, 0.95, false},
		{"spread at a low level", mean, 0.01, false},
		{"none defined", func([]int) float64 { return math.NaN() }, 0.95, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			iv := Bootstrap(NewRand(5), len(vals), 200, tt.level, tt.stat)
			if iv.Same != tt.want {
				t.Errorf("Bootstrap(%s).Same = %v ([%v, %v]), want %v", tt.name, iv.Same, iv.Lo, iv.Hi, tt.want)
			}
		})
	}
}
