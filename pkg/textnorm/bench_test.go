package textnorm

import (
	"strings"
	"testing"
)

var benchText = strings.Repeat("The Denver Broncos defeated the Carolina Panthers, 24–10, to earn their third Super Bowl title. ", 20)

func BenchmarkAppendSquadNormalized(b *testing.B) {
	buf := make([]byte, 0, 4096)
	for _, tc := range []struct{ name, text string }{
		{"ascii", strings.ReplaceAll(benchText, "–", "-")},
		{"unicode", benchText},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.text)))
			for b.Loop() {
				buf = AppendSquadNormalized(buf[:0], tc.text)
			}
		})
	}
}

func BenchmarkStem(b *testing.B) {
	words := Split(strings.ToLower(benchText))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, w := range words {
			Stem(w)
		}
		n += len(words)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "words/s")
}

// BenchmarkStemYRun stems a 16,000-letter run of y's with a suffix, the worst case of the
// consonant test: a y's class depends on every y before it.
func BenchmarkStemYRun(b *testing.B) {
	w := strings.Repeat("y", 16000) + "ing"
	b.SetBytes(int64(len(w)))
	b.ReportAllocs()
	for b.Loop() {
		Stem(w)
	}
}
