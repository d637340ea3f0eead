package score

import (
	"math"
	"testing"
)

// TestTakesPart: a labelled record counts as scored only when a selected label metric reads it.
func TestTakesPart(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		want           []string
		score          float64
		grouped, takes bool
	}{
		{[]string{"accuracy"}, nan, false, true},
		{[]string{"f1_score", "mrr"}, nan, false, true},
		{[]string{"auc"}, nan, true, false},
		{[]string{"auc"}, 0.3, false, true},
		{[]string{"mrr", "map"}, 0.3, false, false},
		{[]string{"mrr", "map"}, 0.3, true, true},
		{[]string{"pn", "pairwise_acc"}, nan, true, false},
		{[]string{"pairwise_acc"}, 0, true, true},
		{[]string{"auc", "pn"}, 0.9, false, true},
	} {
		cfg := &corpusConfig{want: c.want}
		l := &labelled{gold: "1", pred: "1", score: c.score, grouped: c.grouped}
		if got := cfg.takesPart(l); got != c.takes {
			t.Errorf("%v, score %v, grouped %v: takesPart = %v, want %v", c.want, c.score, c.grouped, got, c.takes)
		}
	}
}
