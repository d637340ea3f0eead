package metric

import "testing"

// BenchmarkBLEUFirstPass scores the golden pairs once per iteration with a new scratch, as one
// run over a dataset does: its caches of logarithms, exponentials and scores fill as counts first
// come up.
func BenchmarkBLEUFirstPass(b *testing.B) {
	benchFirstPass(b, func(s *scratch, p goldenPair) {
		if len(p.References) > 0 {
			s.bleu(p.Prediction, p.References)
		}
	})
}
