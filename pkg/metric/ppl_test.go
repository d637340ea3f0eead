package metric

import (
	"math"
	"testing"
)

func TestPerplexityOfSumsIntPastInt64(t *testing.T) {
	for _, tc := range []struct {
		loss float64
		want int64
	}{
		{40, int64(math.Exp(40))}, // e^40 ≈ 2.35e17, below 2^63
		{43, 4727839468229346304}, // e^43 ≈ 4.73e18, between 2^62 and 2^63: int(math.exp(43.0))
		{50, 0},                   // e^50 ≈ 5.18e21: no int64 holds it
		{1000, 0},                 // +Inf
	} {
		if got := PerplexityOfSums(tc.loss, 1, 1).PPLInt; got != tc.want {
			t.Errorf("PerplexityOfSums(%v, 1, 1).PPLInt = %d, want %d", tc.loss, got, tc.want)
		}
	}
}

// TestPerplexityOfSumsTotalFromMean: ERNIE-kit's total loss is the mean loss times the record
// count, and the loss per token is taken from that total, not from the plain sum: 7.03/3*3 is
// 7.029999999999999 in float64.
func TestPerplexityOfSumsTotalFromMean(t *testing.T) {
	r := PerplexityOfSums(7.03, 3, 1)
	if r.TotalLoss != 7.029999999999999 || r.AveLoss != 7.029999999999999 {
		t.Errorf("PerplexityOfSums(7.03, 3, 1) total, per-token loss = %v, %v, want 7.029999999999999 both", r.TotalLoss, r.AveLoss)
	}
}
