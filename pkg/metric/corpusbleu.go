package metric

import "math"

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

// CorpusBLEU scores tokenised hypotheses against their references (refs[i] holds hypothesis i's
// references). weights has one entry per n-gram order, 1 to 4. Tokens compare as exact strings.
// It also returns ERNIE-kit's gen_eval BLEU, with ok false where that reference raises (a zero
// total reference length).
func CorpusBLEU(hyps [][]string, refs [][][]string, weights []float64) (nltk CorpusBLEUReport, gen GenEvalReport, ok bool) {
	orders := len(weights)
	nltk.Numerators, nltk.Denominators = make([]int, orders), make([]int, orders)
	gen.Matches, gen.PossibleMatches = make([]int, orders), make([]int, orders)
	s := getScratch()
	defer putScratch(s)
	for i, hyp := range hyps {
		s.ids = s.ids[:0]
		for _, t := range hyp {
			s.ids = append(s.ids, s.idString(t))
		}
		bounds := s.bounds[:0]
		lens := make([]int, 0, len(refs[i]))
		for _, r := range refs[i] {
			for _, t := range r {
				s.ids = append(s.ids, s.idString(t))
			}
			bounds = append(bounds, len(s.ids))
			lens = append(lens, len(r))
		}
		s.bounds = bounds
		for n := 1; n <= orders; n++ {
			num, den := s.clipped(n, len(hyp), bounds)
			nltk.Numerators[n-1] += num
			nltk.Denominators[n-1] += den
			gen.Matches[n-1] += num
			gen.PossibleMatches[n-1] += max(0, len(hyp)-n+1)
		}
		nltk.HypLen += len(hyp)
		nltk.RefLen += closestRefLen(len(hyp), lens)
		if len(lens) > 0 {
			gen.ReferenceLength += minInt(lens)
		}
	}
	gen.TranslationLength = nltk.HypLen
	nltk.finish(weights)
	ok = gen.ReferenceLength > 0
	if ok {
		gen.finish(orders)
	}
	return nltk, gen, ok
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
		terms[k] = w * math.Log(p)
	}
	r.BLEU = r.BP * math.Exp(fsum(terms))
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
		g.BP = math.Exp(1 - 1/(g.Ratio+1e-4))
	}
	geo := 0.0
	if positive {
		sum := 0.0
		for _, p := range g.Precisions {
			sum += (1.0 / float64(orders)) * math.Log(p)
		}
		geo = math.Exp(sum)
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
