package metric

import "testing"

// BenchmarkBLEUFirstPass scores the golden pairs once per iteration with a new scratch, as one
// run over a dataset does: its caches of logarithms, exponentials and scores fill as counts first
// come up.
func BenchmarkBLEUFirstPass(b *testing.B) {
	pairs := loadPairs(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		s := new(scratch)
		for _, p := range pairs {
			if len(p.References) == 0 {
				continue
			}
			s.reset() // as getScratch does
			s.bleu(p.Prediction, p.References)
		}
		n += len(pairs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pairs/s")
}
