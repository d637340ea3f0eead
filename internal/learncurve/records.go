package learncurve

import (
	"errors"
	"fmt"

	"github.com/qapipe/qapipe/pkg/record"
)

// JudgeName is the judgments key qa-learncurve reads: the EvaLearn judge's verdict.
const JudgeName = "evalearn"

// Meta keys a loader may set to keep EvaLearn's identities apart where the record schema would
// merge them: the sequence_id and position_in_sequence exactly as they appeared (raw JSON).
const (
	MetaSequenceID = "evalearn_sequence_id"
	MetaPosition   = "evalearn_position"
)

// ErrNoSequence marks a record that has no sequence placement; EvaLearn skips such records.
var ErrNoSequence = errors.New("no sequence id or position")

// Observe turns a judged record into an Observation. Correctness is the judgment's score > 0 when
// the judge scored it, else the judge's raw reply read by ReplyCorrect; a record with no EvaLearn
// judgment counts as wrong (as an empty reply does in EvaLearn). It returns ErrNoSequence for a
// record without a sequence.
func Observe(r *record.Record) (Observation, error) {
	if r.Sequence == nil {
		return Observation{}, ErrNoSequence
	}
	o := Observation{Seq: r.Sequence.ID, Type: r.Type, Pos: r.Sequence.Position}
	if raw, ok := r.Meta[MetaSequenceID]; ok {
		o.Seq = string(raw)
	}
	if raw, ok := r.Meta[MetaPosition]; ok {
		if key, integral := positionKey(raw); !integral {
			o.PosKey = key
		}
	}
	if j := r.Judgments[JudgeName]; j != nil {
		if j.Score != nil {
			o.Correct = *j.Score > 0
		} else {
			o.Correct = ReplyCorrect(j.Raw)
		}
	}
	return o, nil
}

// positionKey reports whether a raw JSON position is a number Python would treat as equal to an
// integer (3 or 3.0); otherwise it returns a key that no integer position shares.
func positionKey(raw []byte) (string, bool) {
	var f float64
	if err := record.Unmarshal(raw, &f); err == nil && f == float64(int64(f)) {
		return "", true
	}
	return fmt.Sprintf("raw:%s", raw), false
}
