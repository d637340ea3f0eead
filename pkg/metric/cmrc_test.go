package metric

import "testing"

func TestCMRCGolden(t *testing.T) {
	pairs := loadPairs(t)
	em := checkGolden(t, pairs, "cmrc_em", func(p goldenPair) float64 { return CMRCEM(p.Prediction, p.References) })
	f1 := checkGolden(t, pairs, "cmrc_f1", func(p goldenPair) float64 { return CMRCF1(p.Prediction, p.References) })
	t.Logf("compared %d cmrc_em and %d cmrc_f1 golden pairs", em, f1)
}
