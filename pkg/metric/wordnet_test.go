package metric

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestWordNetTable(t *testing.T) {
	wn := loadWordNet()
	if got := wn.numSynsets(); got != 117659 {
		t.Errorf("numSynsets() = %d, want 117659 (WordNet 3.0)", got)
	}
	if got := len(wn.lemmas); got != 147306 {
		t.Errorf("len(lemmas) = %d, want 147306 distinct index lemmas", got)
	}
	// adj.exc lists "offer" twice; NLTK's dict keeps the later line.
	if x := wn.exc["offer"]; x == nil || !slices.Equal(x.bases[posAdj], []string{"offer"}) {
		t.Errorf(`exc["offer"] = %v, want adj bases [offer]`, x)
	}
}

// morphyForms returns the lemmas NLTK's _morphy(word, pos) gives, as strings.
func morphyForms(wn *wordNet, word string, p int) []string {
	byEntry := make(map[uint32]string, len(wn.lemmas))
	for l, e := range wn.lemmas {
		byEntry[e] = l
	}
	var sc morphScratch
	wn.morphy(word, p, wn.exc[word], &sc)
	var out []string
	for _, e := range sc.entries {
		out = append(out, byEntry[e])
	}
	return out
}

func TestMorphy(t *testing.T) {
	wn := loadWordNet()
	tests := []struct {
		word string
		pos  int
		want []string
	}{
		// NLTK's morphy docstring.
		{"dogs", posNoun, []string{"dog"}},
		{"churches", posNoun, []string{"church"}},
		{"aardwolves", posNoun, []string{"aardwolf"}},
		{"abaci", posNoun, []string{"abacus"}},
		{"hardrock", posAdv, nil},
		{"book", posNoun, []string{"book"}},
		{"book", posAdj, nil},
		// Exception lists: the word itself first, then every base that is a lemma.
		{"axes", posNoun, []string{"ax", "axis"}},
		{"saw", posVerb, []string{"saw", "see"}},
		{"better", posAdj, []string{"better", "good", "well"}},
		{"best", posAdj, []string{"best", "good"}},
		// Rules: all first-round forms that are lemmas, in rule order.
		{"leaves", posNoun, []string{"leaf", "leave"}},
		{"leaves", posVerb, []string{"leave"}},
		{"fishes", posVerb, []string{"fish"}},
		{"running", posVerb, []string{"run"}},
		// No lemma after one round: keep stripping until one is found.
		{"sssss", posNoun, []string{"sss"}},
	}
	for _, tt := range tests {
		t.Run(tt.word+"."+posLetters[tt.pos], func(t *testing.T) {
			if got := morphyForms(wn, tt.word, tt.pos); !slices.Equal(got, tt.want) {
				t.Errorf("morphy(%q, %s) = %q, want %q", tt.word, posLetters[tt.pos], got, tt.want)
			}
		})
	}
}

func TestSynonyms(t *testing.T) {
	wn := loadWordNet()
	names := make([]string, len(wn.names))
	for n, id := range wn.names {
		names[id] = n
	}
	// Want values come from an independent port of NLTK's synsets over the raw dict files.
	tests := []struct{ word, want string }{
		{"car", "auto automobile car gondola machine motorcar railcar"},
		{"auto", "auto automobile car machine motorcar"},
		{"children", "baby child fry kid minor nestling nipper shaver tiddler tike tyke youngster"},
		{"us", "America U U.S. U.S.A. US USA u uracil uranium"},
		{"axes", "Axis ax axe axis bloc"},
		{"abaci", "abacus"},
		{"automobil", ""},
		{"hardrock", ""},
		{"", ""},
		{"Car", "auto automobile car gondola machine motorcar railcar"},
	}
	var sc morphScratch
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			var got []string
			for _, id := range wn.synonyms(nil, tt.word, &sc) {
				got = append(got, names[id])
			}
			slices.Sort(got)
			if g := strings.Join(slices.Compact(got), " "); g != tt.want {
				t.Errorf("synonyms(%q) = %q, want %q", tt.word, g, tt.want)
			}
		})
	}
}

// TestSynonymsNLTK checks synonyms against NLTK 3.8's wordnet.synsets for 5,000 words drawn from
// all of WordNet 3.0 and variants of them (testdata/wordnet_nltk38_gen.py, README there).
func TestSynonymsNLTK(t *testing.T) {
	data, err := os.ReadFile("testdata/wordnet_nltk38.tsv")
	if err != nil {
		t.Fatal(err)
	}
	wn := loadWordNet()
	names := make([]string, len(wn.names))
	for n, id := range wn.names {
		names[id] = n
	}
	var sc morphScratch
	var ids []uint32
	var got []string
	n, bad, some := 0, 0, 0
	for line := range strings.SplitSeq(strings.TrimSuffix(string(data), "\n"), "\n") {
		word, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		n++
		if want != "" {
			some++
		}
		ids, got = wn.synonyms(ids[:0], word, &sc), got[:0]
		for _, id := range ids {
			got = append(got, names[id])
		}
		slices.Sort(got)
		if g := strings.Join(slices.Compact(got), " "); g != want {
			if bad++; bad <= 10 {
				t.Errorf("synonyms(%q) = %q, want %q", word, g, want)
			}
		}
	}
	if n != 5000 || some < 2000 || bad > 0 {
		t.Errorf("%d of %d words (%d with synonyms) differ from NLTK", bad, n, some)
	}
}

// TestSynonymsHugeToken checks that morphy, which strips one suffix per round until a lemma
// appears, stays fast and right on a token far longer than any lemma.
func TestSynonymsHugeToken(t *testing.T) {
	wn := loadWordNet()
	var sc morphScratch
	want := len(wn.synonyms(nil, "sssss", &sc)) // morphy strips to the lemma "sss"
	if got := len(wn.synonyms(nil, strings.Repeat("s", 200000), &sc)); got != want || want == 0 {
		t.Errorf("synonyms(200000 s) = %d names, want %d, those of sssss", got, want)
	}
	if got := wn.synonyms(nil, strings.Repeat("es", 100000)+"ing", &sc); len(got) != 0 {
		t.Errorf("synonyms(eses…ing) = %d names, want none", len(got))
	}
}

func TestFormEqual(t *testing.T) {
	const w = "glasses"
	tests := []struct {
		f, g form
		want bool
	}{
		{form{w[:5], ""}, form{w[:4], "s"}, true},
		{form{w[:6], "x"}, form{w[:5], "ex"}, true},
		{form{w[:6], "x"}, form{w[:5], "sx"}, false},
		{form{"axes", ""}, form{"axis", ""}, false},
		{form{"ax", "es"}, form{"axes", ""}, true},
		{form{w, ""}, form{w[:6], ""}, false},
	}
	for _, tt := range tests {
		if got := tt.f.equal(tt.g); got != tt.want {
			t.Errorf("%q.equal(%q) = %v, want %v", tt.f, tt.g, got, tt.want)
		}
		if got := tt.g.equal(tt.f); got != tt.want {
			t.Errorf("%q.equal(%q) = %v, want %v", tt.g, tt.f, got, tt.want)
		}
	}
}
