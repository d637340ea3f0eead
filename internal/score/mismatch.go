package score

import (
	"math"

	"github.com/qapipe/qapipe/pkg/record"
)

// mismatch is one line of the --mismatches file: what a person reads to see what went wrong.
type mismatch struct {
	ID         string   `json:"id"`
	Type       string   `json:"type,omitempty"`
	Question   string   `json:"question"`
	Gold       []string `json:"gold"`
	Prediction string   `json:"prediction"`
	Metric     string   `json:"metric"`
	Score      float64  `json:"score"`
}

// mismatchRule selects the records whose metric (an index into the selected names) is below a
// threshold; failed records and records the metric does not apply to are never mismatches.
type mismatchRule struct {
	metric string
	index  int
	below  float64
}

// line returns the encoded mismatch entry for rec, or nil.
func (m *mismatchRule) line(rec *record.Record, o outcome) ([]byte, error) {
	if m == nil || o.failed {
		return nil, nil
	}
	v := o.vals[m.index]
	if math.IsNaN(v) || v >= m.below {
		return nil, nil
	}
	e := mismatch{ID: rec.ID, Type: rec.Type, Question: rec.Question, Gold: rec.Answers, Metric: m.metric, Score: v}
	if rec.Prediction != nil {
		e.Prediction = rec.Prediction.Text
	}
	return record.Marshal(e)
}
