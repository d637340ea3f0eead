package metric

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// RougeScores holds the ROUGE-1, ROUGE-2 and ROUGE-L F-measures of one prediction.
type RougeScores struct{ R1, R2, RL float64 }

// Rouge scores pred against refs as Google rouge-score 0.1.2's
// RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=stem).score_multi(refs, pred) does:
// each F-measure is the best over the references; no references score 0. Tokens are
// rouge-score's: runs of ASCII letters and digits in the Python-lowercased text, every other
// character separating them, so non-ASCII characters count for nothing themselves ("über" is the
// token "ber", and Chinese text has none) but for the few that lower to ASCII ("İstanbul" gives
// "i" and "stanbul", the Kelvin sign "k"). With stem, tokens longer than three characters are
// Porter-stemmed (textnorm.RougeTokens gives the tokens).
//
// Note: tokens are mapped to per-call integer ids (words and stems memoised across calls, see
// rougeVocab); unigram overlap is counted in an array indexed by id, bigram overlap by pairwise
// matching or, for long texts, in a hash table of bigram keys; ROUGE-L is a bit-parallel LCS.
// No map is built per call.
func Rouge(pred string, refs []string, stem bool) RougeScores {
	if len(refs) == 0 {
		return RougeScores{}
	}
	s := getScratch()
	defer putScratch(s)
	return s.rouge(pred, refs, stem)
}

// RougeBoth returns what Rouge(pred, refs, true) and Rouge(pred, refs, false) do, reading each
// text once: a token's key finds its word and its stem together, and only the counting and
// matching are done twice. It takes about two thirds of the time of the two calls.
func RougeBoth(pred string, refs []string) (stemmed, plain RougeScores) {
	if len(refs) == 0 {
		return RougeScores{}, RougeScores{}
	}
	s := getScratch()
	defer putScratch(s)
	s.vocab.begin()
	s.rougeTexts(pred, refs, rougeBoth)
	return s.rougeScore(s.ids), s.rougeScore(s.plainIDs)
}

// rouge is Rouge in s, which has been reset.
func (s *scratch) rouge(pred string, refs []string, stem bool) RougeScores {
	s.vocab.begin()
	mode := rougePlain
	if stem {
		mode = rougeStem
	}
	s.rougeTexts(pred, refs, mode)
	return s.rougeScore(s.ids)
}

// rougeMode says which ids rougeIDs gives a token: its stem's, its word's, or both.
type rougeMode uint8

const (
	rougeStem  rougeMode = iota // the stem's ids, in s.ids
	rougePlain                  // the word's, in s.ids
	rougeBoth                   // the stem's in s.ids and the word's in s.plainIDs
)

// rougeTexts puts the token ids of pred and of each reference that repeats no earlier one one
// after another in s.ids (and, with rougeBoth, s.plainIDs), and their ends in s.bounds: the
// prediction's first. A repeated reference scores as its first occurrence did.
func (s *scratch) rougeTexts(pred string, refs []string, mode rougeMode) {
	s.ids, s.plainIDs = s.ids[:0], s.plainIDs[:0]
	s.bounds = s.bounds[:0]
	s.rougeIDs(pred, mode)
	s.bounds = append(s.bounds, len(s.ids))
	w := repeatWalk{refs: refs}
	for k, ref := range refs {
		if w.repeats(k) {
			continue
		}
		s.rougeIDs(ref, mode)
		s.bounds = append(s.bounds, len(s.ids))
	}
}

// rougeScore returns the best F-measures of the prediction ids[:s.bounds[0]] against each
// reference, ids[s.bounds[k-1]:s.bounds[k]]; the ids are below s.vocab.n.
func (s *scratch) rougeScore(ids []int32) RougeScores {
	var best RougeScores
	np := s.bounds[0]
	pr := ids[:np]
	s.counts = growTo(s.counts[:0], int(s.vocab.n))
	for _, id := range pr {
		s.counts[id]++
	}
	s.keys = appendBigrams(s.keys[:0], pr)
	nk := len(s.keys)
	counted := false // the prediction's bigrams are counted in s.grams and s.bigrams
	for k := 1; k < len(s.bounds); k++ {
		rr := ids[s.bounds[k-1]:s.bounds[k]]
		r1 := fmeasure(s.unigramOverlap(rr), np, len(rr))
		s.keys = appendBigrams(s.keys[:nk], rr)
		var o2 int
		if nk*(len(s.keys)-nk) <= 256 {
			o2 = s.pairOverlap(s.keys[:nk], s.keys[nk:])
		} else {
			if !counted {
				s.countBigrams(s.keys[:nk])
				counted = true
			}
			o2 = s.bigramOverlap(s.keys[nk:])
		}
		r2 := fmeasure(o2, max(np-1, 0), max(len(rr)-1, 0))
		var rl float64
		if np > 0 && len(rr) > 0 {
			rl = lcsF(s.lcs(pr, rr), np, len(rr))
		}
		best.R1, best.R2, best.RL = max(best.R1, r1), max(best.R2, r2), max(best.RL, rl)
	}
	return best
}

// growTo extends c with zeros to at least n elements.
func growTo(c []int32, n int) []int32 {
	if n > len(c) {
		c = append(c, make([]int32, n-len(c))...)
	}
	return c
}

// unigramOverlap returns Σ min(count in pred, count in ref) with the prediction's counts in
// s.counts, which it leaves as it found them.
func (s *scratch) unigramOverlap(ref []int32) int {
	n := 0
	s.row = s.row[:0] // ids taken from the counts, to put back
	for _, id := range ref {
		if int(id) < len(s.counts) && s.counts[id] > 0 {
			s.counts[id]--
			s.row = append(s.row, id)
			n++
		}
	}
	for _, id := range s.row {
		s.counts[id]++
	}
	return n
}

// countBigrams counts the prediction's bigram keys: s.grams maps a key to its number in
// s.bigrams, which holds its count.
func (s *scratch) countBigrams(keys []uint64) {
	s.grams.reset(len(keys))
	s.bigrams = s.bigrams[:0]
	for _, k := range keys {
		if d, isNew := s.grams.insert(k, int32(len(s.bigrams))); isNew {
			s.bigrams = append(s.bigrams, 1)
		} else {
			s.bigrams[d]++
		}
	}
}

// bigramOverlap returns Σ min(count in pred, count in ref) over the bigram keys of a reference,
// with the prediction's counted by countBigrams, which it leaves as it found them.
func (s *scratch) bigramOverlap(ref []uint64) int {
	n := 0
	s.row = s.row[:0] // counts taken, to put back
	for _, k := range ref {
		if d := s.grams.find(k); d >= 0 && s.bigrams[d] > 0 {
			s.bigrams[d]--
			s.row = append(s.row, d)
			n++
		}
	}
	for _, d := range s.row {
		s.bigrams[d]++
	}
	return n
}

// pairOverlap is the multiset intersection size of two short key lists, by pairwise matching.
func (s *scratch) pairOverlap(a, b []uint64) int {
	if cap(s.used) < len(b) {
		s.used = make([]bool, len(b), 2*len(b))
	}
	s.used = s.used[:len(b)]
	clear(s.used)
	n := 0
	for _, x := range a {
		for j, y := range b {
			if x == y && !s.used[j] {
				s.used[j] = true
				n++
				break
			}
		}
	}
	return n
}

// rougeIDs appends the token ids of str to s.ids, and with rougeBoth its words' ids to
// s.plainIDs; rouge-score stems tokens longer than three characters.
func (s *scratch) rougeIDs(str string, mode rougeMode) {
	start := len(s.buf)
	s.words = s.rougeTokens(s.words[:0], str)
	long := 0 // the next of s.longs
	var short [8]byte
	stem := mode != rougePlain
	for _, key := range s.words {
		var tok []byte
		if key&longKey != 0 {
			tok = s.buf[s.longs[long].start:s.longs[long].end]
			long++
		}
		sl := s.vocab.lookup(key, tok)
		if sl == nil || stem && sl.stem == 0 {
			if tok == nil {
				binary.LittleEndian.PutUint64(short[:], key)
				tok = short[:key>>56]
			}
			sl = s.vocab.add(tok, key, stem)
		}
		w := sl.word
		if stem {
			w = sl.stem
		}
		s.ids = append(s.ids, s.vocab.idOf(w-1))
		if mode == rougeBoth {
			s.plainIDs = append(s.plainIDs, s.vocab.idOf(sl.word-1))
		}
	}
	s.buf = s.buf[:start]
}

func appendBigrams(dst []uint64, ids []int32) []uint64 {
	for i := 1; i < len(ids); i++ {
		dst = append(dst, uint64(uint32(ids[i-1]))<<32|uint64(uint32(ids[i])))
	}
	return dst
}

// fmeasure is rouge-score's n-gram F from the overlap and the two n-gram counts.
func fmeasure(overlap, npred, nref int) float64 {
	p := float64(overlap) / float64(max(npred, 1))
	r := float64(overlap) / float64(max(nref, 1))
	if p+r > 0 {
		return 2 * p * r / (p + r)
	}
	return 0
}

// lcsF is rouge-score's ROUGE-L F from the LCS length.
func lcsF(lcs, npred, nref int) float64 {
	p := float64(lcs) / float64(npred)
	r := float64(lcs) / float64(nref)
	if p+r > 0 {
		return 2 * p * r / (p + r)
	}
	return 0
}

// lcs returns the length of the longest common subsequence of a and b by the bit-parallel
// algorithm of Hyyrö (2004), which processes 64 positions of b per machine word: one word when
// either text has at most 64 tokens (LCS is symmetric), several otherwise.
//
// Note: a dynamic-programming row, which it replaces for texts of up to 1024 pairs of tokens,
// took eight instructions a pair, where one word of bits takes about six a token of a.
func (s *scratch) lcs(a, b []int32) int {
	if len(b) > 64 && len(a) <= 64 {
		a, b = b, a
	}
	if len(b) <= 64 {
		return s.lcsWord(a, b)
	}
	return s.lcsBits(a, b)
}

// lcsWord is lcsBits for b of at most 64 tokens: V is one word, and the mask of each id is found
// in s.v indexed by the id.
func (s *scratch) lcsWord(a, b []int32) int {
	top := int32(-1)
	for _, id := range b {
		top = max(top, id)
	}
	masks := slices.Grow(s.v[:0], int(top)+1)[:top+1]
	clear(masks)
	for j, id := range b {
		masks[id] |= 1 << j
	}
	v := ^uint64(0)
	for _, x := range a {
		if x >= 0 && x <= top {
			m := masks[x]
			v = v + v&m | v&^m
		}
	}
	s.v = masks
	return len(b) - bits.OnesCount64(v&(^uint64(0)>>(64-len(b))))
}

// lcsBits computes the LCS length with bit vectors: V starts all ones over the positions of b,
// each token x of a updates V' = (V + (V & M[x])) | (V &^ M[x]) where M[x] marks the positions of
// x in b, and the LCS length is the number of zero bits of V. Ids are dense per call, so the
// mask of an id is found by indexing, not by sorting and searching.
func (s *scratch) lcsBits(a, b []int32) int {
	m := len(b)
	words := (m + 63) / 64
	top := int32(-1)
	for _, id := range b {
		top = max(top, id)
	}
	// maskOf[id] is 1 + the number of id's mask in s.masks, or 0 when id is not in b.
	s.maskOf = growTo(s.maskOf[:0], int(top)+1)
	s.masks = s.masks[:0]
	for j, id := range b {
		k := s.maskOf[id]
		if k == 0 {
			s.masks = append(s.masks, make([]uint64, words)...)
			k = int32(len(s.masks) / words)
			s.maskOf[id] = k
		}
		s.masks[int(k-1)*words+j/64] |= 1 << (j % 64)
	}
	v := append(s.v[:0], make([]uint64, words)...)
	for w := range v {
		v[w] = ^uint64(0)
	}
	for _, x := range a {
		if x < 0 || x > top || s.maskOf[x] == 0 {
			continue // M is empty: V is unchanged
		}
		k := int(s.maskOf[x] - 1)
		mask := s.masks[k*words : (k+1)*words]
		var carry uint64
		for w := range v {
			var sum uint64
			sum, carry = bits.Add64(v[w], v[w]&mask[w], carry)
			v[w] = sum | v[w]&^mask[w]
		}
	}
	s.v = v
	ones := 0
	for w, x := range v {
		if w == words-1 && m%64 != 0 {
			x &= 1<<(m%64) - 1
		}
		ones += bits.OnesCount64(x)
	}
	return m - ones
}
