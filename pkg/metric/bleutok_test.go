package metric

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// checkBleuTokens fails unless bleuTokens gives the keys of the tokens of split(lower(str)) and
// lists the long ones with their bytes.
func checkBleuTokens(t *testing.T, s *scratch, str string) {
	t.Helper()
	s.longs = s.longs[:0]
	keys := s.bleuTokens(nil, str)
	want := textnorm.Split(textnorm.Lower(str))
	var wantKeys []uint64
	var wantLongs, gotLongs []string
	for _, w := range want {
		k := tokenKey([]byte(w))
		wantKeys = append(wantKeys, k)
		if k&longKey != 0 {
			wantLongs = append(wantLongs, w)
		}
	}
	for _, sp := range s.longs {
		gotLongs = append(gotLongs, string(s.buf[sp.start:sp.end]))
	}
	if !slices.Equal(keys, wantKeys) || !slices.Equal(gotLongs, wantLongs) {
		t.Fatalf("bleuTokens(%q) = %x with long tokens %q, want the keys %x of %q", str, keys, gotLongs, wantKeys, want)
	}
	if !s.bleuLongsDistinct() {
		t.Fatalf("bleuTokens(%q): long tokens %q reported as colliding", str, gotLongs)
	}
}

func TestBleuTokensGolden(t *testing.T) {
	s := getScratch()
	defer putScratch(s)
	for _, p := range loadPairs(t) {
		s.buf = s.buf[:0]
		checkBleuTokens(t, s, p.Prediction)
		for _, r := range p.References {
			checkBleuTokens(t, s, r)
		}
	}
}

func TestBleuTokensRandom(t *testing.T) {
	alphabet := []string{"a", "B", "the", "The", "THE", "Encyclopaedia", "encyclopaedia", ".", ",", " ", "  ",
		"\t", "\u001c", "\u0001", "\u00a0", "\u0085", "\u3000", "\u2028", "\u200b", "\u00c2", "日本", "、",
		"Σ", "ΟΔΟΣ", "İ", "\xff", "\xe2\x80", "12345678", "x"}
	rng := rand.New(rand.NewPCG(5, 6))
	s := getScratch()
	defer putScratch(s)
	var b strings.Builder
	for range 5000 {
		b.Reset()
		for range rng.IntN(40) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s.buf = s.buf[:0]
		checkBleuTokens(t, s, b.String())
	}
}

func FuzzBleuTokens(f *testing.F) {
	for _, s := range []string{"The cat. the CAT", "ΟΔΟΣ ΑΣ", "日本\u3000東京", "x\u0085y\u00a0z", "\xff\xfe a", "a\u0001b c"} {
		f.Add(s)
	}
	for _, p := range seedPairs(f, "testdata/pairs.jsonl", 150) {
		f.Add(p.Prediction)
		f.Add(p.References[0])
	}
	f.Fuzz(func(t *testing.T, str string) {
		s := getScratch()
		defer putScratch(s)
		checkBleuTokens(t, s, str)
	})
}

// TestBleuKeyCollision plants a different long token under the key of another: the check on
// long tokens must report it, so that BLEU interns by bytes instead.
func TestBleuKeyCollision(t *testing.T) {
	s := getScratch()
	defer putScratch(s)
	s.buf = append(s.buf[:0], "encyclopaedic"...)
	s.longs = append(s.longs[:0], span{0, int32(len("encyclopaedic")), tokenKey([]byte("encyclopaedia"))})
	s.bleuTokens(nil, "Encyclopaedia the encyclopaedic")
	if s.bleuLongsDistinct() {
		t.Errorf("a planted colliding key was not reported among %d long tokens", len(s.longs))
	}
	for range 40 { // past the pairwise check, into the table
		s.bleuTokens(nil, "ENCYCLOPAEDIA")
	}
	if s.bleuLongsDistinct() {
		t.Errorf("a planted colliding key was not reported among %d long tokens", len(s.longs))
	}
}

// TestBleuReadPaths checks that interning by key and by bytes give the same counts.
func TestBleuReadPaths(t *testing.T) {
	s := getScratch()
	defer putScratch(s)
	for _, p := range loadPairs(t) {
		var got [2][8]int
		for k, byKey := range []bool{true, false} {
			s.reset()
			hyp, closest, ok := s.bleuRead(p.Prediction, p.References, byKey)
			if !ok {
				t.Fatalf("bleuRead(%q, byKey=%v) reported a key collision", p.ID, byKey)
			}
			got[k][0], got[k][1] = hyp, closest
			s.wordIDs()
			for n := 1; n <= 3; n++ {
				got[k][2*n], got[k][2*n+1] = s.clipped(n, hyp, s.bounds)
			}
		}
		if got[0] != got[1] {
			t.Fatalf("pair %s: by key %v, by bytes %v", p.ID, got[0], got[1])
		}
	}
}

// TestClippedRuns checks the all-orders run counting against the map counting on random
// hypotheses and references over small vocabularies, where n-grams repeat.
func TestClippedRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := new(scratch)
	for range 3000 {
		hyp := rng.IntN(65)
		vocab := 1 + rng.IntN(5)
		bounds := randomBounds(rng, hyp, 20)
		randomWords(rng, s, bounds[len(bounds)-1], vocab)
		num, den := clippedRuns(s.words, hyp, bounds)
		s.checkClipped(t, "clippedRuns", hyp, bounds, num, den)
	}
}

// TestClippedFromRefs checks the counting from short references against the map counting on
// random hypotheses of any length and references of at most maxFromRefs tokens in all, over small
// vocabularies, where n-grams repeat, and larger ones, where the filter passes over positions.
func TestClippedFromRefs(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	s := new(scratch)
	for range 3000 {
		hyp := rng.IntN(300)
		vocab := 1 + rng.IntN(5)
		if rng.IntN(2) == 0 {
			vocab = 1 + rng.IntN(200)
		}
		var bounds []int
		for bounds == nil || bounds[len(bounds)-1]-hyp > maxFromRefs {
			bounds = randomBounds(rng, hyp, 1+rng.IntN(maxFromRefs))
		}
		total := bounds[len(bounds)-1]
		s.ids, s.words = s.ids[:0], s.words[:0]
		for range total {
			w := rng.IntN(vocab)
			s.ids = append(s.ids, int32(w))
			s.words = append(s.words, uint64(w)<<56|uint64(w)*977) // not ids, as keys are not
		}
		num, den := clippedFromRefs(s.words, hyp, bounds)
		s.checkClipped(t, "clippedFromRefs", hyp, bounds, num, den)
	}
}

// checkClipped checks num and den, the clipped counts of every order that the function called
// name gave for s's words, a hypothesis of hyp and references ending at bounds, against the map
// counting.
func (s *scratch) checkClipped(t *testing.T, name string, hyp int, bounds []int, num, den [4]int) {
	t.Helper()
	for n := 1; n <= 4; n++ {
		wantNum, wantDen := s.clippedMap(n, hyp, bounds)
		if num[n-1] != wantNum || den[n-1] != wantDen {
			t.Fatalf("%s on %v / %v order %d = %d/%d, want %d/%d", name, s.ids, bounds, n, num[n-1], den[n-1], wantNum, wantDen)
		}
	}
}

// TestKeyTableGrowShrink fills a table through several doublings, resets it small and large, and
// checks that every key is found with its value and nothing else is, even keys of earlier rounds.
func TestKeyTableGrowShrink(t *testing.T) {
	var kt keyTable
	for round, n := range []int{1000, 10, 300, 5000, 3} {
		kt.reset(min(n, 16))
		for i := range n {
			if 2*(i+1) > len(kt.slots) {
				kt.grow()
			}
			if _, isNew := kt.insert(uint64(i)*7919, int32(i)); !isNew {
				t.Fatalf("round %d: key %d already present", round, i)
			}
		}
		for i := range n {
			if got := kt.find(uint64(i) * 7919); got != int32(i) {
				t.Fatalf("round %d: find(key %d) = %d, want %d", round, i, got, i)
			}
		}
		if got := kt.find(uint64(n) * 7919); got != -1 {
			t.Fatalf("round %d: find(absent key) = %d, want -1", round, got)
		}
	}
}

// TestClippedMasks checks the all-orders mask counting against the map counting on random
// hypotheses and references over small vocabularies, where n-grams repeat, with references long
// enough to take several windows.
func TestClippedMasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	s := new(scratch)
	for range 5000 {
		hyp := rng.IntN(maxMaskHyp + 1)
		vocab := 1 + rng.IntN(5)
		if rng.IntN(4) == 0 {
			vocab = 1 + rng.IntN(100)
		}
		most := 20
		if rng.IntN(3) == 0 {
			most = 300
		}
		bounds := randomBounds(rng, hyp, most)
		if rng.IntN(4) == 0 {
			// A reference whose length puts an n-gram across the edge of a window.
			edges := []int{maxMaskHyp - 1, maxMaskHyp, maxMaskHyp + 1, maxMaskHyp + maskStride - 1,
				maxMaskHyp + maskStride, maxMaskHyp + maskStride + 3, 3*maskStride + 1}
			bounds = append(bounds, bounds[len(bounds)-1]+edges[rng.IntN(len(edges))])
		}
		randomWords(rng, s, bounds[len(bounds)-1], vocab)
		num, den := s.clippedMasks(hyp, bounds)
		s.checkClipped(t, "clippedMasks", hyp, bounds, num, den)
	}
}

// randomWords puts n random words of a vocabulary of vocab into s, as ids and as words: the
// words are keys that are not ids, as real keys are not.
func randomWords(rng *rand.Rand, s *scratch, n, vocab int) {
	s.ids, s.words = s.ids[:0], s.words[:0]
	for range n {
		w := rng.IntN(vocab)
		s.ids = append(s.ids, int32(w))
		s.words = append(s.words, uint64(w)<<60|uint64(w))
	}
}
