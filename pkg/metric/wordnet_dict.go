package metric

import (
	"hash/maphash"
	"math/bits"
)

// wnDict maps every string WordNet lookups start from (an index lemma, a synset lemma name
// without '_', an inflected form of an exception list) to what the table knows about it: an
// open-addressing table of 8-byte slots (a tag of the key's hash and the key's number) over the
// keys' facts, kept by number. The keys' bytes are copied, one after the other, into one array.
//
// Note: three Go maps with string keys did this before. Their 300,000 string headers are
// pointers that every garbage collection had to trace, about 10 ms of marking a cycle, while
// these are pointer-free arrays the collector skips. One probe also answers the three
// questions (lemma? name? exception?) that took three map lookups, and a key's hash, the
// vocabulary's own (strHash), is computed once per word. The slots held the facts inline
// (24 bytes each) until 2026-12-02: kept apart, the 300,000 probes of loading read a table of
// 2 MB instead of 6 MB, and loading took some 6% less.
type wnDict struct {
	keys  []byte   // the keys' bytes
	slots []wnSlot // open addressing with linear probing, a power of two long
	facts []wnKey  // by key number: the keys in the order they were added
	mask  uint64
}

// wnSlot is one slot of the table: 8 bytes, so that probing reads little memory.
type wnSlot struct {
	tag uint32 // the key's hash with its low bit set; 0 for a free slot
	num uint32 // the key's number
}

// wnKey is a key and its facts.
type wnKey struct {
	off   uint32 // the key is keys[off : off+len]
	len   uint32
	entry int32 // index entry number, -1 if not an index lemma
	name  int32 // name id, -1 if not a lemma name of a synset (or if it has '_')
	exc   int32 // exception number, -1 if no exception list holds it
}

// tagOf returns the slot tag of hash h: its top half with the low bit set, so never 0.
func tagOf(h uint64) uint32 { return uint32(h>>32) | 1 }

// newDict returns an empty dict with room for about n keys (and their bytes: WordNet's keys
// average 11 bytes), its slots filled to less than three quarters.
func newDict(n int) wnDict {
	size := 1 << bits.Len(uint(4*n/3))
	return wnDict{keys: make([]byte, 0, 12*n), slots: make([]wnSlot, size), facts: make([]wnKey, 0, n), mask: uint64(size - 1)}
}

// find returns key k with hash h (strHash(k)), or nil if k is not a key. The pointer is valid
// until the next insert.
func find[T string | []byte](d *wnDict, k T, h uint64) *wnKey {
	tag := tagOf(h)
	for i := h & d.mask; ; i = (i + 1) & d.mask {
		s := d.slots[i]
		if s.tag == 0 {
			return nil
		}
		if s.tag == tag {
			f := &d.facts[s.num]
			if int(f.len) == len(k) && string(d.keys[f.off:f.off+f.len]) == string(k) {
				return f
			}
		}
	}
}

// insert returns key k, adding it with no facts if new. The pointer is valid until the next
// insert.
func (d *wnDict) insert(k []byte) *wnKey {
	h := bytesHash(k)
	if f := find(d, k, h); f != nil {
		return f
	}
	if 4*(len(d.facts)+1) > 3*len(d.slots) {
		d.grow()
	}
	i := h & d.mask
	for d.slots[i].tag != 0 {
		i = (i + 1) & d.mask
	}
	d.slots[i] = wnSlot{tag: tagOf(h), num: uint32(len(d.facts))}
	d.facts = append(d.facts, wnKey{off: uint32(len(d.keys)), len: uint32(len(k)), entry: -1, name: -1, exc: -1})
	d.keys = append(d.keys, k...)
	return &d.facts[len(d.facts)-1]
}

// grow doubles the table and re-inserts every key.
func (d *wnDict) grow() {
	old := d.slots
	d.slots = make([]wnSlot, 2*len(old))
	d.mask = uint64(len(d.slots) - 1)
	for _, s := range old {
		if s.tag == 0 {
			continue
		}
		f := d.facts[s.num]
		i := bytesHash(d.keys[f.off:f.off+f.len]) & d.mask
		for d.slots[i].tag != 0 {
			i = (i + 1) & d.mask
		}
		d.slots[i] = s
	}
}

// key returns the text of key k.
func (d *wnDict) key(k *wnKey) string { return string(d.keys[k.off : k.off+k.len]) }

// all yields every key, in the order they were added.
func (d *wnDict) all(yield func(*wnKey) bool) {
	for i := range d.facts {
		if !yield(&d.facts[i]) {
			return
		}
	}
}

// bytesHash is strHash for a key held in a buffer.
func bytesHash(b []byte) uint64 { return maphash.Bytes(hashSeed, b) }
