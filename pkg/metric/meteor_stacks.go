package metric

import (
	"hash/maphash"
	"math/bits"
)

// keyStacks groups reference positions by key so that a stage can take the last remaining
// position holding a key in O(1): an open-addressing table from key to a stack of positions
// threaded through next, pushed in ascending order so that the top is the last one.
//
// Note: sorting the positions by key gives the same groups but cost more than NLTK's nested
// loops for all but the longest inputs; a Go map per call would allocate.
type keyStacks struct {
	hash []uint64 // per slot
	rep  []int32  // per slot: a position holding the slot's key, -1 for a free slot
	head []int32  // per slot: top of the stack, -1 once emptied
	next []int32  // per position: the position below it in its stack
	mask uint64
}

// reset empties the table for up to n keys over positions below size.
func (t *keyStacks) reset(n, size int) {
	slots := 1 << bits.Len(uint(2*n))
	t.hash = resize(t.hash, slots)
	t.rep = resize(t.rep, slots)
	t.head = resize(t.head, slots)
	for i := range t.rep {
		t.rep[i] = -1
	}
	t.next = resize(t.next, size)
	t.mask = uint64(slots - 1)
}

// find returns the slot of the key with hash h for which same(rep) holds, claiming a free slot
// for it when insert is set; otherwise it returns -1 for an absent key.
func (t *keyStacks) find(h uint64, same func(rep int32) bool, insert bool) int {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		switch {
		case t.rep[i] < 0:
			if !insert {
				return -1
			}
			return int(i)
		case t.hash[i] == h && same(t.rep[i]):
			return int(i)
		}
	}
}

// push puts position p on the stack of slot s (claimed by find with insert set).
func (t *keyStacks) push(s int, h uint64, p int32) {
	if t.rep[s] < 0 {
		t.hash[s], t.rep[s], t.head[s] = h, p, -1
	}
	t.next[p] = t.head[s]
	t.head[s] = p
}

// top returns the top position of slot s, -1 if its stack is empty.
func (t *keyStacks) top(s int) int32 { return t.head[s] }

// pop removes the top position of slot s, which must not be empty.
func (t *keyStacks) pop(s int) int32 {
	p := t.head[s]
	t.head[s] = t.next[p]
	return p
}

// hashSeed seeds strHash; it is set once at start-up.
var hashSeed = maphash.MakeSeed()

// strHash hashes a word for the vocabulary table.
func strHash(s string) uint64 { return maphash.String(hashSeed, s) }

// idHash spreads a name id over the table.
func idHash(id int32) uint64 { return uint64(uint32(id)) * 0x9e3779b97f4a7c15 >> 7 }
