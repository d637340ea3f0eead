package metric

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// checkRougeTokens holds s.rougeTokens to textnorm.AppendRougeText on str: the same tokens as
// keys, and the long ones' bytes in s.longs. ref is a buffer to reuse; it returns it.
func checkRougeTokens(t *testing.T, s *scratch, ref []byte, str string) []byte {
	t.Helper()
	s.reset()
	s.words = s.rougeTokens(s.words[:0], str)
	ref = textnorm.AppendRougeText(ref[:0], str)
	k, long := 0, 0
	for tok := range bytes.SplitSeq(bytes.TrimSuffix(ref, []byte(" ")), []byte(" ")) {
		if len(tok) == 0 {
			continue // no tokens at all
		}
		if k >= len(s.words) || s.words[k] != tokenKey(tok) {
			t.Fatalf("rougeTokens(%q) = %x, want the keys of %q", str, s.words, ref)
		}
		if len(tok) > 7 {
			if sp := s.longs[long]; string(s.buf[sp.start:sp.end]) != string(tok) || sp.key != s.words[k] {
				t.Fatalf("rougeTokens(%q): long token %d is %q, want %q", str, long, s.buf[sp.start:sp.end], tok)
			}
			long++
		}
		k++
	}
	if k != len(s.words) || long != len(s.longs) {
		t.Fatalf("rougeTokens(%q) = %x with %d long, want the keys of %q", str, s.words, len(s.longs), ref)
	}
	return ref
}

// TestRougeEveryRune checks rougeTokens for every non-ASCII code point before a token, inside a
// short one and after a long one: rougeTokens relies on only the Kelvin sign and U+0130 lowering to ASCII
// letters or digits.
func TestRougeEveryRune(t *testing.T) {
	s := new(scratch)
	var ref []byte
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		c := string(r)
		for _, str := range []string{c + "b", "a" + c + "b", "abcdefgh" + c + "i"} {
			ref = checkRougeTokens(t, s, ref, str)
		}
	}
}

func FuzzRougeTokens(f *testing.F) {
	for _, str := range []string{"The Denver Broncos!", "a b c d", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
		"x--y__z", "Beyoncé", "İ 2008", "12345678 abcdefgh.", " \t\n", "Z@[`{0/9:", "o\u212aay xİy",
		"\xe2\x84", "\xc4", "北京 2008 年", "abcdefgh\u212aijk İİ\u212a\u212a", "—“quoted”—"} {
		f.Add(str)
	}
	for _, p := range seedPairs(f, "testdata/rouge_random.jsonl", 150) {
		f.Add(p.Prediction)
		f.Add(p.References[0])
	}
	s := new(scratch)
	f.Fuzz(func(t *testing.T, str string) {
		checkRougeTokens(t, s, nil, str)
	})
}
