package score

import (
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
)

// supportFamily is HotpotQA's supporting-fact scores: it applies when the prediction carries
// supporting_facts and meta.supporting_facts holds the gold ones ([[title, sentence]]), with an
// answer or without one, as hotpot_evaluate_v1.py scores a question's "sp" whether or not its
// "answer" is given.
func supportFamily() *family {
	return &family{
		names: []string{"sp_em", "sp_f1"},
		about: "HotpotQA supporting-fact EM/F1 (prediction.supporting_facts vs meta.supporting_facts)",
		applies: func(it *item) bool {
			return gradesFacts(it.rec) && it.rec.Prediction != nil && it.rec.Prediction.SupportingFacts != nil
		},
		// hotpot_evaluate_v1.py: "missing sp fact", 0 over len(gold)
		missing: func(it *item) bool { return gradesFacts(it.rec) },
		score: func(it *item, out []float64) {
			sp := it.spScores()
			out[0], out[1] = sp[0], sp[1]
		},
	}
}

// supportPRFamily is the supporting facts' precision and recall that hotpot_evaluate_v1.py prints
// beside their EM and F1 (sp_prec, sp_recall).
func supportPRFamily() *family {
	f := supportFamily()
	f.names, f.named = []string{"sp_prec", "sp_recall"}, true
	f.about = "HotpotQA supporting-fact precision and recall"
	f.score = func(it *item, out []float64) {
		sp := it.spScores()
		out[0], out[1] = sp[2], sp[3]
	}
	return f
}

// jointFamily is HotpotQA's joint scores: the supporting-fact scores combined with the answer's
// EM, precision and recall, as hotpot_evaluate_v1.py combines them for its one gold answer, and
// the maximum over the gold answers, as hotpot_em and hotpot_f1 are, so that joint_em is
// hotpot_em × sp_em as in the script. It needs both, a prediction's facts and its answer.
//
// Note: the first gold answer alone was taken, so a prediction matching the second answer had
// hotpot_em 1 and sp_em 1 but joint_em 0.
func jointFamily() *family {
	return &family{
		names: []string{"joint_em", "joint_f1"},
		about: "HotpotQA joint EM/F1 (the answer's and the supporting facts' together)",
		applies: func(it *item) bool {
			return gradesFacts(it.rec) && it.answered() && it.rec.Prediction.SupportingFacts != nil
		},
		// hotpot_evaluate_v1.py: no joint score without both the answer and the sp facts, 0
		// over len(gold)
		missing: func(it *item) bool { return gradesFacts(it.rec) },
		score: func(it *item, out []float64) {
			sp := it.spScores()
			spEM, spP, spR := sp[0], sp[2], sp[3]
			out[0], out[1] = 0, 0
			for _, gold := range it.rec.Answers {
				ansEM, _, ansP, ansR := metric.HotpotAnswer(it.pred(), gold)
				em, f1 := metric.JointEMF1(ansEM, ansP, ansR, spEM, spP, spR)
				out[0], out[1] = max(out[0], em), max(out[1], f1)
			}
		},
	}
}

// jointPRFamily is the joint precision and recall that hotpot_evaluate_v1.py prints beside the
// joint EM and F1 (joint_prec, joint_recall): the products of hotpot_prec and sp_prec, and of
// hotpot_recall and sp_recall, as the script multiplies them for its one gold answer.
func jointPRFamily() *family {
	f := jointFamily()
	f.names, f.named = []string{"joint_prec", "joint_recall"}, true
	f.about = "HotpotQA joint precision and recall"
	f.score = func(it *item, out []float64) {
		sp, ans := it.spScores(), it.hotpotPRScores()
		out[0], out[1] = ans[0]*sp[2], ans[1]*sp[3]
	}
	return f
}

// gradesFacts reports whether rec holds what the supporting-fact scores compare a prediction's
// facts with: gold facts, and a gold answer for the joint scores.
func gradesFacts(rec *record.Record) bool { return hasGoldFacts(rec) && len(rec.Answers) > 0 }

// hasGoldFacts reports whether meta.supporting_facts holds gold facts: present and not null.
// decodeView has turned away records whose facts cannot be read, so they need no decoding here.
func hasGoldFacts(rec *record.Record) bool {
	raw, ok := rec.Meta["supporting_facts"]
	return ok && string(raw) != "null"
}

// goldFacts decodes meta.supporting_facts of a record hasGoldFacts accepts.
func goldFacts(rec *record.Record) []metric.Fact {
	var fs []record.Fact
	rec.MetaValue("supporting_facts", &fs) //nolint:errcheck // decodeView has read them once already
	return facts(fs)
}

func facts(fs []record.Fact) []metric.Fact {
	out := make([]metric.Fact, len(fs))
	for i, f := range fs {
		out[i] = metric.Fact{Title: f.Title, Sentence: f.Sentence}
	}
	return out
}
