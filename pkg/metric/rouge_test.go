package metric

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestRouge(t *testing.T) {
	tests := []struct {
		pred string
		refs []string
		stem bool
		want RougeScores
	}{
		{"Beyoncé", []string{"Beyonce"}, true, RougeScores{1, 0, 1}},
		{"Beyoncé", []string{"Beyonce"}, false, RougeScores{0, 0, 0}},
		{"İ", []string{"i"}, false, RougeScores{1, 0, 1}},
		{"北京", []string{"北京"}, true, RougeScores{0, 0, 0}},
		{"the cats sat", []string{"the cat sat"}, true, RougeScores{1, 1, 1}},
		// "was" keeps three letters; "this" is stemmed to "thi".
		{"this was", []string{"thi wa"}, true, RougeScores{0.5, 0, 0.5}},
		// Unigram P 3/4 R 3/3; bigrams (a b)(c d) of 3 and 2: P 1/3 R 1/2; LCS "a b c" 3.
		{"a b x c", []string{"a b c"}, false, RougeScores{2 * 0.75 / 1.75, 2 * (1.0 / 3) * 0.5 / (1.0/3 + 0.5), 2 * 0.75 / 1.75}},
		// The best reference is chosen per type: R1 and RL from "a b c", R2 from "c b"
		// (bigram P 1/2, R 1/1); "c b" gives RL F 2·1·(2/3)/(5/3) = 0.8.
		{"c b a", []string{"a b c", "c b"}, false, RougeScores{1, 2.0 / 3, 0.8}},
		{"", []string{"a"}, false, RougeScores{0, 0, 0}},
		{"a", nil, false, RougeScores{0, 0, 0}},
	}
	for _, tt := range tests {
		got := Rouge(tt.pred, tt.refs, tt.stem)
		if !approx(got.R1, tt.want.R1) || !approx(got.R2, tt.want.R2) || !approx(got.RL, tt.want.RL) {
			t.Errorf("Rouge(%q, %q, %v) = %+v, want %+v", tt.pred, tt.refs, tt.stem, got, tt.want)
		}
	}
}

func ExampleRouge() {
	s := Rouge("The cats were sitting", []string{"a cat sat", "the cat was sitting"}, true)
	fmt.Printf("%.3f %.3f %.3f\n", s.R1, s.R2, s.RL)
	// Output: 0.750 0.333 0.750
}

// TestLCSBits compares the bit-parallel LCS with the dynamic programme on random id sequences
// whose lengths straddle the 64-bit word boundaries; a draws from more ids than b, so some of
// its ids are above any of b's.
func TestLCSBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := new(scratch)
	for range 300 {
		a := make([]int32, rng.IntN(200))
		b := make([]int32, rng.IntN(200))
		alphabet := int32(1 + rng.IntN(8))
		for i := range a {
			a[i] = rng.Int32N(alphabet + 3)
		}
		for i := range b {
			b[i] = rng.Int32N(alphabet)
		}
		if len(b) == 0 {
			continue
		}
		want := lcsDP(a, b)
		if got := s.lcsBits(a, b); got != want {
			t.Fatalf("lcsBits(%v, %v) = %d, want %d", a, b, got, want)
		}
	}
}

// lcsDP is the textbook quadratic LCS length.
func lcsDP(a, b []int32) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				d[i][j] = d[i-1][j-1] + 1
			} else {
				d[i][j] = max(d[i-1][j], d[i][j-1])
			}
		}
	}
	return d[len(a)][len(b)]
}
