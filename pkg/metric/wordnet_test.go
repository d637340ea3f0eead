package metric

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestDecodeWordNetErrors: a damaged table is refused at the line at fault, in every section
// (synsets, index, exceptions), and the smallest whole table, every section empty, decodes.
func TestDecodeWordNetErrors(t *testing.T) {
	const syn = "syn n 0\nsyn v 0\nsyn a 0\nsyn r 0\n"
	const idx = "idx n 0\nidx v 0\nidx a 0\nidx r 0\n"
	for _, tc := range []struct{ name, text, want string }{
		{"empty", syn + idx + "exc n 0\nexc v 0\nexc a 0\nexc r 0\n", ""},
		{"bad first line", "wordnet-table 2\n", `bad header "wordnet-table 2" (<nil>)`},
		{"wrong section", "idx n 0\n", `line 2: got "idx n 0", want syn n header`},
		{"bad count", "syn n x\n", `line 2: strconv.Atoi: parsing "x": invalid syntax`},
		{"short synsets", "syn n 2\na b\n", "line 4: unexpected end"},
		{"no synsets", syn + "idx n 1\nfoo\n", "line 7: index entry without synsets"},
		{"bad synset", syn + "idx n 1\nfoo 0\n", `line 7: bad synset number "0"`},
		{"short index", syn + "idx n 0\nidx v 1\n", "line 8: unexpected end"},
		{"empty exception", syn + idx + "exc n 1\n\n", "line 11: empty exception"},
		{"short exceptions", syn + idx + "exc n 0\nexc v 0\nexc a 0\nexc r 1\n", "line 14: unexpected end"},
		{"count past the end", syn + idx + "exc n 2000000000\nx y\n", "line 12: unexpected end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.text
			if !strings.HasPrefix(text, "wordnet-table") {
				text = "wordnet-table 1\n" + text
			}
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write([]byte(text))
			zw.Close()
			_, err := decodeWordNet(gz.Bytes())
			if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
				t.Errorf("decodeWordNet(%q) = %v, want %q", text, err, tc.want)
			}
		})
	}
}

// TestDecodeWordNetStream: the table is read as it is decompressed, so a damaged gzip stream is
// found at its end (its checksum, or a trailer cut short), after the lines; a line longer than
// the read buffer is refused.
func TestDecodeWordNetStream(t *testing.T) {
	table := func(text string) []byte {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(text))
		zw.Close()
		return gz.Bytes()
	}
	const empty = "wordnet-table 1\nsyn n 0\nsyn v 0\nsyn a 0\nsyn r 0\nidx n 0\nidx v 0\nidx a 0\nidx r 0\n" +
		"exc n 0\nexc v 0\nexc a 0\nexc r 0\n"
	gz := table(empty)
	if _, err := decodeWordNet(gz); err != nil {
		t.Fatalf("decodeWordNet(empty table) = %v", err)
	}
	if _, err := decodeWordNet(gz[:len(gz)-4]); fmt.Sprint(err) != "after line 13: unexpected EOF" {
		t.Errorf("decodeWordNet(no length in the trailer) = %v, want the cut refused after line 13", err)
	}
	gz[len(gz)-8] ^= 1 // the CRC-32 of the text
	if _, err := decodeWordNet(gz); fmt.Sprint(err) != "after line 13: gzip: invalid checksum" {
		t.Errorf("decodeWordNet(bad checksum) = %v, want the checksum refused after line 13", err)
	}
	long := "wordnet-table 1\nsyn n 1\n" + strings.Repeat("x", 1<<16) + "\n"
	if _, err := decodeWordNet(table(long)); fmt.Sprint(err) != "line 3: longer than 65536 bytes" {
		t.Errorf("decodeWordNet(a line of 64 KiB) = %v, want line 3 refused", err)
	}
}

// FuzzDecodeWordNet: any table text decodes to a table or to an error, never a panic, and a
// table it accepts holds together: its name lists name known names, its exceptions' bases are
// index entries, every key's numbers are in range, and looking up any key's synonyms works.
func FuzzDecodeWordNet(f *testing.F) {
	const syn = "syn n 2\ndog Canis_familiaris\ncad\nsyn v 0\nsyn a 1\nlong Long\nsyn r 0\n"
	const idx = "idx n 2\ncad 1\ndog 1 0\nidx v 0\nidx a 1\nlong 0\nidx r 0\n"
	const exc = "exc n 1\ndogs dog\nexc v 0\nexc a 2\nlonger long\noffer offer\nexc r 0\n"
	for _, text := range []string{
		syn + idx + exc,
		syn + idx,
		syn + "idx n 1\nfoo 9\n",
		"syn n 3\na b\n",
		syn + "idx n 2\ncad 1\ncad 0\nidx v 1\ncad 0\nidx a 0\nidx r 0\n" + exc,    // a lemma twice
		syn + "idx n 2\ncad 1\ndog 1 2\nidx v 0\nidx a 1\nlong 0\nidx r 0\n" + exc, // synset 2 of 2
		syn + "idx n 1\ncad 1\nidx v 0\nidx a 0\nidx r 1\nsoon 0\n" + exc,          // synset 0 of none
	} {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte("wordnet-table 1\n" + text))
		zw.Close()
		wn, err := decodeWordNet(gz.Bytes())
		if err != nil {
			return
		}
		if len(wn.nameOff) != numPOS*wn.nLemmas+1 || wn.nameOff[len(wn.nameOff)-1] != uint32(len(wn.entryNames)) {
			t.Fatalf("%d name list offsets ending at %d for %d entries and %d names", len(wn.nameOff), wn.nameOff[len(wn.nameOff)-1], wn.nLemmas, len(wn.entryNames))
		}
		for i := 1; i < len(wn.nameOff); i++ {
			if wn.nameOff[i] < wn.nameOff[i-1] {
				t.Fatalf("name list offsets fall at %d: %v", i, wn.nameOff)
			}
		}
		for _, id := range wn.entryNames {
			if int(id) >= wn.nNames {
				t.Fatalf("name id %d of %d", id, wn.nNames)
			}
		}
		for _, e := range wn.excBases {
			if int(e) >= wn.nLemmas {
				t.Fatalf("exception base %d of %d entries", e, wn.nLemmas)
			}
		}
		var sc morphScratch
		for k := range wn.dict.all {
			if int(k.entry) >= wn.nLemmas || int(k.name) >= wn.nNames || int(k.exc) >= len(wn.exc) {
				t.Fatalf("key %q = %+v, with %d entries, %d names, %d exceptions", wn.dict.key(k), *k, wn.nLemmas, wn.nNames, len(wn.exc))
			}
			wn.synonyms(nil, wn.dict.key(k), &sc)
		}
	})
}

// TestDecodeWordNetCountPastEnd: the decoder makes room for no more than maxSized lines a
// section, whatever count its header claims, so a damaged count cannot make it allocate hundreds
// of megabytes before it finds the text too short.
func TestDecodeWordNetCountPastEnd(t *testing.T) {
	text := "wordnet-table 1\nsyn n 100000000\na b\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := decodeWordNet(gz.Bytes())
	runtime.ReadMemStats(&after)
	if want := "line 4: unexpected end"; fmt.Sprint(err) != want {
		t.Errorf("decodeWordNet(%q) = %v, want %q", text, err, want)
	}
	// The empty table itself (its key slots and their bytes) takes some 8 MB.
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("decodeWordNet(%q) allocated %d bytes, want under 64 MB", text, got)
	}
}

func TestWordNetTable(t *testing.T) {
	wn := loadWordNet()
	if got := wn.numSynsets(); got != 117659 {
		t.Errorf("numSynsets() = %d, want 117659 (WordNet 3.0)", got)
	}
	lemmas, names := 0, 0
	for k := range wn.dict.all {
		if k.entry >= 0 {
			lemmas++
		}
		if k.name >= 0 {
			names++
		}
	}
	if lemmas != 147306 || wn.nLemmas != lemmas {
		t.Errorf("%d keys are index lemmas, nLemmas = %d, want 147306 distinct index lemmas", lemmas, wn.nLemmas)
	}
	if names != wn.nNames {
		t.Errorf("%d keys are names, want nNames = %d", names, wn.nNames)
	}
	// adj.exc lists "offer" twice; NLTK's dict keeps the later line.
	lemmaText := lemmaTexts(wn)
	if x := exception(wn, "offer"); x == nil || x.has != 1<<posAdj || len(wn.excBasesOf(x, posAdj)) != 1 ||
		lemmaText[wn.excBasesOf(x, posAdj)[0]] != "offer" {
		t.Errorf(`exception("offer") = %v, want adj bases [offer]`, x)
	}
	// A base form that is no index lemma is dropped: noun.exc maps "adyta" to "adytum", no
	// lemma, so the form is in the noun list with no bases.
	if x := exception(wn, "adyta"); x == nil || x.has != 1<<posNoun || len(wn.excBasesOf(x, posNoun)) != 0 {
		t.Errorf(`exception("adyta") = %v, want in the noun list with no bases`, x)
	}
	for _, word := range []string{"car", "America", "dog", "run_up", "runup"} {
		k := find(&wn.dict, word, strHash(word))
		if k == nil || wn.dict.key(k) != word {
			t.Errorf("find(%q) = %v, want its key", word, k)
		}
		if k := find(&wn.dict, []byte(word), strHash(word)); k == nil || wn.dict.key(k) != word {
			t.Errorf("find([]byte(%q)) = %v, want its key", word, k)
		}
	}
	for _, word := range []string{"", "automobil", "car ", "run up"} {
		if k := find(&wn.dict, word, strHash(word)); k != nil {
			t.Errorf("find(%q) = %q, want nil", word, wn.dict.key(k))
		}
	}
}

// lemmaTexts returns the index lemmas by entry number.
func lemmaTexts(wn *wordNet) []string {
	return keysBy(wn, wn.nLemmas, func(k *wnKey) int32 { return k.entry })
}

// nameTexts returns the lemma names by name id.
func nameTexts(wn *wordNet) []string {
	return keysBy(wn, wn.nNames, func(k *wnKey) int32 { return k.name })
}

// keysBy returns the n keys of wn's table that have a number at index, by that number.
func keysBy(wn *wordNet, n int, index func(*wnKey) int32) []string {
	out := make([]string, n)
	for k := range wn.dict.all {
		if i := index(k); i >= 0 {
			out[i] = wn.dict.key(k)
		}
	}
	return out
}

// exception returns the exception lists of form, nil if none holds it.
func exception(wn *wordNet, form string) *wnException {
	if k := find(&wn.dict, form, strHash(form)); k != nil && k.exc >= 0 {
		return &wn.exc[k.exc]
	}
	return nil
}

// morphyForms returns the lemmas NLTK's _morphy(word, pos) gives, as strings.
func morphyForms(wn *wordNet, word string, p int) []string {
	lemmaText := lemmaTexts(wn)
	var sc morphScratch
	wn.morphy(word, p, exception(wn, word), &sc)
	var out []string
	for _, e := range sc.entries {
		out = append(out, lemmaText[e])
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
	syn := newSynonymText()
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			if g := syn.of(tt.word); g != tt.want {
				t.Errorf("synonyms(%q) = %q, want %q", tt.word, g, tt.want)
			}
		})
	}
}

// synonymText writes the synonyms of a word as the NLTK-checked scripts do: the names sorted,
// once each, space-separated.
type synonymText struct {
	wn    *wordNet
	names []string
	sc    morphScratch
	ids   []uint32
	got   []string
}

func newSynonymText() *synonymText {
	wn := loadWordNet()
	return &synonymText{wn: wn, names: nameTexts(wn)}
}

func (s *synonymText) of(word string) string {
	s.ids, s.got = s.wn.synonyms(s.ids[:0], word, &s.sc), s.got[:0]
	for _, id := range s.ids {
		s.got = append(s.got, s.names[id])
	}
	slices.Sort(s.got)
	return strings.Join(slices.Compact(s.got), " ")
}

// TestSynonymsNLTK checks synonyms against NLTK 3.8's wordnet.synsets for 5,000 words drawn from
// all of WordNet 3.0 and variants of them (testdata/wordnet_nltk38_gen.py, README there).
func TestSynonymsNLTK(t *testing.T) {
	data, err := os.ReadFile("testdata/wordnet_nltk38.tsv")
	if err != nil {
		t.Fatal(err)
	}
	syn := newSynonymText()
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
		if g := syn.of(word); g != want {
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

// TestWNDict checks the key table on its own, past several doublings: every key inserted is
// found with its facts, as a string and as bytes, and no other string is.
func TestWNDict(t *testing.T) {
	d := newDict(1)
	const n = 5000
	for i := range n {
		k := d.insert(fmt.Appendf(nil, "k%d", i))
		if k.entry != -1 || k.name != -1 || k.exc != -1 {
			t.Fatalf("insert(k%d) = %+v, want a new key with no facts", i, *k)
		}
		k.entry, k.name = int32(i), int32(2*i)
		if again := d.insert(fmt.Appendf(nil, "k%d", i)); again.entry != int32(i) {
			t.Fatalf("insert(k%d) again = %+v, want the key inserted", i, *again)
		}
	}
	if len(d.facts) != n || 4*len(d.facts) > 3*len(d.slots) {
		t.Errorf("%d keys in %d slots, want %d filling at most three quarters", len(d.facts), len(d.slots), n)
	}
	for i := range n {
		w := fmt.Sprintf("k%d", i)
		k := find(&d, w, strHash(w))
		if k == nil || k.entry != int32(i) || k.name != int32(2*i) || d.key(k) != w {
			t.Fatalf("find(%q) = %v, want entry %d, name %d", w, k, i, 2*i)
		}
		if kb := find(&d, []byte(w), bytesHash([]byte(w))); kb != k {
			t.Fatalf("find([]byte(%q)) = %v, want %v", w, kb, k)
		}
		if k := find(&d, w+"x", strHash(w+"x")); k != nil {
			t.Fatalf("find(%q) = %q, want nil", w+"x", d.key(k))
		}
	}
}
