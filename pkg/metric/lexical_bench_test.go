package metric

import "testing"

// benchPairs runs score over every golden pair per iteration and reports pairs/s.
func benchPairs(b *testing.B, score func(goldenPair)) {
	pairs := loadPairs(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, p := range pairs {
			score(p)
		}
		n += len(pairs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pairs/s")
}

func BenchmarkSquadF1(b *testing.B) {
	benchPairs(b, func(p goldenPair) { SquadF1(p.Prediction, p.References) })
}

func BenchmarkSquadEM(b *testing.B) {
	benchPairs(b, func(p goldenPair) { SquadEM(p.Prediction, p.References) })
}

func BenchmarkSquad2F1(b *testing.B) {
	benchPairs(b, func(p goldenPair) { Squad2F1(p.Prediction, p.References) })
}

func BenchmarkHotpotF1(b *testing.B) {
	benchPairs(b, func(p goldenPair) { HotpotF1(p.Prediction, p.References) })
}

func BenchmarkRougeStem(b *testing.B) {
	benchPairs(b, func(p goldenPair) { Rouge(p.Prediction, p.References, true) })
}

func BenchmarkRougeNoStem(b *testing.B) {
	benchPairs(b, func(p goldenPair) { Rouge(p.Prediction, p.References, false) })
}

func BenchmarkBLEU(b *testing.B) {
	benchPairs(b, func(p goldenPair) { BLEU(p.Prediction, p.References) })
}

func BenchmarkLocomoF1(b *testing.B) {
	benchPairs(b, func(p goldenPair) { LocomoF1(p.Prediction, p.References[0], LocomoSingleHop) })
}
