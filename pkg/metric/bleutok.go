package metric

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// BLEU tokens: split(lower(text)) interned by key.
//
// Tokens are lowered into s.buf, which keeps every token of the call so that a long token's
// bytes can confirm a key match, and interned through s.tokIDs, a key → id table: dense ids in
// order of first appearance. ASCII text is lowered and cut eight bytes at a time.

// Eight-byte lanes for the SWAR scans.
const (
	laneOnes = 0x0101010101010101
	laneHigh = 0x8080808080808080
)

// laneBetween sets the high bit of each byte of x (all below 0x80) that lies in [lo, hi].
func laneBetween(x uint64, lo, hi byte) uint64 {
	return (x + laneOnes*uint64(0x80-lo)) &^ (x + laneOnes*uint64(0x7f-hi)) & laneHigh
}

// bleuInternStart empties the token table, sized for the tokens of texts totalling n bytes.
func (s *scratch) bleuInternStart(n int) {
	s.tokIDs.reset(n/2 + 1)
	s.idToks = s.idToks[:0]
}

// bleuTokens appends the ids of split(lower(str)) to dst. It reports false if two different
// tokens share a key; then the ids are unusable and the caller interns by bytes instead.
func (s *scratch) bleuTokens(dst []int32, str string) ([]int32, bool) {
	if !isASCIIString(str) {
		return s.bleuTokensUnicode(dst, str)
	}
	buf := slices.Grow(s.buf, len(str)+8) // room to store eight bytes past the tokens
	ok := true
	for i := 0; i < len(str); {
		c := str[i]
		if bleuSpace[c] {
			i++
			continue
		}
		start := len(buf)
		for {
			// Copy lowered bytes up to the next one below '!', which may be whitespace.
			for i+8 <= len(str) {
				w := load64(str, i)
				low := laneBetween(w, 0, ' ')
				n := bits.TrailingZeros64(low) / 8
				m := len(buf)
				binary.LittleEndian.PutUint64(buf[m:m+8], w|laneBetween(w, 'A', 'Z')>>2)
				buf = buf[:m+n]
				if i += n; n < 8 {
					break
				}
			}
			for i < len(str) && str[i] > ' ' {
				c := str[i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf = append(buf, c)
				i++
			}
			if i == len(str) || bleuSpace[str[i]] {
				break
			}
			buf = append(buf, str[i]) // a control character that is no whitespace
			i++
		}
		var id int32
		if id, ok = s.internKey(buf, start, len(buf)); !ok {
			break
		}
		dst = append(dst, id)
	}
	s.buf = buf
	return dst, ok
}

// bleuTokensUnicode is bleuTokens for text with non-ASCII characters.
func (s *scratch) bleuTokensUnicode(dst []int32, str string) ([]int32, bool) {
	low := len(s.buf)
	s.buf = textnorm.AppendLower(s.buf, str)
	end := len(s.buf)
	for i := low; i < end; {
		// Skip whitespace, then find the token's end.
		if sp, n := bleuSpaceAt(s.buf[i:end]); sp {
			i += n
			continue
		}
		tok := i
		for i++; i < end; i++ {
			if k := bleuByte[s.buf[i]]; k == bleuSpaceByte || k == bleuLeadByte && bleuSpaceStart(s.buf[i:end]) {
				break
			}
		}
		id, ok := s.internKey(s.buf, tok, i)
		if !ok {
			return dst, false
		}
		dst = append(dst, id)
	}
	return dst, true
}

// internKey returns the id of the token buf[start:end], which must stay in s.buf; it reports
// false if a different token has the same key.
func (s *scratch) internKey(buf []byte, start, end int) (int32, bool) {
	tok := buf[start:end]
	key := tokenKey(tok)
	id, isNew := s.tokIDs.insert(key, int32(len(s.idToks)))
	if isNew {
		s.idToks = append(s.idToks, span{int32(start), int32(end), key})
		return id, true
	}
	if key&longKey != 0 {
		first := s.idToks[id]
		return id, string(buf[first.start:first.end]) == string(tok)
	}
	return id, true
}

// bleuSpace marks the ASCII bytes Python's str.split cuts at; it is never written after init.
var bleuSpace = func() (t [256]bool) {
	for c := range 0x80 {
		t[c] = textnorm.IsSpace(rune(c))
	}
	return t
}()

// load64 returns s[i:i+8] as a little-endian word.
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// bleuSpaceAt reports whether the lowered text b starts with Python whitespace, and the length of
// that first character, or of its first byte when it is no whitespace: the lead bytes of
// non-ASCII whitespace are 0xC2 (U+0085, U+00A0), 0xE1 (U+1680), 0xE2 (U+2000–U+205F) and 0xE3
// (U+3000), so other bytes need no decoding.
func bleuSpaceAt(b []byte) (bool, int) {
	switch bleuByte[b[0]] {
	case bleuLeadByte:
		r, n := utf8.DecodeRune(b)
		if textnorm.IsSpace(r) {
			return true, n
		}
		return false, 1
	case bleuSpaceByte:
		return true, 1
	}
	return false, 1
}

// bleuSpaceStart reports whether b starts with Python whitespace.
func bleuSpaceStart(b []byte) bool {
	sp, _ := bleuSpaceAt(b)
	return sp
}

// Byte classes in lowered text: part of a token, ASCII whitespace, or the lead byte of a
// sequence that may be whitespace.
const (
	bleuTokenByte = iota
	bleuSpaceByte
	bleuLeadByte
)

// bleuByte classifies bytes for bleuTokensUnicode; it is never written after init.
var bleuByte = func() (t [256]uint8) {
	for c := range 0x80 {
		if textnorm.IsSpace(rune(c)) {
			t[c] = bleuSpaceByte
		}
	}
	for _, c := range []byte{0xc2, 0xe1, 0xe2, 0xe3} {
		t[c] = bleuLeadByte
	}
	return t
}()
