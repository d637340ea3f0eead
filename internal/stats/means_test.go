package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBootstrapMeans(t *testing.T) {
	a := make([]float64, 400)
	b := make([]float64, 400)
	for i := range a {
		if i%4 == 0 {
			a[i] = 1
		}
		b[i] = 0.5
	}
	got := BootstrapMeans(NewRand(7), [][]float64{a, b}, 2000, 0.95)
	// The mean of a is 0.25 with standard error sqrt(0.25*0.75/400) ≈ 0.0217, so the 95%
	// interval is about 0.25 ± 0.042.
	if got[0].Lo < 0.19 || got[0].Lo > 0.22 || got[0].Hi < 0.28 || got[0].Hi > 0.31 {
		t.Errorf("BootstrapMeans(a) = %+v, want about [0.208, 0.292]", got[0])
	}
	if got[1].Lo != 0.5 || got[1].Hi != 0.5 {
		t.Errorf("BootstrapMeans(constant 0.5) = %+v, want [0.5, 0.5]", got[1])
	}
	if got[0].Level != 0.95 {
		t.Errorf("BootstrapMeans level = %v, want 0.95", got[0].Level)
	}
}

func TestBootstrapMeansDeterministic(t *testing.T) {
	col := []float64{0.1, 0.9, 0.3, 0.7, 0.5}
	x := BootstrapMeans(NewRand(3), [][]float64{col}, 100, 0.9)
	y := BootstrapMeans(NewRand(3), [][]float64{col}, 100, 0.9)
	if x[0] != y[0] {
		t.Errorf("BootstrapMeans with one seed = %+v then %+v, want equal", x[0], y[0])
	}
}

func TestBootstrapMeansEmpty(t *testing.T) {
	got := BootstrapMeans(NewRand(1), [][]float64{{}, {}}, 100, 0.95)
	for i, iv := range got {
		if !math.IsNaN(iv.Lo) || !math.IsNaN(iv.Hi) {
			t.Errorf("BootstrapMeans(empty)[%d] = %+v, want NaN bounds", i, iv)
		}
	}
	if got := BootstrapMeans(NewRand(1), [][]float64{{1, 2}}, 0, 0.95); !math.IsNaN(got[0].Lo) {
		t.Errorf("BootstrapMeans(reps 0) = %+v, want NaN bounds", got[0])
	}
}

func BenchmarkBootstrapMeans(b *testing.B) {
	const n = 10000
	cols := make([][]float64, 4)
	for i := range cols {
		cols[i] = make([]float64, n)
		for j := range cols[i] {
			cols[i][j] = float64((i+j)%7) / 7
		}
	}
	rng := NewRand(1)
	b.ReportAllocs()
	for b.Loop() {
		BootstrapMeans(rng, cols, 100, 0.95)
	}
	b.ReportMetric(float64(b.N)*n*100/b.Elapsed().Seconds(), "draws/s")
}

func TestDrawCountsUniform(t *testing.T) {
	counts := make([]int32, 7)
	total := make([]int, 7)
	rng := NewRand(11)
	for range 10000 {
		clear(counts)
		drawCounts(rng, counts)
		sum := int32(0)
		for i, c := range counts {
			sum += c
			total[i] += int(c)
		}
		if sum != 7 {
			t.Fatalf("drawCounts drew %d units, want 7", sum)
		}
	}
	// 70,000 draws over 7 units: each about 10,000 (standard deviation about 93).
	for i, c := range total {
		if c < 9500 || c > 10500 {
			t.Errorf("unit %d drawn %d times in 70000, want about 10000", i, c)
		}
	}
}

// TestResampleMeansExact holds resampleMeans to the plain definition, bit for bit: each
// resample's counts from drawCounts, each column's mean the sum of count·value taken in order,
// divided by n. The column count covers every grouping of the columns.
func TestResampleMeansExact(t *testing.T) {
	const n, reps = 997, 23
	for ncols := 1; ncols <= 19; ncols++ {
		cols := make([][]float64, ncols)
		x := uint64(ncols)
		for i := range cols {
			cols[i] = make([]float64, n)
			for j := range cols[i] {
				x = x*6364136223846793005 + 1442695040888963407
				cols[i][j] = float64(x>>11) / (1 << 53) // values whose sums round
			}
		}
		means := make([][]float64, ncols)
		for i := range means {
			means[i] = make([]float64, reps)
		}
		resampleMeans(NewRand(5), cols, n, 0, reps, means)
		rng := NewRand(5)
		counts := make([]int32, n)
		for r := range reps {
			clear(counts)
			drawCounts(rng, counts)
			for i, c := range cols {
				s := 0.0
				for j, k := range counts {
					s += float64(k) * c[j]
				}
				if want := s / n; means[i][r] != want {
					t.Fatalf("%d columns: column %d, resample %d: mean %v, want %v", ncols, i, r, means[i][r], want)
				}
			}
		}
	}
}

// BenchmarkResampleMeans is qa-score's summary: 17 metric columns of 100k records.
func BenchmarkResampleMeans(b *testing.B) {
	const n, ncols, reps = 100000, 17, 20
	cols := make([][]float64, ncols)
	for i := range cols {
		cols[i] = make([]float64, n)
		for j := range cols[i] {
			cols[i][j] = float64((i+j)%7) / 7
		}
	}
	means := make([][]float64, ncols)
	for i := range means {
		means[i] = make([]float64, reps)
	}
	for b.Loop() {
		resampleMeans(NewRand(1), cols, n, 0, reps, means)
	}
	b.ReportMetric(float64(b.N)*n*ncols*reps/b.Elapsed().Seconds(), "products/s")
}

// TestBootstrapMeansExtremes: every resample mean lies between the column's least and greatest
// value, so an interval does too: a column of equal values has exactly that value for both bounds
// (0.1 summed 37 times is not 3.7), and values near the largest float give finite bounds, not the
// infinity their sums overflow to.
func TestBootstrapMeansExtremes(t *testing.T) {
	tenth := make([]float64, 37)
	for i := range tenth {
		tenth[i] = 0.1
	}
	huge := []float64{1.7e308, 1.6e308, 1.5e308, -1e308, 1.7e308}
	var got []Interval
	for _, col := range [][]float64{tenth, huge, {math.MaxFloat64, math.MaxFloat64}} {
		got = append(got, BootstrapMeans(NewRand(1), [][]float64{col}, 200, 0.95)[0])
	}
	if got[0].Lo != 0.1 || got[0].Hi != 0.1 {
		t.Errorf("BootstrapMeans(0.1 × 37) = %+v, want [0.1, 0.1]", got[0])
	}
	for i, iv := range got[1:] {
		if math.IsInf(iv.Lo, 0) || math.IsInf(iv.Hi, 0) || math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) || iv.Lo > iv.Hi {
			t.Errorf("BootstrapMeans(huge values %d) = %+v, want finite bounds", i, iv)
		}
	}
	if got[1].Lo < -1e308 || got[1].Hi > 1.7e308 || got[1].Hi < 1e308 {
		t.Errorf("BootstrapMeans(%v) = %+v, want bounds within the values, the upper above 1e308", huge, got[1])
	}
	if got[2].Lo != math.MaxFloat64 || got[2].Hi != math.MaxFloat64 {
		t.Errorf("BootstrapMeans(largest float × 2) = %+v, want both bounds the largest float", got[2])
	}
	// Values near the most negative float overflow as those near the largest do: their column is
	// scaled too, and its bounds are those of the positive column negated.
	pos := []float64{1.7e308, 1.6e308, 1.5e308, 1e308, 1.7e308, 1.2e308}
	neg := make([]float64, len(pos))
	for i, x := range pos {
		neg[i] = -x
	}
	p := BootstrapMeans(NewRand(1), [][]float64{pos}, 200, 0.95)[0]
	m := BootstrapMeans(NewRand(1), [][]float64{neg}, 200, 0.95)[0]
	if !(math.Abs(m.Lo+p.Hi) <= 1e-12*p.Hi && math.Abs(m.Hi+p.Lo) <= 1e-12*p.Lo) {
		t.Errorf("BootstrapMeans(%v) = %+v, want the bounds of %v negated, [%v, %v]", neg, m, pos, -p.Hi, -p.Lo)
	}
}

// TestBootstrapMeansNegativeZero: a column of -0 (judge scores read from "-0") has a mean of +0,
// as Python's sum, which starts at 0, gives; its bounds are +0 too, not -0.
func TestBootstrapMeansNegativeZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, col := range [][]float64{{negZero, negZero, negZero}, {negZero, -1, negZero, negZero}} {
		iv := BootstrapMeans(NewRand(1), [][]float64{col}, 200, 0.95)[0]
		if iv.Hi != 0 || math.Signbit(iv.Hi) {
			t.Errorf("BootstrapMeans(%v) = %+v, want the upper bound +0", col, iv)
		}
	}
}

func TestClamp(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, c := range []struct{ x, lo, hi, want float64 }{
		{0.5, 0, 1, 0.5},
		{-1, 0, 1, 0},
		{2, 0, 1, 1},
		{0, negZero, negZero, 0},
		{negZero, 0, 0, negZero},
		{0.30000000000000004, 0.1, 0.3, 0.3},
	} {
		got := Clamp(c.x, c.lo, c.hi)
		if got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("Clamp(%v, %v, %v) = %v, want %v", c.x, c.lo, c.hi, got, c.want)
		}
	}
	if got := Clamp(math.NaN(), 0, 1); !math.IsNaN(got) {
		t.Errorf("Clamp(NaN, 0, 1) = %v, want NaN", got)
	}
}

// seq is a rand.Source that returns its values in turn.
type seq []uint64

func (s *seq) Uint64() uint64 {
	v := (*s)[0]
	*s = (*s)[1:]
	return v
}

// TestDrawCountsRejects: Lemire's method maps a 32-bit draw x to x·n>>32 and rejects it when the
// low 32 bits of x·n fall below 2^32 mod n, the draws that would favour the low indices. With
// n = 3 (2^32 mod 3 = 1), x = 0 is rejected; each 64-bit value gives the low half first.
func TestDrawCountsRejects(t *testing.T) {
	tests := []struct {
		name string
		vals []uint64
		want []int32
	}{
		// 0, 0 rejected; 0x40000000·3 = 0xC0000000 → 0; 0x80000000·3 = 0x1_80000000 → 1;
		// 0xFFFFFFFF·3 = 0x2_FFFFFFFD → 2.
		{"zeros rejected", []uint64{0, 0x80000000_40000000, 0xFFFFFFFF_FFFFFFFF}, []int32{1, 1, 1}},
		// 1·3 = 3 → 0; 0xAAAAAAAB·3 = 0x2_00000001, low bits at the threshold, kept → 2;
		// 0x80000000 → 1.
		{"at the threshold kept", []uint64{0xAAAAAAAB_00000001, 0x80000000}, []int32{1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := seq(tt.vals)
			counts := make([]int32, 3)
			drawCounts(rand.New(&src), counts)
			if !slices.Equal(counts, tt.want) {
				t.Errorf("drawCounts = %v, want %v", counts, tt.want)
			}
		})
	}
}
