package score

import (
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestVerdictSkipsNullJudgments: without --judge, judge_score reads the first judgment in sorted
// order that is there; a null judgment ("judgments": {"a": null, ...}) is passed over, not read as
// none. With --judge naming the null one, there is no verdict.
func TestVerdictSkipsNullJudgments(t *testing.T) {
	one, half := 1.0, 0.5
	rec := &record.Record{ID: "q", Judgments: map[string]*record.Judgment{"a": nil, "b": {Score: &one}, "c": {Score: &half}}}
	for _, tc := range []struct {
		judge  string
		want   float64
		wantOK bool
	}{{"", 1, true}, {"c", 0.5, true}, {"a", 0, false}, {"z", 0, false}} {
		it := &item{rec: rec, judge: tc.judge}
		if got, ok, _ := it.verdict(); got != tc.want || ok != tc.wantOK {
			t.Errorf("--judge %q: verdict() = %v, %v, want %v, %v", tc.judge, got, ok, tc.want, tc.wantOK)
		}
	}
}
