package model

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

// ratOf is the decimal v prints as, the oracle Dollars is held to.
func ratOf(t *testing.T, v float64) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64))
	if !ok {
		t.Fatalf("no decimal for %v", v)
	}
	return r
}

func TestDollars(t *testing.T) {
	for _, tc := range []struct {
		name    string
		amounts []float64
		want    string // the exact sum, as big.Rat's RatString writes it
		float   float64
	}{
		{"none", nil, "0", 0},
		{"0.1 + 0.7", []float64{0.1, 0.7}, "4/5", 0.8},
		{"0.1 + 0.2", []float64{0.1, 0.2}, "3/10", 0.3},
		{"three samples at $0.003", []float64{0.003, 0.003, 0.003}, "9/1000", 0.009},
		{"costs of six decimals and more", []float64{0.0004785, 0.00019079999999999998, 1.5e-9}, "33465074999999999/50000000000000000000", 0.0006693015},
		{"a whole amount after a small one", []float64{1e-12, 5000}, "5000000000000001/1000000000000", 5000.000000000001},
		{"negative amounts", []float64{0.5, -0.25, -0.25}, "0", 0},
		{"zeros", []float64{0, 0.25, 0}, "1/4", 0.25},
		// An int64 cannot hold these at the finest scale: the sum goes on in a big.Int.
		{"past an int64", []float64{9e18, 9e18}, "18000000000000000000", 1.8e19},
		{"tiny then huge", []float64{5e-300, 1e300}, "", 1e300},
	} {
		var d Dollars
		for _, a := range tc.amounts {
			d.Add(a)
		}
		want := new(big.Rat)
		for _, a := range tc.amounts {
			want.Add(want, ratOf(t, a))
		}
		if got := d.Rat(); got.Cmp(want) != 0 || tc.want != "" && got.RatString() != tc.want {
			t.Errorf("%s: Dollars = %s, want %s", tc.name, got.RatString(), want.RatString())
		}
		if got := d.Float64(); got != tc.float {
			t.Errorf("%s: Float64() = %v, want %v", tc.name, got, tc.float)
		}
		if got, want := d.Sign(), want.Sign(); got != want {
			t.Errorf("%s: Sign() = %d, want %d", tc.name, got, want)
		}
	}
}

// TestDollarsAtLeast: a budget compares the exact sum, where the float sum of $0.10 and $0.70,
// 0.7999999999999999, falls short of $0.80.
func TestDollarsAtLeast(t *testing.T) {
	var d Dollars
	a, b := 0.1, 0.7
	d.Add(a)
	d.Add(b)
	if a+b >= 0.8 {
		t.Fatal("the float sum is no longer short of 0.8: the case tests nothing")
	}
	for _, tc := range []struct {
		max  float64
		want bool
	}{{0.8, true}, {0.7999999999999999, true}, {0.8000000000000001, false}, {0, true}, {1, false}} {
		if got := d.AtLeast(tc.max); got != tc.want {
			t.Errorf("$0.10 + $0.70 AtLeast(%v) = %v, want %v", tc.max, got, tc.want)
		}
	}
}

// TestDollarsRandom holds Dollars to a big.Rat sum of the same decimals over amounts of every
// size a price gives and some it does not, signs mixed.
func TestDollarsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range 200 {
		var d Dollars
		want := new(big.Rat)
		for range rng.IntN(50) {
			v := float64(rng.IntN(1_000_000)) * math.Pow(10, float64(rng.IntN(40)-30))
			if rng.IntN(4) == 0 {
				v = -v
			}
			if rng.IntN(3) == 0 {
				v = rng.Float64() * math.Pow(10, float64(rng.IntN(20)-12)) // 16 or 17 digits
			}
			d.Add(v)
			want.Add(want, ratOf(t, v))
		}
		if got := d.Rat(); got.Cmp(want) != 0 {
			t.Fatalf("run %d: Dollars = %s, want %s", run, got.FloatString(40), want.FloatString(40))
		}
		if got, w := d.Float64(), func() float64 { f, _ := want.Float64(); return f }(); got != w {
			t.Fatalf("run %d: Float64() = %v, want %v", run, got, w)
		}
	}
}

func TestDollarsRefusesNaN(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Add(%v) did not panic", v)
				}
			}()
			var d Dollars
			d.Add(v)
		}()
	}
}

func BenchmarkDollarsAdd(b *testing.B) {
	costs := []float64{0.0004785, 0.00019079999999999998, 0.000123, 0.0025, 0.0000315, 0.00111}
	var d Dollars
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		d.Add(costs[i%len(costs)])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "amounts/s")
}

// FuzzDollars: any two finite amounts sum to what big.Rat makes of their decimals.
func FuzzDollars(f *testing.F) {
	for _, p := range [][2]float64{{0.1, 0.7}, {0.0004785, 0.00019079999999999998}, {9e18, 9e18}, {5e-300, 1e300}, {-0.5, 0.25}, {math.MaxFloat64, math.SmallestNonzeroFloat64}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b float64) {
		if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
			return
		}
		var d Dollars
		d.Add(a)
		d.Add(b)
		want := new(big.Rat).Add(ratOf(t, a), ratOf(t, b))
		if got := d.Rat(); got.Cmp(want) != 0 {
			t.Fatalf("%v + %v: Dollars = %s, want %s", a, b, got.RatString(), want.RatString())
		}
	})
}
