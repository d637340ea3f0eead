package metric

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// checkSquadText fails unless scratch.squad(str) has the tokens and keys that cutting
// textnorm.SquadNormalize(str) at spaces gives.
func checkSquadText(t *testing.T, s *scratch, str string) text {
	t.Helper()
	got := s.squad(str)
	start := len(s.buf)
	s.buf = append(s.buf, textnorm.SquadNormalize(str)...)
	want := s.cut(start)
	if string(s.buf[got.bstart:got.bend]) != string(s.buf[want.bstart:want.bend]) || got.hi-got.lo != want.hi-want.lo {
		t.Fatalf("squad(%q) = %q (%d tokens), want %q (%d tokens)", str, s.buf[got.bstart:got.bend], got.hi-got.lo,
			s.buf[want.bstart:want.bend], want.hi-want.lo)
	}
	for i := range got.hi - got.lo {
		g, w := s.toks[got.lo+i], s.toks[want.lo+i]
		if string(s.buf[g.start:g.end]) != string(s.buf[w.start:w.end]) || g.key != w.key {
			t.Fatalf("squad(%q) token %d = %q key %#x, want %q key %#x", str, i, s.buf[g.start:g.end], g.key, s.buf[w.start:w.end], w.key)
		}
	}
	return got
}

// checkOverlap fails unless overlap by keys agrees with overlap by interned bytes.
func checkOverlap(t *testing.T, s *scratch, pred, ref string) {
	t.Helper()
	p, r := checkSquadText(t, s, pred), checkSquadText(t, s, ref)
	want := s.overlapIDs(p, r)
	if got := s.overlap(p, r); got != want {
		t.Fatalf("overlap(%q, %q) = %d, want %d", pred, ref, got, want)
	}
	if got, ok := s.overlapKeys(p, r); !ok || got != want {
		t.Fatalf("overlapKeys(%q, %q) = %d, %v, want %d", pred, ref, got, ok, want)
	}
}

func TestSquadTokensGolden(t *testing.T) {
	for _, p := range loadPairs(t) {
		for _, r := range p.References {
			s := getScratch()
			checkOverlap(t, s, p.Prediction, r)
			putScratch(s)
		}
	}
}

func TestSquadTokensRandom(t *testing.T) {
	words := []string{"the", "a", "An", "Paris", "paris", "tower", "Eiffel-Tower", "towers.", "日本", "東京、",
		"\u2019s", "é", "x\u0301", "encyclopaedia", "Encyclopaedia!", "encyclopaedic", "1,000", "ΟΔΟΣ"}
	rng := rand.New(rand.NewPCG(3, 4))
	text := func() string {
		var b strings.Builder
		for range rng.IntN(90) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString([]string{" ", "  ", "\t", "", ", "}[rng.IntN(5)])
		}
		return b.String()
	}
	s := getScratch()
	defer putScratch(s)
	for range 3000 {
		s.buf, s.toks = s.buf[:0], s.toks[:0]
		s.table.reset()
		checkOverlap(t, s, text(), text())
	}
}

// TestOverlapKeyCollision forces two different long tokens to share a key: overlapKeys must
// notice, and overlap must still count exactly.
func TestOverlapKeyCollision(t *testing.T) {
	s := getScratch()
	defer putScratch(s)
	p, r := s.squad("encyclopaedia x"), s.squad("encyclopaedic x")
	s.toks[r.lo].key = s.toks[p.lo].key
	if _, ok := s.overlapKeys(p, r); ok {
		t.Errorf("overlapKeys with colliding keys reported ok")
	}
	if got := s.overlap(p, r); got != 1 {
		t.Errorf("overlap(%q, %q) with colliding keys = %d, want 1", "encyclopaedia x", "encyclopaedic x", got)
	}
}
