package score

import (
	"testing"

	"github.com/qapipe/qapipe/internal/judge"
)

// TestTrapModes: the judgment modes --mismatches reads as "the prediction must decline" on a
// LoCoMo category-5 question are the ones qa-judge writes for its category-5 rules.
func TestTrapModes(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{modeAdversarial, judge.ModeAdversarial},
		{modeUnanswerable, judge.ModeUnanswerable},
		{modeRules, judge.RulesMode},
	} {
		if tc.got != tc.want {
			t.Errorf("mode %q, want internal/judge's %q", tc.got, tc.want)
		}
	}
}
