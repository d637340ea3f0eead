package textnorm

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/internal/vectors"
)

func TestWordTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		// nltk/test/tokenize.doctest (NLTK 3.8, real english.pickle).
		{"On a $50,000 mortgage of 30 years at 8 percent, the monthly payment would be $366.88.",
			[]string{"On", "a", "$", "50,000", "mortgage", "of", "30", "years", "at", "8", "percent", ",", "the", "monthly", "payment", "would", "be", "$", "366.88", "."}},
		{`"We beat some pretty good teams to get here," Slocum said.`,
			[]string{"``", "We", "beat", "some", "pretty", "good", "teams", "to", "get", "here", ",", "''", "Slocum", "said", "."}},
		{`Well, we couldn't have this predictable, cliche-ridden, "Touched by an Angel" (a show creator John Masius worked on) wanna-be if she didn't.`,
			[]string{"Well", ",", "we", "could", "n't", "have", "this", "predictable", ",", "cliche-ridden", ",", "``", "Touched", "by", "an", "Angel", "''", "(", "a", "show", "creator", "John", "Masius", "worked", "on", ")", "wanna-be", "if", "she", "did", "n't", "."}},
		{"I cannot cannot work under these conditions!", []string{"I", "can", "not", "can", "not", "work", "under", "these", "conditions", "!"}},
		{"The company spent 40.75% of its income last year.", []string{"The", "company", "spent", "40.75", "%", "of", "its", "income", "last", "year", "."}},
		{"He arrived at 3:00 pm.", []string{"He", "arrived", "at", "3:00", "pm", "."}},
		{"Though there were 150, 100 of them were old.", []string{"Though", "there", "were", "150", ",", "100", "of", "them", "were", "old", "."}},
		{"There were 300,000, but that wasn't enough.", []string{"There", "were", "300,000", ",", "but", "that", "was", "n't", "enough", "."}},
		{"It's more'n enough.", []string{"It", "'s", "more", "'n", "enough", "."}},
		{"«Now that I can do.»", []string{"«", "Now", "that", "I", "can", "do", ".", "»"}},
		{"The unicode 201C and 201D “LEFT(RIGHT) DOUBLE QUOTATION MARK” is also OPEN_PUNCT and CLOSE_PUNCT.",
			[]string{"The", "unicode", "201C", "and", "201D", "“", "LEFT", "(", "RIGHT", ")", "DOUBLE", "QUOTATION", "MARK", "”", "is", "also", "OPEN_PUNCT", "and", "CLOSE_PUNCT", "."}},
		{"I called Dr. Jones. I called Dr. Jones.", []string{"I", "called", "Dr.", "Jones", ".", "I", "called", "Dr.", "Jones", "."}},
		{"Ich muss unbedingt daran denken, Mehl, usw. fur einen Kuchen einzukaufen. Ich muss.",
			[]string{"Ich", "muss", "unbedingt", "daran", "denken", ",", "Mehl", ",", "usw", ".", "fur", "einen", "Kuchen", "einzukaufen", ".", "Ich", "muss", "."}},
		// NLTK 3.8 on Python 3.11: \d is Unicode 14.0's, so a Kawi digit (new in 15.0) is no digit.
		{"a:\U00011f50 b:\u0663 c", []string{"a", ":", "\U00011f50", "b:\u0663", "c"}},
		// nltk/test/unit/test_tokenize.py (NLTK 3.8).
		{"This is a, *weird sentence with *asterisks in it.", []string{"This", "is", "a", ",", "*", "weird", "sentence", "with", "*", "asterisks", "in", "it", "."}},
		{"Why did dotdot.. not get tokenized but dotdotdot... did? How about manydots.....",
			[]string{"Why", "did", "dotdot", "..", "not", "get", "tokenized", "but", "dotdotdot", "...", "did", "?", "How", "about", "manydots", "....."}},
		{"The 'v', I've been fooled but I'll seek revenge.", []string{"The", "'", "v", "'", ",", "I", "'ve", "been", "fooled", "but", "I", "'ll", "seek", "revenge", "."}},
		{"'v' 're'", []string{"'", "v", "'", "'re", "'"}},
		// The CMRC README examples (lowercased as the script does).
		{"dr. smith went home. he left", []string{"dr.", "smith", "went", "home", ".", "he", "left"}},
		{"u.s. army", []string{"u.s.", "army"}},
		{"don't know", []string{"do", "n't", "know"}},
		// Quotes, decimals, contractions, brackets, dashes.
		{`he said "hi" to 'em`, []string{"he", "said", "``", "hi", "''", "to", "'em"}},
		{"'a' and 'tis", []string{"'", "a", "'", "and", "'t", "is"}},
		{"gonna gimme lemme gotta d'ye wanna go", []string{"gon", "na", "gim", "me", "lem", "me", "got", "ta", "d", "'ye", "wan", "na", "go"}},
		{"pi is 3.14159 (roughly)", []string{"pi", "is", "3.14159", "(", "roughly", ")"}},
		{"a--b [c] {d} <e>", []string{"a", "--", "b", "[", "c", "]", "{", "d", "}", "<", "e", ">"}},
		{"wait... what?!", []string{"wait", "...", "what", "?", "!"}},
		// re.sub's left-to-right, non-overlapping matches in the hand-written rules, and the
		// letters IGNORECASE folds (NLTK 3.8).
		{"it' ' s", []string{"it", "'", "'", "s"}},
		{"a '' b'' c", []string{"a", "``", "b", "''", "c"}},
		{"don'tn't can'tn't", []string{"don't", "n't", "can't", "n't"}},
		{"rock'n'roll's 'em", []string{"rock'n'roll", "'s", "'em"}},
		{"GİMME gımme 'TİS 'tıs 'twaſ", []string{"GİM", "ME", "gım", "me", "'T", "İS", "'t", "ıs", "'t", "waſ"}},
		{"cannotcannot wanna. wanna", []string{"cannotcannot", "wan", "na", ".", "wan", "na"}},
		{"x.'s y'S' z''s", []string{"x", ".", "'s", "y", "'S", "'", "z", "''", "s"}},
		{"«a» “b” ‘c’ „d“ ``e'' `f", []string{"«", "a", "»", "“", "b", "”", "‘", "c", "’", "„", "d", "“", "``", "e", "''", "`", "f"}},
		{"a...b.. c... d", []string{"a", "...", "b", "..", "c", "...", "d"}},
		{"e-mail--x ---", []string{"e-mail", "--", "x", "--", "-"}},
		{`("a") [''b''] {"c"} <''d>`, []string{"(", "``", "a", "''", ")", "[", "``", "b", "''", "]", "{", "``", "c", "''", "}", "<", "``", "d", ">"}},
		{"", nil},
		{"   ", nil},
		{"1998", []string{"1998"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := WordTokenize(tt.in); !cmp.Equal(got, tt.want) {
				t.Errorf("WordTokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// nltkCase is one line of testdata/punkt_nltk38.jsonl, written by NLTK 3.8 itself (see
// testdata/punkt_nltk38_gen.py).
type nltkCase struct {
	Text      string   `json:"text"`
	Sentences []string `json:"sentences"`
	Tokens    []string `json:"tokens"`
}

func loadNLTKCases(t testing.TB) []nltkCase {
	t.Helper()
	f, err := os.Open("testdata/punkt_nltk38.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []nltkCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c nltkCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestWordTokenizeNLTK(t *testing.T) {
	cases := loadNLTKCases(t)
	bad := 0
	for _, c := range cases {
		if got := WordTokenize(c.Text); !cmp.Equal(got, c.Tokens, cmp.Comparer(func(a, b []string) bool {
			return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b))
		})) {
			if bad++; bad <= 5 {
				t.Errorf("WordTokenize(%q) = %q, want %q", c.Text, got, c.Tokens)
			}
		}
	}
	if bad > 0 || len(cases) < 2000 {
		t.Errorf("%d of %d NLTK cases differ", bad, len(cases))
	}
}

func FuzzWordTokenize(f *testing.F) {
	for _, s := range []string{"dr. smith went home. he left", "u.s. army", `"Hi," he said.`,
		"can't won't 'tis", "3.5... (a) [b] --", "«“‘„”’»", "a.\u3000b. c", "\x1c'\x85.", ""} {
		f.Add(s)
	}
	for _, c := range vectors.Spread(loadNLTKCases(f), 200) {
		f.Add(c.Text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := WordTokenize(s)
		for _, tok := range toks {
			if tok == "" {
				t.Fatalf("WordTokenize(%q) has an empty token: %q", s, toks)
			}
			if utf8.ValidString(s) && !utf8.ValidString(tok) {
				t.Fatalf("WordTokenize(%q) has an invalid token %q", s, tok)
			}
		}
		if plainWords(s) && !cmp.Equal(toks, Split(s), cmp.Comparer(func(a, b []string) bool {
			return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b))
		})) {
			t.Fatalf("WordTokenize(%q) = %q, want its fields", s, toks)
		}
	})
}

func BenchmarkWordTokenize(b *testing.B) {
	cases := loadNLTKCases(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cases {
			WordTokenize(c.Text)
		}
	}
	b.ReportMetric(float64(b.N*len(cases))/b.Elapsed().Seconds(), "strings/s")
}
