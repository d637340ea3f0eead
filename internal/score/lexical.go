package score

import "github.com/qapipe/qapipe/pkg/metric"

// The reference-based families: each compares prediction.text with every gold answer and keeps
// the official script's aggregate (the maximum over references, or the pooled form for BLEU and
// METEOR).

func squadFamily() *family {
	return &family{
		names:   []string{"em", "f1"},
		about:   "SQuAD v1.1 exact match and token F1, maximum over answers",
		applies: (*item).hasReference,
		missing: (*item).hasGold, // evaluate-v1.1.py: "Unanswered question ... will receive score 0."
		score: func(it *item, out []float64) {
			s := it.squadSet()
			out[0], out[1] = s.EM, s.F1
		},
	}
}

func squad2Family() *family {
	return &family{
		names:   []string{"squad2_em", "squad2_f1"},
		about:   "SQuAD v2.0 rules (an empty answer matches only an empty prediction)",
		applies: (*item).hasReference,
		score: func(it *item, out []float64) {
			s := it.squadSet()
			out[0], out[1] = s.Squad2EM, s.Squad2F1
		},
	}
}

func hotpotFamily() *family {
	return &family{
		names:   []string{"hotpot_em", "hotpot_f1"},
		about:   "HotpotQA answer EM and F1 (yes/no/noanswer must match exactly)",
		applies: (*item).hasReference,
		missing: (*item).hasGold, // hotpot_evaluate_v1.py: "missing answer", 0 over len(gold)
		score: func(it *item, out []float64) {
			s := it.squadSet()
			out[0], out[1] = s.HotpotEM, s.HotpotF1
		},
	}
}

// hotpotPRFamily is the answer's precision and recall that hotpot_evaluate_v1.py prints beside
// its EM and F1 (prec, recall): those of the gold answer with the best F1 (metric.HotpotPR).
func hotpotPRFamily() *family {
	return &family{
		names:   []string{"hotpot_prec", "hotpot_recall"},
		about:   "HotpotQA answer precision and recall, of the answer with the best hotpot_f1",
		named:   true,
		applies: (*item).hasReference,
		missing: (*item).hasGold, // hotpot_evaluate_v1.py: "missing answer", 0 over len(gold)
		score: func(it *item, out []float64) {
			pr := it.hotpotPRScores()
			out[0], out[1] = pr[0], pr[1]
		},
	}
}

func meteorFamily(synonyms bool) *family {
	f := &family{
		names:   []string{"meteor"},
		about:   "NLTK METEOR (alpha 0.9, beta 3, gamma 0.5) with WordNet 3.0 synonyms",
		applies: (*item).hasReference,
		score:   func(it *item, out []float64) { out[0] = it.meteorScore(synonyms) },
	}
	if !synonyms {
		f.names, f.about = []string{"meteor_nosyn"}, "NLTK METEOR without synonyms (exact and stem matches)"
	}
	return f
}

func rougeFamily(stem bool) *family {
	f := &family{
		names:   []string{"rouge1", "rouge2", "rougeL"},
		about:   "rouge-score F-measure with the Porter stemmer, maximum over answers",
		applies: (*item).hasReference,
		score: func(it *item, out []float64) {
			r := it.rougeScores(stem)
			out[0], out[1], out[2] = r.R1, r.R2, r.RL
		},
	}
	if !stem {
		f.names, f.about = []string{"rouge1_nostem", "rouge2_nostem", "rougeL_nostem"}, "the same without stemming"
	}
	return f
}

func bleuFamily() *family {
	return &family{
		names:   []string{"bleu1", "bleu2", "bleu4"},
		about:   "NLTK sentence_bleu (method1 smoothing, pooled multi-reference clipping)",
		applies: (*item).hasReference,
		score: func(it *item, out []float64) {
			b := metric.BLEU(it.pred(), it.rec.Answers)
			out[0], out[1], out[2] = b.B1, b.B2, b.B4
		},
	}
}

func cmrcFamily() *family {
	return &family{
		names: []string{"cmrc_em", "cmrc_f1"},
		about: "CMRC 2018 v6 EM and F1 (Chinese records only: lang zh)",
		applies: func(it *item) bool {
			return it.hasReference() && it.rec.IsChinese()
		},
		// cmrc2018_evaluate.py: "Unanswered question", in total_count and skip_count
		missing: func(it *item) bool { return it.hasGold() && it.rec.IsChinese() },
		score: func(it *item, out []float64) {
			out[0] = metric.CMRCEM(it.pred(), it.rec.Answers)
			out[1] = metric.CMRCF1(it.pred(), it.rec.Answers)
		},
	}
}
