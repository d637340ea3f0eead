package metric

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// checkSquadText fails unless scratch.squad(str) has the tokens and keys that cutting
// textnorm.SquadNormalize(str) at spaces gives.
func checkSquadText(t *testing.T, s *scratch, str string) text {
	t.Helper()
	got := s.squad(str)
	s.keyText(got)
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
		"\u2019s", "é", "x\u0301", "encyclopaedia", "Encyclopaedia!", "encyclopaedic", "1,000", "ΟΔΟΣ",
		"(the)", "t.he", "a,n", "THE", "yes", "noanswer", "No-Answer", "x\u0001y", "\u00a0", "İ",
		strings.Repeat("Supercalifragilistic", 4), "-", "\"", "1998"}
	rng := rand.New(rand.NewPCG(3, 4))
	text := func() string {
		var b strings.Builder
		for range rng.IntN(90) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString([]string{" ", "  ", "\t", "", ", ", "\u001c", "\n"}[rng.IntN(7)])
		}
		return b.String()
	}
	s := getScratch()
	defer putScratch(s)
	for range 3000 {
		s.reset()
		checkOverlap(t, s, text(), text())
	}
}

// TestOverlapKeyCollision forces two different long tokens to share a key: overlapKeys must
// notice, and overlap must still count exactly.
func TestOverlapKeyCollision(t *testing.T) {
	s := getScratch()
	defer putScratch(s)
	p, r := s.squad("encyclopaedia x"), s.squad("encyclopaedic x")
	s.keyText(p)
	s.keyText(r)
	s.toks[r.lo].key = s.toks[p.lo].key
	if _, ok := s.overlapKeys(p, r); ok {
		t.Errorf("overlapKeys with colliding keys reported ok")
	}
	if got := s.overlap(p, r); got != 1 {
		t.Errorf("overlap(%q, %q) with colliding keys = %d, want 1", "encyclopaedia x", "encyclopaedic x", got)
	}
}

// checkScores fails unless the combined scorers agree with the separate ones on pred and refs.
func checkScores(t *testing.T, pred string, refs []string) {
	t.Helper()
	for _, c := range []struct {
		name     string
		combined func(string, []string) (float64, float64)
		em, f1   func(string, []string) float64
	}{
		{"SquadScores", SquadScores, SquadEM, SquadF1},
		{"Squad2Scores", Squad2Scores, Squad2EM, Squad2F1},
		{"HotpotScores", HotpotScores, HotpotEM, HotpotF1},
	} {
		em, f1 := c.combined(pred, refs)
		if wantEM, wantF1 := c.em(pred, refs), c.f1(pred, refs); em != wantEM || f1 != wantF1 {
			t.Fatalf("%s(%q, %q) = %v, %v, want %v, %v", c.name, pred, refs, em, f1, wantEM, wantF1)
		}
	}
	var want SquadSet
	want.EM, want.F1 = SquadScores(pred, refs)
	want.Squad2EM, want.Squad2F1 = Squad2Scores(pred, refs)
	want.HotpotEM, want.HotpotF1 = HotpotScores(pred, refs)
	if got := SquadAll(pred, refs); got != want {
		t.Fatalf("SquadAll(%q, %q) = %+v, want %+v", pred, refs, got, want)
	}
}

func TestScoresGolden(t *testing.T) {
	for _, p := range loadPairs(t) {
		checkScores(t, p.Prediction, p.References)
	}
}

// checkHotpotAnswer fails unless HotpotAnswer agrees with HotpotEM and HotpotF1PR.
func checkHotpotAnswer(t *testing.T, pred, gold string) {
	t.Helper()
	em, f1, p, r := HotpotAnswer(pred, gold)
	wantF1, wantP, wantR := HotpotF1PR(pred, gold)
	if wantEM := HotpotEM(pred, []string{gold}); em != wantEM || f1 != wantF1 || p != wantP || r != wantR {
		t.Fatalf("HotpotAnswer(%q, %q) = %v, %v, %v, %v, want %v, %v, %v, %v", pred, gold, em, f1, p, r, wantEM, wantF1, wantP, wantR)
	}
}

func TestHotpotAnswerGolden(t *testing.T) {
	for _, p := range loadPairs(t) {
		for _, r := range p.References {
			checkHotpotAnswer(t, p.Prediction, r)
		}
	}
}

func FuzzScores(f *testing.F) {
	for _, s := range [][3]string{
		{"Denver Broncos", "Denver Broncos.", "Broncos"}, {"the", "a", ""}, {"", "", "!!"}, {"yes", "Yes!", "no"},
		{"ΟΔΟΣ", "οδος", "x"}, {"no answer", "noanswer", "no"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	for _, p := range seedPairs(f, "testdata/pairs.jsonl", 200) {
		f.Add(p.Prediction, p.References[0], p.References[len(p.References)-1])
	}
	f.Fuzz(func(t *testing.T, pred, r1, r2 string) {
		checkScores(t, pred, []string{r1, r2})
		checkScores(t, pred, []string{r1})
		checkScores(t, pred, nil)
		checkHotpotAnswer(t, pred, r1)
	})
}

func BenchmarkSquadScores(b *testing.B) {
	benchPairs(b, func(p goldenPair) { SquadScores(p.Prediction, p.References) })
}

func BenchmarkSquadAll(b *testing.B) {
	benchPairs(b, func(p goldenPair) { SquadAll(p.Prediction, p.References) })
}

// BenchmarkSquadThree is the three calls SquadAll replaces.
func BenchmarkSquadThree(b *testing.B) {
	benchPairs(b, func(p goldenPair) {
		SquadScores(p.Prediction, p.References)
		Squad2Scores(p.Prediction, p.References)
		HotpotScores(p.Prediction, p.References)
	})
}

// BenchmarkSquadEMF1 is the two calls SquadScores replaces.
func BenchmarkSquadEMF1(b *testing.B) {
	benchPairs(b, func(p goldenPair) {
		SquadEM(p.Prediction, p.References)
		SquadF1(p.Prediction, p.References)
	})
}

// TestOverlapSixtyFourTokens: a reference of 63 to 66 tokens whose last token the prediction
// repeats shares that token once (evaluate-v1.1.py's Counter intersection), on either side of
// the 64 tokens a small overlap's marks hold: P = 1/3, R = 1/n, F1 = 2/(n+3).
func TestOverlapSixtyFourTokens(t *testing.T) {
	for n := 63; n <= 66; n++ {
		words := make([]string, n)
		for i := range n - 1 {
			words[i] = "w" + strconv.Itoa(i)
		}
		words[n-1] = "z"
		ref := strings.Join(words, " ")
		s := getScratch()
		p, r := s.squad("z z z"), s.squad(ref)
		if got := s.overlap(p, r); got != 1 {
			t.Errorf("overlap(z z z, %d tokens ending in z) = %d, want 1", n, got)
		}
		if got := s.overlap(r, p); got != 1 {
			t.Errorf("overlap(%d tokens ending in z, z z z) = %d, want 1", n, got)
		}
		putScratch(s)
		if got, want := SquadF1("z z z", []string{ref}), 2.0/float64(n+3); math.Abs(got-want) > 1e-15 {
			t.Errorf("SquadF1(z z z, %d tokens ending in z) = %v, want %v", n, got, want)
		}
		if got, want := SquadF1(ref, []string{"z z z"}), 2.0/float64(n+3); math.Abs(got-want) > 1e-15 {
			t.Errorf("SquadF1(%d tokens ending in z, z z z) = %v, want %v", n, got, want)
		}
	}
}
