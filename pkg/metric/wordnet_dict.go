package metric

import (
	"hash/maphash"
	"math/bits"
)

// wnDict maps every string WordNet lookups start from (an index lemma, a synset lemma name
// without '_', an inflected form of an exception list) to what the table knows about it, in
// one open-addressing table whose slots hold the key's facts inline. The keys' bytes are
// copied, one after the other, into one array.
//
// Note: three Go maps with string keys did this before. Their 300,000 string headers are
// pointers that every garbage collection had to trace, about 10 ms of marking a cycle, while
// this table is one pointer-free array the collector skips. One probe also answers the three
// questions (lemma? name? exception?) that took three map lookups, and a key's hash, the
// vocabulary's own (strHash), is computed once per word.
type wnDict struct {
	keys  []byte // the keys' bytes
	slots []wnKey
	mask  uint64
	n     int // keys held
}

// wnKey is one slot: a key and its facts.
type wnKey struct {
	tag   uint32 // the key's hash with its low bit set; 0 for a free slot
	off   uint32 // the key is keys[off : off+len]
	len   uint32
	entry int32 // index entry number, -1 if not an index lemma
	name  int32 // name id, -1 if not a lemma name of a synset (or if it has '_')
	exc   int32 // exception number, -1 if no exception list holds it
}

// tagOf returns the slot tag of hash h: its top half with the low bit set, so never 0.
func tagOf(h uint64) uint32 { return uint32(h>>32) | 1 }

// newDict returns an empty dict with room for about n keys (and their bytes: WordNet's keys
// average 11 bytes), filled to less than three quarters.
func newDict(n int) wnDict {
	size := 1 << bits.Len(uint(4*n/3))
	return wnDict{keys: make([]byte, 0, 12*n), slots: make([]wnKey, size), mask: uint64(size - 1)}
}

// find returns the slot of key k with hash h (strHash(k)), or nil if k is not a key.
func find[T string | []byte](d *wnDict, k T, h uint64) *wnKey {
	tag := tagOf(h)
	for i := h & d.mask; ; i = (i + 1) & d.mask {
		s := &d.slots[i]
		switch {
		case s.tag == 0:
			return nil
		case s.tag == tag && int(s.len) == len(k) && string(d.keys[s.off:s.off+s.len]) == string(k):
			return s
		}
	}
}

// insert returns the slot of key k, adding it with no facts if new.
func (d *wnDict) insert(k []byte) *wnKey {
	h := bytesHash(k)
	if s := find(d, k, h); s != nil {
		return s
	}
	if 4*(d.n+1) > 3*len(d.slots) {
		d.grow()
	}
	i := h & d.mask
	for d.slots[i].tag != 0 {
		i = (i + 1) & d.mask
	}
	d.n++
	d.slots[i] = wnKey{tag: tagOf(h), off: uint32(len(d.keys)), len: uint32(len(k)), entry: -1, name: -1, exc: -1}
	d.keys = append(d.keys, k...)
	return &d.slots[i]
}

// grow doubles the table and re-inserts every key.
func (d *wnDict) grow() {
	old := d.slots
	d.slots = make([]wnKey, 2*len(old))
	d.mask = uint64(len(d.slots) - 1)
	for _, s := range old {
		if s.tag == 0 {
			continue
		}
		i := bytesHash(d.keys[s.off:s.off+s.len]) & d.mask
		for d.slots[i].tag != 0 {
			i = (i + 1) & d.mask
		}
		d.slots[i] = s
	}
}

// key returns the text of slot s.
func (d *wnDict) key(s *wnKey) string { return string(d.keys[s.off : s.off+s.len]) }

// all yields every key's slot, in no particular order.
func (d *wnDict) all(yield func(*wnKey) bool) {
	for i := range d.slots {
		if d.slots[i].tag != 0 && !yield(&d.slots[i]) {
			return
		}
	}
}

// bytesHash is strHash for a key held in a buffer.
func bytesHash(b []byte) uint64 { return maphash.Bytes(hashSeed, b) }
