package metric

import (
	"math"
	"slices"
)

// CorpusBLEUReport is NLTK 3.8 corpus_bleu (no smoothing) with its parts: n-gram precisions summed
// over the corpus before dividing, and one brevity penalty from the summed lengths.
type CorpusBLEUReport struct {
	BLEU         float64
	Precisions   []float64
	Numerators   []int
	Denominators []int
	BP           float64
	HypLen       int
	RefLen       int
	// Ratio is HypLen/RefLen; NaN when RefLen is 0. NLTK does not return it.
	Ratio float64
}

// GenEvalReport is ERNIE-kit's gen_eval corpus BLEU (tensor2tensor style): shortest reference
// length, no max(1, ·) on denominators, BP = exp(1 − 1/(ratio + 1e-4)) when ratio ≤ 1.
type GenEvalReport struct {
	BLEU              float64
	Precisions        []float64
	BP                float64
	Ratio             float64
	TranslationLength int
	ReferenceLength   int
	Matches           []int
	PossibleMatches   []int
}

// smallestFloat is sys.float_info.min, NLTK's stand-in for a zero precision (method0).
const smallestFloat = 2.2250738585072014e-308

// BLEUCounts are corpus BLEU's sufficient statistics: clipped n-gram matches and hypothesis
// n-gram counts per order, summed over segments, and the summed lengths. Streams add segments one
// at a time (or merge partial counts) and finish once, so no tokens are kept.
type BLEUCounts struct {
	Numerators      []int // clipped matches per order (NLTK numerators, ERNIE matches)
	Denominators    []int // max(1, hypothesis n-grams) per segment and order, summed
	PossibleMatches []int // max(0, len(hyp)-n+1), summed (ERNIE)
	HypLen          int
	RefLen          int // closest reference length (shorter on ties), summed (NLTK)
	ShortestRefLen  int // shortest reference length, summed (ERNIE)
}

// NewBLEUCounts returns empty counts for n-gram orders 1 to orders (1 to 4; it panics on
// another number).
func NewBLEUCounts(orders int) *BLEUCounts {
	bleuOrders("NewBLEUCounts", orders, "n-gram orders")
	return &BLEUCounts{Numerators: make([]int, orders), Denominators: make([]int, orders),
		PossibleMatches: make([]int, orders)}
}

// Add counts one segment: a tokenised hypothesis and its references. Tokens compare as exact strings.
func (c *BLEUCounts) Add(hyp []string, refs [][]string) {
	s := getScratch()
	defer putScratch(s)
	s.ids = s.ids[:0]
	for _, t := range hyp {
		s.ids = append(s.ids, s.idString(t))
	}
	bounds := s.bounds[:0]
	lens := make([]int, 0, len(refs))
	for _, r := range refs {
		for _, t := range r {
			s.ids = append(s.ids, s.idString(t))
		}
		bounds = append(bounds, len(s.ids))
		lens = append(lens, len(r))
	}
	s.bounds = bounds
	for n := 1; n <= len(c.Numerators); n++ {
		num, den := s.clipped(n, len(hyp), bounds)
		c.Numerators[n-1] += num
		c.Denominators[n-1] += den
		c.PossibleMatches[n-1] += max(0, len(hyp)-n+1)
	}
	c.HypLen += len(hyp)
	c.RefLen += closestRefLen(len(hyp), lens)
	if len(lens) > 0 {
		c.ShortestRefLen += minInt(lens)
	}
}

// Merge adds o's counts (of the same number of orders) to c.
func (c *BLEUCounts) Merge(o *BLEUCounts) {
	for k := range c.Numerators {
		c.Numerators[k] += o.Numerators[k]
		c.Denominators[k] += o.Denominators[k]
		c.PossibleMatches[k] += o.PossibleMatches[k]
	}
	c.HypLen += o.HypLen
	c.RefLen += o.RefLen
	c.ShortestRefLen += o.ShortestRefLen
}

// NLTK finishes NLTK 3.8 corpus_bleu (no smoothing) with one weight per order.
func (c *BLEUCounts) NLTK(weights []float64) CorpusBLEUReport {
	r := CorpusBLEUReport{Numerators: slices.Clone(c.Numerators), Denominators: slices.Clone(c.Denominators),
		HypLen: c.HypLen, RefLen: c.RefLen}
	r.finish(weights)
	return r
}

// GenEval finishes ERNIE-kit's gen_eval BLEU; ok is false where that reference raises (a zero
// total reference length).
func (c *BLEUCounts) GenEval() (g GenEvalReport, ok bool) {
	if c.ShortestRefLen == 0 {
		return g, false
	}
	g = GenEvalReport{Matches: slices.Clone(c.Numerators), PossibleMatches: slices.Clone(c.PossibleMatches),
		TranslationLength: c.HypLen, ReferenceLength: c.ShortestRefLen}
	g.finish(len(c.Numerators))
	return g, true
}

// CorpusBLEU scores tokenised hypotheses against their references (refs[i] holds hypothesis i's
// references). weights has one entry per n-gram order, 1 to 4. It also returns ERNIE-kit's
// gen_eval BLEU of as many orders, with ok false where that reference raises (a zero total
// reference length) and where the weights are not uniform (each 1/n): gen_eval takes no
// weights, its orders weighing the same, so it is no counterpart of nltk's then, and the golden
// vectors hold none. It panics when hyps and refs differ in length, and when weights has no entry
// or more than 4.
func CorpusBLEU(hyps [][]string, refs [][][]string, weights []float64) (nltk CorpusBLEUReport, gen GenEvalReport, ok bool) {
	sameLength("CorpusBLEU", len(hyps), "hypotheses", len(refs), "reference lists")
	bleuOrders("CorpusBLEU", len(weights), "weights")
	c := NewBLEUCounts(len(weights))
	for i, hyp := range hyps {
		c.Add(hyp, refs[i])
	}
	if uniform(weights) {
		gen, ok = c.GenEval()
	}
	return c.NLTK(weights), gen, ok
}

// uniform reports whether every weight is 1/n, n the number of weights.
func uniform(weights []float64) bool {
	for _, w := range weights {
		if w != 1/float64(len(weights)) {
			return false
		}
	}
	return true
}

func (r *CorpusBLEUReport) finish(weights []float64) {
	r.Precisions = make([]float64, len(weights))
	for k := range weights {
		r.Precisions[k] = float64(r.Numerators[k]) / float64(r.Denominators[k])
	}
	r.Ratio = math.NaN()
	if r.RefLen > 0 {
		r.Ratio = float64(r.HypLen) / float64(r.RefLen)
	}
	r.BP = brevityPenalty(r.RefLen, r.HypLen)
	if r.Numerators[0] == 0 {
		return
	}
	terms := make([]float64, len(weights))
	for k, w := range weights {
		p := r.Precisions[k]
		if r.Numerators[k] == 0 {
			p = smallestFloat
		}
		terms[k] = w * roundedLog(p)
	}
	r.BLEU = r.BP * roundedExp(fsum(terms))
}

func (g *GenEvalReport) finish(orders int) {
	g.Precisions = make([]float64, orders)
	positive := true
	for k := range g.Precisions {
		if g.PossibleMatches[k] > 0 {
			g.Precisions[k] = float64(g.Matches[k]) / float64(g.PossibleMatches[k])
		}
		positive = positive && g.Precisions[k] > 0
	}
	g.Ratio = float64(g.TranslationLength) / float64(g.ReferenceLength)
	g.BP = 1
	if g.Ratio <= 1 {
		g.BP = roundedExp(1 - 1/(g.Ratio+1e-4))
	}
	geo := 0.0
	if positive {
		sum := 0.0
		for _, p := range g.Precisions {
			sum += float64((1.0 / float64(orders)) * roundedLog(p)) // rounded: no fused multiply-add
		}
		geo = roundedExp(sum)
	}
	g.BLEU = geo * g.BP
}

// closestRefLen is NLTK's closest_ref_length: the reference length nearest to hyp, the shorter
// one on ties (0 when there is no reference).
func closestRefLen(hyp int, lens []int) int {
	best := -1
	for _, n := range lens {
		if best < 0 || abs(n-hyp) < abs(best-hyp) || abs(n-hyp) == abs(best-hyp) && n < best {
			best = n
		}
	}
	return max(best, 0)
}

func minInt(xs []int) int {
	m := xs[0]
	for _, x := range xs[1:] {
		m = min(m, x)
	}
	return m
}
