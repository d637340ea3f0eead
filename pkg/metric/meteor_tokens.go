package metric

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// tokens appends split(lower(s)) to buf: runs of textnorm.IsSpace cut s as Python's
// str.split() does, and each token is lowercased on its own with textnorm.Lower's rules. That
// equals lowering s first: whitespace is neither cased nor case-ignorable, so Python's
// final-sigma context never crosses it, and lowering never creates or removes whitespace.
//
// Tokens that lowering leaves alone are substrings of s, and the rest go through
// textnorm.Lower, except tokens whose only changes are ASCII capitals: their lowercase copies
// are collected in sc.arena and written into buf by patch, one allocation for all strings of a
// METEOR call.
func (sc *meteorScratch) tokens(buf []string, s string) []string {
	start, upper, special := -1, false, false
	classes := runeClasses()
	for i := 0; i < len(s); {
		if class := byteClass[s[i]]; class != byteNonASCII {
			if class == byteSpace {
				if start >= 0 {
					buf = sc.appendToken(buf, s[start:i], upper, special)
					start = -1
				}
				i++
				continue
			}
			if start < 0 {
				start, upper, special = i, false, false
			}
			// Scan the ASCII run of the token in one tight loop.
			var seen uint8
			for ; i < len(s); i++ {
				class := byteClass[s[i]]
				if class&(byteSpace|byteNonASCII) != 0 {
					break
				}
				seen |= class
			}
			upper = upper || seen&byteUpper != 0
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		space, changes := classes.classify(r)
		if space {
			if start >= 0 {
				buf = sc.appendToken(buf, s[start:i], upper, special)
				start = -1
			}
		} else {
			if start < 0 {
				start, upper, special = i, false, false
			}
			special = special || changes || size == 1 // textnorm.Lower turns bad UTF-8 into U+FFFD
		}
		i += size
	}
	if start >= 0 {
		buf = sc.appendToken(buf, s[start:], upper, special)
	}
	return buf
}

// patch writes the lowercased copies of the tokens left in sc.arena by tokens into buf and
// empties the arena.
func (sc *meteorScratch) patch(buf []string) {
	if len(sc.pending) > 0 {
		low := string(sc.arena)
		for _, p := range sc.pending {
			buf[p[0]] = low[p[1]:p[2]]
		}
	}
	sc.arena, sc.pending = sc.arena[:0], sc.pending[:0]
}

// lowerFields returns split(lower(s)) on its own: tokens followed by patch.
func (sc *meteorScratch) lowerFields(s string) []string {
	toks := sc.tokens(nil, s)
	sc.patch(toks)
	return toks
}

// appendToken appends tok, lowercased or to be patched, to buf.
func (sc *meteorScratch) appendToken(buf []string, tok string, upper, special bool) []string {
	if upper || special {
		tok = sc.lowerToken(tok, len(buf), upper, special)
	}
	return append(buf, tok)
}

// lowerToken returns tok lowercased, or tok when only ASCII capitals change: those are copied
// lowercased to the arena and the token's index in buf is recorded for patch.
func (sc *meteorScratch) lowerToken(tok string, index int, upper, special bool) string {
	switch {
	case special:
		return textnorm.Lower(tok)
	case upper:
		n := len(sc.arena)
		sc.pending = append(sc.pending, [3]int32{int32(index), int32(n), int32(n + len(tok))})
		sc.arena = append(sc.arena, tok...)
		low := sc.arena[n:]
		for j, c := range low {
			if 'A' <= c && c <= 'Z' {
				low[j] = c + 'a' - 'A'
			}
		}
	}
	return tok
}

// Byte classes for tokens: bit flags so that a run can be scanned with one test per byte; other
// bytes are 0.
const (
	byteSpace    = 1 << iota // ASCII cut by Python's str.split()
	byteUpper                // A-Z
	byteNonASCII             // a byte of a multi-byte UTF-8 sequence
)

var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= utf8.RuneSelf:
			t[c] = byteNonASCII
		case textnorm.IsSpace(rune(c)):
			t[c] = byteSpace
		case 'A' <= c && c <= 'Z':
			t[c] = byteUpper
		}
	}
	return t
}()

// bmpClasses marks, for every rune of the Basic Multilingual Plane, whether str.split() cuts on
// it and whether textnorm.Lower may change it (unicode.ToLower does, which covers the U+0130
// and Σ special cases too).
type bmpClasses struct{ space, lower [0x10000 / 64]uint64 }

// runeClasses returns the BMP class bitmaps, built on first use and immutable after.
var runeClasses = sync.OnceValue(func() *bmpClasses {
	c := new(bmpClasses)
	for r := range rune(0x10000) {
		if textnorm.IsSpace(r) {
			c.space[r/64] |= 1 << (r % 64)
		}
		if unicode.ToLower(r) != r {
			c.lower[r/64] |= 1 << (r % 64)
		}
	}
	return c
})

// classify returns whether the non-ASCII rune r is whitespace and whether lowering may change
// it; above the BMP the second answer is conservatively yes.
func (c *bmpClasses) classify(r rune) (space, lower bool) {
	if r > 0xffff {
		return textnorm.IsSpace(r), true
	}
	bit := uint64(1) << (r % 64)
	return c.space[r/64]&bit != 0, c.lower[r/64]&bit != 0
}
