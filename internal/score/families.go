package score

import (
	"strings"

	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
)

// item is one record on its way through the scorer, with the facts the families look up more
// than once.
type item struct {
	rec       *record.Record
	judge     string          // the judgment that judge_score reads, "" for the first in sorted order
	locomoCat int             // the LoCoMo category of a LoCoMo record, else 0
	squad     metric.SquadSet // see squadSet
	squadDone bool
	// twins says which pairs of families are both selected, so that the first of a pair to ask
	// computes the two together: ROUGE stemmed and not (metric.RougeBoth), METEOR with synonyms
	// and without (metric.METEORBoth).
	twins  twins
	rouge  twin[metric.RougeScores]
	meteor twin[float64]
}

// twins says which pairs of families are both selected.
type twins struct{ rouge, meteor bool }

// twin holds the values of a pair of families computed together, the first family's first.
type twin[T any] struct {
	v    [2]T
	done bool
}

// get returns the first family's value, or the second's, computing both with both the first time.
func (t *twin[T]) get(first bool, both func() (T, T)) T {
	if !t.done {
		t.v[0], t.v[1] = both()
		t.done = true
	}
	if first {
		return t.v[0]
	}
	return t.v[1]
}

// pred returns the prediction text.
func (it *item) pred() string { return it.rec.Prediction.Text }

// squadSet returns the record's SQuAD v1.1, SQuAD v2.0 and HotpotQA answer scores, computed
// together by the first of their families to ask.
func (it *item) squadSet() *metric.SquadSet {
	if !it.squadDone {
		it.squad, it.squadDone = metric.SquadAll(it.pred(), it.rec.Answers), true
	}
	return &it.squad
}

// rougeScores returns the record's ROUGE scores, with the Porter stemmer or without.
func (it *item) rougeScores(stem bool) metric.RougeScores {
	if !it.twins.rouge {
		return metric.Rouge(it.pred(), it.rec.Answers, stem)
	}
	return it.rouge.get(stem, func() (metric.RougeScores, metric.RougeScores) {
		return metric.RougeBoth(it.pred(), it.rec.Answers)
	})
}

// meteorScore returns the record's METEOR score, with WordNet synonyms or without.
func (it *item) meteorScore(synonyms bool) float64 {
	if !it.twins.meteor {
		return metric.METEOR(it.pred(), it.rec.Answers, synonyms)
	}
	return it.meteor.get(synonyms, func() (float64, float64) { return metric.METEORBoth(it.pred(), it.rec.Answers) })
}

// hasPrediction reports whether the record carries a prediction and gold answers to compare it
// with: what every reference-based metric needs.
func (it *item) hasPrediction() bool {
	return it.rec.Prediction != nil && len(it.rec.Answers) > 0
}

// hasReference reports whether the record's gold answers are answers the prediction should
// match: it has a prediction and gold answers, and it is no LoCoMo category-5 question, whose
// gold is the adversarial answer, the trap the question sets. LoCoMo's and MAGMA's evaluations
// score those by whether the prediction declines (locomo_f1 does, and the judges), so the
// reference metrics (em, f1, rouge, bleu, meteor, ..., embeddings) leave them out rather than
// reward the trap.
func (it *item) hasReference() bool {
	return it.hasPrediction() && it.locomoCat != 5
}

// referenceItem is rec as hasReference sees it: with its LoCoMo category.
func referenceItem(rec *record.Record) *item {
	cat, _ := locomoCategory(rec)
	return &item{rec: rec, locomoCat: cat}
}

// isChinese reports whether the record's language is Chinese (zh, zh-CN, zh-Hans, …).
func (it *item) isChinese() bool {
	l := strings.ToLower(it.rec.Lang)
	return l == "zh" || strings.HasPrefix(l, "zh-") || strings.HasPrefix(l, "zh_")
}

// registry returns every metric family qa-score knows, in the order scores are listed.
func registry() []*family {
	return append([]*family{
		squadFamily(),
		squad2Family(),
		hotpotFamily(),
		rougeFamily(true),
		rougeFamily(false),
		bleuFamily(),
		meteorFamily(true),
		meteorFamily(false),
		cmrcFamily(),
		locomoFamily(),
		supportFamily(),
		judgeFamily(),
	}, embedFamilies()...)
}
