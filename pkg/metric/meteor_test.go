package metric

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

func TestMETEORGolden(t *testing.T) {
	pairs := loadPairs(t)
	n := checkGolden(t, pairs, "meteor", func(p goldenPair) float64 { return METEOR(p.Prediction, p.References, true) })
	n2 := checkGolden(t, pairs, "meteor_nosyn", func(p goldenPair) float64 { return METEOR(p.Prediction, p.References, false) })
	exact := 0
	for _, p := range pairs {
		if METEOR(p.Prediction, p.References, true) == p.Expected["meteor"] {
			exact++
		}
		if METEOR(p.Prediction, p.References, false) == p.Expected["meteor_nosyn"] {
			exact++
		}
	}
	if n != len(pairs) || n2 != len(pairs) {
		t.Errorf("compared %d meteor and %d meteor_nosyn golden pairs, want %d each", n, n2, len(pairs))
	}
	t.Logf("compared %d meteor and %d meteor_nosyn values, %d bit-identical", n, n2, exact)
}

// TestMETEORBothGolden holds METEORBoth to the golden pairs' meteor and meteor_nosyn, and to
// METEOR on every pair.
func TestMETEORBothGolden(t *testing.T) {
	pairs := loadPairs(t)
	checkFields(t, pairs, []lexicalField{
		{"meteor", func(p goldenPair) float64 { s, _ := METEORBoth(p.Prediction, p.References); return s }},
		{"meteor_nosyn", func(p goldenPair) float64 { _, s := METEORBoth(p.Prediction, p.References); return s }},
	})
	for _, p := range pairs {
		checkMETEORBoth(t, p.Prediction, p.References)
	}
}

// checkMETEORBoth holds METEORBoth to the two calls of METEOR it stands for, and does the same
// with NLTK's nested loops in every stage (no grouping) and with an empty vocabulary.
func checkMETEORBoth(t *testing.T, pred string, refs []string) {
	t.Helper()
	checkBoth(t, "METEOR", pred, refs, METEORBoth, METEOR)
	syn, plain := METEORBoth(pred, refs)
	for _, cfg := range []meteorConfig{{groupAbove: math.MaxInt, maxWords: defaultMeteor.maxWords}, {groupAbove: defaultMeteor.groupAbove}} {
		var sc meteorScratch
		s, p := sc.scores(pred, refs, true, true, cfg)
		if s != syn || p != plain {
			t.Errorf("METEORBoth(%q, %q) tuned %+v = %v, %v, want %v, %v", pred, refs, cfg, s, p, syn, plain)
		}
	}
}

// TestMETEOR holds the worked examples of the golden README (section "meteor, meteor_nosyn").
func TestMETEOR(t *testing.T) {
	tests := []struct {
		name     string
		pred     string
		refs     []string
		synonyms bool
		want     float64
	}{
		{"one word exact scores 0.5", "Paris", []string{"paris"}, true, 0.5},
		{"perfect four words m03024", "a b c d", []string{"a b c d"}, true, 0.9921875},
		{"reversed has three chunks m03046", "c b a", []string{"a b c"}, true, (1 - 0.5*1.0) * 1.0},
		{"car vs automobile stem automobil m03053", "car", []string{"automobile"}, true, 0},
		{"auto synonym of car m03055", "auto", []string{"car"}, true, 0.5},
		{"auto without synonyms", "auto", []string{"car"}, false, 0},
		{"children via noun.exc m03064", "children", []string{"child"}, true, 0.5},
		{"dogs stem dog is a lemma of cad.n.01 m03056", "dogs", []string{"cad"}, true, 0.5},
		{"stem match", "running", []string{"runs"}, false, 0.5},
		{"no refs", "x", nil, true, 0},
		{"empty prediction", "", []string{"x"}, true, 0},
		{"empty reference", "x", []string{""}, true, 0},
		{"max over refs", "a b", []string{"z", "a b"}, false, (1 - 0.5/8) * 1.0},
		// The synonym stage walks both sides from the last item, as the exact stage does. auto's
		// synonyms hold car and motorcar: the last one, motorcar, is taken, two chunks (forwards,
		// car would make one chunk and 0.4934…). P = 1, R = 0.5, fmean = 0.5/0.95.
		{"synonym stage takes the last reference item", "the auto", []string{"the car x motorcar"}, true, (1 - 0.5) * (0.5 / 0.95)},
		// auto and car both have motorcar as synonym: car, the later hypothesis item, takes it,
		// two chunks (auto would make one chunk and 0.8928…). P = 2/3, R = 1, fmean = 2/2.1.
		{"synonym stage serves the last hypothesis item first", "x auto car", []string{"x motorcar"}, true, 0.4761904761904762},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := METEOR(tt.pred, tt.refs, tt.synonyms); !(math.Abs(got-tt.want) <= 1e-12) {
				t.Errorf("METEOR(%q, %q, %v) = %v, want %v", tt.pred, tt.refs, tt.synonyms, got, tt.want)
			}
		})
	}
}

// TestMETEORExact checks a score to the last bit where the penalty's (chunks/m)**3.0 rounded
// twice, as x*x*x is, would differ: 9 matches in 8 chunks give 0.6488340192043895 so. The want
// is NLTK 3.8's meteor_score (with a wordnet without synsets: no synonym can match).
func TestMETEORExact(t *testing.T) {
	pred, ref := "a b d c f e h g i", "a b c d e f g h i"
	if got, want := METEOR(pred, []string{ref}, false), 0.6488340192043897; got != want {
		t.Errorf("METEOR(%q, %q, false) = %v, want %v", pred, ref, got, want)
	}
}

// TestMETEORNLTKDocstring is the example of NLTK's single_meteor_score docstring (0.6944 after
// round(·, 4)).
func TestMETEORNLTKDocstring(t *testing.T) {
	hyp := "It is a guide to action which ensures that the military always obeys the commands of the party"
	ref := "It is a guide to action that ensures that the military will forever heed Party commands"
	if got := METEOR(hyp, []string{ref}, true); math.Round(got*1e4) != 6944 {
		t.Errorf("METEOR(%q, %q) = %v, want 0.6944 after rounding", hyp, ref, got)
	}
	if got := METEOR("non matching hypothesis", []string{"this is a cat"}, true); got != 0 {
		t.Errorf("METEOR(non matching) = %v, want 0", got)
	}
}

func TestMETEORTokens(t *testing.T) {
	tests := []struct {
		name, pred, ref string
		want            float64
	}{
		{"U+001C splits", "x\u001cy", "x y", 1 - 0.5/8},
		{"NBSP splits", "x\u00a0y", "x y", 1 - 0.5/8},
		{"ZWSP does not split", "x\u200by", "x y", 0},
		{"dotted capital I lowers to i+U+0307", "İstanbul", "i̇stanbul", 0.5},
		{"final sigma", "ΟΔΟΣ", "οδος", 0.5},
		{"non-final sigma", "ΑΣΑ", "ασα", 0.5},
		{"case folds", "PARIS France", "paris france", 1 - 0.5/8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := METEOR(tt.pred, []string{tt.ref}, false); !(math.Abs(got-tt.want) <= 1e-12) {
				t.Errorf("METEOR(%q, %q) = %v, want %v", tt.pred, tt.ref, got, tt.want)
			}
		})
	}
}

// TestMETEORGroupedMatchesNested checks that the keyed stacks used for long inputs align
// exactly as NLTK's nested loops, on every golden pair and on shuffled long inputs.
func TestMETEORGroupedMatchesNested(t *testing.T) {
	pairs := loadPairs(t)
	for _, p := range pairs {
		for _, syn := range []bool{true, false} {
			nested := meteor(p.Prediction, p.References, syn, meteorConfig{groupAbove: math.MaxInt, maxWords: defaultMeteor.maxWords})
			grouped := meteor(p.Prediction, p.References, syn, meteorConfig{maxWords: defaultMeteor.maxWords})
			if nested != grouped {
				t.Errorf("%s synonyms=%v: grouped %v, nested %v", p.ID, syn, grouped, nested)
			}
		}
	}
}

// TestMETEORConcurrent scores the golden pairs from several goroutines at once: the WordNet
// table and the scratch pool are shared.
func TestMETEORConcurrent(t *testing.T) {
	pairs := loadPairs(t)
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < len(pairs); i += 4 {
				p := pairs[i]
				if got := METEOR(p.Prediction, p.References, true); got != p.Expected["meteor"] {
					errs <- fmt.Sprintf("%s: METEOR = %v, want %v", p.ID, got, p.Expected["meteor"])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestMETEORHugeToken checks that a token far longer than any word neither hangs nor matches.
// The run of y's was the stemmer's worst case: a y's class depends on every y before it.
func TestMETEORHugeToken(t *testing.T) {
	pred := strings.Repeat("s", 200000) + " cat " + strings.Repeat("es", 50000) + "ing " +
		strings.Repeat("y", 200000) + "ing"
	if got := METEOR(pred, []string{"cat ss"}, true); math.Abs(got-(1-0.5)*(1.0/4*0.5)/(0.9/4+0.1*0.5)) > 1e-12 {
		t.Errorf("METEOR(huge, %q) = %v, want one match", "cat ss", got)
	}
}

// TestStemShortcut checks the vocabulary's stems, with their shortcuts, against textnorm.Stem
// on every golden token.
func TestStemShortcut(t *testing.T) {
	var sc meteorScratch
	for _, p := range loadPairs(t) {
		for _, s := range append([]string{p.Prediction}, p.References...) {
			sc.ids = sc.ids[:0]
			sc.tokens(s)
			for _, id := range sc.ids {
				tok := sc.words[id].text
				if got, want := sc.words[sc.stem(id)].text, textnorm.Stem(tok); got != want {
					t.Errorf("stem(%q) = %q, want textnorm.Stem's %q", tok, got, want)
				}
			}
		}
	}
}

// TestMETEORCacheMatchesFresh checks that the vocabulary kept across calls never changes a
// score: every golden pair, forwards and backwards, and random inputs over a small mixed-case
// vocabulary are scored with the cache emptied before every call, with a tiny bound that empties
// it often (and mid-stream), and with the default bound.
func TestMETEORCacheMatchesFresh(t *testing.T) {
	type input struct {
		pred string
		refs []string
	}
	var inputs []input
	pairs := loadPairs(t)
	for _, p := range pairs {
		inputs = append(inputs, input{p.Prediction, p.References})
	}
	for i := len(pairs) - 1; i >= 0; i-- {
		inputs = append(inputs, input{pairs[i].Prediction, pairs[i].References})
	}
	words := []string{"cat", "Cats", "CAT", "running", "runs", "Ran", "car", "auto", "AUTOMOBILE",
		"children", "child", "ΟΔΟΣ", "οδος", "İstanbul", "dogs", "cad", "the", "a", "\xff", "leaves"}
	rng := rand.New(rand.NewPCG(1, 2))
	sentence := func() string {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString([]string{" ", "  ", "\t", "\u00a0"}[rng.IntN(4)])
		}
		return b.String()
	}
	for range 2000 {
		refs := make([]string, 1+rng.IntN(3))
		for i := range refs {
			refs[i] = sentence()
		}
		inputs = append(inputs, input{sentence(), refs})
	}
	configs := []meteorConfig{
		{groupAbove: 32, maxWords: 0},
		{groupAbove: 32, maxWords: 8},
		defaultMeteor,
	}
	for i, in := range inputs {
		if i%4 == 0 {
			checkMETEORBoth(t, in.pred, in.refs)
		}
	}
	for _, syn := range []bool{true, false} {
		for _, in := range inputs {
			want := meteor(in.pred, in.refs, syn, configs[0])
			for _, cfg := range configs[1:] {
				if got := meteor(in.pred, in.refs, syn, cfg); got != want {
					t.Fatalf("meteor(%q, %q, %v, maxWords %d) = %v, want %v (fresh vocabulary)",
						in.pred, in.refs, syn, cfg.maxWords, got, want)
				}
			}
		}
	}
}

// TestVocabBound checks that the cache is emptied once it exceeds its bound, not before.
func TestVocabBound(t *testing.T) {
	var v vocab
	for i := range 100 {
		v.intern(fmt.Sprint("w", i))
	}
	if v.full(100) || !v.full(99) {
		t.Errorf("full(100), full(99) with 100 words = %v, %v, want false, true", v.full(100), v.full(99))
	}
	id := v.intern("w42")
	if got := v.words[id].text; got != "w42" {
		t.Errorf("words[intern(%q)] = %q, want %q", "w42", got, "w42")
	}
	v.reset(100)
	if len(v.words) != 0 || v.bytes != 0 || len(v.slots) != vocabMinSlots {
		t.Errorf("after reset: %d words, %d bytes, %d slots, want 0, 0, %d", len(v.words), v.bytes, len(v.slots), vocabMinSlots)
	}
	if id := v.intern("x"); id != 0 {
		t.Errorf("intern(%q) after reset = %d, want 0", "x", id)
	}
	for i := range 5000 {
		v.intern(fmt.Sprint("w", i))
	}
	v.reset(100) // a table grown far past the bound is dropped
	if len(v.slots) != 0 || cap(v.words) != 0 {
		t.Errorf("after reset of a huge table: %d slots, cap(words) %d, want 0, 0", len(v.slots), cap(v.words))
	}
	if id := v.intern("x"); id != 0 || v.words[0].text != "x" {
		t.Errorf("intern(%q) after dropping the table = %d (%q), want 0", "x", id, v.words[id].text)
	}
}

// TestAlignEqualShortcut checks align's shortcut for equal token lists against the stages it
// skips: random lists over a few words (so that words repeat), short and long enough for the
// grouped stage.
func TestAlignEqualShortcut(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		ids := make([]int32, 1+rng.IntN(40))
		for i := range ids {
			ids[i] = int32(rng.IntN(4))
		}
		for _, group := range []int{0, math.MaxInt} {
			sc := &meteorScratch{groupAbove: group}
			sc.words = make([]vword, 4)
			sc.hyp, sc.ref = ids, ids
			sc.match = make([]int32, len(ids))
			if got := sc.alignStages(true); got != len(ids) {
				t.Fatalf("alignStages(%v) = %d matches, want %d", ids, got, len(ids))
			}
			stages := slices.Clone(sc.match)
			if got := sc.align(); got != len(ids) || !slices.Equal(sc.match, stages) {
				t.Fatalf("align(%v) = %d, %v, want %d, %v", ids, got, sc.match, len(ids), stages)
			}
		}
	}
}

// TestIsCJK checks tokens' shortcut: every rune isCJK accepts is what utf8 decodes from the
// same three bytes, neither whitespace nor changed by lowering, and it accepts all of
// U+4000–U+9FFF.
func TestIsCJK(t *testing.T) {
	classes := runeClasses()
	var b [3]byte
	for c0 := 0x80; c0 < 0x100; c0++ {
		for c1 := range 0x100 {
			for c2 := range 0x100 {
				b = [3]byte{byte(c0), byte(c1), byte(c2)}
				s := string(b[:])
				if !isCJK(s) {
					continue
				}
				r, n := utf8.DecodeRuneInString(s)
				if r < 0x4000 || r > 0x9fff || n != 3 {
					t.Fatalf("isCJK(%q) = true for %U, size %d", s, r, n)
				}
				if space, lower := classes.classify(r); space || lower || textnorm.Lower(s) != s {
					t.Fatalf("isCJK(%q) = true for %U, whitespace %v, lowered %v", s, r, space, lower)
				}
			}
		}
	}
	for r := rune(0x4000); r <= 0x9fff; r++ {
		if !isCJK(string(r)) {
			t.Fatalf("isCJK(%q) = false for %U", string(r), r)
		}
	}
}
