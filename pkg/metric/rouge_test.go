package metric

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/textnorm"
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
		if got := s.lcs(a, b); got != want {
			t.Fatalf("lcs(%v, %v) = %d, want %d", a, b, got, want)
		}
		if len(b) <= 64 {
			if got := s.lcsWord(a, b); got != want {
				t.Fatalf("lcsWord(%v, %v) = %d, want %d", a, b, got, want)
			}
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

// rougeRef restates Rouge plainly: string tokens from textnorm.RougeTokens, n-grams counted in
// maps, the textbook LCS. It holds the interning, keys and overlap counting of Rouge to the
// definition.
func rougeRef(pred string, refs []string, stem bool) RougeScores {
	var best RougeScores
	p := textnorm.RougeTokens(pred, stem)
	for _, ref := range refs {
		r := textnorm.RougeTokens(ref, stem)
		r1 := fmeasure(overlapRef(p, r), len(p), len(r))
		r2 := fmeasure(overlapRef(bigramsRef(p), bigramsRef(r)), max(len(p)-1, 0), max(len(r)-1, 0))
		var rl float64
		if len(p) > 0 && len(r) > 0 {
			rl = lcsF(lcsRef(p, r), len(p), len(r))
		}
		best.R1, best.R2, best.RL = max(best.R1, r1), max(best.R2, r2), max(best.RL, rl)
	}
	return best
}

func bigramsRef(toks []string) []string {
	var g []string
	for i := 1; i < len(toks); i++ {
		g = append(g, toks[i-1]+" "+toks[i])
	}
	return g
}

// overlapRef is Σ min(count in a, count in b).
func overlapRef(a, b []string) int {
	count := map[string]int{}
	for _, x := range a {
		count[x]++
	}
	n := 0
	for _, y := range b {
		if count[y] > 0 {
			count[y]--
			n++
		}
	}
	return n
}

// lcsRef is lcsDP over strings.
func lcsRef(a, b []string) int {
	ids := map[string]int32{}
	id := func(toks []string) []int32 {
		out := make([]int32, len(toks))
		for i, t := range toks {
			if _, ok := ids[t]; !ok {
				ids[t] = int32(len(ids))
			}
			out[i] = ids[t]
		}
		return out
	}
	return lcsDP(id(a), id(b))
}

// FuzzRouge holds Rouge to rougeRef, stemmed and not, on the same scratch call after call, so that
// words memoised by one call are met again by the next.
func FuzzRouge(f *testing.F) {
	for _, s := range [][3]string{
		{"The cats were sitting", "a cat sat", "the cat was sitting"},
		{"Beyoncé Knowles", "Beyonce", "BEYONCÉ knowles knowles"},
		{"İstanbul \u212Aelvin", "istanbul kelvin", "i stanbul"},
		{"generously generalization generalizations", "general generous", "generalizations"},
		{"a b a b a b c", "b a b a", ""},
		{"北京 2008 Olympics", "2008 olympic games", "北京"},
		{"abcdefg abcdefgh abcdefghi", "abcdefgh abcdefg", "abcdefghi abcdefghij"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	for _, name := range []string{"testdata/pairs.jsonl", "testdata/rouge_random.jsonl"} {
		for _, p := range seedPairs(f, name, 100) {
			f.Add(p.Prediction, p.References[0], p.References[len(p.References)-1])
		}
	}
	f.Fuzz(func(t *testing.T, pred, r1, r2 string) {
		for _, refs := range [][]string{{r1, r2}, {r2}, {pred, r1}} {
			for _, stem := range []bool{true, false} {
				got, want := Rouge(pred, refs, stem), rougeRef(pred, refs, stem)
				if got != want {
					t.Errorf("Rouge(%q, %q, %v) = %+v, want %+v", pred, refs, stem, got, want)
				}
			}
			checkRougeBoth(t, pred, refs)
		}
	})
}

// TestRougeLongTexts holds Rouge to rougeRef on texts long enough for its bigram table and
// bit-parallel LCS, over a vocabulary larger than internLimit, so the memo of words is emptied
// on the way.
func TestRougeLongTexts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		if rng.IntN(4) == 0 {
			return fmt.Sprintf("w%dings", rng.IntN(3*internLimit)) // new words, stemmed
		}
		return []string{"the", "cats", "sitting", "generalizations", "abcdefgh", "a", "Runs"}[rng.IntN(7)]
	}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(word())
			b.WriteByte(' ')
		}
		return b.String()
	}
	for i := range 1000 {
		pred, refs := text(rng.IntN(300)), []string{text(rng.IntN(300)), text(rng.IntN(30))}
		stem := i%2 == 0
		if got, want := Rouge(pred, refs, stem), rougeRef(pred, refs, stem); got != want {
			t.Fatalf("Rouge(%q, %q, %v) = %+v, want %+v", pred, refs, stem, got, want)
		}
		if i%10 == 0 {
			checkRougeBoth(t, pred, refs)
		}
	}
}

// checkRougeBoth holds RougeBoth to the two calls of Rouge it stands for.
func checkRougeBoth(t *testing.T, pred string, refs []string) {
	t.Helper()
	checkBoth(t, "Rouge", pred, refs, RougeBoth, Rouge)
}

// checkBoth holds a metric's function computing its two variants together (stemmed and not,
// with synonyms and without) to the calls of the metric it stands for, the first with true.
func checkBoth[T comparable](t *testing.T, name, pred string, refs []string, both func(string, []string) (T, T), one func(string, []string, bool) T) {
	t.Helper()
	first, second := both(pred, refs)
	for _, c := range []struct {
		got T
		arg bool
	}{{first, true}, {second, false}} {
		if want := one(pred, refs, c.arg); c.got != want {
			t.Errorf("%sBoth(%q, %q) = %+v where %s(…, %v) = %+v", name, pred, refs, c.got, name, c.arg, want)
		}
	}
}

// TestRougeBothGolden holds RougeBoth to the golden pairs' six ROUGE fields, and to Rouge.
func TestRougeBothGolden(t *testing.T) {
	pairs := loadPairs(t)
	both := func(f func(stemmed, plain RougeScores) float64) func(goldenPair) float64 {
		return func(p goldenPair) float64 { return f(RougeBoth(p.Prediction, p.References)) }
	}
	checkFields(t, pairs, []lexicalField{
		{"rouge1_f", both(func(s, _ RougeScores) float64 { return s.R1 })},
		{"rouge2_f", both(func(s, _ RougeScores) float64 { return s.R2 })},
		{"rougeL_f", both(func(s, _ RougeScores) float64 { return s.RL })},
		{"rouge1_f_nostem", both(func(_, p RougeScores) float64 { return p.R1 })},
		{"rouge2_f_nostem", both(func(_, p RougeScores) float64 { return p.R2 })},
		{"rougeL_f_nostem", both(func(_, p RougeScores) float64 { return p.RL })},
	})
	for _, p := range pairs {
		checkRougeBoth(t, p.Prediction, p.References)
	}
}

// TestRougeVocabBounded scores texts of new words on one scratch: the vocabulary is emptied once
// it holds more than internLimit words, and the scores stay right across the emptying.
func TestRougeVocabBounded(t *testing.T) {
	s := new(scratch)
	emptied := false
	for i := range 3 * internLimit / 100 {
		var b strings.Builder
		for j := range 50 {
			fmt.Fprintf(&b, "word%dings x%d ", 50*i+j, j)
		}
		pred, refs := b.String(), []string{"the word0ings x1 x2", b.String()[:40]}
		before := len(s.vocab.words)
		s.reset()
		got := s.rouge(pred, refs, true)
		if want := rougeRef(pred, refs, true); got != want {
			t.Fatalf("call %d: rouge(%q, %q) = %+v, want %+v", i, pred, refs, got, want)
		}
		// A call adds at most its tokens and their stems.
		if n := len(s.vocab.words); n > internLimit+2*120 {
			t.Fatalf("call %d: %d words in the vocabulary, want at most %d", i, n, internLimit+2*120)
		} else if n < before {
			emptied = true
		}
	}
	if !emptied {
		t.Errorf("the vocabulary was never emptied")
	}
}
