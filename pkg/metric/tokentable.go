package metric

import (
	"hash/maphash"
	"unsafe"
)

// The per-call token table: SQuAD's overlap and BLEU's n-gram counting number tokens with it when
// two long tokens' keys collide, and corpus BLEU numbers all its tokens with it.

// id returns the id of tok in this call's token table.
func (s *scratch) id(tok []byte) int32 { return s.table.slot(tok).id }

// idString is id for a string.
func (s *scratch) idString(tok string) int32 {
	return s.table.slot(unsafe.Slice(unsafe.StringData(tok), len(tok))).id
}

// tokenTable interns byte strings to dense ids for one call: open addressing with linear probing
// over maphash hashes, the bytes copied into an arena. It replaces a map[string]int32, whose
// inserts allocate a string per new token. Slots carry the generation that filled them, so
// emptying the table between calls costs nothing.
type tokenTable struct {
	seed  maphash.Seed
	slots []tableSlot // a power of two long
	arena []byte
	n     int32
	gen   uint32 // slots of other generations are empty
}

type tableSlot struct {
	hash       uint64
	start, end int32 // the token's bytes in the arena
	id         int32
	gen        uint32
}

// reset empties the table, keeping its memory unless it grew large.
func (t *tokenTable) reset() {
	if len(t.slots) > 1<<16 {
		t.slots, t.arena = nil, nil
	}
	t.arena, t.n = t.arena[:0], 0
	t.gen++
	if t.gen == 0 { // wrapped: old generations could look current
		clear(t.slots)
		t.gen = 1
	}
}

// slot returns tok's slot, inserting it with the next id when it is new. The pointer is valid
// until the next insertion.
func (t *tokenTable) slot(tok []byte) *tableSlot {
	if 2*(int(t.n)+1) > len(t.slots) {
		t.grow()
	}
	h := maphash.Bytes(t.seed, tok) | 1
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.gen != t.gen {
			start := int32(len(t.arena))
			t.arena = append(t.arena, tok...)
			*sl = tableSlot{hash: h, start: start, end: int32(len(t.arena)), id: t.n, gen: t.gen}
			t.n++
			return sl
		}
		if sl.hash == h && string(t.arena[sl.start:sl.end]) == string(tok) {
			return sl
		}
	}
}

func (t *tokenTable) grow() {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
		t.gen = max(t.gen, 1)
	}
	old := t.slots
	t.slots = make([]tableSlot, max(64, 2*len(old)))
	mask := uint64(len(t.slots) - 1)
	for _, sl := range old {
		if sl.gen != t.gen {
			continue
		}
		i := sl.hash & mask
		for t.slots[i].gen == t.gen {
			i = (i + 1) & mask
		}
		t.slots[i] = sl
	}
}
