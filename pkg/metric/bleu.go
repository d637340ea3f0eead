package metric

import (
	"math"
)

// BLEUScores holds sentence BLEU with uniform weights over 1, 2 and 4 n-gram orders.
type BLEUScores struct{ B1, B2, B4 float64 }

// bleuWeights are the weights NLTK is called with: (1,0,0,0), (.5,.5,0,0) and (.25,.25,.25,.25).
var bleuWeights = [3][4]float64{{1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {0.25, 0.25, 0.25, 0.25}}

// BLEU is NLTK 3.8's sentence_bleu over Python-lowercased, whitespace-split tokens with
// SmoothingFunction().method1: n-gram counts clipped by their largest count in any one reference,
// the brevity penalty from the closest reference length (the shorter on ties), 0 when no unigram
// matches, and otherwise exp of the exactly rounded sum (math.fsum) of the weighted log precisions.
// It returns zeros when refs is empty (NLTK raises there).
func BLEU(pred string, refs []string) BLEUScores {
	if len(refs) == 0 {
		return BLEUScores{}
	}
	s := getScratch()
	defer putScratch(s)
	return s.bleu(pred, refs)
}

// bleu is BLEU in the scratch s, for at least one reference.
func (s *scratch) bleu(pred string, refs []string) BLEUScores {
	hyp, closest, ok := s.bleuRead(pred, refs, true)
	if !ok { // two long tokens share a key
		hyp, closest, _ = s.bleuRead(pred, refs, false)
	}
	num := s.bleuClipped(hyp)
	if num[0] == 0 {
		return BLEUScores{}
	}
	return s.bleuScores(num, hyp, closest)
}

// bleuClipped returns the clipped counts of the orders 1 to 4 of the hypothesis s.words[:hyp]
// against the references that end at s.bounds, counted the way that suits their lengths. Their
// denominators, the n-gram counts of the hypothesis, are max(1, hyp-n+1) on every path.
func (s *scratch) bleuClipped(hyp int) [4]int {
	bounds := s.bounds
	refLen := 0
	if len(bounds) > 0 {
		refLen = bounds[len(bounds)-1] - hyp
	}
	var num, den [4]int
	switch {
	case hyp*(hyp+refLen) <= maxRunPairs:
		num, _ = clippedRuns(s.words, hyp, bounds)
	case hyp <= maxMaskHyp && refLen <= maxMaskRefs:
		num, _ = s.clippedMasks(hyp, bounds)
	case refLen <= maxFromRefs:
		num, _ = clippedFromRefs(s.words, hyp, bounds)
	default:
		s.wordIDs()
		s.clippedOrders(&num, &den, hyp, bounds)
	}
	return num
}

// bleuScores returns the scores of clipped numerators num for a hypothesis of hyp tokens and a
// closest reference length closest, memoised in the scratch (see bleuResult) when they are small.
func (s *scratch) bleuScores(num [4]int, hyp, closest int) BLEUScores {
	key, ok := bleuResultKey(num, hyp, closest)
	if !ok {
		return s.bleuCompute(num, hyp, closest)
	}
	if s.bleuResults == nil {
		s.bleuResults = new([1 << bleuResultBits]bleuResult)
	}
	e := &s.bleuResults[(key*0x9e3779b97f4a7c15)>>(64-bleuResultBits)]
	if e.key != key {
		*e = bleuResult{key, s.bleuCompute(num, hyp, closest)}
	}
	return e.val
}

// bleuResultKey packs num, hyp and closest, ten bits each, into a key with the top bit set, or
// reports false when one needs more than ten bits.
func bleuResultKey(num [4]int, hyp, closest int) (uint64, bool) {
	if hyp >= 1<<10 || closest >= 1<<10 { // num[n] ≤ hyp
		return 0, false
	}
	return 1<<63 | uint64(num[0]) | uint64(num[1])<<10 | uint64(num[2])<<20 | uint64(num[3])<<30 |
		uint64(hyp)<<40 | uint64(closest)<<50, true
}

// bleuResultBits sizes the direct-mapped cache of bleuScores.
const bleuResultBits = 10

// bleuResult is a cached result of bleuScores with its key; the zero key marks an empty entry.
type bleuResult struct {
	key uint64
	val BLEUScores
}

// bleuCompute is bleuScores without its cache.
func (s *scratch) bleuCompute(num [4]int, hyp, closest int) BLEUScores {
	var den [4]int
	for n := range den {
		den[n] = max(1, hyp-n)
	}
	bp := s.memo(1<<63|uint64(closest)<<32|uint64(hyp), func() float64 { return brevityPenalty(closest, hyp) })
	var logp [4]float64
	for i := range logp {
		n, d := num[i], den[i]
		logp[i] = s.memo(uint64(n)<<32|uint64(d), func() float64 {
			if n == 0 {
				return roundedLog((0 + 0.1) / float64(d))
			}
			return roundedLog(float64(n) / float64(d))
		})
	}
	// math.fsum of the weighted logarithms: with at most two non-zero terms, each exact (the
	// weights are 1 and 1/2), one IEEE addition is already the correctly rounded sum.
	var terms [4]float64
	for i := range terms {
		terms[i] = bleuWeights[2][i] * logp[i]
	}
	sums := [3]float64{logp[0], float64(0.5*logp[0]) + float64(0.5*logp[1]), fsum(terms[:])}
	var out [3]float64
	for k, sum := range sums {
		if sum == 0 {
			out[k] = bp
		} else {
			out[k] = bp * s.memoExp(sum)
		}
	}
	return BLEUScores{out[0], out[1], out[2]}
}

// memo returns f(), memoised under key (not 0) in the scratch: BLEU's logarithms and brevity
// penalties depend only on small integer pairs, which repeat from call to call.
func (s *scratch) memo(key uint64, f func() float64) float64 {
	e := &s.floats[(key*0x9e3779b97f4a7c15)>>(64-floatCacheBits)]
	if e.key != key {
		*e = floatEntry{key, f()}
	}
	return e.val
}

// memoExp is roundedExp(x) for x ≠ 0, memoised in the scratch by x's bits: the sums of weighted
// logarithms repeat as the integer pairs under them do.
func (s *scratch) memoExp(x float64) float64 {
	key := math.Float64bits(x)
	e := &s.exps[(key*0x9e3779b97f4a7c15)>>(64-floatCacheBits)]
	if e.key != key {
		*e = floatEntry{key, roundedExp(x)}
	}
	return e.val
}

// floatCacheBits sizes the direct-mapped caches of memo and memoExp.
const floatCacheBits = 9

// floatEntry is a cached value with its key; the zero key marks an empty entry.
type floatEntry struct {
	key uint64
	val float64
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func brevityPenalty(closest, hyp int) float64 {
	switch {
	case hyp > closest:
		return 1
	case hyp == 0:
		return 0
	}
	return roundedExp(1 - float64(closest)/float64(hyp))
}
