package score

import (
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
)

// locomoCategory returns the LoCoMo category number of a LoCoMo record (record.LoCoMoCategory);
// decodeView has turned away LoCoMo records whose meta.category cannot be read.
func locomoCategory(rec *record.Record) (int, bool) {
	if !rec.InDataset("locomo") {
		return 0, false
	}
	n, ok, _ := rec.LoCoMoCategory()
	return n, ok
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
