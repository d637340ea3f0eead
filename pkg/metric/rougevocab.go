package metric

import (
	"math/bits"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// rougeVocab interns rouge-score tokens across the calls that reuse a scratch, and numbers the
// tokens of one call densely. A token seen before costs one probe: its key (see tokenKey) finds
// its word, the word names its Porter stem's word, and that word carries its id in this call.
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

type vocabSlot struct {
	key  uint64
	word int32 // 1 + the word's index in words, or 0 for an empty slot
}

type vocabWord struct {
	start, end int32  // a long word's bytes in the arena
	stem       int32  // the index of the word's Porter stem, or -1 until it is needed
	call       uint32 // the call that gave the word its id
	id         int32
}

// begin starts a call: no word has an id in it yet.
func (v *rougeVocab) begin() {
	if len(v.words) > internLimit {
		*v = rougeVocab{call: v.call, stem: v.stem}
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

// id returns the id in this call of tok, whose key is key, or of its Porter stem when stem is
// set and tok is longer than three characters, as rouge-score stems.
func (v *rougeVocab) id(tok []byte, key uint64, stem bool) int32 {
	w := v.word(tok, key)
	if stem && len(tok) > 3 {
		st := v.words[w].stem
		if st < 0 {
			v.stem = textnorm.AppendStem(v.stem[:0], string(tok))
			st = v.word(v.stem, tokenKey(v.stem))
			v.words[w].stem = st
		}
		w = st
	}
	e := &v.words[w]
	if e.call != v.call {
		e.call, e.id = v.call, v.n
		v.n++
	}
	return e.id
}

// word returns the index of tok's word, adding the word when it is new.
func (v *rougeVocab) word(tok []byte, key uint64) int32 {
	if 2*(len(v.words)+1) > len(v.slots) {
		v.grow()
	}
	mask := uint64(len(v.slots) - 1)
	for i := (key * 0x9e3779b97f4a7c15) >> v.shift; ; i = (i + 1) & mask {
		sl := &v.slots[i]
		if sl.word == 0 {
			w := vocabWord{stem: -1}
			if key&longKey != 0 {
				w.start = int32(len(v.arena))
				v.arena = append(v.arena, tok...)
				w.end = int32(len(v.arena))
			}
			v.words = append(v.words, w)
			*sl = vocabSlot{key, int32(len(v.words))}
			return sl.word - 1
		}
		if sl.key == key && (key&longKey == 0 || string(v.arena[v.words[sl.word-1].start:v.words[sl.word-1].end]) == string(tok)) {
			return sl.word - 1
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
		if sl.word == 0 {
			continue
		}
		i := (sl.key * 0x9e3779b97f4a7c15) >> v.shift
		for v.slots[i].word != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = sl
	}
}
