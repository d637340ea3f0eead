package metric

import (
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// benchPairs runs score over every golden pair per iteration and reports pairs/s.
func benchPairs(b *testing.B, score func(goldenPair)) { benchPairsOf(b, loadPairs(b), score) }

// benchPairsOf runs score over pairs per iteration and reports pairs/s.
func benchPairsOf(b *testing.B, pairs []goldenPair, score func(goldenPair)) {
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

// BenchmarkSquadF1Kind splits BenchmarkSquadF1's pairs by the hardest of the texts SquadF1
// normalises (see squadKind), one sub-benchmark a kind, so that each kind's time a pass can be set
// against SQuAD F1's budget (README, Speed). Their sum is below a pass over all pairs, though a
// pass over all pairs ordered by kind takes as long as one in the corpus's order: a shorter
// stream of pairs, repeated, is easier on the processor, whatever its kinds.
func BenchmarkSquadF1Kind(b *testing.B) {
	byKind := map[string][]goldenPair{}
	for _, p := range loadPairs(b) {
		k := squadKind(p.Prediction)
		for i, r := range p.References {
			if r != p.Prediction && !slices.Contains(p.References[:i], r) {
				k = max(k, squadKind(r))
			}
		}
		byKind[squadKinds[k]] = append(byKind[squadKinds[k]], p)
	}
	for _, name := range squadKinds {
		b.Run(name, func(b *testing.B) {
			benchPairsOf(b, byKind[name], func(p goldenPair) { SquadF1(p.Prediction, p.References) })
		})
	}
}

// squadKinds names the kinds of text squadKind tells apart, easiest first.
var squadKinds = []string{"plain", "joined", "non-ascii", "long"}

// squadKind returns the index in squadKinds of the kind of s: "long" over 64 bytes; else
// "non-ascii" when it holds a byte over 0x7f; else "joined" when punctuation or a control
// character stands between two letters or digits of a whitespace-separated word, which the
// normaliser joins or splits there; else "plain", ASCII words with at most punctuation around them.
func squadKind(s string) int {
	if len(s) > 64 {
		return 3
	}
	kind := 0
	alnum, gap := false, false // a letter or digit seen in this word, and something else since
	for i := 0; i < len(s); i++ {
		switch c := rune(s[i]); {
		case c >= utf8.RuneSelf:
			return 2
		case textnorm.IsSpace(c):
			alnum, gap = false, false
		case textnorm.IsAlnum(c):
			if alnum && gap {
				kind = 1
			}
			alnum, gap = true, false
		default:
			gap = true
		}
	}
	return kind
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

// BenchmarkRougeBoth is BenchmarkRougeStem and BenchmarkRougeNoStem in one call a pair, as
// qa-score computes the two families.
func BenchmarkRougeBoth(b *testing.B) {
	benchPairs(b, func(p goldenPair) { RougeBoth(p.Prediction, p.References) })
}

// BenchmarkRougeStemFirstPass scores the golden pairs once per iteration with a new scratch, as
// one run over a dataset does: every word is stemmed and memoised as it first comes up.
func BenchmarkRougeStemFirstPass(b *testing.B) {
	benchFirstPass(b, func(s *scratch, p goldenPair) { s.rouge(p.Prediction, p.References, true) })
}

// benchFirstPass runs score over every golden pair per iteration, with a new scratch for each
// iteration, emptied before each pair as getScratch does, and reports pairs/s.
func benchFirstPass(b *testing.B, score func(*scratch, goldenPair)) {
	pairs := loadPairs(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		s := new(scratch)
		for _, p := range pairs {
			s.reset()
			score(s, p)
		}
		n += len(pairs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pairs/s")
}

func BenchmarkBLEU(b *testing.B) {
	benchPairs(b, func(p goldenPair) { BLEU(p.Prediction, p.References) })
}

func BenchmarkLocomoF1(b *testing.B) {
	benchPairs(b, func(p goldenPair) { LocomoF1(p.Prediction, p.References[0], LocomoSingleHop) })
}

// The floors under SQuAD F1's speed: loops that do strictly less than any correct SQuAD F1 over
// the golden corpus must, so that its time a pass can be set against theirs (README, Speed).

// floorTable classifies bytes for the floor loops: 0 for ASCII whitespace, 1 otherwise.
var floorTable = func() (t [256]uint8) {
	for i := range t {
		t[i] = 1
	}
	for _, c := range []byte(" \t\n\v\f\r") {
		t[c] = 0
	}
	return t
}()

var floorSink uint64

// floorBytes adds one table lookup per byte of s.
func floorBytes(s string) (t uint64) {
	for i := 0; i < len(s); i++ {
		t += uint64(floorTable[s[i]])
	}
	return t
}

// floorTokens hashes the whitespace-separated tokens of s.
func floorTokens(s string) (t uint64) {
	var h uint64
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if floorTable[c] == 0 {
			if in {
				t += h
				h, in = 0, false
			}
			continue
		}
		h = h*31 + uint64(c|0x20)
		in = true
	}
	if in {
		t += h
	}
	return t
}

// BenchmarkFloorBytes adds one table lookup per byte of every prediction and reference.
func BenchmarkFloorBytes(b *testing.B) { benchFloor(b, floorBytes) }

// BenchmarkFloorTokens hashes the whitespace-separated tokens of every prediction and reference,
// with no normalising and no matching.
func BenchmarkFloorTokens(b *testing.B) { benchFloor(b, floorTokens) }

// benchFloor runs f over the texts SQuAD F1 normalises: the prediction, and each reference that
// is neither the prediction nor an earlier reference.
func benchFloor(b *testing.B, f func(string) uint64) {
	benchPairs(b, func(p goldenPair) {
		t := f(p.Prediction)
		for k, r := range p.References {
			if r != p.Prediction && !slices.Contains(p.References[:k], r) {
				t += f(r)
			}
		}
		floorSink += t
	})
}
