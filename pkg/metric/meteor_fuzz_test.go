package metric

import (
	"math"
	"slices"
	"testing"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// fuzzMETEORMax bounds the bytes of each string FuzzMETEOR scores; longer inputs are cut.
// Go's minimizer tries about n*n/2 shorter candidates of every new n-byte input, one run each,
// and reports no execs until it is done: at n = 350, 61,000 runs of about 0.3 ms under
// coverage held the fuzzer still for 20 s at a time. 128 bytes still hold a token longer than
// any WordNet lemma (71 bytes) and the stemmer's stack buffer (48), and enough words for the
// grouped stages (over 32 pairs); huge inputs have their own tests (TestMETEORHugeToken,
// TestSynonymsHugeToken, textnorm's TestStemLongYRun).
const fuzzMETEORMax = 128

func FuzzMETEOR(f *testing.F) {
	f.Add("the cat sat on the mat", "a cat sat on a mat", true)
	f.Add("auto", "car", true)
	f.Add("dogs children", "child cad", true)
	f.Add("ΟΔΟΣ İ x\u001cy", "οδος i̇ x y", false)
	f.Add("", "", true)
	f.Add("sssssssssssssssssssssss esesesesesesesesesesing", "ss", true)
	f.Add("\xff\xfe a", "a \xff", true)
	for i, p := range loadPairs(f) {
		f.Add(p.Prediction, p.References[0], i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, pred, ref string, synonyms bool) {
		pred, ref = pred[:min(len(pred), fuzzMETEORMax)], ref[:min(len(ref), fuzzMETEORMax)]
		got := METEOR(pred, []string{ref}, synonyms)
		if math.IsNaN(got) || got < 0 || got > 1 {
			t.Fatalf("METEOR(%q, %q, %v) = %v, want a value in [0, 1]", pred, ref, synonyms, got)
		}
		if grouped := meteor(pred, []string{ref}, synonyms, meteorConfig{maxWords: defaultMeteor.maxWords}); grouped != got {
			t.Fatalf("grouped METEOR(%q, %q, %v) = %v, want %v", pred, ref, synonyms, grouped, got)
		}
		if fresh := meteor(pred, []string{ref}, synonyms, meteorConfig{groupAbove: defaultMeteor.groupAbove}); fresh != got {
			t.Fatalf("METEOR(%q, %q, %v) with an empty vocabulary = %v, want %v", pred, ref, synonyms, fresh, got)
		}
		checkMETEORBoth(t, pred, []string{ref, pred})
		var sc meteorScratch
		if toks, want := sc.lowerFields(pred), textnorm.Split(textnorm.Lower(pred)); !slices.Equal(toks, want) {
			t.Fatalf("tokens(%q) = %q, want split(lower) %q", pred, toks, want)
		}
		sc.ids = sc.ids[:0]
		sc.tokens(ref)
		for _, id := range sc.ids {
			tok := sc.words[id].text
			if got, want := sc.words[sc.stem(id)].text, textnorm.Stem(tok); got != want {
				t.Fatalf("stem(%q) = %q, want textnorm.Stem's %q", tok, got, want)
			}
		}
	})
}
