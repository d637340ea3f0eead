package textnorm

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/vectors"
)

func TestLower(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Denver BRONCOS", "denver broncos"},
		{"İ", "i\u0307"},
		{"İSTANBUL", "i\u0307stanbul"},
		{"ΟΔΟΣ", "οδος"},
		{"ΑΣ ΒΣ", "ας βς"},
		{"ΣΑ", "σα"},           // not final: a cased letter follows
		{"Σ", "σ"},             // no cased letter before
		{"ΑΣ.", "ας."},         // '.' is case-ignorable, then the end
		{"ΑΣ'Α", "ασ'α"},       // the apostrophe is skipped and a cased letter follows
		{"ΑΣ-Α", "ας-α"},       // '-' is neither ignorable nor cased
		{"ẞ", "ß"},             // simple mappings agree with Go
		{"ǅ", "ǆ"},             // titlecase
		{"\u212a", "k"},        // Kelvin sign
		{"ÀÉÎÕÜ×Þ", "àéîõü×þ"}, // Latin-1 fast path keeps ×
		{"日本", "日本"},
		// Cyrillic Extended-B (U+A640–U+A69F) has case mappings, past the CJK blocks that have
		// none.
		{"\ua640\ua642", "\ua641\ua643"},
		// U+1E030 and U+1DF25 are new in Unicode 15.0, unassigned for Python 3.11: neither
		// case-ignorable nor cased, so the sigma after them is not final.
		{"A\U0001e030Σ", "a\U0001e030σ"},
		{"\U0001df25Σ", "\U0001df25σ"},
	}
	for _, tt := range tests {
		if got := Lower(tt.in); got != tt.want {
			t.Errorf("Lower(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSplitStrip(t *testing.T) {
	tests := []struct {
		in    string
		split []string
		strip string
	}{
		{"  a b  ", []string{"a", "b"}, "a b"},
		{"x\u001cy", []string{"x", "y"}, "x\u001cy"},
		{"\u0085a\u00a0b\u3000", []string{"a", "b"}, "a\u00a0b"},
		{"a\u2028b\u205fc\u202fd", []string{"a", "b", "c", "d"}, "a\u2028b\u205fc\u202fd"},
		{"a\u200bb\ufeffc\u180ed", []string{"a\u200bb\ufeffc\u180ed"}, "a\u200bb\ufeffc\u180ed"},
		{"\u001f\u001e", nil, ""},
		{"a\xffb \xe3\x80\u3000", []string{"a\xffb", "\xe3\x80"}, "a\xffb \xe3\x80"}, // invalid UTF-8 is no space
		{"", nil, ""},
		// Long enough for Split to count the fields first.
		{strings.Repeat("ab\u3000\xff\u0085", 300), slices.Repeat([]string{"ab", "\xff"}, 300), strings.Repeat("ab\u3000\xff\u0085", 299) + "ab\u3000\xff"},
	}
	for _, tt := range tests {
		if got := Split(tt.in); !slices.Equal(got, tt.split) {
			t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.split)
		}
		if got := countFields(tt.in); got != len(tt.split) {
			t.Errorf("countFields(%q) = %d, want %d", tt.in, got, len(tt.split))
		}
		if got := Strip(tt.in); got != tt.strip {
			t.Errorf("Strip(%q) = %q, want %q", tt.in, got, tt.strip)
		}
	}
}

func TestIsAlnum(t *testing.T) {
	tests := []struct {
		r    rune
		want bool
	}{
		{'a', true}, {'Z', true}, {'7', true}, {'_', false}, {'-', false}, {'é', true},
		{'日', true}, {'한', true}, {'²', true}, {'Ⅻ', true}, {'\u0301', false}, {'、', false},
		{' ', false}, {'\u00a0', false}, {'\U00031350', false}, {'\U0002B738', true},
		// The ends of the shortcut ranges (CPython 3.11, Unicode 14.0): U+D7A4–U+D7AF are
		// unassigned, U+4DFF is a hexagram symbol.
		{'\ud7a3', true}, {'\ud7a4', false}, {'\u9fff', true}, {'\u4dff', false},
	}
	for _, tt := range tests {
		if got := IsAlnum(tt.r); got != tt.want {
			t.Errorf("IsAlnum(%q) = %v, want %v", tt.r, got, tt.want)
		}
	}
}

// TestIsPunct holds IsPunct to Punct, Python's string.punctuation, on every ASCII character.
func TestIsPunct(t *testing.T) {
	if Punct != `!"#$%&'()*+,-./:;<=>?@[\]^_`+"`"+`{|}~` {
		t.Errorf("Punct = %q, not string.punctuation", Punct)
	}
	for r := rune(0); r < utf8.RuneSelf; r++ {
		if got, want := IsPunct(r), strings.ContainsRune(Punct, r); got != want {
			t.Errorf("IsPunct(%q) = %v, want %v", r, got, want)
		}
	}
	for _, r := range []rune{'\u00a1', '\u00bf', '\uff01', '\u3002'} { // ¡ ¿ ！ 。
		if IsPunct(r) {
			t.Errorf("IsPunct(%q) = true, want false: string.punctuation is ASCII", r)
		}
	}
}

func TestSquadNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The Denver Broncos!", "denver broncos"},
		{"an apple, a pear and the plum", "apple pear and plum"},
		{"theater anarchy", "theater anarchy"},
		{"t.h.e end", "end"}, // punctuation goes first, so "the" is whole
		{"a-b", "ab"},        // "-" is removed before \b is looked at
		{"éa", "éa"},         // Unicode \b: é is a word character
		{"é a", "é"},         // a separate "a" goes
		{"日本a", "日本a"},
		{"¿a?", "¿"},          // ¿ is not a word character, so "a" is bounded
		{"a\u0301", "\u0301"}, // U+0301 is not alnum for re: "a" is bounded
		{"x\u001cy", "x y"},
		{"  THE  ", ""},
		{"İ", "i\u0307"},
		{"a_b", "ab"}, // "_" is punctuation, removed before \b is looked at
		// The last four of string.punctuation ({ | } ~), as evaluate-v1.1.py's normalize_answer
		// gives them.
		{"The ~tilde~ {and} |pipe|", "tilde and pipe"},
		{"", ""},
		// The edges of the fast paths: z and Z in eight-byte runs, the CJK block's neighbours
		// (U+4DC0 is a symbol, U+A640 an uppercase Cyrillic letter, U+A700 a modifier).
		{"Pizzazz and quizzes: zzzzzzzzzz ZZZZZZZZZ", "pizzazz and quizzes zzzzzzzzzz zzzzzzzzz"},
		{"a\u4dc0 \u4dc0the \u4dbfan", "\u4dc0 \u4dc0 \u4dbfan"},
		{"\ua640a \ua641 an\ua640", "\ua641a \ua641 an\ua641"},
		{"\ua700the \ua720a \ua78bx", "\ua700 \ua720 \ua78cx"},
	}
	for _, tt := range tests {
		if got := SquadNormalize(tt.in); got != tt.want {
			t.Errorf("SquadNormalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSquadWords: SQuAD's normal form with the articles kept.
func TestSquadWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The Denver Broncos!", "the denver broncos"},
		{"(A)", "a"},
		{"  THE  a ", "the a"},
		{"t.h.e", "the"},
		{"+", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SquadWords(tt.in); got != tt.want {
			t.Errorf("SquadWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLocomoNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Tom and Jerry, the cat", "tom jerry cat"},
		{"Andes band", "andes band"},
		{"a\u0301", "a\u0301"}, // marks are word characters for the regex module
		{"1,000", "1000"},
		// The commas go before lower(): with the comma gone the sigma has a cased letter after
		// it and is not final (lowered first it would be "ας,β", then "αςβ").
		{"ΑΣ,Β", "ασβ"},
	}
	for _, tt := range tests {
		if got := LocomoNormalize(tt.in); got != tt.want {
			t.Errorf("LocomoNormalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRougeTokens(t *testing.T) {
	tests := []struct {
		in   string
		stem bool
		want []string
	}{
		{"Beyoncé", false, []string{"beyonc"}},
		{"café au lait", false, []string{"caf", "au", "lait"}},
		{"İ", false, []string{"i"}},
		{"北京 2008", false, []string{"2008"}},
		{"This was running", true, []string{"thi", "was", "run"}},
		{"The cats' toys", true, []string{"the", "cat", "toy"}},
		{"", true, nil},
	}
	for _, tt := range tests {
		if got := RougeTokens(tt.in, tt.stem); !slices.Equal(got, tt.want) {
			t.Errorf("RougeTokens(%q, %v) = %q, want %q", tt.in, tt.stem, got, tt.want)
		}
	}
}

func FuzzSquadNormalize(f *testing.F) {
	for _, s := range []string{"The Denver Broncos!", "ΟΔΟΣ", "İ", "x\u001cy", "éa", "t.h.e", "a\u0301", "\xff", "ΑΣ,Β"} {
		f.Add(s)
	}
	// NLTK's golden texts (quotes, clitics, sentence ends, Greek, İ, full-width forms) and words.
	for _, c := range vectors.Spread(loadNLTKCases(f), 150) {
		f.Add(c.Text)
	}
	for _, p := range vectors.Spread(readPorter(f), 100) {
		f.Add(p[0])
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, norm := range []func(string) string{SquadNormalize, LocomoNormalize, SquadWords} {
			got := norm(s)
			if !utf8.ValidString(got) {
				t.Fatalf("normalize(%q) = %q, not valid UTF-8", s, got)
			}
			if strings.Contains(got, "  ") || strings.HasPrefix(got, " ") || strings.HasSuffix(got, " ") {
				t.Fatalf("normalize(%q) = %q, spaces not collapsed", s, got)
			}
			if !utf8.ValidString(s) {
				continue
			}
			if again := norm(got); again != got {
				t.Fatalf("normalize(%q) = %q, but normalize of that is %q", s, got, again)
			}
		}
		if w := SquadWords(s); utf8.ValidString(s) && SquadNormalize(w) != SquadNormalize(s) {
			t.Fatalf("SquadNormalize(SquadWords(%q)) = %q, want SquadNormalize's %q", s, SquadNormalize(w), SquadNormalize(s))
		}
		toks := RougeTokens(s, true)
		for _, tok := range toks {
			if tok == "" || strings.Trim(tok, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
				t.Fatalf("RougeTokens(%q) has token %q", s, tok)
			}
		}
		if l := Lower(s); utf8.ValidString(s) && !utf8.ValidString(l) {
			t.Fatalf("Lower(%q) = %q, not valid UTF-8", s, l)
		}
	})
}

func ExampleSquadNormalize() {
	fmt.Printf("%q\n", SquadNormalize("The  Denver\u00a0Broncos!"))
	fmt.Printf("%q\n", SquadNormalize("éa vs é a"))
	// Output:
	// "denver broncos"
	// "éa vs é"
}

func ExampleLower() {
	fmt.Printf("%q %q\n", Lower("ΟΔΟΣ"), Lower("İ"))
	// Output: "οδος" "i̇"
}

func ExampleSplit() {
	fmt.Printf("%q\n", Split("x\u001cy z"))
	// Output: ["x" "y" "z"]
}

// TestAppendRougeTextReuse appends into a buffer whose spare capacity holds old letters.
func TestAppendRougeTextReuse(t *testing.T) {
	buf := []byte("x zzzzzzzzzzzzzzzz")[:2]
	for _, in := range []string{"Ab", "Ab Cd", "Éa"} {
		got := string(AppendRougeText(buf, in))
		want := "x " + strings.Join(RougeTokens(in, false), " ") + " "
		if got != want {
			t.Errorf("AppendRougeText(%q, %q) = %q, want %q", buf, in, got, want)
		}
	}
}
