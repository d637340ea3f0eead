package metric

import "testing"

// benchmarkMETEOR scores every golden pair once per iteration. After the first iteration every
// word is in the cross-call vocabulary, as for a dataset whose answers repeat their words.
func benchmarkMETEOR(b *testing.B, synonyms bool, cfg meteorConfig) {
	pairs := loadPairs(b)
	loadWordNet()
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pairs {
			meteor(p.Prediction, p.References, synonyms, cfg)
		}
	}
	b.ReportMetric(float64(b.N*len(pairs))/b.Elapsed().Seconds(), "pairs/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(pairs)), "ns/pair")
}

func BenchmarkMETEOR(b *testing.B)      { benchmarkMETEOR(b, true, defaultMeteor) }
func BenchmarkMETEORNoSyn(b *testing.B) { benchmarkMETEOR(b, false, defaultMeteor) }

// BenchmarkMETEORBoth is BenchmarkMETEOR and BenchmarkMETEORNoSyn in one call a pair, as
// qa-score computes the two.
func BenchmarkMETEORBoth(b *testing.B) {
	pairs := loadPairs(b)
	loadWordNet()
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pairs {
			METEORBoth(p.Prediction, p.References)
		}
	}
	b.ReportMetric(float64(b.N*len(pairs))/b.Elapsed().Seconds(), "pairs/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(pairs)), "ns/pair")
}

// BenchmarkMETEORCold empties the vocabulary before every call: every word is stemmed and
// looked up in WordNet afresh, the worst case of a dataset whose words never repeat.
func BenchmarkMETEORCold(b *testing.B) {
	benchmarkMETEOR(b, true, meteorConfig{groupAbove: defaultMeteor.groupAbove})
}

// BenchmarkMETEORFirstPass scores the golden pairs once per iteration with a new scratch, as
// one run over a dataset does: words are cached as they first come up.
func BenchmarkMETEORFirstPass(b *testing.B) {
	pairs := loadPairs(b)
	loadWordNet()
	b.ReportAllocs()
	for b.Loop() {
		sc := new(meteorScratch)
		for _, p := range pairs {
			sc.meteor(p.Prediction, p.References, true, defaultMeteor)
		}
	}
	b.ReportMetric(float64(b.N*len(pairs))/b.Elapsed().Seconds(), "pairs/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(pairs)), "ns/pair")
}

func BenchmarkLoadWordNet(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeWordNet(wordnetData); err != nil {
			b.Fatal(err)
		}
	}
}
