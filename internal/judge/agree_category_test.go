package judge

import (
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

func TestCategory(t *testing.T) {
	score := func(f float64) *float64 { return &f }
	evalearn := &record.Record{ID: "e", Dataset: "EvaLearn"} // datasets compare without regard to case
	squad := &record.Record{ID: "s", Dataset: "squad"}
	tests := []struct {
		name       string
		rec        *record.Record
		j          *record.Judgment
		cat        int
		ok, unread bool
	}{
		{"nil", evalearn, nil, 0, false, false},
		{"score at threshold", squad, &record.Judgment{Score: score(0.5)}, 1, true, false},
		{"score below", squad, &record.Judgment{Score: score(0.2)}, 0, true, false},
		{"failed", squad, &record.Judgment{Score: score(1), Error: "x"}, 0, false, false},
		{"raw alone, not evalearn", squad, &record.Judgment{Raw: `{"answer_score": 1}`}, 0, false, false},
		{"raw alone, json block", evalearn, &record.Judgment{Raw: "```json\n{\"answer_score\": 1}\n```"}, 1, true, false},
		{"raw alone, inline 0", evalearn, &record.Judgment{Raw: `{"answer_score": 0}`}, 0, true, false},
		{"raw alone, no score", evalearn, &record.Judgment{Raw: "correct"}, 0, true, true},
		{"raw empty: EvaLearn scores it 0", evalearn, &record.Judgment{Raw: " \n"}, 0, true, true},
		{"score wins over raw", evalearn, &record.Judgment{Score: score(0), Raw: `{"answer_score": 1}`}, 0, true, false},
		{"failed with raw", evalearn, &record.Judgment{Raw: `{"answer_score": 1}`, Error: "x"}, 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat, ok, why := Category(tt.rec, tt.j, 0.5)
			if cat != tt.cat || ok != tt.ok || (why != "") != tt.unread {
				t.Errorf("Category(%s, %+v, 0.5) = %d, %v, %q, want %d, %v, unread %v", tt.rec.Dataset, tt.j, cat, ok, why, tt.cat, tt.ok, tt.unread)
			}
		})
	}
}
