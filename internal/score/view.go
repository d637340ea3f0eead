package score

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// qa-score owns one member of a record, scores. It decodes only what the metrics read and writes
// the input line back byte for byte with that member replaced, added or removed.
//
// Note: decoding every record in full and encoding it again (what record.Reader and
// record.Writer do) cost a third of the run; most of a record (context, usage, judge reasoning) is
// never looked at here. The line is still checked as JSON in full by the decoder, and a line whose
// members read here do not decode, or that has no schema or id, is a bad line as record.Reader
// would say. A member not read here is checked as JSON only: a line whose context is a string,
// or whose prediction's usage is a list, passes here where the other stages refuse it (decoding
// those members as theirs would make qa-score three to four times slower).

// view is the part of a record qa-score reads.
type view struct {
	Schema      int                      `json:"schema"`
	ID          string                   `json:"id"`
	Dataset     string                   `json:"dataset"`
	Lang        string                   `json:"lang"`
	Type        string                   `json:"type"`
	Question    string                   `json:"question"`
	Answers     []string                 `json:"answers"`
	Meta        *viewMeta                `json:"meta"`
	Prediction  *viewPrediction          `json:"prediction"`
	Judgments   map[string]*viewJudgment `json:"judgments"`
	Scores      json.RawMessage          `json:"scores"`
	ScoreErrors json.RawMessage          `json:"score_errors"`

	first []byte // the line as decoded first, when record.LastValues took members out of it
}

// viewMeta is the part of a record's meta qa-score reads.
type viewMeta struct {
	Category        json.RawMessage `json:"category"`
	Abstention      json.RawMessage `json:"abstention"`
	SupportingFacts json.RawMessage `json:"supporting_facts"`
}

// viewPrediction is the part of a prediction qa-score reads.
type viewPrediction struct {
	Text            *string         `json:"text"` // nil: none, a prediction of facts or a score alone (record.Prediction.HasText)
	Error           string          `json:"error"`
	SupportingFacts json.RawMessage `json:"supporting_facts"` // read by record.FactsError, which names the fact at fault
	Score           json.RawMessage `json:"score"`            // checked for null only: the corpus metrics read it by --score-field
	Model           modelName       `json:"model"`            // for the summary's warning of models pooled
}

// modelName is a prediction's model as qa-score reads it: a JSON string, or none for any other
// value, which is checked as JSON only, as every member qa-score does not read.
type modelName string

// UnmarshalJSON reads a string, without escapes in one allocation (the name), and leaves m
// empty for any other value.
func (m *modelName) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) < 2 || b[0] != '"':
	case !bytes.ContainsRune(b, '\\'):
		*m = modelName(b[1 : len(b)-1])
	default:
		var s string
		if json.Unmarshal(b, &s) == nil {
			*m = modelName(s)
		}
	}
	return nil
}

// viewJudgment is the part of a judgment qa-score reads.
type viewJudgment struct {
	Score *float64 `json:"score"`
	Error string   `json:"error"`
	Mode  string   `json:"mode"` // for --mismatches, which says what a LoCoMo category-5 rule wanted
	Raw   string   `json:"raw"`  // an EvaLearn judge's reply, read when it has no score (item.verdict)
}

// decodeView parses a line into a record holding only the fields qa-score reads, with the errors
// record.Reader gives (a bad line that has a schema is a Record still). facts is whether a
// supporting-fact score (sp_em, sp_f1, joint_em, joint_f1) is selected: only then are the gold
// and predicted facts read, and facts that cannot be read make the line bad; otherwise they are
// checked as JSON alone, as any member no selected metric reads, and a prediction's facts are
// only noted as present (an empty list), which item.answered's callers need.
func decodeView(l line, facts bool) (*record.Record, *record.Error) {
	rec, bad := decodeLine(l, facts)
	if bad != nil {
		bad.Record = record.HasSchema(l.data)
	}
	return rec, bad
}

func decodeLine(l line, facts bool) (*record.Record, *record.Error) {
	var v view
	data := l.data
	odd := oddKeys(data)
	if odd {
		data = exactKeys(data)
	}
	if err := record.Unmarshal(data, &v); err != nil {
		// A member that a later one of its key replaces is not the record's (see
		// record.LastValues): the other stages read the line without it. LastValues merges
		// two predictions, as the decoder does; the other stages read the last alone.
		src := data
		if odd {
			src = withLastPrediction(data)
		}
		last := record.LastValues(src, reflect.TypeFor[view]())
		if last == nil && len(src) < len(data) {
			last = src // an earlier prediction was all that was replaced
		}
		if last == nil {
			return nil, &record.Error{File: l.file, Line: l.no, ID: record.PeekID(l.data), Err: record.CutLine(record.InvalidLine(l.data, err), l.data, l.unended)}
		}
		v = view{first: data}
		if err := record.Unmarshal(last, &v); err != nil {
			return nil, &record.Error{File: l.file, Line: l.no, ID: record.PeekID(l.data), Err: record.CutLine(record.InvalidLine(l.data, err), l.data, l.unended)}
		}
		data = last
	}
	if odd {
		lastPrediction(data, &v)
	}
	if err := record.NullAnswer(data, v.Answers); err != nil {
		return nil, &record.Error{File: l.file, Line: l.no, ID: v.ID, Err: fmt.Errorf("invalid record: %w", err)}
	}
	rec := &record.Record{Schema: v.Schema, ID: v.ID, Dataset: v.Dataset, Lang: v.Lang, Type: v.Type,
		Question: v.Question, Answers: v.Answers}
	if err := rec.ValidateLine(l.data); err != nil {
		if derr := record.Unmarshal(l.data, new(record.Record)); derr != nil {
			// The view takes a null line for an object with no member: the record's decoder
			// says what the other stages say of it.
			return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: record.InvalidLine(l.data, derr)}
		}
		return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}
	}
	if err := decodeMembers(data, &v, rec, facts); err != nil {
		return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}
	}
	return rec, nil
}

// decodeMembers reads into rec the view's members past the record's own fields: its scores,
// meta, prediction and judgments.
func decodeMembers(data []byte, v *view, rec *record.Record, facts bool) error {
	var err error
	// Scores and score errors are written again, from what is read of them: names that differ
	// only in lone surrogates would be read as one, a member lost, as in judgments.
	for _, m := range []struct {
		name string
		raw  json.RawMessage
	}{{"scores", v.Scores}, {"score_errors", v.ScoreErrors}} {
		if m.raw == nil {
			continue
		}
		if err := record.KeyClash(data, m.name); err != nil {
			return fmt.Errorf("invalid record: %w", err)
		}
	}
	if v.Scores != nil {
		// Present (even as null): remember that, so the line's member is replaced, not added.
		if rec.Scores, err = decodeMember[float64](v.Scores, "scores", "a number"); err != nil {
			return err
		}
	}
	if v.ScoreErrors != nil { // as for scores
		if rec.ScoreErrors, err = decodeMember[string](v.ScoreErrors, "score_errors", "a string"); err != nil {
			return err
		}
	}
	if v.Meta != nil {
		if err := decodeMeta(v.Meta, rec, facts); err != nil {
			return err
		}
	}
	if v.Prediction != nil {
		if err := decodePrediction(data, v, rec, facts); err != nil {
			return err
		}
	}
	if len(v.Judgments) > 0 {
		return decodeJudgments(data, v.Judgments, rec)
	}
	return nil
}

// decodeMeta keeps the meta members qa-score reads, and checks those that decide which scores
// and summary groups a record belongs to.
func decodeMeta(m *viewMeta, rec *record.Record, facts bool) error {
	if facts && m.SupportingFacts != nil {
		// Gold facts that cannot be read would leave the SP scores out without a word.
		var fs []record.Fact
		if err := readFacts("meta.supporting_facts", m.SupportingFacts, &fs); err != nil {
			return err
		}
	}
	rec.Meta = map[string]json.RawMessage{}
	for k, raw := range map[string]json.RawMessage{"category": m.Category, "abstention": m.Abstention, "supporting_facts": m.SupportingFacts} {
		if raw != nil {
			rec.Meta[k] = raw
		}
	}
	// The facts that decide which scores and summary groups a record belongs to: unreadable,
	// they would drop or misfile it without a word. The abstention is read of every record, as
	// qa-judge reads it (its rules judge takes it on any record), so that a line qa-judge fails
	// is not scored here as if the fact were absent.
	if rec.InDataset("locomo") {
		if _, _, err := rec.LoCoMoCategory(); err != nil {
			return err
		}
	}
	_, err := rec.Abstention()
	return err
}

// decodePrediction reads the prediction's text, error and (when facts is set) supporting facts.
func decodePrediction(data []byte, v *view, rec *record.Record, facts bool) error {
	p := v.Prediction
	if p.Text == nil {
		src := data
		if v.first != nil {
			src = v.first
		}
		p.Text = nulledText(src)
	}
	text := ""
	if p.Text != nil {
		text = *p.Text
	}
	if err := record.NullText(data, text, p.Error); err != nil {
		return fmt.Errorf("invalid record: %w", err)
	}
	if err := nullScore(data, p.Score, p.Error); err != nil {
		return fmt.Errorf("invalid record: %w", err)
	}
	rec.Prediction = &record.Prediction{Text: text, Error: p.Error}
	rec.Prediction.Model = string(p.Model)
	if p.Text == nil {
		rec.Prediction.ClearText()
	}
	switch {
	case p.SupportingFacts == nil || string(p.SupportingFacts) == "null":
	case !facts:
		rec.Prediction.SupportingFacts = []record.Fact{} // present, not read
	default:
		return readFacts("prediction.supporting_facts", p.SupportingFacts, &rec.Prediction.SupportingFacts)
	}
	return nil
}

// decodeJudgments reads the judgments' verdicts.
func decodeJudgments(data []byte, js map[string]*viewJudgment, rec *record.Record) error {
	// Judgment names that differ only in lone surrogates would be read as one, the verdict of
	// one lost; the rest of the line is kept as it came, so only this member is checked.
	if err := record.KeyClash(data, "judgments"); err != nil {
		return fmt.Errorf("invalid record: %w", err)
	}
	rec.Judgments = make(map[string]*record.Judgment, len(js))
	for name, j := range js {
		if j != nil {
			rec.Judgments[name] = &record.Judgment{Score: j.Score, Error: j.Error, Mode: j.Mode, Raw: j.Raw}
		} else {
			rec.Judgments[name] = nil
		}
	}
	if err := record.NullJudgmentScore(data, rec.Judgments); err != nil {
		return fmt.Errorf("invalid record: %w", err)
	}
	return nil
}

// nullScore is record.NullScore for the view, which reads the prediction's score as raw JSON:
// only a null one is looked at again.
func nullScore(data, score json.RawMessage, errMsg string) error {
	if string(bytes.TrimSpace(score)) != "null" {
		return nil
	}
	return record.NullScore(data, nil, errMsg)
}

// decodeMember decodes raw, the record's object member name (present, even as null), into a map
// that is never nil. A null value, which decoding reads as the zero value, is refused as not
// being want. The error names the member and what is wrong with it.
func decodeMember[V comparable](raw json.RawMessage, name, want string) (map[string]V, error) {
	m := map[string]V{}
	err := record.Unmarshal(raw, &m)
	if err != nil {
		if last := record.LastValues(raw, reflect.TypeFor[map[string]V]()); last != nil {
			m, raw = map[string]V{}, last // a name given twice is read as its last value
			err = record.Unmarshal(raw, &m)
		}
	}
	if err != nil {
		msg := record.DescribeDecodeError(err) // "f1: want a number, …" or "want an object, …"
		sep := "."
		if strings.HasPrefix(msg, "want ") || strings.HasPrefix(msg, "unexpected") {
			sep = ": "
		}
		return nil, fmt.Errorf("invalid record: %s%s%s", name, sep, msg)
	}
	var zero V
	if slices.Contains(slices.Collect(maps.Values(m)), zero) { // a null, or a value that is zero
		if err := record.NullMember(raw, name, want); err != nil {
			return nil, fmt.Errorf("invalid record: %w", err)
		}
	}
	if m == nil {
		m = map[string]V{}
	}
	return m, nil
}

// readFacts decodes raw, the supporting facts at path, into fs, and words a fault as the record
// reader does, by the path of the fact at fault (record.FactsError), read again only then.
func readFacts(path string, raw []byte, fs *[]record.Fact) error {
	err := record.Unmarshal(raw, fs)
	if err == nil {
		return nil
	}
	if ferr := record.FactsError(path, raw); ferr != nil {
		return ferr
	}
	return fmt.Errorf("%s: %s", path, record.DescribeDecodeError(err))
}

// nulledText returns the text of the last prediction of the record encoded in src when the
// decoder, reading into a string, keeps it: a text member that a later null one follows
// ("text":"x","text":null), which the view's pointer reads as none, where the other stages
// read the string, as a null leaves a string as it was; nil when there is none. src is the line
// as first decoded: a text of the wrong type that a later string replaces (5, "x", null) is not
// the last that is not null, whereas in what record.LastValues leaves of it for the view's
// pointer only the null is. It is called for a prediction read without a text alone, so it may
// walk the line.
func nulledText(src []byte) *string {
	if !bytes.Contains(src, []byte("null")) {
		return nil // the usual prediction without a text: a failed one, or a score alone
	}
	ms, err := record.Members(src)
	if err != nil {
		return nil
	}
	var pred []byte
	for _, m := range ms {
		if m.Key == "prediction" {
			pred = src[m.ValueStart:m.End]
		}
	}
	ps, err := record.Members(pred)
	if err != nil {
		return nil
	}
	var text *string
	for _, m := range ps {
		if v := pred[m.ValueStart:m.End]; m.Key == "text" && string(v) != "null" {
			text = nil
			var t string
			if record.Unmarshal(v, &t) == nil {
				text = &t
			}
		}
	}
	return text
}
