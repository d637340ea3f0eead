package score

import (
	"strings"

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
// ignores the gold and looks for "no information available" / "not mentioned"); with
// --missing-as-zero one without a prediction counts 0, as the stats evaluate_qa.py writes count it.
func locomoFamily() *family {
	return &family{
		names: []string{"locomo_f1"},
		about: "LoCoMo's official F1 with its category rules (LoCoMo records: dataset locomo)",
		applies: func(it *item) bool {
			_, ok := locomoCategory(it.rec)
			return ok && it.hasPrediction()
		},
		// analyze_aggr_acc (task_eval/evaluation_stats.py) counts every question of
		// evaluate_qa.py's output file in its category's total, category 5's too, and adds nothing
		// for one without <model>_f1: a question it has no answer for is 0. One without a category
		// has no place there (a KeyError), nor in locomo_f1; one without gold none in its scoring.
		missing: func(it *item) bool {
			_, ok := locomoCategory(it.rec)
			return ok && len(it.rec.Answers) > 0
		},
		score: func(it *item, out []float64) {
			cat, _ := locomoCategory(it.rec)
			out[0] = metric.LocomoF1(it.pred(), it.rec.Answers[0], cat)
		},
	}
}

// locomoConversation returns the conversation a LoCoMo record belongs to, from its id as qa-load
// writes it, locomo:<sample_id>:<index>: all but the last ":" and the index after it; "" when the
// id is not of that form.
//
// Note: any id ending in ":<digits>" was taken, so that ids numbering a run's questions alone
// (locomo:0, locomo:1, …) made one conversation, "locomo", of them all, and conversation-averaged
// figures that were the pooled ones, without a warning.
func locomoConversation(id string) string {
	rest, ok := strings.CutPrefix(id, "locomo:")
	i := strings.LastIndexByte(rest, ':')
	if !ok || i <= 0 || i == len(rest)-1 {
		return ""
	}
	for _, c := range rest[i+1:] {
		if c < '0' || c > '9' {
			return ""
		}
	}
	return id[:len("locomo:")+i]
}
