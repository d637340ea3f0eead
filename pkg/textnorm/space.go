package textnorm

import (
	"unicode"
	"unicode/utf8"
)

// IsSpace reports whether r is whitespace for Python's str.isspace(): the characters str.split()
// and str.strip() cut on. Unlike unicode.IsSpace it includes U+001C–U+001F; like it, it excludes
// U+200B, U+180E and U+FEFF.
func IsSpace(r rune) bool {
	switch {
	case r <= 0x20:
		return r == ' ' || '\t' <= r && r <= '\r' || 0x1c <= r && r <= 0x1f
	case r < 0x85:
		return false
	case r == 0x85, r == 0xa0, r == 0x1680, 0x2000 <= r && r <= 0x200a, r == 0x2028, r == 0x2029,
		r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}

// IsAlnum reports whether r is a word character for Python's Unicode str.isalnum(): a letter
// (L*) or a number (N*). Python's re \w and \b use it, plus '_'.
func IsAlnum(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	if 0x4e00 <= r && r <= 0x9fff || 0xac00 <= r && r <= 0xd7a3 { // CJK ideographs, Hangul
		return true
	}
	return (unicode.IsLetter(r) || unicode.IsNumber(r)) && !unicode.Is(newInUnicode15, r)
}

// newInUnicode15 holds the letters and numbers of Go's Unicode 15.0 tables that Unicode 14.0, the
// version CPython 3.11 uses, does not have yet (Kawi, Nag Mundari, CJK Extension H, ...): for
// Python they are unassigned, so not alphanumeric. Checked against CPython 3.11 over every code
// point, along with Lower and IsSpace.
var newInUnicode15 = &unicode.RangeTable{R32: []unicode.Range32{
	{0x1123f, 0x11240, 1}, {0x11f02, 0x11f02, 1}, {0x11f04, 0x11f10, 1}, {0x11f12, 0x11f33, 1},
	{0x11f50, 0x11f59, 1}, {0x1342f, 0x1342f, 1}, {0x13441, 0x13446, 1}, {0x1b132, 0x1b132, 1},
	{0x1b155, 0x1b155, 1}, {0x1d2c0, 0x1d2d3, 1}, {0x1df25, 0x1df2a, 1}, {0x1e030, 0x1e06d, 1},
	{0x1e4d0, 0x1e4eb, 1}, {0x1e4f0, 0x1e4f9, 1}, {0x2b739, 0x2b739, 1}, {0x31350, 0x323af, 1},
}}

// isWord reports whether r is a word character for Python's re on str patterns.
func isWord(r rune) bool { return r == '_' || IsAlnum(r) }

// Punct is Python's string.punctuation: the 32 ASCII punctuation characters.
const Punct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// IsPunct reports whether r is in Punct.
func IsPunct(r rune) bool {
	return '!' <= r && r <= '/' || ':' <= r && r <= '@' || '[' <= r && r <= '`' || '{' <= r && r <= '~'
}

// Split splits s around runs of Python whitespace (IsSpace) and drops empty strings, as Python's
// str.split() with no arguments does.
func Split(s string) []string { return appendSplit(nil, s) }

// appendSplit appends the fields of s, split as Python's str.split() does, to dst.
func appendSplit(dst []string, s string) []string {
	start := -1
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if IsSpace(r) {
			if start >= 0 {
				dst = append(dst, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += n
	}
	if start >= 0 {
		dst = append(dst, s[start:])
	}
	return dst
}

// Strip removes leading and trailing Python whitespace, as str.strip() with no arguments does.
func Strip(s string) string {
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if !IsSpace(r) {
			break
		}
		s = s[n:]
	}
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		if !IsSpace(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}
