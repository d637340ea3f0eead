package metric

import (
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// ROUGE tokens: textnorm.AppendRougeText's tokens as keys.
//
// rouge-score's tokens are the runs of [a-z0-9] in the lowercased text. A token of at most seven
// bytes is keyed (see tokenKey) from one eight-byte load of the text, lowered by setting bit 0x20
// (which digits have already), and is not copied; a longer one is lowered into s.buf and listed
// in s.longs. Of all non-ASCII code points only two lower to text holding ASCII letters or digits
// (TestRougeEveryRune checks every code point): the Kelvin sign to "k", which joins the run it is
// in, and U+0130 (İ) to "i" and U+0307, which ends it. Every other non-ASCII byte separates
// tokens, so non-ASCII text is neither decoded nor lowered, and runs of it are skipped eight
// bytes at a time.
//
// Note: it repeats textnorm.AppendRougeText, which lowers the whole text (with AppendLower when
// it is not ASCII) and filters it, as bleuTokens repeats BLEU's tokenizer; FuzzRougeTokens and
// TestRougeEveryRune hold the two together. Rejected: cutting the keys from AppendRougeText's
// output, which writes every byte and reads it again (ROUGE then ran 30% more instructions a
// pass over the golden corpus, half of whose bytes are not ASCII), and from a variant of it that
// skipped non-ASCII text without lowering it and listed the token ends (13% more).

// rougeTokens appends the keys of str's tokens to dst, and lists its long tokens in s.longs.
func (s *scratch) rougeTokens(dst []uint64, str string) []uint64 {
	s.buf = slices.Grow(s.buf, len(str)+8) // room to store eight bytes past the tokens
	s.longs = s.longs[:0]
	for i := 0; i < len(str); {
		var w uint64
		if i+8 <= len(str) {
			w = load64(str, i)
		} else {
			w = loadTail(str, i)
		}
		n := textnorm.ASCIIWordPrefix(w)
		if n < 8 {
			// The common case: a short token, or none, then a byte that ends it (a zero byte
			// past the end of str).
			if next := byte(w >> (8 * n)); next != 0xe2 && next != 0xc4 {
				if n > 0 {
					dst = append(dst, (w|0x2020202020202020)&(1<<(8*n)-1)|uint64(n)<<56) // tokenKey
				}
				if i += n + 1; next >= utf8.RuneSelf {
					i = skipRougeOther(str, i)
				}
				continue
			}
		}
		if n == 0 && !rougeSpecial(str, i) {
			i = skipRougeOther(str, i+1)
			continue
		}
		dst, i = s.rougeToken(dst, str, i) // long, or with a Kelvin sign or an İ
	}
	return dst
}

// rougeToken appends the key of the token at str[i:] to dst, lowering it into s.buf and listing
// it in s.longs if it is long, and returns where it ends.
func (s *scratch) rougeToken(dst []uint64, str string, i int) ([]uint64, int) {
	buf := s.buf
	start := len(buf)
loop:
	for i < len(str) {
		buf, i, _ = textnorm.CopyLowerWord(buf, str, i)
		if i == len(str) {
			break
		}
		switch c := str[i]; {
		case rougeByte(c):
			buf = append(buf, c|0x20)
			i++
		case c == 0xe2 && strings.HasPrefix(str[i:], "\u212a"):
			buf = append(buf, 'k')
			i += len("\u212a")
		case c == 0xc4 && strings.HasPrefix(str[i:], "\u0130"):
			buf = append(buf, 'i')
			i += len("\u0130")
			break loop // U+0307 follows
		default:
			break loop
		}
	}
	key := tokenKey(buf[start:])
	if key&longKey != 0 {
		s.longs = append(s.longs, span{int32(start), int32(len(buf)), key})
	} else {
		buf = buf[:start]
	}
	s.buf = buf
	return append(dst, key), i
}

// rougeSpecial reports whether str[i:] starts with the Kelvin sign or U+0130.
func rougeSpecial(str string, i int) bool {
	if i >= len(str) {
		return false
	}
	switch str[i] {
	case 0xe2:
		return strings.HasPrefix(str[i:], "\u212a")
	case 0xc4:
		return strings.HasPrefix(str[i:], "\u0130")
	}
	return false
}

// rougeByte reports whether c is an ASCII letter or digit.
func rougeByte(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
}

// rougeWordMask sets the high bit of each byte of w that is an ASCII letter or digit.
func rougeWordMask(w uint64) uint64 {
	x := w &^ laneHigh
	return (laneBetween(x|0x2020202020202020, 'a', 'z') | laneBetween(x, '0', '9')) &^ w
}

// skipRougeOther returns the offset of the first byte at or after str[i] that is an ASCII letter
// or digit, or the lead byte of the Kelvin sign or of U+0130, or len(str).
func skipRougeOther(str string, i int) int {
	for ; i+8 <= len(str); i += 8 {
		w := load64(str, i)
		// A zero byte of w^(c·laneOnes) is a byte equal to c. The test may also flag bytes above
		// a zero byte, never below one, so the lowest flag is exact.
		e2, c4 := w^laneOnes*0xe2, w^laneOnes*0xc4
		if m := rougeWordMask(w) | (e2-laneOnes)&^e2&laneHigh | (c4-laneOnes)&^c4&laneHigh; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(str) && !rougeByte(str[i]) && str[i] != 0xe2 && str[i] != 0xc4 {
		i++
	}
	return i
}

// loadTail returns the bytes of str from i, fewer than eight, as a little-endian word.
func loadTail(str string, i int) uint64 {
	if len(str) >= 8 {
		return load64(str, len(str)-8) >> (8 * (i + 8 - len(str)))
	}
	var w uint64
	for j := len(str) - 1; j >= i; j-- {
		w = w<<8 | uint64(str[j])
	}
	return w
}
