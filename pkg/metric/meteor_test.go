package metric

import (
	"math"
	"testing"
)

func TestMETEORGolden(t *testing.T) {
	pairs := loadPairs(t)
	n := checkGolden(t, pairs, "meteor", func(p goldenPair) float64 { return METEOR(p.Prediction, p.References, true) })
	n2 := checkGolden(t, pairs, "meteor_nosyn", func(p goldenPair) float64 { return METEOR(p.Prediction, p.References, false) })
	exact := 0
	for _, p := range pairs {
		if METEOR(p.Prediction, p.References, true) == p.Expected["meteor"] {
			exact++
		}
		if METEOR(p.Prediction, p.References, false) == p.Expected["meteor_nosyn"] {
			exact++
		}
	}
	t.Logf("compared %d meteor and %d meteor_nosyn values, %d bit-identical", n, n2, exact)
}

func TestMETEOR(t *testing.T) {
	tests := []struct {
		name     string
		pred     string
		refs     []string
		synonyms bool
		want     float64
	}{
		{"one word exact", "Paris", []string{"paris"}, true, 0.5},
		{"perfect four words", "a b c d", []string{"a b c d"}, true, 0.9921875},
		{"reversed three chunks", "c b a", []string{"a b c"}, true, (1 - 0.5*1.0) * 1.0},
		{"car vs automobile stems differ", "car", []string{"automobile"}, true, 0},
		{"auto synonym of car", "auto", []string{"car"}, true, 0.5},
		{"auto without synonyms", "auto", []string{"car"}, false, 0},
		{"children via noun.exc", "children", []string{"child"}, true, 0.5},
		{"dogs matches cad", "dogs", []string{"cad"}, true, 0.5},
		{"stem match", "running", []string{"runs"}, false, 0.5},
		{"no refs", "x", nil, true, 0},
		{"empty prediction", "", []string{"x"}, true, 0},
		{"empty reference", "x", []string{""}, true, 0},
		{"max over refs", "a b", []string{"z", "a b"}, false, (1 - 0.5/8) * 1.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := METEOR(tt.pred, tt.refs, tt.synonyms); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("METEOR(%q, %q, %v) = %v, want %v", tt.pred, tt.refs, tt.synonyms, got, tt.want)
			}
		})
	}
}
