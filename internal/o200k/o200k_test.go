package o200k

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dlclark/regexp2/v2"

	"github.com/qapipe/qapipe/internal/vectors"
)

func TestRanks(t *testing.T) {
	r := ranks()
	if len(r) != 199998 {
		t.Errorf("%d ranks, want o200k_base's 199,998", len(r))
	}
	for piece, want := range map[string]int32{"!": 0, "hello": 24912, " world": 2375} {
		if got, ok := r[piece]; !ok || got != want {
			t.Errorf("rank(%q) = %d, %v; want %d", piece, got, ok, want)
		}
	}
}

// pieces returns the texts of tokens ending at ends.
func pieces(s string, ends []int) []string {
	var out []string
	start := 0
	for _, e := range ends {
		out = append(out, s[start:e])
		start = e
	}
	return out
}

// TestEnds holds cases where a pre-tokenizer can go wrong, with the tokens tiktoken gives.
func TestEnds(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"hello world", []string{"hello", " world"}},
		{"\n\n  \n", []string{"\n\n  \n"}},                           // \s*[\r\n]+ gives the spaces back to the last newline
		{"^~  Z\n\n  \n", []string{"^", "~", " ", " Z", "\n\n  \n"}}, // \s+(?!\S) leaves one space for " Z"
		{"a\x7fb", []string{"a", "\x7f", "b"}},                       // DEL is a symbol: kept, as a prefix of "b"'s piece
		{"x \x7f!", []string{"x", " ", "\x7f", "!"}},
		{"", nil},
	} {
		got := pieces(c.text, Ends(nil, c.text))
		if !slices.Equal(got, c.want) {
			t.Errorf("Ends(%q) = %q, want %q", c.text, got, c.want)
		}
		if n := Count(c.text); n != len(c.want) {
			t.Errorf("Count(%q) = %d, want %d", c.text, n, len(c.want))
		}
	}
}

// TestVectors compares Ends with tiktoken's own tokens (scripts/random-o200k.cjs; a larger file
// through QA_O200K_VECTORS).
func TestVectors(t *testing.T) {
	vectors.Check(t, "testdata/tiktoken_vectors.jsonl", "QA_O200K_VECTORS", func(c struct {
		Text string `json:"text"`
		Ends []int  `json:"ends"`
	}) string {
		if got := Ends(nil, c.Text); !slices.Equal(got, c.Ends) {
			return fmt.Sprintf("%q: tokens %q, want %q", c.Text, pieces(c.Text, got), pieces(c.Text, c.Ends))
		}
		if n := Count(c.Text); n != len(c.Ends) {
			return fmt.Sprintf("%q: Count %d, want %d", c.Text, n, len(c.Ends))
		}
		return ""
	})
}

// pattern is o200k_base's pre-tokenizer pattern as tiktoken writes it.
const pattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// oracle is the pattern run by regexp2's interpreting engine, which backtracks as tiktoken's
// engine does (the options keep it off the generated matcher that tiktoken-go registers).
var oracle = regexp2.MustCompile(pattern, regexp2.Unicode)

func oraclePieces(s string) []string {
	var out []string
	m, err := oracle.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = oracle.FindNextMatch(m) {
		out = append(out, m.String())
	}
	return out
}

func ourPieces(s string) []string {
	var out []string
	for start := 0; start < len(s); {
		end := nextPiece(s, start)
		out = append(out, s[start:end])
		start = end
	}
	return out
}

// FuzzPieces: the pre-tokenizer cuts any valid text where the pattern does, and the tokens of
// the byte-pair merge tile it, each one in the vocabulary.
func FuzzPieces(f *testing.F) {
	for _, s := range []string{"hello world", "\n\n  \n", "^~  Z\n\n  \n", "a\x7fb", "I'M ſ'ſ", "\u0301a", "ǅǈ'LL",
		" //\n/", "12345", "٣٣٣٣", "  \t", "\u3000x", "A\u0301b'Re"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8Valid(s) {
			return // tiktoken takes str: valid text only
		}
		if got, want := ourPieces(s), oraclePieces(s); !slices.Equal(got, want) {
			t.Fatalf("pieces of %q = %q, want %q", s, got, want)
		}
		// The tokens tile the text, and each is in the vocabulary.
		ends := Ends(nil, s)
		if len(ends) != Count(s) || len(s) > 0 && (len(ends) == 0 || ends[len(ends)-1] != len(s)) {
			t.Fatalf("Ends(%q) = %v, Count %d: not a tiling", s, ends, Count(s))
		}
		for i, tok := range pieces(s, ends) {
			if _, ok := ranks()[tok]; !ok || tok == "" {
				t.Fatalf("token %d of %q, %q, is not in the vocabulary", i, s, tok)
			}
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\ufffd") == s }

// BenchmarkCount counts the tokens of the HotpotQA sample file (JSON lines of English paragraphs
// with some other scripts) and reports bytes/s.
func BenchmarkCount(b *testing.B) {
	text, err := os.ReadFile("../../testdata/hotpotqa/hotpotqa_sample50.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	s := string(text)
	Count("warm up") // the vocabulary is read at first use
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Count(s)
	}
}
