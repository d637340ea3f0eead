package metric

import "testing"

// benchmarkMETEOR scores every golden pair once per iteration.
func benchmarkMETEOR(b *testing.B, synonyms bool) {
	pairs := loadPairs(b)
	loadWordNet()
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pairs {
			METEOR(p.Prediction, p.References, synonyms)
		}
	}
	b.ReportMetric(float64(b.N*len(pairs))/b.Elapsed().Seconds(), "pairs/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(pairs)), "ns/pair")
}

func BenchmarkMETEOR(b *testing.B)      { benchmarkMETEOR(b, true) }
func BenchmarkMETEORNoSyn(b *testing.B) { benchmarkMETEOR(b, false) }

func BenchmarkLoadWordNet(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeWordNet(wordnetData); err != nil {
			b.Fatal(err)
		}
	}
}
