package learncurve

import (
	"encoding/json"
	"errors"
	"math"

	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/pkg/record"
)

// JudgeName is the judgments key qa-learncurve reads: the EvaLearn judge's verdict.
const JudgeName = "evalearn"

// MetaPosition is the meta key where qa-load --format evalearn-results keeps position_in_sequence
// verbatim (raw JSON). Positions that are not integral numbers are read as record.Sequence
// position 0; the raw value keeps two such positions apart, as EvaLearn's dict keys do.
const MetaPosition = "position_in_sequence"

// ErrNoSequence marks a record that has no sequence placement; EvaLearn skips such records.
var ErrNoSequence = errors.New("no sequence id or position")

// Observe turns a judged record into an Observation. Correctness is the judgment's score > 0 when
// the judge scored it, else the judge's raw reply read by evalearn.ParseReply; a record with no EvaLearn
// judgment counts as wrong (as an empty reply does in EvaLearn). It returns ErrNoSequence for a
// record without a sequence.
func Observe(r *record.Record) (Observation, error) {
	if r.Sequence == nil {
		return Observation{}, ErrNoSequence
	}
	o := Observation{Seq: r.Sequence.ID, Type: r.Type, Pos: r.Sequence.Position}
	if raw, ok := r.Meta[MetaPosition]; ok {
		o.Pos, o.PosKey = position(raw, o.Pos)
	}
	if j := r.Judgments[JudgeName]; j != nil {
		if j.Score != nil {
			o.Correct = *j.Score > 0
		} else {
			score, _, _ := evalearn.ParseReply(j.Raw)
			o.Correct = score > 0
		}
	}
	return o, nil
}

// position reads a raw position_in_sequence as Python's dict lookup would: an integral number
// (3 or 3.0) is that position, true and false are 1 and 0 (Python's bools are ints), and
// anything else gets a key that no integer position shares.
func position(raw json.RawMessage, pos int) (int, string) {
	var v any
	if err := record.Unmarshal(raw, &v); err != nil {
		return pos, "raw:" + string(raw)
	}
	switch v := v.(type) {
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<31 {
			return int(v), ""
		}
	case bool:
		if v {
			return 1, ""
		}
		return 0, ""
	}
	return 0, "raw:" + string(raw)
}
