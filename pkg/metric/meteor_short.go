package metric

import "math/bits"

// shortWords maps short ASCII tokens, packed into two words, to their vocabulary ids: a cache
// in front of the vocabulary for the common case, which skips hashing the token's bytes,
// comparing strings and lowercasing into a buffer. An entry holds the token's lowercased bytes
// in place, so a hit touches one slot and no string.
//
// Keys: a token of n ≤ 16 bytes packs as its first and last eight bytes (overlapping when n <
// 16), or first and last four when n < 8, or its bytes when n < 4. With n kept in the slot
// the packing is one-to-one.
type shortWords struct {
	slots []shortSlot
	mask  uint64
	used  []int32 // indexes of the occupied slots
}

// shortSlot is one entry; n is 0 for a free slot.
type shortSlot struct {
	lo, hi uint64
	n, id  int32
}

// shortMax is the longest token that shortWords packs.
const shortMax = 16

// shortMinSlots is the initial table size.
const shortMinSlots = 1 << 8

// reset empties the table, keeping it unless it has grown past maxSlots.
func (t *shortWords) reset(maxSlots int) {
	switch {
	case len(t.slots) > maxSlots:
		*t = shortWords{}
	case 8*len(t.used) < len(t.slots):
		for _, i := range t.used {
			t.slots[i] = shortSlot{}
		}
	default:
		clear(t.slots)
	}
	t.used = t.used[:0]
}

// shortKey packs the ASCII token tok (1 to 16 bytes) lowercased, and hashes the key.
func shortKey(tok string) (lo, hi, h uint64) {
	n := len(tok)
	switch {
	case n >= 8:
		lo, hi = load8(tok), load8(tok[n-8:])
	case n >= 4:
		lo = uint64(load4(tok)) | uint64(load4(tok[n-4:]))<<32
	default:
		for i := range n {
			lo |= uint64(tok[i]) << (8 * i)
		}
	}
	lo, hi = lowerASCII8(lo), lowerASCII8(hi)
	h = mix(lo^wordSeed^uint64(n), hi^wordSeed2)
	return lo, hi, h
}

// find returns the id of the key, or -1 and the free slot where it belongs.
func (t *shortWords) find(lo, hi, h uint64, n int) (id int32, slot uint64) {
	if len(t.slots) == 0 {
		t.grow()
	}
	i := h & t.mask
	for ; t.slots[i].n != 0; i = (i + 1) & t.mask {
		if s := &t.slots[i]; s.lo == lo && s.hi == hi && s.n == int32(n) {
			return s.id, 0
		}
	}
	return -1, i
}

// add puts the key with id in free slot i (from find), growing the table when half full.
func (t *shortWords) add(i, lo, hi uint64, n int, id int32) {
	t.slots[i] = shortSlot{lo, hi, int32(n), id}
	t.used = append(t.used, int32(i))
	if 2*len(t.used) > len(t.slots) {
		t.grow()
	}
}

// grow doubles the table (or creates it) and re-inserts every entry, visiting the used slots
// only.
func (t *shortWords) grow() {
	old := t.slots
	size := max(shortMinSlots, 2*len(old))
	t.slots = make([]shortSlot, size)
	t.mask = uint64(size - 1)
	for k, j := range t.used {
		s := old[j]
		i := mix(s.lo^wordSeed^uint64(s.n), s.hi^wordSeed2) & t.mask
		for t.slots[i].n != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = s
		t.used[k] = int32(i)
	}
}

// load8 and load4 read little-endian words from the start of s.
func load8(s string) uint64 {
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func load4(s string) uint32 {
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// lowerASCII8 lowercases the A-Z bytes of x, whose bytes are all ASCII: a byte's top bit,
// free in ASCII, flags it as at least 'A' after adding 0x80-'A' and as above 'Z' after adding
// 0x80-'Z'-1, without carries between bytes.
func lowerASCII8(x uint64) uint64 {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	ge := x + (0x80-'A')*ones
	gt := x + (0x80-'Z'-1)*ones
	return x | (ge&^gt&tops)>>2
}

// mix folds the 128-bit product of a and b into 64 bits.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// wordSeed and wordSeed2 seed the key hash; they are set once at start-up, so that inputs
// cannot be crafted to collide.
var (
	wordSeed  = strHash("metric.shortWords") | 1
	wordSeed2 = strHash("metric.shortWords.2") | 1
)
