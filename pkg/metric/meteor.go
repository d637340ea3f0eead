package metric

import (
	"math"
	"sync"
)

// METEOR parameters, NLTK's defaults. They are variables so that 1-meteorAlpha is computed in
// float64 at run time as Python does (0.09999999999999998), not folded to an exact constant.
var (
	meteorAlpha = 0.9
	meteorGamma = 0.5
)

// METEOR returns NLTK 3.8's meteor_score([split(lower(r)) for r in refs], split(lower(pred)))
// with its defaults (alpha 0.9, beta 3, gamma 0.5, Porter stemmer, WordNet 3.0): the maximum
// over refs of the single-reference score. With synonyms false the WordNet stage matches
// nothing, as with a wordnet whose synsets() is always empty. It returns 0 when refs is empty
// (NLTK raises there).
//
// Each single score aligns words greedily in three stages (exact, Porter stem, WordNet
// synonym of the stem), each walking the hypothesis and then the reference from the last word
// back; unmatched words stay stemmed for the next stage. With m matches, P = m/len(hyp),
// R = m/len(ref), fmean = P*R/(alpha*P+(1-alpha)*R) and the score is
// (1 - gamma*(chunks/m)^beta) * fmean, 0 when m is 0.
func METEOR(pred string, refs []string, synonyms bool) float64 {
	return meteor(pred, refs, synonyms, groupAbove)
}

// meteor is METEOR with the stage size above which matching goes through grouped stacks.
func meteor(pred string, refs []string, synonyms bool, group int) float64 {
	if len(refs) == 0 {
		return 0
	}
	sc := meteorPool.Get().(*meteorScratch)
	defer meteorPool.Put(sc)
	sc.groupAbove = group
	sc.wn = nil
	if synonyms {
		sc.wn = loadWordNet()
	}
	sc.hypBuf = sc.tokens(sc.hypBuf, pred)
	sc.reset(sc.hypBuf)
	best := 0.0
	for _, r := range refs {
		sc.refBuf = sc.tokens(sc.refBuf, r)
		if s := sc.score(sc.refBuf); s > best {
			best = s
		}
	}
	sc.release()
	return best
}

// groupAbove is the size (remaining hypothesis items times remaining reference items) above
// which a stage matches through sorted groups, O(n log n), instead of NLTK's nested loops,
// O(n*m); both give the same alignment.
const groupAbove = 64

var meteorPool = sync.Pool{New: func() any { return new(meteorScratch) }}

// meteorScratch is the state of one METEOR call: the hypothesis with its lazily computed stems
// and synonym sets (shared by all references) and buffers reused for each reference.
type meteorScratch struct {
	wn         *wordNet // nil: no synonym stage
	groupAbove int

	hypBuf, refBuf []string
	arena          []byte     // lowercased ASCII tokens of one string
	pending        [][3]int32 // token index, arena start, arena end

	hyp     []string
	hStem   []string
	hHas    []bool   // hStem[i] computed
	hSynOff []int32  // synonyms of hyp i: hSyn[hSynOff[2i]:hSynOff[2i+1]], -1 until computed
	hSyn    []uint32 // name ids

	ref   []string
	rStem []string
	rName []int32 // name id of a reference stem, -1 if none
	rUsed []bool  // reference position matched

	hRem, rRem []int32 // positions not yet matched, ascending
	match      []int32 // per hypothesis position: matched reference position or -1
	stacks     keyStacks

	morph morphScratch
}

// release drops the references to the caller's strings before the scratch is pooled.
func (sc *meteorScratch) release() {
	clear(sc.hypBuf)
	clear(sc.refBuf)
	clear(sc.hStem)
	clear(sc.rStem)
	sc.hyp, sc.ref, sc.wn = nil, nil, nil
}

// reset prepares the scratch for a new hypothesis.
func (sc *meteorScratch) reset(hyp []string) {
	n := len(hyp)
	sc.hyp = hyp
	sc.hStem = resize(sc.hStem, n)
	sc.hHas = resize(sc.hHas, n)
	clear(sc.hHas)
	sc.hSynOff = resize(sc.hSynOff, 2*n)
	for i := range sc.hSynOff {
		sc.hSynOff[i] = -1
	}
	sc.hSyn = sc.hSyn[:0]
	sc.match = resize(sc.match, n)
}

// resize returns s with length n, reusing its array when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// score is NLTK's single_meteor_score(ref, hyp).
func (sc *meteorScratch) score(ref []string) float64 {
	if len(sc.hyp) == 0 || len(ref) == 0 {
		return 0
	}
	sc.ref = ref
	m := sc.align()
	if m == 0 {
		return 0
	}
	chunks, prev := 0, int32(-2)
	prevRef := int32(-2)
	for h, r := range sc.match {
		if r < 0 {
			continue
		}
		if int32(h) != prev+1 || r != prevRef+1 {
			chunks++
		}
		prev, prevRef = int32(h), r
	}
	precision := float64(m) / float64(len(sc.hyp))
	recall := float64(m) / float64(len(ref))
	fmean := (precision * recall) / (meteorAlpha*precision + (1-meteorAlpha)*recall)
	frag := float64(chunks) / float64(m)
	penalty := meteorGamma * cube(frag)
	return (1 - penalty) * fmean
}

// cube returns x**3 rounded once, as C's pow(x, 3.0) behind Python's x**3.0 does for these
// values: the exact square is carried as hi+lo through a fused multiply-add.
func cube(x float64) float64 {
	hi := x * x
	lo := math.FMA(x, x, -hi)
	return math.FMA(hi, x, lo*x)
}
