package metric

import (
	"math"
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
)

// goldenPair is one line of testdata/pairs.jsonl: scores the official implementations give.
type goldenPair struct {
	ID         string             `json:"id"`
	Prediction string             `json:"prediction"`
	References []string           `json:"references"`
	Lang       string             `json:"lang"`
	Source     string             `json:"source"`
	Expected   map[string]float64 `json:"expected"`
}

// loadPairs reads every golden pair; the file is checked in, so a failure to read it is fatal.
func loadPairs(t testing.TB) []goldenPair {
	t.Helper()
	pairs := readPairs(t, "testdata/pairs.jsonl")
	if len(pairs) != 2328 {
		t.Fatalf("read %d golden pairs, want 2328", len(pairs))
	}
	return pairs
}

// seedPairs returns at most n of the pairs of path, a file in the golden format, spread over
// it, for a fuzz target's seed corpus.
func seedPairs(tb testing.TB, path string, n int) []goldenPair {
	tb.Helper()
	return vectors.Spread(readPairs(tb, path), n)
}

// readPairs reads a file of pairs in the golden format.
func readPairs(t testing.TB, path string) []goldenPair {
	t.Helper()
	pairs, _ := vectors.Read[goldenPair](t, path, "")
	return pairs
}

func checkGolden(t *testing.T, pairs []goldenPair, field string, got func(goldenPair) float64) int {
	t.Helper()
	compared, bad := 0, 0
	for _, p := range pairs {
		want, ok := p.Expected[field]
		if !ok {
			continue
		}
		compared++
		g := got(p)
		if math.Abs(g-want) <= 1e-9 {
			continue
		}
		bad++
		if bad <= 5 {
			t.Errorf("%s %s: pred %q refs %q: got %v, want %v", field, p.ID, p.Prediction, p.References, g, want)
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d golden pairs differ", field, bad, compared)
	}
	return compared
}
