package stats

import (
	"math"
	"testing"
)

func TestCohenKappa(t *testing.T) {
	tests := []struct {
		a, b []int
		want float64
	}{
		// po = 7/10, pe = .6·.5 + .4·.5 = .5, κ = .2/.5
		{[]int{1, 1, 0, 0, 1, 0, 1, 1, 1, 0}, []int{1, 0, 0, 0, 1, 1, 1, 1, 0, 0}, 0.4},
		// perfect agreement over two categories
		{[]int{0, 1, 0, 1}, []int{0, 1, 0, 1}, 1},
		// po = 0, pe = .5 → κ = −1
		{[]int{0, 1, 0, 1}, []int{1, 0, 1, 0}, -1},
		// three categories: po = 5/6, pa = (2,2,2)/6, pb = (3,1,2)/6, pe = (6+2+4)/36 = 1/3, κ = (5/6−1/3)/(2/3) = .75
		{[]int{0, 0, 1, 1, 2, 2}, []int{0, 0, 0, 1, 2, 2}, 0.75},
	}
	// To the last bit: the fraction (n·agree − S)/(n² − S), rounded once, where p_o and p_e as
	// float quotients came a few units in the last place off, and sklearn's arithmetic elsewhere.
	exact := []struct {
		a, b []int
		want float64
	}{
		{[]int{0, 1, 0, 2, 0, 1, 1, 0, 1, 2}, []int{2, 0, 0, 2, 2, 1, 0, 2, 1, 2}, 2.0 / 7},        // was 0.28571428571428575
		{[]int{2, 0, 1, 2, 2, 0, 2, 2, 0, 1, 0}, []int{1, 1, 2, 2, 0, 2, 1, 1, 1, 1, 1}, -0.125},   // was -0.12499999999999996
		{[]int{1, 2, 2, 0, 1, 1, 2, 1, 2, 1}, []int{2, 0, 1, 0, 2, 1, 1, 2, 0, 1}, -1.0 / 13},      // sklearn: -0.07692307692307687
		{[]int{2, 2, 1, 2, 0, 0, 2, 0, 0, 0, 2}, []int{2, 0, 1, 2, 1, 2, 1, 1, 1, 2, 2}, 9.0 / 86}, // was 0.10465116279069771
	}
	for _, tt := range exact {
		if got := CohenKappa(tt.a, tt.b); got != tt.want {
			t.Errorf("CohenKappa(%v, %v) = %v, want %v exactly", tt.a, tt.b, got, tt.want)
		}
	}
	for _, tt := range tests {
		if got := CohenKappa(tt.a, tt.b); !(math.Abs(got-tt.want) <= 1e-12) {
			t.Errorf("CohenKappa(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if got := CohenKappa([]int{1, 1}, []int{1, 1}); !math.IsNaN(got) {
		t.Errorf("CohenKappa(constant) = %v, want NaN", got)
	}
	if got := CohenKappa([]int{0, 1, 1}, []int{0, 1}); !math.IsNaN(got) {
		t.Errorf("CohenKappa(ratings of different lengths) = %v, want NaN", got)
	}
}

func TestFleissKappa(t *testing.T) {
	// The worked example of Fleiss (1971) as given on Wikipedia: 10 items, 14 raters, 5 categories:
	// P̄ = 0.378022, P̄e = 0.213133, κ = 0.209930.
	counts := [][]int{
		{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7},
	}
	if got := FleissKappaCounts(counts); !(math.Abs(got-0.20993) <= 5e-6) {
		t.Errorf("FleissKappaCounts(wikipedia) = %v, want 0.209930", got)
	}
	// The same table as raw ratings.
	var ratings [][]int
	for _, row := range counts {
		var r []int
		for j, x := range row {
			for range x {
				r = append(r, j)
			}
		}
		ratings = append(ratings, r)
	}
	if got, want := FleissKappa(ratings), FleissKappaCounts(counts); !(math.Abs(got-want) <= 1e-12) {
		t.Errorf("FleissKappa(ratings) = %v, want %v", got, want)
	}
	// Two raters, binary.
	two := [][]int{{1, 1}, {0, 0}, {1, 0}, {0, 0}}
	// P_i = 1,1,0,1 → P̄ = .75; p1 = 3/8, p0 = 5/8, P̄e = 9/64+25/64 = 34/64; κ = (.75−.53125)/(.46875) = .466667
	if got := FleissKappa(two); !(math.Abs(got-0.4666666666666667) <= 1e-12) {
		t.Errorf("FleissKappa(%v) = %v, want 0.466667", two, got)
	}
	// Items rated by different numbers of raters: P_i has no common n, κ is undefined.
	// Fewer raters on a later item than on the first is as undefined as more.
	for _, c := range [][][]int{{{2, 0}, {1, 2}}, {{2, 0}, {1, 0}}, {{1, 1}, {0, 1}, {2, 0}}} {
		if got := FleissKappaCounts(c); !math.IsNaN(got) {
			t.Errorf("FleissKappaCounts(%v) (uneven rows) = %v, want NaN", c, got)
		}
	}
	// Every rating in one category (P̄e = 1), or a single rater per item: κ is undefined, NaN,
	// not a division by zero.
	for _, r := range [][][]int{{{1, 1, 1}, {1, 1, 1}}, {{0}, {1}, {1}}} {
		if got := FleissKappa(r); !math.IsNaN(got) {
			t.Errorf("FleissKappa(%v) = %v, want NaN", r, got)
		}
	}
	if got := RawAgreement(two); got != 0.75 {
		t.Errorf("RawAgreement(%v) = %v, want 0.75", two, got)
	}
}

// TestFleissKappaChance checks that agreement at exactly chance level gives κ = 0, not a
// rounding error's -1.1e-16, which the agreement table printed as "-0.000", below chance.
func TestFleissKappaChance(t *testing.T) {
	tests := [][][]int{
		// P̄ = (1/3+1/3+1+1/3)/4 = 1/2; p = (6/12, 6/12), P̄e = 1/2
		{{0, 0, 1}, {0, 0, 1}, {1, 1, 1}, {0, 1, 0}},
		{{0, 1, 0, 0}, {1, 1, 1, 1}, {0, 1, 0, 0}, {1, 0, 0, 1}, {0, 0, 1, 1}, {1, 0, 0, 1}},
		{{1, 1, 0, 0}, {1, 1, 1, 1}, {0, 1, 0, 1}, {0, 0, 1, 0}, {1, 0, 1, 1}, {1, 1, 1, 0}, {0, 0, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 1}, {1, 0, 1, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}},
	}
	for _, r := range tests {
		if got := FleissKappa(r); got != 0 {
			t.Errorf("FleissKappa(%v) = %v, want 0", r, got)
		}
	}
}
