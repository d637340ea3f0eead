package metric

import (
	"math"
	"sync"

	"github.com/qapipe/qapipe/pkg/textnorm"
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
	if len(refs) == 0 {
		return 0
	}
	sc := meteorPool.Get().(*meteorScratch)
	defer meteorPool.Put(sc)
	sc.reset(textnorm.Split(textnorm.Lower(pred)))
	if synonyms {
		sc.wn = loadWordNet()
	} else {
		sc.wn = nil
	}
	best := 0.0
	for _, r := range refs {
		if s := sc.score(textnorm.Split(textnorm.Lower(r))); s > best {
			best = s
		}
	}
	return best
}

var meteorPool = sync.Pool{New: func() any { return new(meteorScratch) }}

// meteorScratch is the state of one METEOR call: the hypothesis with its lazily computed stems
// and synonym sets (shared by all references) and buffers reused for each reference.
type meteorScratch struct {
	wn *wordNet // nil: no synonym stage

	hyp     []string
	hStem   []string
	hHas    []bool   // hStem[i] computed
	hSynOff []int32  // synonyms of hyp i: hSyn[hSynOff[2i]:hSynOff[2i+1]], -1 until computed
	hSyn    []uint32 // name ids

	ref   []string
	rStem []string
	rName []int32 // name id of a reference stem, -1 if none

	hRem, rRem []int32 // positions not yet matched, ascending
	match      []int32 // per hypothesis position: matched reference position or -1

	morph morphScratch
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

// align runs the three matching stages for sc.ref, fills sc.match and returns the match count.
func (sc *meteorScratch) align() int {
	n, m := len(sc.hyp), len(sc.ref)
	for i := range sc.match {
		sc.match[i] = -1
	}
	sc.hRem = iota32(sc.hRem, n)
	sc.rRem = iota32(sc.rRem, m)
	count := sc.matchEqual(sc.hyp, sc.ref)
	if len(sc.hRem) == 0 || len(sc.rRem) == 0 {
		return count
	}
	sc.rStem = resize(sc.rStem, m)
	for _, r := range sc.rRem {
		sc.rStem[r] = textnorm.Stem(sc.ref[r])
	}
	for _, h := range sc.hRem {
		sc.stemHyp(h)
	}
	count += sc.matchEqual(sc.hStem, sc.rStem)
	if sc.wn == nil || len(sc.hRem) == 0 || len(sc.rRem) == 0 {
		return count
	}
	return count + sc.matchSynonyms()
}

func iota32(s []int32, n int) []int32 {
	s = resize(s, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

func (sc *meteorScratch) stemHyp(h int32) {
	if !sc.hHas[h] {
		sc.hStem[h] = textnorm.Stem(sc.hyp[h])
		sc.hHas[h] = true
	}
}

// matchEqual is NLTK's _match_enums over the remaining positions: for each hypothesis item
// from the last, the last remaining reference item with the same key is matched and both are
// removed. It returns the number of matches.
func (sc *meteorScratch) matchEqual(hk, rk []string) int {
	count := 0
	for i := len(sc.hRem) - 1; i >= 0; i-- {
		h := sc.hRem[i]
		for j := len(sc.rRem) - 1; j >= 0; j-- {
			r := sc.rRem[j]
			if hk[h] == rk[r] {
				sc.record(i, j)
				count++
				break
			}
		}
	}
	return count
}

// record matches the i-th remaining hypothesis item with the j-th remaining reference item.
func (sc *meteorScratch) record(i, j int) {
	sc.match[sc.hRem[i]] = sc.rRem[j]
	sc.hRem = append(sc.hRem[:i], sc.hRem[i+1:]...)
	sc.rRem = append(sc.rRem[:j], sc.rRem[j+1:]...)
}

// matchSynonyms is NLTK's _enum_wordnetsyn_match on the remaining stems: a reference stem
// matches when it is a lemma name (without '_') of a synset of the hypothesis stem.
//
// Note: NLTK also puts the hypothesis stem itself in the set. After the stem stage no remaining
// reference stem equals a remaining hypothesis stem (a hypothesis item is left only when no
// equal reference item remained, and references only get removed), so that never matches.
func (sc *meteorScratch) matchSynonyms() int {
	sc.rName = resize(sc.rName, len(sc.ref))
	any := false
	for _, r := range sc.rRem {
		sc.rName[r] = -1
		if id, ok := sc.wn.names[sc.rStem[r]]; ok {
			sc.rName[r] = int32(id)
			any = true
		}
	}
	if !any {
		return 0
	}
	count := 0
	for i := len(sc.hRem) - 1; i >= 0; i-- {
		syn := sc.synonymsOf(sc.hRem[i])
		if len(syn) == 0 {
			continue
		}
		for j := len(sc.rRem) - 1; j >= 0; j-- {
			id := sc.rName[sc.rRem[j]]
			if id >= 0 && containsID(syn, uint32(id)) {
				sc.record(i, j)
				count++
				break
			}
		}
	}
	return count
}

// synonymsOf returns the synonym name ids of hypothesis item h, computed once per call.
func (sc *meteorScratch) synonymsOf(h int32) []uint32 {
	if sc.hSynOff[2*h] < 0 {
		start := len(sc.hSyn)
		sc.hSyn = sc.wn.synonyms(sc.hSyn, sc.hStem[h], &sc.morph)
		sc.hSynOff[2*h], sc.hSynOff[2*h+1] = int32(start), int32(len(sc.hSyn))
	}
	return sc.hSyn[sc.hSynOff[2*h]:sc.hSynOff[2*h+1]]
}

func containsID(s []uint32, id uint32) bool {
	for _, v := range s {
		if v == id {
			return true
		}
	}
	return false
}
