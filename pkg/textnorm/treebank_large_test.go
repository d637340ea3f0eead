package textnorm

import (
	"slices"
	"strings"
	"testing"
)

// largeShapes are texts of one unit repeated, the shapes that once cost far more per byte than
// prose: runs of sentence ends, punctuation, quotes, clitics and contractions. The tokens of n
// copies are head, then body n-trim times, then tail. testdata/wordtok_shapes_nltk38.py prints
// this table from NLTK 3.8's nltk.word_tokenize, having checked each pattern on 256 kB.
var largeShapes = []struct {
	unit             string
	head, body, tail []string
	trim             int
}{
	{unit: "!", body: []string{"!"}},
	{unit: "?!", body: []string{"?", "!"}},
	{unit: ".)", body: []string{".", ")"}},
	{unit: "a!b!c!", body: []string{"a", "!", "b", "!", "c", "!"}},
	{unit: "! ", body: []string{"!"}},
	{unit: ". ", body: []string{"."}},
	{unit: ". . . ", body: []string{".", ".", "."}},
	{unit: "... ", body: []string{"..."}},
	{unit: "A. B. C. ", body: []string{"A", ".", "B.", "C."}, trim: 1, tail: []string{"A", ".", "B.", "C", "."}},
	{unit: "Dr. ", body: []string{"Dr."}, trim: 1, tail: []string{"Dr", "."}},
	{unit: "U.S. ", body: []string{"U.S."}, trim: 1, tail: []string{"U.S", "."}},
	{unit: "x.) ", body: []string{"x", ".", ")"}},
	{unit: `." `, body: []string{".", "''"}},
	{unit: "?' ", body: []string{"?", "'"}},
	{unit: `He said "hi". `, body: []string{"He", "said", "``", "hi", "''", "."}},
	{unit: `"`, head: []string{"``", "``"}, body: []string{"''"}, trim: 2},
	{unit: "''", body: []string{"''"}},
	{unit: "x' ", body: []string{"x", "'"}},
	{unit: "'a ", body: []string{"'", "a"}},
	{unit: " 'x", body: []string{"'", "x"}},
	{unit: "'s ", body: []string{"'s"}},
	{unit: "don't ", body: []string{"do", "n't"}},
	{unit: "can't won't ", body: []string{"ca", "n't", "wo", "n't"}},
	{unit: "cannot ", body: []string{"can", "not"}},
	{unit: "'tis ", body: []string{"'t", "is"}},
	{unit: "«", body: []string{"«"}},
	{unit: "“", body: []string{"“"}},
	{unit: "` ", body: []string{"`"}},
	{unit: "(", body: []string{"("}},
	{unit: "--", body: []string{"--"}},
	{unit: "a,b,", body: []string{"a", ",", "b", ","}},
	{unit: "a:b:", body: []string{"a", ":", "b", ":"}},
	{unit: "1,234.5 ", body: []string{"1,234.5"}},
}

// TestWordTokenizeLarge checks the exact tokens of 256 kB of each large shape.
func TestWordTokenizeLarge(t *testing.T) {
	for _, sh := range largeShapes {
		t.Run(sh.unit, func(t *testing.T) {
			n := (256 << 10) / len(sh.unit)
			want := slices.Concat(sh.head, repeatTokens(sh.body, n-sh.trim), sh.tail)
			got := WordTokenize(strings.Repeat(sh.unit, n))
			if i := firstDiff(got, want); i >= 0 {
				t.Errorf("WordTokenize(%d × %q): %d tokens, want %d; first difference at token %d: %q, want %q",
					n, sh.unit, len(got), len(want), i, at(got, i), at(want, i))
			}
		})
	}
}

// TestAppendWordTokensLong checks that AppendWordTokens keeps what dst holds while it makes
// room for the tokens of many sentences ahead of them.
func TestAppendWordTokensLong(t *testing.T) {
	text := strings.Repeat("He left. Then? (x) ", 4000) + strings.Repeat("word ", 4000)
	want := slices.Concat(repeatTokens([]string{"He", "left", ".", "Then", "?", "(", "x", ")"}, 4000),
		repeatTokens([]string{"word"}, 4000))
	for _, prefix := range [][]string{nil, {"a", "b"}, make([]string, 3000)} {
		got := AppendWordTokens(slices.Clone(prefix), text)
		if i := firstDiff(got, slices.Concat(prefix, want)); i >= 0 {
			t.Errorf("AppendWordTokens(%d tokens, text) differs at token %d: %q", len(prefix), i, at(got, i))
		}
	}
}

func repeatTokens(body []string, n int) []string {
	out := make([]string, 0, n*len(body))
	for range n {
		out = append(out, body...)
	}
	return out
}

// firstDiff returns the index of the first token where a and b differ, or -1 if they are equal.
func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// at returns s[i], or "(none)" past its end.
func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// BenchmarkWordTokenizeLarge runs WordTokenize over 64 kB of each large shape.
func BenchmarkWordTokenizeLarge(b *testing.B) {
	for _, sh := range largeShapes {
		text := strings.Repeat(sh.unit, (64<<10)/len(sh.unit))
		b.Run(sh.unit, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				WordTokenize(text)
			}
		})
	}
}
