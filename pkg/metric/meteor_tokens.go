package metric

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// tokens appends the word ids of split(lower(s)) to sc.ids: runs of textnorm.IsSpace cut s as
// Python's str.split() does, and each token is lowercased on its own with textnorm.Lower's
// rules. That equals lowering s first: whitespace is neither cased nor case-ignorable, so
// Python's final-sigma context never crosses it, and lowering never creates or removes
// whitespace.
//
// Tokens that lowering leaves alone are interned as they are, tokens whose only changes are
// ASCII capitals are lowercased into a reused buffer, and the rest go through textnorm.Lower; a
// token already in the vocabulary costs no allocation.
func (sc *meteorScratch) tokens(s string) {
	start, upper, special := -1, false, false
	classes := runeClasses()
	for i := 0; i < len(s); {
		if class := byteClass[s[i]]; class != byteNonASCII {
			if class == byteSpace {
				if start >= 0 {
					sc.addToken(s[start:i], upper, special)
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
		if isCJK(s[i:]) {
			if start < 0 {
				start, upper, special = i, false, false
			}
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		space, changes := classes.classify(r)
		if space {
			if start >= 0 {
				sc.addToken(s[start:i], upper, special)
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
		sc.addToken(s[start:], upper, special)
	}
}

// isCJK reports whether s starts with a rune of U+4000–U+9FFF (CJK ideographs and the Yijing
// hexagrams), which is neither whitespace nor changed by lowering: a three-byte sequence with
// a lead byte E4–E9 is always valid UTF-8 if its next two bytes are continuation bytes.
//
// Note: most non-ASCII text the golden set holds is Chinese; decoding and classifying each of
// its runes took a third of tokens' time.
func isCJK(s string) bool {
	return len(s) >= 3 && 0xe4 <= s[0] && s[0] <= 0xe9 && s[1]&0xc0 == 0x80 && s[2]&0xc0 == 0x80
}

// addToken appends the word id of tok lowercased to sc.ids; upper and special say whether tok
// has ASCII capitals and whether it has anything else lowering may change.
func (sc *meteorScratch) addToken(tok string, upper, special bool) {
	if !special && len(tok) <= shortMax {
		lo, hi, h := shortKey(tok)
		id, slot := sc.short.find(lo, hi, h, len(tok))
		if id < 0 {
			id = sc.internASCII(tok, upper)
			sc.short.add(slot, lo, hi, len(tok), id)
		}
		sc.ids = append(sc.ids, id)
		return
	}
	var id int32
	switch {
	case special:
		id = sc.intern(textnorm.Lower(tok))
	default:
		id = sc.internASCII(tok, upper)
	}
	sc.ids = append(sc.ids, id)
}

// internASCII returns the word id of tok lowercased, where tok's only bytes that lowering
// changes are ASCII capitals, present if upper.
func (sc *meteorScratch) internASCII(tok string, upper bool) int32 {
	if !upper {
		return sc.intern(tok)
	}
	low := append(sc.low[:0], tok...)
	for j, c := range low {
		if 'A' <= c && c <= 'Z' {
			low[j] = c + 'a' - 'A'
		}
	}
	sc.low = low
	return sc.internBytes(low)
}

// lowerFields returns split(lower(s)) on its own, through tokens and the vocabulary.
func (sc *meteorScratch) lowerFields(s string) []string {
	sc.ids = sc.ids[:0]
	sc.tokens(s)
	toks := make([]string, len(sc.ids))
	for i, id := range sc.ids {
		toks[i] = sc.words[id].text
	}
	return toks
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
