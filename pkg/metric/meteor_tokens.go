package metric

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// tokens returns split(lower(s)) in buf's array: runs of textnorm.IsSpace cut s as Python's
// str.split() does, and each token is lowercased on its own with textnorm.Lower's rules. That
// equals lowering s first: whitespace is neither cased nor case-ignorable, so Python's
// final-sigma context never crosses it, and lowering never creates or removes whitespace.
//
// Tokens that lowering leaves alone are substrings of s; tokens whose only changes are ASCII
// capitals share one allocation per call; the rest go through textnorm.Lower.
func (sc *meteorScratch) tokens(buf []string, s string) []string {
	buf = buf[:0]
	sc.arena, sc.pending = sc.arena[:0], sc.pending[:0]
	start, upper, special := -1, false, false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			class := asciiClass[c]
			if class == asciiSpace {
				if start >= 0 {
					buf = append(buf, sc.lowerToken(s[start:i], len(buf), upper, special))
					start = -1
				}
			} else {
				if start < 0 {
					start, upper, special = i, false, false
				}
				upper = upper || class == asciiUpper
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if textnorm.IsSpace(r) {
			if start >= 0 {
				buf = append(buf, sc.lowerToken(s[start:i], len(buf), upper, special))
				start = -1
			}
		} else {
			if start < 0 {
				start, upper, special = i, false, false
			}
			special = special || lowerChanges(r) || size == 1 // textnorm.Lower turns bad UTF-8 into U+FFFD
		}
		i += size
	}
	if start >= 0 {
		buf = append(buf, sc.lowerToken(s[start:], len(buf), upper, special))
	}
	if len(sc.pending) > 0 {
		low := string(sc.arena)
		for _, p := range sc.pending {
			buf[p[0]] = low[p[1]:p[2]]
		}
	}
	return buf
}

// lowerToken returns tok lowercased, or tok when only ASCII capitals change: those are copied
// lowercased to the arena and the token index is recorded so tokens can patch it.
func (sc *meteorScratch) lowerToken(tok string, index int, upper, special bool) string {
	switch {
	case special:
		return textnorm.Lower(tok)
	case upper:
		sc.pending = append(sc.pending, [3]int32{int32(index), int32(len(sc.arena)), int32(len(sc.arena) + len(tok))})
		for j := 0; j < len(tok); j++ {
			c := tok[j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			sc.arena = append(sc.arena, c)
		}
	}
	return tok
}

// ASCII character classes for tokens.
const (
	asciiOther = iota
	asciiSpace // cut by Python's str.split()
	asciiUpper // A-Z
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		switch {
		case textnorm.IsSpace(r):
			t[r] = asciiSpace
		case 'A' <= r && r <= 'Z':
			t[r] = asciiUpper
		}
	}
	return t
}()

var (
	bmpLowerOnce sync.Once
	bmpLower     []uint64 // bit r set when lowering changes the BMP rune r
)

// lowerChanges reports whether textnorm.Lower may change the non-ASCII rune r. It is exact in
// the Basic Multilingual Plane (a bitmap of unicode.ToLower built on first use; U+0130 and Σ,
// which textnorm.Lower special-cases, are changed by it too) and conservative above it.
func lowerChanges(r rune) bool {
	if r > 0xffff {
		return true
	}
	bmpLowerOnce.Do(func() {
		bmpLower = make([]uint64, 0x10000/64)
		for c := range rune(0x10000) {
			if unicode.ToLower(c) != c {
				bmpLower[c/64] |= 1 << (c % 64)
			}
		}
	})
	return bmpLower[r/64]&(1<<(r%64)) != 0
}
