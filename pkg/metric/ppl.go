package metric

import (
	"math"

	"github.com/qapipe/qapipe/pkg/pysum"
)

// PerplexityReport is ERNIE-kit's Ppl: the mean summed loss times the record count, per token.
type PerplexityReport struct {
	WordCount int
	MeanLoss  float64
	TotalLoss float64 // MeanLoss·N, not bit-identical to the plain sum
	AveLoss   float64
	PPL       float64
	PPLInt    int64 // int(ppl), truncated, as ERNIE-kit prints it; 0 when PPL is not below 2^63 (see PerplexityOfSums)
}

// Perplexity computes perplexity from per-record summed negative log-likelihoods (nats) and
// token counts. With no records the float figures are NaN, as numpy's mean of nothing is. It
// panics when loss and tokens differ in length.
func Perplexity(loss []float64, tokens []int) PerplexityReport {
	sameLength("Perplexity", len(tokens), "token counts", len(loss), "losses")
	words := 0
	for _, t := range tokens {
		words += t
	}
	return PerplexityOfSums(pysum.Numpy(loss), len(loss), words)
}

// PerplexityOfSums is Perplexity from n records' summed losses, added as pysum.Numpy adds them
// (a pysum.Adder adds them as they come), and their summed token counts: the same report, for a
// caller that keeps the sums rather than the records. PPLInt is 0 when PPL is NaN or 2^63 or more
// (an exp of more than about 43.67 nats a token), which an int64 cannot hold: PPL, a whole number
// then, is int(ppl) itself.
func PerplexityOfSums(loss float64, n, tokens int) PerplexityReport {
	r := PerplexityReport{WordCount: tokens}
	r.MeanLoss = loss / float64(n)
	r.TotalLoss = r.MeanLoss * float64(n)
	r.AveLoss = r.TotalLoss / float64(r.WordCount)
	r.PPL = math.Exp(r.AveLoss)
	if r.PPL < 1<<63 { // false for NaN and +Inf; past it, an int64 conversion wraps
		r.PPLInt = int64(r.PPL)
	}
	return r
}
