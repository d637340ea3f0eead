package metric

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// checkBleuTokens fails unless bleuTokens cuts str into the tokens of split(lower(str)) and
// gives equal tokens equal ids.
func checkBleuTokens(t *testing.T, s *scratch, str string) {
	t.Helper()
	ids, ok := s.bleuTokens(nil, str)
	if !ok {
		t.Fatalf("bleuTokens(%q) reported a key collision", str)
	}
	var got []string
	for _, id := range ids {
		sp := s.idToks[id]
		got = append(got, string(s.buf[sp.start:sp.end]))
	}
	if want := textnorm.Split(textnorm.Lower(str)); !slices.Equal(got, want) {
		t.Fatalf("bleuTokens(%q) = %q, want %q", str, got, want)
	}
}

func TestBleuTokensGolden(t *testing.T) {
	s := getScratch()
	defer putScratch(s)
	for _, p := range loadPairs(t) {
		s.buf = s.buf[:0]
		s.bleuInternStart(len(p.Prediction) + len(strings.Join(p.References, "")))
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
		s.bleuInternStart(b.Len())
		checkBleuTokens(t, s, b.String())
	}
}

func FuzzBleuTokens(f *testing.F) {
	for _, s := range []string{"The cat. the CAT", "ΟΔΟΣ ΑΣ", "日本\u3000東京", "x\u0085y\u00a0z", "\xff\xfe a", "a\u0001b c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, str string) {
		s := getScratch()
		defer putScratch(s)
		s.bleuInternStart(len(str))
		checkBleuTokens(t, s, str)
	})
}

// TestBleuKeyCollision plants a different token under the key of a long one: interning must
// report it, and BLEU must still be exact by interning bytes.
func TestBleuKeyCollision(t *testing.T) {
	s := getScratch()
	defer putScratch(s)
	s.buf = s.buf[:0]
	s.bleuInternStart(64)
	s.buf = append(s.buf, "encyclopaedic"...)
	key := tokenKey([]byte("encyclopaedia"))
	s.tokIDs.insert(key, 0)
	s.idToks = append(s.idToks, span{0, int32(len("encyclopaedic")), key})
	if _, ok := s.bleuTokens(nil, "Encyclopaedia"); ok {
		t.Errorf("bleuTokens(%q) with a planted colliding key reported no collision", "Encyclopaedia")
	}
}

// TestBleuReadPaths checks that interning by key and by bytes give the same counts.
func TestBleuReadPaths(t *testing.T) {
	s := getScratch()
	defer putScratch(s)
	for _, p := range loadPairs(t) {
		var got [2][8]int
		for k, byKey := range []bool{true, false} {
			s.buf, s.toks = s.buf[:0], s.toks[:0]
			s.table.reset()
			hyp, closest, ok := s.bleuRead(p.Prediction, p.References, byKey)
			if !ok {
				t.Fatalf("bleuRead(%q, byKey=%v) reported a key collision", p.ID, byKey)
			}
			got[k][0], got[k][1] = hyp, closest
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
		hyp := rng.IntN(maxRunHyp + 1)
		vocab := 1 + rng.IntN(5)
		bounds := randomBounds(rng, hyp, 20)
		total := bounds[len(bounds)-1]
		s.ids = s.ids[:0]
		for range total {
			s.ids = append(s.ids, int32(rng.IntN(vocab)))
		}
		num, den := s.clippedRuns(hyp, bounds)
		for n := 1; n <= 4; n++ {
			wantNum, wantDen := s.clippedMap(n, hyp, bounds)
			if num[n-1] != wantNum || den[n-1] != wantDen {
				t.Fatalf("clippedRuns on %v / %v order %d = %d/%d, want %d/%d", s.ids, bounds, n, num[n-1], den[n-1], wantNum, wantDen)
			}
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
