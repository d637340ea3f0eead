package evalearn

import (
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// Verdict returns the score of the EvaLearn judgment j, as qa-learncurve counts an answer right
// (score > 0) and qa-score's judge_score reads it: j.Score when the judge scored it, else j's raw
// reply read by ParseReply, whole, as evaluate_metric.py reads a results file's gpt4judge (EvaLearn's
// own results hold the reply alone: qa-load --format evalearn-results). ok is false when j holds
// no verdict: j is nil, or has no score and a reply empty or white space alone. unread says why a
// reply gave no score by the rule (score is then 0, EvaLearn's outcome); "" otherwise. j.Error is
// not read: what a failed judgment counts as is the caller's to say.
func Verdict(j *record.Judgment) (score float64, ok bool, unread string) {
	switch {
	case j == nil:
		return 0, false, ""
	case j.Score != nil:
		return *j.Score, true, ""
	case strings.TrimSpace(j.Raw) == "": // an empty reply is no verdict at all
		return 0, false, ""
	}
	score, read, why := ParseReply(j.Raw)
	if read {
		why = ""
	}
	return score, true, why
}

// Counted is Verdict as evaluate_metric.py counts a judgment that is there: one with neither a
// score nor a reply (EvaLearn's results hold an empty gpt4judge where its judge failed) scores 0,
// unread as an "empty reply", as the script scores it 0 and qa-learncurve counts it wrong. ok is
// false only for a nil j. qa-score's judge_score and qa-judge agree read EvaLearn judgments so.
//
// Note: such a judgment was left out as no verdict, so that the mean judge_score of EvaLearn's
// results holding one was not the overall accuracy EvaLearn and qa-learncurve report.
func Counted(j *record.Judgment) (score float64, ok bool, unread string) {
	if j == nil {
		return 0, false, ""
	}
	if score, ok, unread = Verdict(j); !ok {
		return 0, true, "empty reply"
	}
	return score, ok, unread
}
