package score

import (
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
)

// locomoTypes maps LoCoMo's category numbers to the record types qa-load gives them (the numbers
// are not in name order: 4 is single-hop).
var locomoTypes = map[int]string{1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}

// locomoCategory returns the LoCoMo category number of a LoCoMo record: meta.category (a number or
// a numeric string) when present, else the number behind the record's type.
func locomoCategory(rec *record.Record) (int, bool) {
	if !strings.EqualFold(rec.Dataset, "locomo") {
		return 0, false
	}
	if raw, ok := rec.Meta["category"]; ok {
		var n int
		if record.Unmarshal(raw, &n) == nil && locomoTypes[n] != "" {
			return n, true
		}
		var s string
		if record.Unmarshal(raw, &s) == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && locomoTypes[n] != "" {
				return n, true
			}
		}
	}
	for n, t := range locomoTypes {
		if t == rec.Type {
			return n, true
		}
	}
	return 0, false
}

// locomoFamily is LoCoMo's official F1 (task_eval/evaluation.py) with its per-category rules; it
// applies to LoCoMo records whose category is known, against the first gold answer (category 5
// ignores the gold and looks for "no information available" / "not mentioned").
func locomoFamily() *family {
	return &family{
		names: []string{"locomo_f1"},
		about: "LoCoMo's official F1 with its category rules (LoCoMo records: dataset locomo)",
		applies: func(it *item) bool {
			_, ok := locomoCategory(it.rec)
			return ok && it.hasPrediction()
		},
		score: func(it *item, out []float64) {
			cat, _ := locomoCategory(it.rec)
			out[0] = metric.LocomoF1(it.pred(), it.rec.Answers[0], cat)
		},
	}
}
