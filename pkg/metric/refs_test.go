package metric

import (
	"fmt"
	"testing"
)

// TestRepeatedReferences checks every best-over-references metric on references that repeat and
// that copy the prediction: a repeat counts once, and the best reference wins wherever it stands.
func TestRepeatedReferences(t *testing.T) {
	metrics := map[string]func(pred string, refs []string) string{
		"squad":  func(p string, r []string) string { em, f1 := SquadScores(p, r); return fmt.Sprint(em, f1) },
		"squad2": func(p string, r []string) string { em, f1 := Squad2Scores(p, r); return fmt.Sprint(em, f1) },
		"hotpot": func(p string, r []string) string { em, f1 := HotpotScores(p, r); return fmt.Sprint(em, f1) },
		"rouge":  func(p string, r []string) string { return fmt.Sprint(Rouge(p, r, true)) },
		"bleu":   func(p string, r []string) string { return fmt.Sprint(BLEU(p, r)) },
		"meteor": func(p string, r []string) string { return fmt.Sprint(METEOR(p, r, true)) },
		"cmrc":   func(p string, r []string) string { return fmt.Sprint(CMRCEM(p, r), CMRCF1(p, r)) },
	}
	for _, tc := range []struct{ pred, weak, best string }{
		{"the cat sat on the mat", "a dog ran", "the cat sat on a mat"},
		{"长江是中国最长的河流", "黄河", "长江是中国的河流"},
		{"Denver Broncos", "Broncos", "Denver Broncos"},
	} {
		for name, f := range metrics {
			want := f(tc.pred, []string{tc.weak, tc.best})
			for _, refs := range [][]string{
				{tc.best, tc.weak}, {tc.weak, tc.weak, tc.best}, {tc.weak, tc.best, tc.best, tc.weak},
			} {
				if got := f(tc.pred, refs); got != want {
					t.Errorf("%s(%q, %q) = %s, want %s as with %q", name, tc.pred, refs, got, want, []string{tc.weak, tc.best})
				}
			}
			if got, want := f(tc.pred, []string{tc.weak, tc.pred, tc.weak}), f(tc.pred, []string{tc.pred}); got != want {
				t.Errorf("%s(%q, with itself among weaker references) = %s, want %s as against itself alone", name, tc.pred, got, want)
			}
		}
	}
}
