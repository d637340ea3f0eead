package metric

import (
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// nltkMorphy is NLTK's WordNetCorpusReader._morphy(form, pos) over strings, as written there:
// the exception list if form is in it, else the rules applied once (the form itself kept too),
// then again and again while no form is a lemma of pos. It gives up (ok false) when the forms,
// which NLTK does not deduplicate, grow past limit.
func nltkMorphy(wn *wordNet, lemmaText []string, lemmas map[string]uint32, form string, p, limit int) (out []string, ok bool) {
	filter := func(forms []string) []string {
		var result []string
		for _, f := range forms {
			if e, ok := lemmas[f]; ok && wn.hasPOS(e, p) && !slices.Contains(result, f) {
				result = append(result, f)
			}
		}
		return result
	}
	applyRules := func(forms []string) []string {
		var next []string
		for _, f := range forms {
			for _, r := range substitutions[p] {
				if strings.HasSuffix(f, r.old) {
					next = append(next, f[:len(f)-len(r.old)]+r.new)
				}
			}
		}
		return next
	}
	if x := exception(wn, form); x != nil && x.has&(1<<p) != 0 {
		forms := []string{form}
		for _, e := range wn.excBasesOf(x, p) {
			forms = append(forms, lemmaText[e])
		}
		return filter(forms), true
	}
	forms := applyRules([]string{form})
	if r := filter(append([]string{form}, forms...)); r != nil {
		return r, true
	}
	for len(forms) > 0 {
		if len(forms) > limit {
			return nil, false
		}
		forms = applyRules(forms)
		if r := filter(forms); r != nil {
			return r, true
		}
	}
	return nil, true
}

// FuzzMorphy checks morphy, and the synonyms it leads to, against NLTK's _morphy written over
// strings: the same lemmas in the same order for every part of speech, for a word lowercased
// as synsets lowercases it. The word is an index lemma (picked by number) followed by any text,
// so that inflected forms of real lemmas come up.
func FuzzMorphy(f *testing.F) {
	wn := loadWordNet()
	lemmaText := lemmaTexts(wn)
	lemmas := make(map[string]uint32, len(lemmaText))
	for e, l := range lemmaText {
		lemmas[l] = uint32(e)
	}
	for _, s := range []string{"dogs", "churches", "aardwolves", "abaci", "axes", "saw", "better", "leaves",
		"fishes", "running", "sssss", "Men", "children", "ΟΔΟΣ", "İs", "boxesses", "flies", "happiest"} {
		f.Add(uint32(0), s, false)
	}
	f.Add(uint32(12345), "es", true)
	f.Add(uint32(777), "ing", true)
	f.Fuzz(func(t *testing.T, n uint32, suffix string, fromLemma bool) {
		word := suffix
		if fromLemma {
			word = lemmaText[int(n%uint32(len(lemmaText)))] + suffix
		}
		if len(word) > 40 {
			return
		}
		low := textnorm.Lower(word)
		var want []uint32
		for p := range numPOS {
			forms, ok := nltkMorphy(wn, lemmaText, lemmas, low, p, 1<<14)
			if !ok {
				return
			}
			var sc morphScratch
			wn.morphy(low, p, exception(wn, low), &sc)
			var got []string
			for _, e := range sc.entries {
				got = append(got, lemmaText[e])
			}
			if !slices.Equal(got, forms) {
				t.Fatalf("morphy(%q, %s) = %q, want NLTK's %q", low, posLetters[p], got, forms)
			}
			for _, l := range forms {
				want = append(want, wn.entryNamesOf(lemmas[l], p)...)
			}
		}
		var sc morphScratch
		if got := wn.synonyms(nil, word, &sc); !slices.Equal(got, want) {
			t.Fatalf("synonyms(%q) = %v, want %v", word, got, want)
		}
	})
}
