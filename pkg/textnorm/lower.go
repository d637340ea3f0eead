package textnorm

import (
	"unicode"
	"unicode/utf8"
)

// Lower returns s lowercased as Python 3's str.lower() does: the simple Unicode mapping for every
// code point, plus the two SpecialCasing rules Python applies, U+0130 (İ) to "i\u0307" and a
// capital sigma in final position to ς.
func Lower(s string) string {
	if isASCII(s) {
		return lowerASCII(s)
	}
	return string(AppendLower(make([]byte, 0, len(s)+4), s))
}

// AppendLower appends Lower(s) to dst and returns the extended slice.
func AppendLower(dst []byte, s string) []byte {
	return appendLowerFilter(dst, s, false)
}

// appendLowerFilter appends Lower(s) to dst, leaving out string.punctuation when dropPunct is set.
// Lowering never turns a non-ASCII code point into ASCII punctuation, so the filter can run on the
// lowered output character by character.
func appendLowerFilter(dst []byte, s string, dropPunct bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			k := asciiClass[c]
			switch {
			case dropPunct && k&classPunct != 0:
			case k&classUpper != 0:
				dst = append(dst, c+'a'-'A')
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		if 0xe3 <= c && c <= 0xe9 && i+2 < len(s) && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 {
			// U+3000–U+9FFF (CJK) have no lowercase: copy them.
			dst = append(dst, s[i:i+3]...)
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == 'İ' {
			dst = append(dst, "i\u0307"...)
		} else {
			dst = utf8.AppendRune(dst, lowerAt(s, i, r))
		}
		i += n
	}
	return dst
}

// ASCII character classes for the hot loops.
const (
	classUpper = 1 << iota
	classWord  // isalnum or '_': a word character for re's \b
	classSpace // str.isspace
	classPunct // string.punctuation
)

// asciiClass holds the classes of each ASCII byte; it is computed once and never written again.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range utf8.RuneSelf {
		r := rune(c)
		if 'A' <= r && r <= 'Z' {
			t[c] |= classUpper
		}
		if isWord(r) {
			t[c] |= classWord
		}
		if IsSpace(r) {
			t[c] |= classSpace
		}
		if IsPunct(r) {
			t[c] |= classPunct
		}
	}
	return t
}()

// lowerAt lowers the non-ASCII code point r found at byte offset i of s; İ is the caller's.
func lowerAt(s string, i int, r rune) rune {
	if r == 'Σ' {
		return sigma(s, i)
	}
	return unicodeLower(r)
}

// sigma returns the lowercase of the capital sigma at byte offset i of s.
func sigma(s string, i int) rune {
	if finalSigma(s, i) {
		return 'ς'
	}
	return 'σ'
}

// unicodeLower is the simple lowercase mapping, with a fast path for code points that have none
// below the Latin-1 supplement.
func unicodeLower(r rune) rune {
	if 0xc0 <= r && r <= 0xde && r != 0xd7 {
		return r + 0x20
	}
	if r < 0x100 || 0x3000 <= r && r < 0xa640 { // Latin-1 rest, CJK: no mapping
		return r
	}
	return unicode.ToLower(r)
}

// lowerASCII lowercases an ASCII string, returning s itself when nothing changes.
func lowerASCII(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// finalSigma reports whether the capital sigma at byte offset i of s is in the Final_Sigma
// context: a cased letter before it and none after it, skipping case-ignorable code points, as
// CPython's handle_capital_sigma decides.
func finalSigma(s string, i int) bool {
	j := i
	before := false
	for j > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		j -= n
		if !caseIgnorable(r) {
			before = cased(r)
			break
		}
	}
	if !before {
		return false
	}
	for _, r := range s[i+len("Σ"):] {
		if !caseIgnorable(r) {
			return !cased(r)
		}
	}
	return true
}

// cased reports the Unicode Cased property: Lowercase, Uppercase or titlecase letter (in Unicode
// 14.0, as CPython 3.11 has it, like caseIgnorable).
func cased(r rune) bool {
	return isLowerPy(r) || isUpperPy(r) || unicode.IsTitle(r) && !NewInUnicode15(r)
}

// caseIgnorable reports the Unicode Case_Ignorable property: nonspacing, enclosing and format
// marks, modifier letters and symbols, and the MidLetter, MidNumLet and Single_Quote characters.
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '\u00b7', '\u0387', '\u055f', '\u05f4', '\u2018', '\u2019', '\u2024',
		'\u2027', '\ufe13', '\ufe52', '\ufe55', '\uff07', '\uff0e', '\uff1a':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk) && !NewInUnicode15(r)
}
