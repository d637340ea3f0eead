package textnorm

import (
	"slices"
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

// newInUnicode15 holds every code point that Go's Unicode 15.0 tables assign and Unicode 14.0, the
// version CPython 3.11 uses, does not (Kawi, Nag Mundari, CJK Extension H, new emoji, ...): for
// Python they are unassigned (category Cn), so neither alphanumeric, digits nor printable.
// Computed from CPython 3.11 over every code point (4,489 of them; none the other way round), and
// checked along with Lower and IsSpace.
var newInUnicode15 = &unicode.RangeTable{R16: []unicode.Range16{
	{0xcf3, 0xcf3, 1}, {0xece, 0xece, 1},
}, R32: []unicode.Range32{
	{0x10efd, 0x10eff, 1}, {0x1123f, 0x11241, 1}, {0x11b00, 0x11b09, 1}, {0x11f00, 0x11f10, 1},
	{0x11f12, 0x11f3a, 1}, {0x11f3e, 0x11f59, 1}, {0x1342f, 0x1342f, 1}, {0x13439, 0x13455, 1},
	{0x1b132, 0x1b132, 1}, {0x1b155, 0x1b155, 1}, {0x1d2c0, 0x1d2d3, 1}, {0x1df25, 0x1df2a, 1},
	{0x1e030, 0x1e06d, 1}, {0x1e08f, 0x1e08f, 1}, {0x1e4d0, 0x1e4f9, 1}, {0x1f6dc, 0x1f6dc, 1},
	{0x1f774, 0x1f776, 1}, {0x1f77b, 0x1f77f, 1}, {0x1f7d9, 0x1f7d9, 1}, {0x1fa75, 0x1fa77, 1},
	{0x1fa87, 0x1fa88, 1}, {0x1faad, 0x1faaf, 1}, {0x1fabb, 0x1fabd, 1}, {0x1fabf, 0x1fabf, 1},
	{0x1face, 0x1facf, 1}, {0x1fada, 0x1fadb, 1}, {0x1fae8, 0x1fae8, 1}, {0x1faf7, 0x1faf8, 1},
	{0x2b739, 0x2b739, 1}, {0x31350, 0x323af, 1},
}}

// NewInUnicode15 reports whether r is assigned in Go's Unicode tables (15.0) but not in Unicode
// 14.0, the version of CPython 3.11, the reference interpreter of the golden outputs: Python
// treats such a code point as unassigned (Cn).
func NewInUnicode15(r rune) bool { return unicode.Is(newInUnicode15, r) }

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

// appendSplit appends the fields of s, split as Python's str.split() does, to dst. When dst may
// lack room for the fields of a long s, they are counted first, so dst grows once rather than
// by a quarter at a time, each step copying every field so far.
func appendSplit(dst []string, s string) []string {
	if len(s) >= 1024 && cap(dst)-len(dst) < (len(s)+1)/2 {
		dst = slices.Grow(dst, countFields(s))
	}
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

// countFields returns the number of fields appendSplit finds in s.
func countFields(s string) int {
	n, inField := 0, false
	for i := 0; i < len(s); {
		r, k := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, k = utf8.DecodeRuneInString(s[i:])
		}
		space := IsSpace(r)
		if !space && !inField {
			n++
		}
		inField = !space
		i += k
	}
	return n
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
