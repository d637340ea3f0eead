package textnorm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSentTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		// The punkt.py module docstring (NLTK 3.8, real english.pickle).
		{"Punkt knows that the periods in Mr. Smith and Johann S. Bach\ndo not mark sentence boundaries.  And sometimes sentences\ncan start with non-capitalized words.  i is a good variable\nname.",
			[]string{"Punkt knows that the periods in Mr. Smith and Johann S. Bach\ndo not mark sentence boundaries.", "And sometimes sentences\ncan start with non-capitalized words.", "i is a good variable\nname."}},
		{"(How does it deal with this parenthesis?)  \"It should be part of the\nprevious sentence.\" \"(And the same with this one.)\" ('And this one!')\n\"('(And (this)) '?)\" [(and this. )]",
			[]string{"(How does it deal with this parenthesis?)", "\"It should be part of the\nprevious sentence.\"", "\"(And the same with this one.)\"", "('And this one!')", "\"('(And (this)) '?)\"", "[(and this. )]"}},
		// nltk/test/unit/test_tokenize.py test_sent_tokenize (NLTK 3.8, real english.pickle).
		{"this is a test. . new sentence.", []string{"this is a test.", ".", "new sentence."}},
		{"This. . . That", []string{"This.", ".", ".", "That"}},
		{"This..... That", []string{"This..... That"}},
		{"This... That", []string{"This... That"}},
		{"This.. . That", []string{"This.. .", "That"}},
		{"This. .. That", []string{"This.", ".. That"}},
		{"This. ,. That", []string{"This.", ",.", "That"}},
		{"This!!! That", []string{"This!!!", "That"}},
		{"This! That", []string{"This!", "That"}},
		{"1. This is R .\n2. This is A .\n3. That's all", []string{"1.", "This is R .", "2.", "This is A .", "3.", "That's all"}},
		{"1. This is R .\t2. This is A .\t3. That's all", []string{"1.", "This is R .", "2.", "This is A .", "3.", "That's all"}},
		{"Hello.\tThere", []string{"Hello.", "There"}},
		// A run of candidates keeps only the last one (the ReDoS-fix doctest).
		{"Very bad acting!!! I promise.", []string{"Very bad acting!!!", "I promise."}},
		// Abbreviations, initials and ordinals from the english model.
		{"dr. smith went home. he left", []string{"dr. smith went home.", "he left"}},
		{"U.S. Army troops left.", []string{"U.S. Army troops left."}},
		{"It rose 5 p.m. Sales fell.", []string{"It rose 5 p.m.", "Sales fell."}},
		{"The meeting is on Jan. 5. It ends.", []string{"The meeting is on Jan. 5.", "It ends."}},
		{"a.  ", []string{"a."}},
		// A number with a hyphen is ##number## too; the lowercase word after it keeps the sentence.
		{"The score was 5-6. and then it ended.", []string{"The score was 5-6. and then it ended."}},
		{"Born 1990-91. he left.", []string{"Born 1990-91. he left."}},
		// The part after the last hyphen can be the abbreviation.
		{"We saw the ex-dr. Smith today.", []string{"We saw the ex-dr. Smith today."}},
		{"It was the ex-mr. smith who left.", []string{"It was the ex-mr. smith who left."}},
		// A closing quote or bracket before "--" stays with the sentence it ends.
		{"He said \"Stop.\" --and left.", []string{"He said \"Stop.\"", "--and left."}},
		{"He said \"Stop.\"--and left.", []string{"He said \"Stop.\"", "--and left."}},
		{"(Go now.)--then stop.", []string{"(Go now.)", "--then stop."}},
		// U+10FC, U+A7F2 and U+AB69 are lowercase for Go's Unicode 15.0 but not for CPython 3.11
		// (Unicode 14.0): no first_lower, so the orthographic heuristic keeps the break.
		{"x. \u10fcy z", []string{"x.", "\u10fcy z"}},
		{"It ends. \ua7f2 more", []string{"It ends.", "\ua7f2 more"}},
		{"It ends. \uab69 more", []string{"It ends.", "\uab69 more"}},
		{"", nil},
		{"  \n ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := SentTokenize(tt.in); !cmp.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("SentTokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSentTokenizeNLTK(t *testing.T) {
	cases := loadNLTKCases(t)
	bad := 0
	for _, c := range cases {
		got := SentTokenize(c.Text)
		if len(got) == 0 && len(c.Sentences) == 0 {
			continue
		}
		if !cmp.Equal(got, c.Sentences) {
			if bad++; bad <= 5 {
				t.Errorf("SentTokenize(%q) = %q, want %q", c.Text, got, c.Sentences)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d NLTK cases differ", bad, len(cases))
	}
}

func TestIsLowerUpperPy(t *testing.T) {
	// CPython 3.11.2: chr(r).islower(), chr(r).isupper().
	tests := []struct {
		r            rune
		lower, upper bool
	}{
		{'a', true, false}, {'A', false, true}, {'1', false, false},
		{0xaa, true, false},   // FEMININE ORDINAL INDICATOR, Lo and Other_Lowercase
		{0x2b0, true, false},  // MODIFIER LETTER SMALL H, Lm and Other_Lowercase
		{0x1d2c, true, false}, // MODIFIER LETTER CAPITAL A, Lm and Other_Lowercase
		{0x2160, false, true}, // ROMAN NUMERAL ONE, Other_Uppercase
		{0x2170, true, false}, // SMALL ROMAN NUMERAL ONE, Other_Lowercase
		// Other_Lowercase only since Unicode 15.0.
		{0x10fc, false, false}, {0xa7f2, false, false}, {0xa7f3, false, false}, {0xa7f4, false, false},
		{0xab69, false, false},
		{0xa7f5, false, true},   // LATIN CAPITAL LETTER REVERSED HALF H, beside them
		{0xab68, true, false},   // LATIN SMALL LETTER TURNED R WITH MIDDLE TILDE
		{0x1e030, false, false}, // MODIFIER LETTER CYRILLIC SMALL A, new in Unicode 15.0
	}
	for _, tt := range tests {
		if lo, up := isLowerPy(tt.r), isUpperPy(tt.r); lo != tt.lower || up != tt.upper {
			t.Errorf("%U: islower %v isupper %v, want %v %v", tt.r, lo, up, tt.lower, tt.upper)
		}
	}
}

func TestPunktModel(t *testing.T) {
	m := punktEnglish()
	if len(m.abbrevs) != 156 || len(m.collocations) != 37 || len(m.starters) != 39 || len(m.ortho) != 20366 {
		t.Errorf("english model has %d abbreviations, %d collocations, %d starters, %d ortho types; want 156, 37, 39, 20366",
			len(m.abbrevs), len(m.collocations), len(m.starters), len(m.ortho))
	}
	for _, a := range []string{"dr", "mr", "u.s", "jan", "inc", "p.m"} {
		if !m.abbrevs[a] {
			t.Errorf("abbreviation %q missing", a)
		}
	}
	if !m.collocations[[2]string{"##number##", "international"}] {
		t.Errorf("collocation (##number##, international) missing")
	}
	if _, err := parsePunktModel("a\tx\nz\ty\n"); err == nil || err.Error() != `line 2: malformed entry "z\ty"` {
		t.Errorf("parsePunktModel(bad) error = %v", err)
	}
}

func TestPunktWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, world.", []string{"Hello", ",", "world."}},
		{"a...b -- c", []string{"a", "...", "b", "--", "c"}},
		{"x. . . y", []string{"x", ". . .", "y"}},
		{"(quote) 'it'", []string{"(", "quote", ")", "'it", "'"}},
		{"1,000, 2,", []string{"1,000", ",", "2", ","}},
	}
	for _, tt := range tests {
		if got := punktWords(tt.in, nil); !cmp.Equal(got, tt.want) {
			t.Errorf("punktWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzSentTokenize(f *testing.F) {
	for _, s := range []string{"Mr. Smith left. He came.", "(a.) b! c? \"d.\"", "...", ". . . x", "a.\n\nb.", "!\u00a0\xc2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Sentences are pieces of s in order, each found after the previous one, and only white
		// space is left out between them (as NLTK's spans leave out only the space after a break).
		rest := s
		for _, sent := range SentTokenize(s) {
			i := indexOf(rest, sent)
			if sent == "" || i < 0 {
				t.Fatalf("SentTokenize(%q) returned %q, not a later piece of the text", s, sent)
			}
			if gap := rest[:i]; Strip(gap) != "" {
				t.Fatalf("SentTokenize(%q) left out %q before %q", s, gap, sent)
			}
			rest = rest[i+len(sent):]
		}
		if Strip(rest) != "" {
			t.Fatalf("SentTokenize(%q) left out %q at the end", s, rest)
		}
	})
}

// indexOf is the first index of sub in s that starts and ends at character boundaries (as range
// decodes s, one byte for each byte that is not UTF-8), or -1: a byte search could find a
// sentence of one invalid byte inside the character before it.
func indexOf(s, sub string) int {
	starts := map[int]bool{len(s): true}
	for i := range s {
		starts[i] = true
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if starts[i] && starts[i+len(sub)] && s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
