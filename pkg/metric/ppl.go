package metric

import "math"

// PerplexityReport is ERNIE-kit's Ppl: the mean summed loss times the record count, per token.
type PerplexityReport struct {
	WordCount int
	MeanLoss  float64
	TotalLoss float64 // MeanLoss·N, not bit-identical to the plain sum
	AveLoss   float64
	PPL       float64
	PPLInt    int64 // int(ppl), truncated, as ERNIE-kit prints it
}

// Perplexity computes perplexity from per-record summed negative log-likelihoods (nats) and
// token counts.
func Perplexity(loss []float64, tokens []int) PerplexityReport {
	var r PerplexityReport
	for _, t := range tokens {
		r.WordCount += t
	}
	r.MeanLoss = pairwiseSum(loss) / float64(len(loss))
	r.TotalLoss = r.MeanLoss * float64(len(loss))
	r.AveLoss = r.TotalLoss / float64(r.WordCount)
	r.PPL = math.Exp(r.AveLoss)
	if !math.IsInf(r.PPL, 0) && !math.IsNaN(r.PPL) {
		r.PPLInt = int64(r.PPL)
	}
	return r
}

// pairwiseSum adds as numpy does (blocks of 8 unrolled, halves recursively above 128), so means
// match numpy's to the bit.
func pairwiseSum(xs []float64) float64 {
	n := len(xs)
	switch {
	case n < 8:
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], xs[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += xs[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += xs[i]
		}
		return s
	default:
		h := n / 2
		h -= h % 8
		return pairwiseSum(xs[:h]) + pairwiseSum(xs[h:])
	}
}
