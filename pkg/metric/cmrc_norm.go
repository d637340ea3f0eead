package metric

import (
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// cmrcNorm is lower(s).strip() as the script computes it.
func cmrcNorm(s string) string {
	if !caseless(s) {
		s = textnorm.Lower(s)
	}
	return cmrcStrip(s)
}

// cmrcStrip is textnorm.Strip with a shortcut for the common case of text that starts and ends
// with a character that cannot be whitespace: ASCII other than spaces and controls, or a
// multi-byte character whose lead byte no Python whitespace character has (C2, E1, E2, E3).
func cmrcStrip(s string) string {
	if s == "" {
		return s
	}
	first, last := s[0], s[len(s)-1]
	if last >= utf8.RuneSelf {
		for i := len(s) - 1; i >= 0 && i >= len(s)-4; i-- {
			if last = s[i]; last >= 0xc0 || last < 0x80 {
				break
			}
		}
	}
	if solid(first) && solid(last) {
		return s
	}
	return textnorm.Strip(s)
}

// solid reports whether a character starting with byte c is certainly not Python whitespace.
func solid(c byte) bool {
	if c < utf8.RuneSelf {
		return c > ' '
	}
	return c != 0xc2 && c != 0xe1 && c != 0xe2 && c != 0xe3
}

// caseless reports whether Python's lower() leaves s unchanged because every character is a
// lowercase ASCII letter, a non-letter ASCII character, or in a block without case mappings
// (general punctuation, CJK symbols and ideographs, kana, Yi, full-width punctuation). Answers
// are mostly such text; anything else goes through textnorm.Lower.
func caseless(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < utf8.RuneSelf:
			if 'A' <= c && c <= 'Z' {
				return false
			}
		case 0xe3 <= c && c <= 0xe9, c < 0xc0:
			// U+3000–U+9FFF, or a continuation byte.
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !caselessRune(r) {
				return false
			}
			i += n - 1
		}
	}
	return true
}

// caselessRune covers the non-ASCII ranges caseless accepts; TestCaselessRune checks them.
func caselessRune(r rune) bool {
	return 0x2000 <= r && r <= 0x206f || 0x2e80 <= r && r <= 0xa63f ||
		0xff01 <= r && r <= 0xff20 || 0xff3b <= r && r <= 0xff40 || 0xff5b <= r && r <= 0xffef
}

// cmrcNext returns the next character of s at or after i that is not punctuation, as the byte
// range [i, i+n), with n == 0 at the end; cased reports a character caseless would reject.
func cmrcNext(s string, i int) (start, n int, cased bool) {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if !cmrcPunct(rune(c)) {
				return i, 1, 'A' <= c && c <= 'Z'
			}
			i++
			continue
		}
		var r rune
		var n int
		if 0xe1 <= c && c <= 0xef && c != 0xed && i+2 < len(s) && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 {
			r, n = rune(c&0x0f)<<12|rune(s[i+1]&0x3f)<<6|rune(s[i+2]&0x3f), 3 // a three-byte sequence, decoded inline
		} else {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if !cmrcPunct(r) {
			return i, n, !cmrcHan(r) && !caselessRune(r)
		}
		i += n
	}
	return i, 0, false
}

// cmrcEqual reports whether remove_punctuation(a) == remove_punctuation(b) for stripped a and b
// that are not yet lowercased. It compares character by character, skipping punctuation, and
// answers only while every character seen is caseless; otherwise it lowercases both and
// compares again. A mismatch between two caseless characters is final, since lowercasing the
// rest cannot change them.
func cmrcEqual(a, b string) bool {
	i, j := 0, 0
	for {
		i0, na, ca := cmrcNext(a, i)
		j0, nb, cb := cmrcNext(b, j)
		if ca || cb {
			return cmrcCleanEqual(cmrcNorm(a), cmrcNorm(b))
		}
		if na == 0 || nb == 0 {
			return na == nb
		}
		if a[i0:i0+na] != b[j0:j0+nb] {
			return false
		}
		i, j = i0+na, j0+nb
	}
}

// cmrcCleanEqual reports whether remove_punctuation(a) == remove_punctuation(b) for normalised
// a and b.
func cmrcCleanEqual(a, b string) bool {
	i, j := 0, 0
	for {
		i0, na, _ := cmrcNext(a, i)
		j0, nb, _ := cmrcNext(b, j)
		if na == 0 || nb == 0 {
			return na == nb
		}
		if a[i0:i0+na] != b[j0:j0+nb] {
			return false
		}
		i, j = i0+na, j0+nb
	}
}
