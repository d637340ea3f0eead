package textnorm

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// checkSquadTokens fails unless AppendSquadTokens agrees with AppendSquadNormalized on s, with the
// word ends where the normal form's spaces are, appending after prefix.
func checkSquadTokens(t *testing.T, prefix, s string) {
	t.Helper()
	want := AppendSquadNormalized([]byte(prefix), s)
	got, ends := AppendSquadTokens([]byte(prefix), []int32{-7}, s)
	if string(got) != string(want) {
		t.Fatalf("AppendSquadTokens(%q, %q) = %q, want %q", prefix, s, got, want)
	}
	wantEnds := []int32{-7}
	if norm := want[len(prefix):]; len(norm) > 0 {
		for i, c := range norm {
			if c == ' ' {
				wantEnds = append(wantEnds, int32(len(prefix)+i))
			}
		}
		wantEnds = append(wantEnds, int32(len(want)))
	}
	if !slices.Equal(ends, wantEnds) {
		t.Fatalf("AppendSquadTokens(%q, %q) ends = %v, want %v (normal form %q)", prefix, s, ends, wantEnds, want)
	}
}

func TestAppendSquadTokens(t *testing.T) {
	for _, s := range []string{
		"The Denver Broncos!", "an apple, a pear and the plum", "theater anarchy", "t.h.e end", "a-b",
		"éa", "é a", "日本a", "¿a?", "a\u0301", "x\u001cy", "  THE  ", "İ", "a_b", "", "the、a。an",
		"a€b", "€a€", "\u2019the\u2019s", "x\u0001the\u0001", "ΟΔΟΣ ΑΣ.", "\xff\xfe a", "\xe4\xb8", "a\xe4\xb8\x80",
		"\xed\xa0\x80", "\xe0\x80\x80", "THE\u3000AN\u00a0A", "日本、東京。the end", "İa İ",
		"Pizzazz and quizzes: zzzzzzzzzz ZZZZZZZZZ", "a\u4dc0 \u4dc0the \u4dbfan", "\ua640a \ua641 an\ua640",
		"\ua700the \ua720a \ua78bx",
	} {
		for _, prefix := range []string{"", "x"} {
			checkSquadTokens(t, prefix, s)
		}
	}
}

// squadAlphabet holds the characters that steer the normaliser: articles' letters, punctuation,
// Python-only whitespace, kept symbols, marks, special lowercase cases, CJK and invalid bytes.
var squadAlphabet = []string{
	"a", "n", "t", "h", "e", "A", "N", "T", "H", "E", "x", "7", " ", "\t", ".", "-", "_", "'",
	"\u001c", "\u0001", "\u00a0", "\u3000", "\u200b", "€", "\u2019", "、", "。", "日", "本", "é",
	"\u0301", "İ", "Σ", "Ο", "Ⱥ", "\xff", "\xe4", "\xb8", "\x80", "\xed\xa0\x80",
}

func TestAppendSquadTokensRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range 20000 {
		b.Reset()
		for range rng.IntN(16) {
			b.WriteString(squadAlphabet[rng.IntN(len(squadAlphabet))])
		}
		checkSquadTokens(t, "", b.String())
	}
}

// TestAppendSquadTokensLong checks long texts, mostly ASCII words so that runs of letters cross
// the eight-byte words the ASCII path copies, with the rare character that leaves that path.
func TestAppendSquadTokensLong(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ascii := []string{"the", "a", "an", "The", "AN", "Denver", "Broncos", "x", "1998", "supercalifragilistic",
		" ", " ", " ", "  ", "\t", ".", ",", "'", "-", "\"", "_", "t.he", "a,n", "\u001c"}
	var b strings.Builder
	for range 3000 {
		b.Reset()
		for range rng.IntN(120) {
			if rng.IntN(25) == 0 {
				b.WriteString(squadAlphabet[rng.IntN(len(squadAlphabet))])
				continue
			}
			b.WriteString(ascii[rng.IntN(len(ascii))])
		}
		checkSquadTokens(t, "", b.String())
		checkSquadTokens(t, "y", b.String())
	}
}

func FuzzAppendSquadTokens(f *testing.F) {
	for _, s := range []string{"The Denver Broncos!", "ΟΔΟΣ", "İ", "x\u001cy", "éa", "t.h.e", "a\u0301", "\xff", "the、a。an", "a€the b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSquadTokens(t, "", s)
		checkSquadTokens(t, "pre", s)
	})
}

// TestLowerCJK backs Lower's copying of U+3000–U+9FFF: none of them has a lowercase mapping, and
// Lower agrees with lowering code point by code point around them.
func TestLowerCJK(t *testing.T) {
	for r := rune(0x3000); r <= 0x9fff; r++ {
		if l := unicode.ToLower(r); l != r {
			t.Fatalf("unicode.ToLower(%U) = %U, want it unchanged", r, l)
		}
	}
	for _, s := range []string{"日本ΑΣ", "ΑΣ日本", "Σ、", "A\u3000Σ", "東京İ", "\xe3\x80", "\xe9\xbf\xbf"} {
		var want []rune
		for i, r := range s {
			switch r {
			case 'İ':
				want = append(want, 'i', '\u0307')
			case 'Σ':
				want = append(want, sigma(s, i))
			default:
				want = append(want, unicode.ToLower(r))
			}
		}
		if got := Lower(s); got != string(want) {
			t.Errorf("Lower(%q) = %q, want %q", s, got, string(want))
		}
	}
}
