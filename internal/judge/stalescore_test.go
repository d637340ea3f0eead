package judge

import (
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestNamesOther: a judge_score error qa-score wrote (record.Judgment.ScoreError) names the
// judgment it read, a name with dots or ".score: " in it included; one in another form names none.
func TestNamesOther(t *testing.T) {
	three := 3.0
	scoreError := func(name string) string { return (&record.Judgment{Score: &three}).ScoreError(name).Error() }
	tests := []struct {
		msg, name string
		want      bool
	}{
		{scoreError("a"), "a", false},
		{scoreError("a"), "r", true},
		{scoreError("longmemeval/gpt-4o-2024-08-06"), "longmemeval/gpt-4o-2024-08-06", false},
		{scoreError("longmemeval/gpt-4o-2024-08-06"), "longmemeval/gpt-4o", true},
		{scoreError("x.score: y"), "x.score: y", false},
		{scoreError("x.score: y"), "x", true},
		{scoreError(""), "", false},
		{"out of range", "r", false},
		{"judgments.r", "a", false},
	}
	for _, tt := range tests {
		if got := namesOther(tt.msg, tt.name); got != tt.want {
			t.Errorf("namesOther(%q, %q) = %v, want %v", tt.msg, tt.name, got, tt.want)
		}
	}
}
