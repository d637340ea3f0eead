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
		{50, 0},                   // e^50 ≈ 5.18e21: no int64 holds it
		{1000, 0},                 // +Inf
	} {
		if got := PerplexityOfSums(tc.loss, 1, 1).PPLInt; got != tc.want {
			t.Errorf("PerplexityOfSums(%v, 1, 1).PPLInt = %d, want %d", tc.loss, got, tc.want)
		}
	}
}
