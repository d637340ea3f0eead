package metric

import (
	"math"
	"testing"
)

func TestCorpusBLEUGolden(t *testing.T) { checkCorpusBLEU(t, goldenCases(t, "corpus_bleu.jsonl")) }

// checkCorpusBLEU compares every figure within 1e-9. NLTK's and gen_eval's logarithms and
// exponentials are the C library's, which round correctly in all but rare cases, as roundedLog and
// roundedExp do in all: the committed cases agree to the last bit, but glibc's exp is off by one
// ulp where e^x lies within a hair of a halfway point (0.29551472092289662875…, gen_eval's BLEU of
// one case in 5,000 random ones, which glibc rounds down), so the last bit is not promised.
func checkCorpusBLEU(t *testing.T, cases []classCase) {
	checkCases(t, cases, func(t *testing.T, c classCase) map[string]any {
		var hyps [][]string
		var refs [][][]string
		var weights []float64
		decode(t, "input.hypotheses", c.Input["hypotheses"], &hyps)
		decode(t, "input.references", c.Input["references"], &refs)
		decode(t, "params.weights", c.Params["weights"], &weights)
		r, g, ok := CorpusBLEU(hyps, refs, weights)
		got := map[string]any{"bleu": r.BLEU, "precisions": r.Precisions,
			"precision_numerators": r.Numerators, "precision_denominators": r.Denominators,
			"bp": r.BP, "hyp_len": r.HypLen, "ref_len": r.RefLen, "ratio": nullable(r.Ratio), "gen_eval": nil}
		if ok {
			got["gen_eval"] = map[string]any{"bleu": g.BLEU, "precisions": g.Precisions, "bp": g.BP,
				"ratio": g.Ratio, "translation_length": g.TranslationLength,
				"reference_length": g.ReferenceLength, "matches": g.Matches, "possible_matches": g.PossibleMatches}
		}
		return got
	})
}

func TestCorpusBLEUHand(t *testing.T) {
	// One segment "a b c" against "a b d": p1 = 2/3, p2 = 1/2; BP = 1 (equal lengths).
	r, g, ok := CorpusBLEU([][]string{{"a", "b", "c"}}, [][][]string{{{"a", "b", "d"}}}, []float64{0.5, 0.5})
	want := math.Exp(0.5*math.Log(2.0/3) + 0.5*math.Log(0.5))
	if !(math.Abs(r.BLEU-want) <= 1e-15) || r.BP != 1 || r.Ratio != 1 {
		t.Errorf("CorpusBLEU = %v (bp %v, ratio %v), want %v (bp 1, ratio 1)", r.BLEU, r.BP, r.Ratio, want)
	}
	if !ok || g.BP != math.Exp(1-1/(1+1e-4)) || !(math.Abs(g.BLEU-want*g.BP) <= 1e-15) {
		t.Errorf("gen_eval = %+v, want bleu %v·1.0001", g, want)
	}
	// A sentence-level mean would give the same here, but two segments pool their counts.
	r2, _, _ := CorpusBLEU([][]string{{"a"}, {"x", "y"}}, [][][]string{{{"a"}}, {{"x", "z"}}}, []float64{1})
	if r2.Numerators[0] != 2 || r2.Denominators[0] != 3 || r2.BLEU != 2.0/3 {
		t.Errorf("pooled unigram = %d/%d, bleu %v; want 2/3", r2.Numerators[0], r2.Denominators[0], r2.BLEU)
	}
}

// TestCorpusBLEUZeroOrder checks NLTK's stand-in for an order with no match, sys.float_info.min:
// corpus_bleu is then tiny, not 0, and its exponent follows from that constant. The wants are
// NLTK 3.8's corpus_bleu of the same arguments.
func TestCorpusBLEUZeroOrder(t *testing.T) {
	for _, tc := range []struct {
		hyp, ref []string
		weights  []float64
		want     float64
	}{
		{[]string{"a", "b"}, []string{"a", "c"}, []float64{0.5, 0.5}, 1.0547686614863434e-154},
		{[]string{"the", "cat", "sat", "on", "the", "mat"}, []string{"the", "cat", "is", "on", "a", "mat"},
			[]float64{0.25, 0.25, 0.25, 0.25}, 9.013778876140909e-155},
	} {
		r, _, _ := CorpusBLEU([][]string{tc.hyp}, [][][]string{{tc.ref}}, tc.weights)
		if r.BLEU != tc.want {
			t.Errorf("CorpusBLEU(%q, %q, %v) = %v, want %v", tc.hyp, tc.ref, tc.weights, r.BLEU, tc.want)
		}
	}
}
