package metric

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestBLEU(t *testing.T) {
	tests := []struct {
		pred string
		refs []string
		want BLEUScores
	}{
		{"Paris", []string{"paris"}, BLEUScores{1, math.Sqrt(0.1), math.Pow(0.1, 0.75)}},
		{"Paris.", []string{"Paris"}, BLEUScores{0, 0, 0}},
		// r = 2 wins the tie with 6, so BP = 1; every n-gram is in the long reference.
		{"a b c d", []string{"a b", "a b c d e f"}, BLEUScores{1, 1, 1}},
		// One reference of length 6: BP exp(1 - 6/4); p = 1, 1, 0.1/2, 0.1/1 after clipping.
		{"a b x y", []string{"a b c d e f"}, BLEUScores{0.5 * math.Exp(1-1.5), math.Exp(1-1.5) * math.Sqrt(0.5*(1.0/3)), math.Exp(1-1.5) * math.Exp(0.25*(math.Log(0.5)+math.Log(1.0/3)+math.Log(0.05)+math.Log(0.1)))}},
		// Clipping: "the" counts at most twice; BP exp(1 - 3/3) = 1.
		{"the the the", []string{"the cat the"}, BLEUScores{2.0 / 3, math.Sqrt(2.0 / 3 * 0.1 / 2), math.Exp(0.25 * (math.Log(2.0/3) + math.Log(0.05) + math.Log(0.1) + math.Log(0.1)))}},
		{"", []string{"a"}, BLEUScores{0, 0, 0}},
		{"a", nil, BLEUScores{0, 0, 0}},
	}
	for _, tt := range tests {
		got := BLEU(tt.pred, tt.refs)
		if !approx(got.B1, tt.want.B1) || !approx(got.B2, tt.want.B2) || !approx(got.B4, tt.want.B4) {
			t.Errorf("BLEU(%q, %q) = %+v, want %+v", tt.pred, tt.refs, got, tt.want)
		}
	}
}

func TestFsum(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{0.1, 0.1, 0.1}, 0.30000000000000004},
		{[]float64{1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50}, 1e-100},
		{[]float64{1, 1e-16, 1e-16}, 1.0000000000000002},
		{[]float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}, 5.5},
		{[]float64{1, math.Copysign(0, -1)}, 1},
		{nil, 0},
	}
	for _, tt := range tests {
		if got := fsum(tt.xs); got != tt.want {
			t.Errorf("fsum(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}

func ExampleBLEU() {
	s := BLEU("Paris", []string{"paris", "the city of Paris"})
	fmt.Printf("%.4f %.4f %.4f\n", s.B1, s.B2, s.B4)
	// Output: 1.0000 0.3162 0.1778
}

// TestClippedPaths checks the packed-key counting, pairwise and sorted (after renumbering large
// ids), against the map fallback on random hypotheses and references.
func TestClippedPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		s := new(scratch)
		size := 12 // short texts take the pairwise path, long ones the sorting path
		if rng.IntN(2) == 0 {
			size = 80
		}
		hyp := rng.IntN(size)
		total := hyp
		var bounds []int
		for range 1 + rng.IntN(3) {
			total += rng.IntN(size)
			bounds = append(bounds, total)
		}
		raw := make([]int32, total)
		for i := range raw {
			raw[i] = int32(rng.IntN(4)) * 100003 // ids too large to pack as they are
		}
		for n := 1; n <= 4; n++ {
			s.ids = append(s.ids[:0], raw...)
			wantNum, wantDen := s.clippedMap(n, hyp, bounds)
			if num, den := s.clipped(n, hyp, bounds); num != wantNum || den != wantDen {
				t.Fatalf("clipped(%d) with large ids on %v / %v = %d/%d, want %d/%d", n, raw, bounds, num, den, wantNum, wantDen)
			}
			if !s.denseIDs() {
				t.Fatal("denseIDs() = false for four distinct ids")
			}
			num, den := s.clipped(n, hyp, bounds)
			if num != wantNum || den != wantDen {
				t.Fatalf("clipped(%d) on %v / %v = %d/%d, want %d/%d", n, raw, bounds, num, den, wantNum, wantDen)
			}
		}
	}
}
