package metric

import (
	"bytes"
	"sync"
)

// SquadEM is SQuAD v1.1 exact match: 1 when the normalised prediction equals some normalised
// reference, else 0 (evaluate-v1.1.py, maximum over references).
func SquadEM(pred string, refs []string) float64 {
	s := getScratch()
	defer putScratch(s)
	p := s.squad(pred)
	w := repeatWalk{refs: refs}
	for k := range refs {
		if g, ok := s.ref(pred, p, &w, k); ok && s.equal(p, g) {
			return 1
		}
	}
	return 0
}

// SquadF1 is SQuAD v1.1 token F1, the maximum over references. A reference sharing no token with
// the prediction scores 0, even when both normalise to nothing.
func SquadF1(pred string, refs []string) float64 {
	s := getScratch()
	defer putScratch(s)
	p := s.squad(pred)
	best := 0.0
	w := repeatWalk{refs: refs}
	for k := range refs {
		g, ok := s.ref(pred, p, &w, k)
		if !ok {
			continue
		}
		f1, _, _ := s.tokenF1(p, g)
		if best = max(best, f1); best == 1 {
			break // no reference can do better
		}
	}
	return best
}

// SquadScores returns SquadEM(pred, refs) and SquadF1(pred, refs), normalising each text once.
func SquadScores(pred string, refs []string) (em, f1 float64) {
	return emF1(pred, refs, (*scratch).tokenF1)
}

// emF1 returns the best exact match and the best F1 (by the given token F1) of pred over refs,
// normalising each text once with the SQuAD normaliser.
func emF1(pred string, refs []string, tokenF1 func(s *scratch, p, g text) (f1, precision, recall float64)) (em, f1 float64) {
	s := getScratch()
	defer putScratch(s)
	p := s.squad(pred)
	w := repeatWalk{refs: refs}
	for k := range refs {
		g, ok := s.ref(pred, p, &w, k)
		if !ok {
			continue
		}
		if s.equal(p, g) {
			em = 1
		}
		v, _, _ := tokenF1(s, p, g)
		if f1 = max(f1, v); em == 1 && f1 == 1 {
			break
		}
	}
	return em, f1
}

// SquadSet holds the answer scores of the three official scripts that share SQuAD's normaliser.
type SquadSet struct {
	EM, F1             float64 // SquadScores
	Squad2EM, Squad2F1 float64 // Squad2Scores
	HotpotEM, HotpotF1 float64 // HotpotScores
}

// SquadAll returns SquadScores, Squad2Scores and HotpotScores of pred against refs at once,
// normalising each text and matching each pair of texts once: the three scripts normalise
// alike and differ only in the references they keep and the scores they zero.
func SquadAll(pred string, refs []string) SquadSet {
	s := getScratch()
	defer putScratch(s)
	p := s.squad(pred)
	var r SquadSet
	kept := false // a reference evaluate-v2.0.py keeps, see squad2Golds
	w := repeatWalk{refs: refs}
	for k := range refs {
		g, ok := s.ref(pred, p, &w, k)
		if !ok {
			continue
		}
		eq := s.equal(p, g)
		f1, _, _ := s.tokenF1(p, g)
		if eq {
			r.EM, r.HotpotEM = 1, 1
		}
		r.F1 = max(r.F1, f1)
		if !s.hotpotZero(p, g) {
			r.HotpotF1 = max(r.HotpotF1, f1)
		}
		if g.lo < g.hi {
			kept = true
			if eq {
				r.Squad2EM = 1
			}
			r.Squad2F1 = max(r.Squad2F1, f1) // squad2F1 is tokenF1 for a reference with tokens
		}
	}
	if !kept {
		g := s.squad("")
		if s.equal(p, g) {
			r.Squad2EM = 1
		}
		r.Squad2F1 = s.squad2F1(p, g)
	}
	return r
}

// ref returns the normal form of refs[k] for scores that take the best over references: p, the
// prediction's, when the reference is the prediction's text, or false when it repeats an earlier
// reference, which cannot change the best.
func (s *scratch) ref(pred string, p text, w *repeatWalk, k int) (text, bool) {
	r := w.refs[k]
	if w.repeats(k) {
		return text{}, false
	}
	if r == pred {
		return p, true
	}
	return s.squad(r), true
}

// Squad2Scores returns Squad2EM(pred, refs) and Squad2F1(pred, refs), normalising each text once.
func Squad2Scores(pred string, refs []string) (em, f1 float64) {
	s := getScratch()
	defer putScratch(s)
	p := s.squad(pred)
	s.squad2Golds(pred, p, refs, func(g text) {
		if s.equal(p, g) {
			em = 1
		}
		f1 = max(f1, s.squad2F1(p, g))
	})
	return em, f1
}

// squad2Golds calls f with the normalised references that evaluate-v2.0.py keeps: those that do
// not normalise to "", or a single empty one when none is left (an unanswerable question).
func (s *scratch) squad2Golds(pred string, p text, refs []string, f func(g text)) {
	kept := false
	w := repeatWalk{refs: refs}
	for k := range refs {
		if g, ok := s.ref(pred, p, &w, k); ok && g.lo < g.hi {
			kept = true
			f(g)
		}
	}
	if !kept {
		f(s.squad(""))
	}
}

// Squad2EM is SQuAD v2.0 exact match: references that normalise to "" are dropped, and when none
// is left the question counts as unanswerable, so an answer that normalises to "" matches.
func Squad2EM(pred string, refs []string) float64 {
	s := getScratch()
	defer putScratch(s)
	p := s.squad(pred)
	best := 0.0
	s.squad2Golds(pred, p, refs, func(g text) {
		if s.equal(p, g) {
			best = 1
		}
	})
	return best
}

// Squad2F1 is SQuAD v2.0 token F1 over the references Squad2EM keeps: when either side has no
// token the score is 1 if both are empty, else 0; otherwise as SquadF1.
func Squad2F1(pred string, refs []string) float64 {
	s := getScratch()
	defer putScratch(s)
	p := s.squad(pred)
	best := 0.0
	s.squad2Golds(pred, p, refs, func(g text) {
		best = max(best, s.squad2F1(p, g))
	})
	return best
}

// squad2F1 is evaluate-v2.0.py's compute_f1 for normalised texts.
func (s *scratch) squad2F1(p, g text) float64 {
	if p.lo == p.hi || g.lo == g.hi {
		if p.lo == p.hi && g.lo == g.hi {
			return 1
		}
		return 0
	}
	f1, _, _ := s.tokenF1(p, g)
	return f1
}

// scratch holds the buffers one metric call works in; calls borrow one from scratchPool so the
// hot paths do not allocate.
type scratch struct {
	buf      []byte   // normalised texts, one after another
	toks     []span   // token spans into buf
	ends     []int32  // word ends from textnorm.AppendSquadTokens
	used     []bool   // multiset matching marks
	ids      []int32  // token ids (rouge, bleu)
	plainIDs []int32  // ROUGE's unstemmed ids, when RougeBoth reads the stemmed ones into ids
	counts   []int32  // token counts by id (long SQuAD texts)
	keys     []uint64 // sorted n-gram keys
	distinct []ngramCount
	bounds   []int
	// Bit-parallel LCS: each id's mask number, the masks, the V vector.
	maskOf   []int32
	masks, v []uint64
	row      []int32    // a list of ids or counts to put back (overlap counting)
	table    tokenTable // this call's token ids
	grams    keyTable   // BLEU n-gram → index into distinct; ROUGE bigram → index into bigrams
	bigrams  []int32    // ROUGE: the prediction's bigram counts
	words    []uint64   // BLEU or ROUGE tokens as keys, or BLEU's as ids when interned by bytes
	longs    []span     // BLEU's or ROUGE's long tokens, whose keys are hashes
	tokIDs   keyTable   // BLEU word → id
	// bleuMasks holds BLEU's position masks of the hypothesis' tokens (see clippedMasks).
	bleuMasks []uint64
	// stems memoises LoCoMo's Porter stems across the calls that reuse this scratch; it is
	// dropped when it grows past internLimit.
	stems map[string]string
	vocab rougeVocab // ROUGE's words and stems across calls, and their ids in this one
	// floats memoises BLEU's logarithms and brevity penalties by their integer arguments, exps
	// its exponentials by their argument.
	floats, exps [1 << floatCacheBits]floatEntry
	// bleuResults memoises BLEU's scores by its counts; allocated by the first BLEU call, so
	// that the other metrics' scratches stay small.
	bleuResults *[1 << bleuResultBits]bleuResult
}

// internLimit bounds the per-scratch token caches.
const internLimit = 1 << 15

// span is a token, buf[start:end], with its key (see tokenKey).
type span struct {
	start, end int32
	key        uint64
}

// text is a normalised text in a scratch: its bytes buf[bstart:bend] and tokens toks[lo:hi].
type text struct{ bstart, bend, lo, hi int32 }

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch {
	s := scratchPool.Get().(*scratch)
	s.reset()
	return s
}

// reset readies s for a call, keeping what it memoises across calls.
func (s *scratch) reset() {
	s.buf, s.toks = s.buf[:0], s.toks[:0]
	s.table.reset()
}

func putScratch(s *scratch) {
	if cap(s.buf) > 1<<20 {
		s.buf = nil
	}
	scratchPool.Put(s)
}

// cut records the space-separated tokens of buf[start:].
func (s *scratch) cut(start int) text {
	t := text{bstart: int32(start), bend: int32(len(s.buf)), lo: int32(len(s.toks))}
	for i := start; i < len(s.buf); {
		j := bytes.IndexByte(s.buf[i:], ' ')
		if j < 0 {
			j = len(s.buf) - i
		}
		if j > 0 {
			s.toks = append(s.toks, span{int32(i), int32(i + j), tokenKey(s.buf[i : i+j])})
		}
		i += j + 1
	}
	t.hi = int32(len(s.toks))
	return t
}

func (s *scratch) equal(a, b text) bool {
	return string(s.buf[a.bstart:a.bend]) == string(s.buf[b.bstart:b.bend])
}

func (s *scratch) tok(i int32) []byte { return s.buf[s.toks[i].start:s.toks[i].end] }

// tokenF1 is the SQuAD token F1 with its precision and recall; all three are 0 when no token is
// shared.
func (s *scratch) tokenF1(p, g text) (f1, precision, recall float64) {
	if p.lo < p.hi && s.equal(p, g) {
		return 1, 1, 1 // same tokens: 2·1·1/(1+1)
	}
	same := s.overlap(p, g)
	if same == 0 {
		return 0, 0, 0
	}
	precision = 1.0 * float64(same) / float64(p.hi-p.lo)
	recall = 1.0 * float64(same) / float64(g.hi-g.lo)
	return (2 * precision * recall) / (precision + recall), precision, recall
}
