package score

import (
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
)

// item is one record on its way through the scorer, with the facts the families look up more
// than once.
type item struct {
	rec       *record.Record
	judge     string // the judgment that judge_score reads, "" for the first in sorted order
	locomoCat int    // the LoCoMo category of a LoCoMo record, else 0
	// The scores computed for several families at once, by the first of them to ask: SQuAD's,
	// SQuAD v2.0's and HotpotQA's answer scores (metric.SquadAll), and, when twins says both
	// families of a pair are selected, ROUGE stemmed and not (metric.RougeBoth) and METEOR with
	// synonyms and without (metric.METEORBoth), the first family's first; HotpotQA's
	// supporting-fact EM, F1, precision and recall, and its answer's precision and recall
	// (metric.HotpotPR), which the sp_, joint_ and hotpot_prec families share.
	squad    lazy[metric.SquadSet]
	twins    twins
	rouge    lazy[[2]metric.RougeScores]
	meteor   lazy[[2]float64]
	sp       lazy[[4]float64]
	hotpotPR lazy[[2]float64]
}

// twins says which pairs of families are both selected.
type twins struct{ rouge, meteor bool }

// lazy holds a value computed the first time it is asked for.
type lazy[T any] struct {
	v    T
	done bool
}

// get returns the value, computing it with f the first time.
func (l *lazy[T]) get(f func() T) *T {
	if !l.done {
		l.v, l.done = f(), true
	}
	return &l.v
}

// pick returns the first of a pair of values, or the second.
func pick[T any](v *[2]T, first bool) T {
	if first {
		return v[0]
	}
	return v[1]
}

// pred returns the prediction text.
func (it *item) pred() string { return it.rec.Prediction.Text }

// squadSet returns the record's SQuAD v1.1, SQuAD v2.0 and HotpotQA answer scores.
func (it *item) squadSet() *metric.SquadSet {
	return it.squad.get(func() metric.SquadSet { return metric.SquadAll(it.pred(), it.rec.Answers) })
}

// spScores returns the record's supporting-fact EM, F1, precision and recall
// (metric.SupportingFacts of its prediction's facts against meta.supporting_facts).
func (it *item) spScores() *[4]float64 {
	return it.sp.get(func() [4]float64 {
		em, f1, p, r := metric.SupportingFacts(facts(it.rec.Prediction.SupportingFacts), goldFacts(it.rec))
		return [4]float64{em, f1, p, r}
	})
}

// hotpotPRScores returns the record's HotpotQA answer precision and recall (metric.HotpotPR).
func (it *item) hotpotPRScores() *[2]float64 {
	return it.hotpotPR.get(func() [2]float64 {
		p, r := metric.HotpotPR(it.pred(), it.rec.Answers)
		return [2]float64{p, r}
	})
}

// rougeScores returns the record's ROUGE scores, with the Porter stemmer or without.
func (it *item) rougeScores(stem bool) metric.RougeScores {
	if !it.twins.rouge {
		return metric.Rouge(it.pred(), it.rec.Answers, stem)
	}
	return pick(it.rouge.get(func() [2]metric.RougeScores {
		stemmed, plain := metric.RougeBoth(it.pred(), it.rec.Answers)
		return [2]metric.RougeScores{stemmed, plain}
	}), stem)
}

// meteorScore returns the record's METEOR score, with WordNet synonyms or without.
func (it *item) meteorScore(synonyms bool) float64 {
	if !it.twins.meteor {
		return metric.METEOR(it.pred(), it.rec.Answers, synonyms)
	}
	return pick(it.meteor.get(func() [2]float64 {
		syn, plain := metric.METEORBoth(it.pred(), it.rec.Answers)
		return [2]float64{syn, plain}
	}), synonyms)
}

// hasPrediction reports whether the record carries an answer and gold answers to compare it
// with: what every reference-based metric needs.
func (it *item) hasPrediction() bool {
	return it.answered() && len(it.rec.Answers) > 0
}

// answered reports whether the record's prediction gives an answer text, the empty answer ""
// included, or failed to (a failed one counts 0 under --errors-as-zero wherever an answer would
// have been scored). A prediction of supporting facts, a score, or a loss and tokens alone
// (record.Prediction.HasText) answers nothing: HotpotQA's official prediction file gives facts
// for questions it gives no answer for, which hotpot_evaluate_v1.py scores as missing answers,
// not as empty ones.
func (it *item) answered() bool {
	p := it.rec.Prediction
	return p != nil && (p.HasText() || p.Error != "")
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

// hasGold reports whether the record has gold answers a prediction would be compared with, had
// it one: hasReference without the prediction.
func (it *item) hasGold() bool {
	return len(it.rec.Answers) > 0 && it.locomoCat != 5
}

// referenceItem is rec as hasReference sees it: with its LoCoMo category.
func referenceItem(rec *record.Record) *item {
	cat, _ := locomoCategory(rec)
	return &item{rec: rec, locomoCat: cat}
}

// registry returns every metric family qa-score knows, in the order scores are listed.
func registry() []*family {
	return append([]*family{
		squadFamily(),
		squad2Family(),
		hotpotFamily(),
		hotpotPRFamily(),
		rougeFamily(true),
		rougeFamily(false),
		bleuFamily(),
		meteorFamily(true),
		meteorFamily(false),
		cmrcFamily(),
		locomoFamily(),
		supportFamily(),
		supportPRFamily(),
		jointFamily(),
		jointPRFamily(),
		judgeFamily(),
	}, embedFamilies()...)
}
