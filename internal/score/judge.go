package score

import (
	"slices"

	"github.com/qapipe/qapipe/pkg/record"
)

// judgeFamily is judge_score: the score of one judgment carried by the record (qa-judge wrote it).
func judgeFamily() *family {
	return &family{
		names: []string{"judge_score"},
		about: "score of the judgment named by --judge (default: first judge name in sorted order)",
		applies: func(it *item) bool {
			j := it.judgment()
			return j != nil && (j.Score != nil || j.Error != "")
		},
		score: func(it *item, out []float64) { out[0] = *it.judgment().Score },
	}
}

// judgment returns the judgment judge_score reads, or nil.
func (it *item) judgment() *record.Judgment {
	if len(it.rec.Judgments) == 0 {
		return nil
	}
	if it.judge != "" {
		return it.rec.Judgments[it.judge]
	}
	names := make([]string, 0, len(it.rec.Judgments))
	for n, j := range it.rec.Judgments {
		if j != nil {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	return it.rec.Judgments[slices.Min(names)]
}
