package metric

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// BLEU tokens: split(lower(text)) as keys.
//
// Tokens are lowered into s.buf, which keeps every token of the call, and stand for their keys
// (see tokenKey). A short token's key is its bytes, so equal keys are equal tokens; a long token's
// key is a hash, so the long tokens of a call are listed in s.longs and bleuLongsDistinct checks
// their keys against their bytes. ASCII text is lowered and cut eight bytes at a time.

// Eight-byte lanes for the SWAR scans.
const (
	laneOnes = 0x0101010101010101
	laneHigh = 0x8080808080808080
)

// laneBetween sets the high bit of each byte of x (all below 0x80) that lies in [lo, hi].
func laneBetween(x uint64, lo, hi byte) uint64 {
	return (x + laneOnes*uint64(0x80-lo)) &^ (x + laneOnes*uint64(0x7f-hi)) & laneHigh
}

// bleuTokens appends the keys of split(lower(str)) to dst, and lists its long tokens in s.longs.
//
// Python whitespace is neither cased nor case-ignorable, so it bounds the context of the final
// sigma rule: lowering each whitespace-separated token on its own is lowering the text. ASCII
// tokens are lowered eight bytes at a time, the others by textnorm.AppendLower. An ASCII token of
// at most seven bytes followed by ASCII whitespace or the end of the text, the common case, is
// keyed from one load of eight bytes without being copied; the last token of a text, the most
// common one of short answers, so no longer goes byte by byte.
//
// Note: tried and dropped after measuring: copying each text with eight spaces after it, so that
// every load stays in bounds and the text is lowered once (10% to 35% slower tokenizing long and
// non-ASCII texts); finding the end of a non-ASCII token eight bytes at a time (fewer instructions
// on Chinese text, as many more on English text with accents: no gain over a pass); and lowering
// the non-ASCII tokens whose characters have no lowercase, most Chinese ones, by copying them,
// after a check that cost as much as textnorm.AppendLower saved.
func (s *scratch) bleuTokens(dst []uint64, str string) []uint64 {
	buf := slices.Grow(s.buf, len(str)+8) // room to store eight bytes past the tokens
	for i := 0; i < len(str); {
		// The bytes past the end of the text read as zeros, which stop a token as whitespace
		// does: a token that reaches the end is keyed here too.
		var w uint64
		if i+8 <= len(str) {
			w = load64(str, i)
		} else if str[i] < utf8.RuneSelf {
			w = tailWord(str, i)
		} else {
			w = laneHigh // a non-ASCII token: read below
		}
		x := w &^ laneHigh
		n := bits.TrailingZeros64(laneBetween(x, 0, ' ')|w&laneHigh) / 8
		if n < 8 && (i+n == len(str) || bleuByte[byte(w>>(8*n))] == bleuSpaceByte) {
			if n > 0 {
				lower := w | laneBetween(x, 'A', 'Z')>>2
				dst = append(dst, lower&(1<<(8*n)-1)|uint64(n)<<56) // tokenKey
			}
			i += n + 1
			continue
		}
		if k := bleuByte[str[i]]; k == bleuSpaceByte {
			i++
			continue
		} else if k == bleuLeadByte {
			if sp, n := bleuSpaceAt(str, i); sp {
				i += n
				continue
			}
		}
		start, from, ascii := len(buf), i, true
		for i < len(str) {
			// Copy lowered bytes up to the next one that is below '!' or not ASCII.
			for i+8 <= len(str) && cap(buf)-len(buf) >= 8 {
				w := load64(str, i)
				x := w &^ laneHigh
				n := bits.TrailingZeros64(laneBetween(x, 0, ' ')|w&laneHigh) / 8
				m := len(buf)
				binary.LittleEndian.PutUint64(buf[m:m+8], w|laneBetween(x, 'A', 'Z')>>2)
				buf = buf[:m+n]
				if i += n; n < 8 {
					break
				}
			}
			if i == len(str) {
				break
			}
			c := str[i]
			switch k := bleuByte[c]; {
			case c > ' ' && c < utf8.RuneSelf:
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
			case k == bleuSpaceByte, k == bleuLeadByte && bleuSpaceStart(str, i):
				goto end
			case c >= utf8.RuneSelf:
				// Find the end of the token; textnorm.AppendLower lowers it below.
				ascii = false
				for i++; i < len(str); i++ {
					if k := bleuByte[str[i]]; k == bleuSpaceByte || k == bleuLeadByte && bleuSpaceStart(str, i) {
						break
					}
				}
				goto end
			}
			buf = append(buf, c) // a letter, or a control character that is no whitespace
			i++
		}
	end:
		if !ascii {
			buf = textnorm.AppendLower(buf[:start], str[from:i])
		}
		var key uint64
		switch n := len(buf) - start; {
		case n <= 7 && start+8 <= cap(buf):
			key = binary.LittleEndian.Uint64(buf[start:start+8])&(1<<(8*n)-1) | uint64(n)<<56 // tokenKey
		case n <= 7:
			key = tokenKey(buf[start:])
		default:
			key = hashBytes(buf[start:]) | longKey
			s.longs = append(s.longs, span{int32(start), int32(len(buf)), key})
		}
		dst = append(dst, key)
	}
	s.buf = buf
	return dst
}

// bleuLongsDistinct reports whether the long tokens listed in s.longs have equal keys only when
// they are equal, so that keys can stand for tokens.
func (s *scratch) bleuLongsDistinct() bool {
	longs := s.longs
	if len(longs) <= 32 {
		for i, a := range longs {
			for _, b := range longs[:i] {
				if a.key == b.key && string(s.buf[a.start:a.end]) != string(s.buf[b.start:b.end]) {
					return false
				}
			}
		}
		return true
	}
	s.tokIDs.reset(len(longs))
	for i, a := range longs {
		if j, isNew := s.tokIDs.insert(a.key, int32(i)); !isNew {
			if b := longs[j]; string(s.buf[a.start:a.end]) != string(s.buf[b.start:b.end]) {
				return false
			}
		}
	}
	return true
}

// tailWord returns the fewer than eight bytes of s from i on as a little-endian word, zeros above.
func tailWord(s string, i int) uint64 {
	if len(s) >= 8 {
		return load64(s, len(s)-8) >> (64 - 8*(len(s)-i))
	}
	var w uint64
	for j := len(s) - 1; j >= i; j-- {
		w = w<<8 | uint64(s[j])
	}
	return w
}

// load64 returns s[i:i+8] as a little-endian word.
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// bleuSpaceAt reports whether str[i:] starts with Python whitespace, and the length of that
// first character, or 1 when it is no whitespace: the lead bytes of non-ASCII whitespace are
// 0xC2 (U+0085, U+00A0), 0xE1 (U+1680), 0xE2 (U+2000–U+205F) and 0xE3 (U+3000), so other bytes
// need no decoding.
func bleuSpaceAt(str string, i int) (bool, int) {
	switch bleuByte[str[i]] {
	case bleuLeadByte:
		r, n := utf8.DecodeRuneInString(str[i:])
		if textnorm.IsSpace(r) {
			return true, n
		}
	case bleuSpaceByte:
		return true, 1
	}
	return false, 1
}

// bleuSpaceStart reports whether str[i:] starts with Python whitespace.
func bleuSpaceStart(str string, i int) bool {
	sp, _ := bleuSpaceAt(str, i)
	return sp
}

// Byte classes of text: part of a token, ASCII whitespace, or the lead byte of a
// sequence that may be whitespace.
const (
	bleuTokenByte = iota
	bleuSpaceByte
	bleuLeadByte
)

// bleuByte classifies bytes for bleuTokens; it is never written after init.
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

// grow doubles the table, keeping its entries. It reuses the capacity a longer text left, the
// entries moving through t.spare under a new generation.
func (t *keyTable) grow() {
	live := t.spare[:0]
	for _, sl := range t.slots {
		if sl.gen == t.gen {
			live = append(live, sl)
		}
	}
	t.spare = live
	if size := 2 * len(t.slots); cap(t.slots) >= size {
		t.slots = t.slots[:size]
	} else {
		t.slots = make([]keySlot, size)
	}
	t.shift = uint8(64 - bits.Len(uint(len(t.slots)-1)))
	t.gen++
	if t.gen == 0 {
		clear(t.slots[:cap(t.slots)])
		t.gen = 1
	}
	for _, sl := range live {
		t.insert(sl.key, sl.val)
	}
}

// keyTable maps uint64 keys to int32 values for one use: open addressing, generation-stamped
// slots so that reset costs nothing.
type keyTable struct {
	slots []keySlot // a power of two long
	shift uint8     // 64 - log2(len(slots)): home keeps the top bits of the product
	gen   uint32
	spare []keySlot // entries moving in grow
}

type keySlot struct {
	key uint64
	val int32
	gen uint32
}

// reset empties the table and makes room for n keys.
//
// A table that grew for a long text is resliced down for short ones, so that their slots stay
// in the first-level cache; slots past the length hold older generations.
func (t *keyTable) reset(n int) {
	size := 1 << bits.Len(uint(max(64, 2*n)-1))
	if c := cap(t.slots); c < size || c > 1<<16 && c > 4*size {
		t.slots = make([]keySlot, size)
		t.gen = 0
	}
	t.slots = t.slots[:size]
	t.shift = uint8(64 - bits.Len(uint(size-1)))
	t.gen++
	if t.gen == 0 {
		clear(t.slots[:cap(t.slots)])
		t.gen = 1
	}
}

func (t *keyTable) home(key uint64) uint64 {
	return (key * 0x9e3779b97f4a7c15) >> t.shift
}

// insert adds key with val unless present, and returns the value stored and whether it is new.
func (t *keyTable) insert(key uint64, val int32) (int32, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := t.home(key); ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.gen != t.gen {
			*sl = keySlot{key, val, t.gen}
			return val, true
		}
		if sl.key == key {
			return sl.val, false
		}
	}
}

// find returns key's value, or -1.
func (t *keyTable) find(key uint64) int32 {
	mask := uint64(len(t.slots) - 1)
	for i := t.home(key); ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.gen != t.gen {
			return -1
		}
		if sl.key == key {
			return sl.val
		}
	}
}
