package score

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

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
	Error      string   `json:"error,omitempty"` // a failed record's, which --errors-as-zero counts 0
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
	Error      string   `json:"error,omitempty"`
}

// factsMismatch is the line of a record whose metric scores HotpotQA supporting facts (sp_*,
// joint_*): the gold facts (meta.supporting_facts, as the record holds them) and the predicted
// ones (null when the prediction has none) beside the answers, which joint_* score too. Without
// them, a line of sp_f1 0 showed only answers, which may well match.
type factsMismatch struct {
	ID             string          `json:"id"`
	Type           string          `json:"type,omitempty"`
	Question       string          `json:"question"`
	Gold           []string        `json:"gold"`
	Prediction     *string         `json:"prediction"`
	GoldFacts      json.RawMessage `json:"gold_facts"`
	PredictedFacts []record.Fact   `json:"predicted_facts"`
	Metric         string          `json:"metric"`
	Score          float64         `json:"score"`
	Error          string          `json:"error,omitempty"`
}

// mismatchRule selects the records whose metric (an index into the selected names) is below a
// threshold, as the summary counts them: a failed record only with --errors-as-zero, a record
// without the prediction the metric reads only with --missing-as-zero (both as 0), and never a
// record the metric does not apply to.
type mismatchRule struct {
	metric string
	index  int
	below  float64
	judge  string // --judge: the judgment judge_score reads
	// errorsAsZero and missingAsZero: --errors-as-zero and --missing-as-zero, under which the
	// summary counts such records 0, and so lists them here.
	errorsAsZero, missingAsZero bool
}

// line returns the encoded mismatch entry for rec, or nil.
func (m *mismatchRule) line(rec *record.Record, o outcome) ([]byte, error) {
	if m == nil || !m.applies(o) {
		return nil, nil
	}
	v := o.vals[m.index]
	var failure string
	if o.failed {
		failure = m.failure(rec)
	}
	if math.IsNaN(v) || v == 0 {
		v = 0 // --missing-as-zero; and -0 (a judgment's) as the record's scores write it
	}
	if v >= m.below {
		return nil, nil
	}
	var pred *string // null: no answer (a failed prediction's text is none)
	if rec.Prediction != nil && rec.Prediction.HasText() && rec.Prediction.Error == "" {
		pred = &rec.Prediction.Text
	}
	gold := rec.Answers
	if gold == nil { // a record without answers (judge_score alone): a list all the same
		gold = []string{}
	}
	if w := m.wanted(rec, o); w != "" {
		return record.Marshal(trapMismatch{ID: rec.ID, Type: rec.Type, Question: rec.Question, Wanted: w, Trap: gold,
			Prediction: pred, Metric: m.metric, Score: v, Error: failure})
	}
	if factMetric(m.metric) {
		line := factsMismatch{ID: rec.ID, Type: rec.Type, Question: rec.Question, Gold: gold, Prediction: pred,
			GoldFacts: rec.Meta["supporting_facts"], Metric: m.metric, Score: v, Error: failure}
		if rec.Prediction != nil {
			line.PredictedFacts = rec.Prediction.SupportingFacts
		}
		return record.Marshal(line)
	}
	return record.Marshal(mismatch{ID: rec.ID, Type: rec.Type, Question: rec.Question, Gold: gold,
		Prediction: pred, Metric: m.metric, Score: v, Error: failure})
}

// applies reports whether the metric scored the record of o, or counts it 0 (--errors-as-zero,
// --missing-as-zero): whether the record is one line would consider.
func (m *mismatchRule) applies(o outcome) bool {
	if o.failed && !m.errorsAsZero {
		return false
	}
	// A failed record's metric is 0 where it would have read the record, and, as the summary
	// counts it, where --missing-as-zero counts the part it lacks (a judgment that failed for want
	// of a prediction, under both flags).
	return !math.IsNaN(o.vals[m.index]) || m.missingAsZero && slices.Contains(o.missing, m.index)
}

// failure says why rec, a failed record, failed: its prediction's error, else the error of the
// judgment judge_score reads.
func (m *mismatchRule) failure(rec *record.Record) string {
	if rec.Prediction != nil && rec.Prediction.Error != "" {
		return "prediction: " + rec.Prediction.Error
	}
	if j := (&item{rec: rec, judge: m.judge}).judgment(); j != nil && j.Error != "" {
		return "judgment: " + j.Error
	}
	return ""
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
