package metric

import (
	"math/bits"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// rougeVocab interns rouge-score tokens across the calls that reuse a scratch, and numbers the
// tokens of one call densely. A token seen before costs one probe: its key (see tokenKey) finds
// its slot, the slot names the token's word and its Porter stem's, and the word carries its id
// in this call.
//
// Note: it replaces a per-call table over maphash hashes and a cross-call map[string]string of
// stems, which hashed each stemmed token three times (the token, the stem map, the stem). Short
// tokens, most of them, are their keys, so finding one compares no bytes; a long token's key is
// a hash, confirmed against the word's bytes in the arena. Memory is bounded as the stem map's
// was: past internLimit words the vocabulary is emptied, at the start of a call, so that the ids
// of a call stay valid.
type rougeVocab struct {
	slots []vocabSlot // open addressing with linear probing, a power of two long, under half full
	shift uint8       // 64 - log2(len(slots)): a key's home slot is the top bits of its product
	words []vocabWord
	arena []byte // the bytes of the long words
	call  uint32 // this call's stamp: a word stamped otherwise has no id in it yet
	n     int32  // ids given out in this call
	stem  []byte // a stem being interned
}

// vocabSlot is a word's slot; a slot with key 0 is empty (no key is 0).
type vocabSlot struct {
	key        uint64
	word, stem int32 // 1 + the index in words of the word and of its token when stemmed, or 0
}

type vocabWord struct {
	start, end int32  // a long word's bytes in the arena
	call       uint32 // the call that gave the word its id
	id         int32
}

// begin starts a call: no word has an id in it yet.
func (v *rougeVocab) begin() {
	if len(v.words) > internLimit || v.slots == nil {
		*v = rougeVocab{call: v.call, stem: v.stem}
		v.grow()
	}
	v.n = 0
	v.call++
	if v.call == 0 { // wrapped: old stamps could look current
		for i := range v.words {
			v.words[i].call = 0
		}
		v.call = 1
	}
}

// lookup returns the slot of the token keyed key (tok holds its bytes if it is long), or nil if
// the token is not in the vocabulary. It is the path of a token seen before: one probe and no
// bytes compared for a short token. The pointer is valid until the next addition.
func (v *rougeVocab) lookup(key uint64, tok []byte) *vocabSlot {
	mask := uint64(len(v.slots) - 1)
	for i := (key * 0x9e3779b97f4a7c15) >> v.shift; ; i = (i + 1) & mask {
		sl := &v.slots[i]
		if sl.key != key {
			if sl.key == 0 {
				return nil
			}
			continue
		}
		if key&longKey != 0 && string(v.arena[v.words[sl.word-1].start:v.words[sl.word-1].end]) != string(tok) {
			continue
		}
		return sl
	}
}

// add is lookup for any token: it adds the token, and its stem when stem is set, to the
// vocabulary when they are new. tok is the token's bytes.
func (v *rougeVocab) add(tok []byte, key uint64, stem bool) *vocabSlot {
	sl := v.slot(tok, key)
	if stem && sl.stem == 0 {
		v.stem = textnorm.AppendStem(v.stem[:0], string(tok))
		st := v.slot(v.stem, tokenKey(v.stem)).word
		sl = v.slot(tok, key) // adding the stem may have moved the slots
		sl.stem = st
	}
	return sl
}

// idOf returns the id of word w in this call, giving it the next one if it has none.
func (v *rougeVocab) idOf(w int32) int32 {
	e := &v.words[w]
	if e.call != v.call {
		e.call, e.id = v.call, v.n
		v.n++
	}
	return e.id
}

// slot returns the slot of tok, whose key is key, adding tok when it is new. A token of at most
// three characters, which rouge-score does not stem, is its own stem. The pointer is valid until
// the next addition.
func (v *rougeVocab) slot(tok []byte, key uint64) *vocabSlot {
	if 2*(len(v.words)+1) > len(v.slots) {
		v.grow()
	}
	mask := uint64(len(v.slots) - 1)
	for i := (key * 0x9e3779b97f4a7c15) >> v.shift; ; i = (i + 1) & mask {
		sl := &v.slots[i]
		if sl.key == 0 {
			var w vocabWord
			if key&longKey != 0 {
				w.start = int32(len(v.arena))
				v.arena = append(v.arena, tok...)
				w.end = int32(len(v.arena))
			}
			v.words = append(v.words, w)
			*sl = vocabSlot{key: key, word: int32(len(v.words))}
			if len(tok) <= 3 {
				sl.stem = sl.word
			}
			return sl
		}
		if sl.key == key && (key&longKey == 0 || string(v.arena[v.words[sl.word-1].start:v.words[sl.word-1].end]) == string(tok)) {
			return sl
		}
	}
}

// grow doubles the slots, or makes the first 1024.
func (v *rougeVocab) grow() {
	old := v.slots
	v.slots = make([]vocabSlot, max(1024, 2*len(old)))
	v.shift = uint8(64 - bits.Len(uint(len(v.slots)-1)))
	mask := uint64(len(v.slots) - 1)
	for _, sl := range old {
		if sl.key == 0 {
			continue
		}
		i := (sl.key * 0x9e3779b97f4a7c15) >> v.shift
		for v.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = sl
	}
}
