package score

import (
	"math"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// FuzzScore runs every family on arbitrary text: no panic, and every score a finite value in
// [0, 1].
func FuzzScore(f *testing.F) {
	f.Add("the cat sat", "a cat sat down", "en", 1)
	f.Add("", "", "zh", 5)
	f.Add("北京大学", "北京 大学。", "zh", 3)
	f.Add("Not mentioned", "x; y, z", "en", 1)
	f.Add("İstanbul ΟΔΟΣ\u0085x\u001cy", "istanbul οδος", "en", 2)
	sel, err := selectMetrics(registry(), "")
	if err != nil {
		f.Fatal(err)
	}
	sc := newScorer(sel, "")
	f.Fuzz(func(t *testing.T, pred, ref, lang string, cat int) {
		rec := &record.Record{Schema: 1, ID: "x", Dataset: "locomo", Lang: lang, Answers: []string{ref, pred + ref},
			Prediction: &record.Prediction{Text: pred}}
		rec.SetMeta("category", cat%6) //nolint:errcheck // an int always encodes
		o := sc.score(rec)
		for k, v := range o.vals {
			if math.IsNaN(v) {
				continue
			}
			if math.IsInf(v, 0) || v < 0 || v > 1 {
				t.Errorf("%s(%q, %q) = %v, want a value in [0, 1]", sel.names[k], pred, ref, v)
			}
		}
	})
}
