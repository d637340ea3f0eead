package metric

import (
	"hash/maphash"
	"unsafe"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// vocab interns words (tokens and their stems) in an open-addressing table and caches what each
// word needs: its stem, its WordNet name id and its synonyms. It lives in the pooled scratch and
// is kept across METEOR calls, so vocabulary that repeats over a dataset (answers do, heavily) is
// tokenized into ids without allocating and is stemmed and looked up in WordNet once.
//
// Everything cached is a pure function of the word and the immutable WordNet table, so a call
// scores the same whether its words were cached or not. The cache is bounded: load empties it
// before a call once it holds more than maxWords words (or their text or synonym lists exceed a
// proportional size); word ids stay valid for the whole of a call.
//
// Note: a Go map would do the interning too, but hashing a []byte key without allocating and
// keeping the word's facts next to it is simpler in a table of our own. New words' texts are
// copied into append-only chunks rather than allocated one by one, so a dataset's first pass,
// where most words are new, allocates little more than the old per-call vocabulary did.
type vocab struct {
	slots   []int32 // word id + 1, 0 for a free slot; at most half full
	mask    uint64
	words   []vword
	syn     []uint32 // WordNet name ids
	bytes   int      // text bytes of words
	chunk   []byte   // where new words' texts are copied; bytes below len are never rewritten
	stemBuf []byte   // a stem being computed
	short   shortWords
}

// vword is one interned word and what has been computed about it.
type vword struct {
	text         string // owned: never a substring of a caller's string
	hash         uint64
	stem         int32 // word id of its Porter stem, -1 until computed
	name         int32 // WordNet name id, -1 for none, -2 until computed
	synLo, synHi int32 // synonyms: syn[synLo:synHi], synLo -1 until computed
}

// Sizes: the initial table, and the smallest and largest text chunks (a longer word gets its
// own copy).
const (
	vocabMinSlots = 1 << 10
	vocabMinChunk = 1 << 8
	vocabMaxChunk = 1 << 16
)

// reset empties the vocabulary, keeping its table and arrays unless one huge call grew them far
// beyond what maxWords words need. The text chunk is dropped, not reused: the strings in it
// must never change.
func (v *vocab) reset(maxWords int) {
	v.short.reset(4*maxWords + shortMinSlots)
	if len(v.slots) > 4*maxWords+vocabMinSlots {
		*v = vocab{}
		return
	}
	if 8*len(v.words) < len(v.slots) {
		// Few words in a large table: free their slots rather than clearing it all.
		for id, w := range v.words {
			i := w.hash & v.mask
			for v.slots[i] != int32(id)+1 {
				i = (i + 1) & v.mask
			}
			v.slots[i] = 0
		}
	} else {
		clear(v.slots)
	}
	clear(v.words) // drop the texts for the garbage collector
	v.words, v.syn, v.bytes, v.chunk = v.words[:0], v.syn[:0], 0, nil
}

// own returns a copy of w that the vocabulary can keep: a string in the current chunk.
func own[T string | []byte](v *vocab, w T) string {
	if len(w) == 0 || len(w) > vocabMaxChunk/16 {
		return string(w)
	}
	if cap(v.chunk)-len(v.chunk) < len(w) {
		v.chunk = make([]byte, 0, min(vocabMaxChunk, max(vocabMinChunk, 2*v.bytes)))
	}
	off := len(v.chunk)
	v.chunk = append(v.chunk, w...)
	// The bytes at off are written once, here, and never again: the chunk is only appended
	// to and is dropped by reset, so they make a valid immutable string.
	return unsafe.String(&v.chunk[off], len(w))
}

// full reports whether the vocabulary holds more than about maxWords words' worth of data.
func (v *vocab) full(maxWords int) bool {
	return len(v.words) > maxWords || v.bytes > 32*maxWords || len(v.syn) > 16*maxWords
}

// grow doubles the table (or creates it) and re-inserts every word; ids do not change. It
// also makes room in words for as many words as the table takes before it grows again.
//
// Note: append alone grew words a quarter at a time, which copied a first pass's word records
// five times over.
func (v *vocab) grow() {
	size := max(vocabMinSlots, 2*len(v.slots))
	v.slots = make([]int32, size)
	v.mask = uint64(size - 1)
	if cap(v.words) < size/2+1 {
		v.words = append(make([]vword, 0, size/2+1), v.words...)
	}
	for id, w := range v.words {
		i := w.hash & v.mask
		for v.slots[i] != 0 {
			i = (i + 1) & v.mask
		}
		v.slots[i] = int32(id) + 1
	}
}

// add claims slot i for a new word and returns its id, growing the table when half full.
func (v *vocab) add(i uint64, text string, h uint64) int32 {
	id := int32(len(v.words))
	v.slots[i] = id + 1
	v.words = append(v.words, vword{text: text, hash: h, stem: -1, name: -2, synLo: -1})
	v.bytes += len(text)
	if 2*len(v.words) > len(v.slots) {
		v.grow()
	}
	return id
}

// intern returns the word id of w, adding a copy of it if new.
func (v *vocab) intern(w string) int32 {
	if len(v.slots) == 0 {
		v.grow()
	}
	h := strHash(w)
	i := h & v.mask
	for ; v.slots[i] != 0; i = (i + 1) & v.mask {
		if id := v.slots[i] - 1; v.words[id].hash == h && v.words[id].text == w {
			return id
		}
	}
	return v.add(i, own(v, w), h)
}

// internBytes is intern for a word held in a buffer.
func (v *vocab) internBytes(w []byte) int32 {
	if len(v.slots) == 0 {
		v.grow()
	}
	h := maphash.Bytes(hashSeed, w)
	i := h & v.mask
	for ; v.slots[i] != 0; i = (i + 1) & v.mask {
		if id := v.slots[i] - 1; v.words[id].hash == h && v.words[id].text == string(w) {
			return id
		}
	}
	return v.add(i, own(v, w), h)
}

// stem returns the word id of the Porter stem of word id w.
//
// Note: stem, name and synonyms test their cache inline and compute a missing entry in a
// function of its own, so that the cached case, by far the most common, inlines into the
// matching loops.
func (v *vocab) stem(w int32) int32 {
	if v.words[w].stem < 0 {
		v.computeStem(w)
	}
	return v.words[w].stem
}

// computeStem sets the stem of word id w. A word that is its own stem, as half a dataset's
// words are, is found so without hashing it again.
func (v *vocab) computeStem(w int32) {
	s, text := w, v.words[w].text
	if stems(text) {
		v.stemBuf = textnorm.AppendStem(v.stemBuf[:0], text)
		if string(v.stemBuf) != text {
			s = v.internBytes(v.stemBuf) // may grow v.words
		}
	}
	v.words[w].stem = s
}

// name returns the WordNet lemma-name id of word id w (names with '_' excluded), -1 if none.
func (v *vocab) name(wn *wordNet, w int32) int32 {
	if v.words[w].name == -2 {
		v.computeName(wn, w)
	}
	return v.words[w].name
}

// computeName sets the name id of word id w.
func (v *vocab) computeName(wn *wordNet, w int32) {
	v.words[w].name = -1
	if k := find(&wn.dict, v.words[w].text, v.words[w].hash); k != nil {
		v.words[w].name = k.name
	}
}

// synonyms returns the name ids of the lemmas of wordnet.synsets(word w).
func (v *vocab) synonyms(wn *wordNet, w int32, sc *morphScratch) []uint32 {
	if v.words[w].synLo < 0 {
		v.computeSynonyms(wn, w, sc)
	}
	return v.syn[v.words[w].synLo:v.words[w].synHi]
}

// computeSynonyms sets the synonyms of word id w.
func (v *vocab) computeSynonyms(wn *wordNet, w int32, sc *morphScratch) {
	start := len(v.syn)
	v.syn = wn.synonymsHashed(v.syn, v.words[w].text, v.words[w].hash, sc)
	v.words[w].synLo, v.words[w].synHi = int32(start), int32(len(v.syn))
}

// stems reports whether textnorm.Stem may change the lowercased token tok. Two cases cannot:
// NLTK returns a word of at most two characters lowercased, and a token that does not end in
// a letter a-z is its own stem, since every Porter rule, NLTK's extensions and its
// irregular-form pool need such a suffix (rules only ever rewrite the suffix they match).
func stems(tok string) bool {
	c := tok[len(tok)-1]
	return len(tok) > 2 && 'a' <= c && c <= 'z'
}
