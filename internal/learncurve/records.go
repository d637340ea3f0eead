package learncurve

import (
	"errors"
	"strconv"

	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/pkg/record"
)

// JudgeName is the judgments key qa-learncurve reads: the EvaLearn judge's verdict.
const JudgeName = "evalearn"

// MetaPosition is the meta key where qa-load --format evalearn-results keeps position_in_sequence
// verbatim (raw JSON). When it is there, the position's identity is its evalearn.Key, so that
// 3.0 and true are positions 3 and 1 and two positions that are not integers stay apart, as
// EvaLearn's dict keys do; otherwise it is record.Sequence's position.
const MetaPosition = "evalearn_position"

// MetaType is the meta key where qa-load --format evalearn-results keeps a "type" that the record's
// type field cannot hold (raw JSON: "", null, a number); the sequence's type is then RawType of
// it, as upstream keys it.
const MetaType = "evalearn_type"

// ErrNoSequence marks a record that has no sequence placement; EvaLearn skips such records.
var ErrNoSequence = errors.New("no sequence id, or no sequence position of 1 or more")

// Observe turns a judged record into an Observation. Correctness is evalearn.Verdict's score > 0:
// the judgment's score when the judge scored it, else the judge's raw reply read by
// evalearn.ParseReply, whole, as EvaLearn's evaluate_metric.py reads a results file's gpt4judge
// (qa-score's judge_score reads EvaLearn records' judgments alike). A record with no EvaLearn judgment counts
// as wrong (as an empty reply does in EvaLearn), and so does one whose prediction or EvaLearn
// judgment failed (error), whatever score or raw reply its judgment holds. A raw reply from which
// the rule reads no score counts as wrong too, as upstream, and Unread says why. It returns
// ErrNoSequence for a record without a sequence, for one whose sequence has no id (an EvaLearn
// results placement, MetaPosition, or not: qa-load gives every placed results object its
// sequence's id, so a record without one was written by hand), and for one whose sequence has no
// position (1, 2, …) and holds no MetaPosition.
//
// Note: a failed judgment's raw reply was read too, while the run said it counted as wrong; raw
// can hold a score the judge stage did not take, as in a reply cut in a reasoning model's
// thinking. qa-judge and qa-predict write a score or an error, so raw alone is read where no
// qapipe judge wrote the judgment: EvaLearn's own results (qa-load --format evalearn-results)
// and records written by hand.
//
// Note: a sequence without a position (absent, null, or misspelt "pos") reads as position 0,
// which was kept apart as EvaLearn keeps a position 0: every such record made a sequence of
// positions all missing, and so all wrong, with exit status 0. EvaLearn skips a position of
// None, as this does.
func Observe(r *record.Record) (Observation, error) {
	if r.Sequence == nil {
		return Observation{}, ErrNoSequence
	}
	if _, ok := r.Meta[MetaPosition]; r.Sequence.ID == "" || !ok && r.Sequence.Position < 1 {
		return Observation{}, ErrNoSequence
	}
	o := Observation{Seq: r.Sequence.ID, Pos: strconv.Itoa(r.Sequence.Position)}
	if raw, ok := r.Meta[MetaType]; ok {
		o.Type = RawType(raw)
	} else if r.Type != "" {
		o.Type = NamedType(r.Type)
	}
	if raw, ok := r.Meta[MetaPosition]; ok {
		o.Pos, _, _ = evalearn.Key(raw)
	}
	if failure(r, JudgeName) == "" {
		score, _, why := evalearn.Verdict(r.Judgments[JudgeName])
		o.Correct, o.Unread = score > 0, why
	}
	return o, nil
}
