package metric

import (
	"math/bits"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// vocab interns the words of one METEOR call (tokens and their stems) in an open-addressing
// table and caches what each word needs: its stem, its WordNet name id and its synonyms.
//
// Note: a Go map would do the interning too, but would allocate per call or need clearing
// proportional to its history; the slot table is sized to the call.
type vocab struct {
	slots []int32 // word id + 1, 0 for a free slot
	mask  uint64
	words []vword
	syn   []uint32 // WordNet name ids
}

// vword is one interned word and what has been computed about it.
type vword struct {
	text         string
	hash         uint64
	stem         int32 // word id of its Porter stem, -1 until computed
	name         int32 // WordNet name id, -1 for none, -2 until computed
	synLo, synHi int32 // synonyms: syn[synLo:synHi], synLo -1 until computed
}

// reset empties the vocabulary for a call with n tokens (stems at most double the words).
func (v *vocab) reset(n int) {
	size := 1 << bits.Len(uint(4*n+1))
	v.slots = resize(v.slots, size)
	clear(v.slots)
	v.mask = uint64(size - 1)
	v.words, v.syn = v.words[:0], v.syn[:0]
}

// intern returns the word id of w, adding it if new.
func (v *vocab) intern(w string) int32 {
	h := strHash(w)
	i := h & v.mask
	for ; v.slots[i] != 0; i = (i + 1) & v.mask {
		if id := v.slots[i] - 1; v.words[id].hash == h && v.words[id].text == w {
			return id
		}
	}
	id := int32(len(v.words))
	v.slots[i] = id + 1
	v.words = append(v.words, vword{text: w, hash: h, stem: -1, name: -2, synLo: -1})
	return id
}

// stem returns the word id of the Porter stem of word id w.
func (v *vocab) stem(w int32) int32 {
	if v.words[w].stem < 0 {
		s := v.intern(stem(v.words[w].text)) // may grow v.words
		v.words[w].stem = s
	}
	return v.words[w].stem
}

// name returns the WordNet lemma-name id of word id w (names with '_' excluded), -1 if none.
func (v *vocab) name(wn *wordNet, w int32) int32 {
	if v.words[w].name == -2 {
		v.words[w].name = -1
		if id, ok := wn.names[v.words[w].text]; ok {
			v.words[w].name = int32(id)
		}
	}
	return v.words[w].name
}

// synonyms returns the name ids of the lemmas of wordnet.synsets(word w).
func (v *vocab) synonyms(wn *wordNet, w int32, sc *morphScratch) []uint32 {
	if v.words[w].synLo < 0 {
		start := len(v.syn)
		v.syn = wn.synonyms(v.syn, v.words[w].text, sc)
		v.words[w].synLo, v.words[w].synHi = int32(start), int32(len(v.syn))
	}
	return v.syn[v.words[w].synLo:v.words[w].synHi]
}

// stem is textnorm.Stem for a lowercased token. Two cases skip the call: NLTK returns a word of
// at most two characters lowercased, and a token that does not end in a letter a-z is its own
// stem, since every Porter rule, NLTK's extensions and its irregular-form pool need such a
// suffix (rules only ever rewrite the suffix they match).
func stem(tok string) string {
	if c := tok[len(tok)-1]; len(tok) <= 2 || c < 'a' || c > 'z' {
		return tok
	}
	return textnorm.Stem(tok)
}
