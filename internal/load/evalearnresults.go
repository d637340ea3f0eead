package load

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/pkg/record"
)

// EvaLearnResults loads the results files EvaLearn's evaluate.py writes (a JSON array, or the same
// objects one per line), so that existing runs can be rescored. Each object becomes one record:
// prompt → turns (question = last turn; a prompt of one string is the question, and one of
// anything else, which evaluate_metric.py never reads, goes to meta.prompt as it is, so that no
// record is lost over it), rubric, type, gpt4res → prediction.text, and the raw judge
// text gpt4judge → judgments["evalearn"].raw. Every other field goes to meta verbatim, with id as
// meta.problem_id, and sequence_id and position_in_sequence, exactly as written, as
// meta.evalearn_sequence_id and meta.evalearn_position (the keys qa-learncurve reads).
//
// The mapping keeps what evaluate_metric.py's grouping depends on:
//   - sequence is set only when sequence_id and position_in_sequence are both present and not
//     null (upstream skips the others). sequence.id is sequence_id as a Python dict key
//     (evalearn.Key): the string "117" (written `"117"`, quotes included) stays a different
//     sequence from the number 117, while 117.0, 1.17e2 are 117 and true is 1.
//     sequence.position is the position when it is an integral number (3.0 is 3, true is 1) and
//     0 otherwise (a string "4" never matches a position upstream); qa-learncurve reads the raw
//     value in meta to keep such positions apart.
//   - a missing type is "unknown", as upstream. A type that is not a name ("", null, a number),
//     or a name holding a lone surrogate (U+FFFD in type), is also kept verbatim as
//     meta.evalearn_type: upstream keys such sequences by that value ("" apart from a missing
//     type, 1.0 together with 1, "A\ud800" apart from "A\ud801"), and qa-learncurve reads it
//     there; type is then str() of a number ("3.0", "True"), the name, and "" otherwise.
//   - a gpt4judge that is not a string (null, missing, a number) scores 0 upstream: raw is then
//     empty and a non-null value is kept in meta.gpt4judge.
//
// Ids are evalearn:<sequence>:<position> (evalearn:problem:<id> without a sequence); a repeated
// id gets the suffix #2, #3… in file order, so later stages can apply "last wins".
func EvaLearnResults(in Input, opt Options, emit Emit) error {
	seen := repeats{seen: repeat.IDs{Max: maxIDs}}
	return eachItem(in, opt, emit, resultID, func(raw jsonRaw, line int, emit Emit) error {
		var m map[string]jsonRaw
		if err := decodeItem(in, line, "", raw, &m); err != nil {
			return emit(nil, 0, err)
		}
		rec := evaLearnResult(m)
		rec.ID = seen.number(rec.ID)
		return emit(rec, line, nil)
	})
}

// repeats numbers the records of a results file that repeat an earlier record's id: the second
// gets #2, the third #3. It holds the ids read as hashes (repeat.IDs, up to its Max), and
// counts by id only those that repeated, so that memory stops growing with the file as it does
// in every other format.
//
// Note: a map counting every id held each id and its count, some 50 bytes a record, and a
// results file of a million lines took 190 MB where the other formats take 60. Past Max
// different ids, an id first read after them is not found again: its repeats keep the id, as
// qa-load's warning of repeated ids, bounded alike, does not name them either.
type repeats struct {
	seen  repeat.IDs     // the ids read, bounded by its Max
	count map[string]int // records of each id that repeated, from 2
}

// number returns id, or id with its place among the records that had it (#2, #3, …) when an
// earlier record had it.
func (r *repeats) number(id string) string {
	if !r.seen.Add(id, "", 0) {
		return id
	}
	if r.count == nil {
		r.count = make(map[string]int)
	}
	n := max(r.count[id], 1) + 1
	r.count[id] = n
	return id + "#" + strconv.Itoa(n)
}

// resultID returns the id of the record that the results object raw gives (see evaLearnResult),
// without the #2, #3… of a repeat, to name a bad line by: in a line that is no JSON (one cut
// short, a stray comma), as the members whole before the fault tell it, or "" when they do not:
// one without both sequence members may have them after the fault, so its problem's id is no
// record's id until the object is seen to end. "" for raw that is no object.
//
// Note: bad lines were named by the problem's id ("241"), which no record carries as its id.
func resultID(raw []byte) string {
	var m map[string]jsonRaw
	whole := json.Unmarshal(raw, &m) == nil
	if !whole {
		ms, err := record.Members(raw) // the members before the fault; all of them when err is nil
		if len(ms) == 0 {
			return ""
		}
		whole = err == nil
		m = make(map[string]jsonRaw, len(ms))
		for _, mb := range ms {
			// A value that is no JSON is where the fault is (7x), and one that the line's
			// end cuts may have gone on (a position 1 of 17).
			if v := raw[mb.ValueStart:mb.End]; json.Valid(v) && mb.End < len(raw) {
				m[mb.Key] = jsonRaw(v)
			} else {
				whole = false
			}
		}
	}
	if m == nil {
		return "" // null
	}
	if seq, pos := resultSequence(m["sequence_id"], m["position_in_sequence"]); seq != nil {
		return "evalearn:" + seq.ID + ":" + pos
	}
	if !whole {
		return ""
	}
	pid, _ := scalarText(m["id"])
	return "evalearn:problem:" + pid
}

// evaLearnResult maps one results object. Nothing in one is refused: evaluate_metric.py reads
// only its sequence, position, type and gpt4judge, and takes whatever they hold.
func evaLearnResult(m map[string]jsonRaw) *record.Record {
	rec := newRecord("", "evalearn", "")
	var pos string
	rec.Sequence, pos = resultSequence(m["sequence_id"], m["position_in_sequence"])
	if rec.Sequence != nil {
		rec.ID = "evalearn:" + rec.Sequence.ID + ":" + pos
	} else {
		pid, _ := scalarText(m["id"])
		rec.ID = "evalearn:problem:" + pid
	}
	setResultType(rec, m)
	setResultPrompt(rec, m)
	rec.Rubric, _ = scalarText(m["rubric"])
	rec.Answers = []string{}
	if ca, _ := scalarText(m["canonical_answer"]); ca != "" {
		rec.Answers = []string{ca}
	}
	setResultReplies(rec, m)
	setResultMeta(rec, m)
	return rec
}

// setResultType sets rec's type from the object's type: "unknown" without one, a number as
// str() prints it; one that is no string, is "", or holds a lone surrogate is kept in meta as it
// came.
//
// Note: a lone surrogate (`"A\ud800"`) is U+FFFD in the type field, so that "A\ud800" and
// "A\ud801" were one type of qa-learncurve's report, where upstream's are two.
func setResultType(rec *record.Record, m map[string]jsonRaw) {
	rec.Type = "unknown"
	if raw, ok := m["type"]; ok {
		if isString(raw) {
			rec.Type, _ = scalarText(raw)
		} else {
			rec.Type, _ = pyStrAnswer(raw) // str() of a number, as upstream prints it; "" for null
		}
		if !isString(raw) || rec.Type == "" || holdsLoneSurrogate(raw) {
			setMeta(rec, "evalearn_type", raw)
		}
	}
}

// holdsLoneSurrogate reports whether raw is a JSON string holding a lone UTF-16 surrogate, which
// Python's json keeps in a str and Go's strings cannot hold.
func holdsLoneSurrogate(raw jsonRaw) bool {
	if !bytes.Contains(raw, []byte(`\u`)) {
		return false
	}
	v, err := python.Loads(string(raw))
	return err == nil && v.Kind == python.Str && !utf8.ValidString(v.S)
}

// setResultPrompt sets rec's question, and its turns, from the object's prompt: one text, or a
// list of turns whose last is the question; any other is kept in meta.
func setResultPrompt(rec *record.Record, m map[string]jsonRaw) {
	if raw, ok := m["prompt"]; ok && !isNull(raw) {
		switch {
		case isString(raw): // one text, as evaluate.py's prepare_question builds a prompt
			rec.Question, _ = scalarText(raw)
		case jsonUnmarshal(raw, &rec.Turns) == nil:
			if n := len(rec.Turns); n > 0 {
				rec.Question = rec.Turns[n-1]
			}
		default: // no turns (a number, an object, a list of other things): kept as it is
			rec.Turns = nil
			setMeta(rec, "prompt", raw)
		}
	}
}

// setResultReplies sets rec's prediction from the object's gpt4res, and its evalearn judgment's
// raw reply from gpt4judge (one that is no string is kept in meta).
func setResultReplies(rec *record.Record, m map[string]jsonRaw) {
	if raw, ok := m["gpt4res"]; ok {
		text, ok := scalarText(raw)
		if !ok {
			text = string(raw)
		}
		rec.Prediction = &record.Prediction{Text: text}
	}
	judge := &record.Judgment{}
	if raw := m["gpt4judge"]; isString(raw) {
		judge.Raw, _ = scalarText(raw)
	} else if len(raw) > 0 && !isNull(raw) {
		setMeta(rec, "gpt4judge", raw)
	}
	rec.Judgments = map[string]*record.Judgment{"evalearn": judge}
}

// resultMetaSource is the member whose value setResultMeta keeps under each of its own meta names.
var resultMetaSource = map[string]string{"problem_id": "id", "evalearn_sequence_id": "sequence_id"}

// setResultMeta keeps in rec's meta the object's members that are no field of it: the problem
// id, sequence id and position under names of their own, the others under theirs. A member named
// as one of those own names yields to the value qa-load gives it, as in the benchmark's files:
// read in Go's map order, which differs from run to run, either would be kept. evalearn_position
// and evalearn_type (setResultType's) are never taken from the object: qa-learncurve reads them in
// place of the position and type, where evaluate_metric.py reads position_in_sequence and type.
func setResultMeta(rec *record.Record, m map[string]jsonRaw) {
	for k, v := range m {
		switch k {
		case "type", "prompt", "rubric", "gpt4res", "gpt4judge", "evalearn_position", "evalearn_type":
		case "problem_id", "evalearn_sequence_id":
			if _, given := m[resultMetaSource[k]]; !given {
				setMeta(rec, k, v)
			}
		case "id":
			setMeta(rec, "problem_id", v)
		case "sequence_id":
			setMeta(rec, "evalearn_sequence_id", v)
		case "position_in_sequence":
			setMeta(rec, "evalearn_position", v)
		default:
			setMeta(rec, k, v)
		}
	}
}

// resultSequence places a results object, or returns nil when upstream would skip it. The
// sequence id and the position in the record id are their evalearn.Key.
func resultSequence(seq, pos jsonRaw) (*record.Sequence, string) {
	if len(seq) == 0 || isNull(seq) || len(pos) == 0 || isNull(pos) {
		return nil, ""
	}
	id, _, _ := evalearn.Key(seq)
	s := &record.Sequence{ID: id}
	key, n, ok := evalearn.Key(pos)
	if ok && n > -1<<31 && n < 1<<31 {
		s.Position = n
	}
	return s, key
}

func isNull(raw jsonRaw) bool   { return string(trimSpace(raw)) == "null" }
func isString(raw jsonRaw) bool { r := trimSpace(raw); return len(r) > 0 && r[0] == '"' }

// isBool reports whether raw is true or false.
func isBool(raw jsonRaw) bool { r := string(trimSpace(raw)); return r == "true" || r == "false" }
