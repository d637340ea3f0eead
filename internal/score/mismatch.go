package score

import (
	"fmt"
	"math"

	"github.com/qapipe/qapipe/pkg/record"
)

// mismatch is one line of the --mismatches file: what a person reads to see what went wrong.
// Prediction is null when the record has no answer (no prediction, or one without a text, such as
// HotpotQA's supporting facts alone), so that it is not read as "", the empty answer that declines.
type mismatch struct {
	ID         string   `json:"id"`
	Type       string   `json:"type,omitempty"`
	Question   string   `json:"question"`
	Gold       []string `json:"gold"`
	Prediction *string  `json:"prediction"`
	Metric     string   `json:"metric"`
	Score      float64  `json:"score"`
}

// trapMismatch is the line of a LoCoMo category-5 record whose metric asks the prediction to
// decline: its answers are the adversarial answer, the trap the question sets, so they stand
// under trap, and wanted says what the metric looked for in their place. Written as gold, a
// prediction equal to it listed with score 0 read as a scoring bug.
type trapMismatch struct {
	ID         string   `json:"id"`
	Type       string   `json:"type,omitempty"`
	Question   string   `json:"question"`
	Wanted     string   `json:"wanted"`
	Trap       []string `json:"trap"`
	Prediction *string  `json:"prediction"`
	Metric     string   `json:"metric"`
	Score      float64  `json:"score"`
}

// mismatchRule selects the records whose metric (an index into the selected names) is below a
// threshold; failed records and records the metric does not apply to are never mismatches.
type mismatchRule struct {
	metric string
	index  int
	below  float64
	judge  string // --judge: the judgment judge_score reads
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
	var pred *string // null: no answer
	if rec.Prediction != nil && rec.Prediction.HasText() {
		pred = &rec.Prediction.Text
	}
	if w := m.wanted(rec, o); w != "" {
		return record.Marshal(trapMismatch{ID: rec.ID, Type: rec.Type, Question: rec.Question, Wanted: w, Trap: rec.Answers,
			Prediction: pred, Metric: m.metric, Score: v})
	}
	return record.Marshal(mismatch{ID: rec.ID, Type: rec.Type, Question: rec.Question, Gold: rec.Answers,
		Prediction: pred, Metric: m.metric, Score: v})
}

// The judgment modes whose rule scores a LoCoMo category-5 question by whether the prediction
// declines (internal/judge's ModeAdversarial, ModeUnanswerable and RulesMode; qa-judge's
// locomo-continuous mode writes category 5's judgments as "adversarial").
const (
	modeAdversarial  = "adversarial"
	modeUnanswerable = "unanswerable"
	modeRules        = "rules-approximate"
)

// wanted says what the metric wanted of a LoCoMo category-5 record instead of its answers, the
// trap, or returns "" when the metric compares the prediction with the answers (another
// category, or a judge that was sent them as the gold, such as a --prompt one).
func (m *mismatchRule) wanted(rec *record.Record, o outcome) string {
	if o.locomoCat != 5 {
		return ""
	}
	switch m.metric {
	case "locomo_f1":
		return `a reply containing "no information available" or "not mentioned", in any case (LoCoMo's category-5 rule)`
	case "judge_score":
		j := (&item{rec: rec, judge: m.judge}).judgment()
		if j == nil {
			return ""
		}
		switch j.Mode {
		case modeAdversarial, modeUnanswerable:
			return fmt.Sprintf("a reply that declines to answer, by MAGMA's category-5 phrases (judgment mode %q)", j.Mode)
		case modeRules:
			return fmt.Sprintf("a reply that declines to answer, by MAGMA's category-5 phrases and a few more (judgment mode %q)", j.Mode)
		}
	}
	return ""
}
