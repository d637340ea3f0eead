package score

import (
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
)

// supportFamily is HotpotQA's supporting-fact and joint scores: it applies when the prediction
// carries supporting_facts and meta.supporting_facts holds the gold ones ([[title, sentence]]).
// The joint scores combine them with the answer's EM, precision and recall against the first
// gold answer, as hotpot_evaluate_v1.py (one gold answer per question) does.
func supportFamily() *family {
	return &family{
		names: []string{"sp_em", "sp_f1", "joint_em", "joint_f1"},
		about: "HotpotQA supporting facts and joint EM/F1 (prediction.supporting_facts vs meta.supporting_facts)",
		applies: func(it *item) bool {
			return gradesFacts(it.rec) && it.rec.Prediction != nil && it.rec.Prediction.SupportingFacts != nil
		},
		// hotpot_evaluate_v1.py: "missing sp fact", 0 over len(gold); joint 0 too
		missing: func(it *item) bool { return gradesFacts(it.rec) },
		score: func(it *item, out []float64) {
			gold := goldFacts(it.rec)
			spEM, spF1, spP, spR := metric.SupportingFacts(facts(it.rec.Prediction.SupportingFacts), gold)
			ansEM, _, ansP, ansR := metric.HotpotAnswer(it.pred(), it.rec.Answers[0])
			out[0], out[1] = spEM, spF1
			out[2], out[3] = metric.JointEMF1(ansEM, ansP, ansR, spEM, spP, spR)
		},
	}
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
