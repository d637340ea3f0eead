package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/pkg/record"
)

// JSONL loads generic JSON Lines (or a JSON array) of objects, taking the record fields from the
// source fields named by the mapping: answers may be a string, a number or a list; context a
// string (one passage, none when it is empty), a list of strings, or a list of passages in the
// records' shape (passageList); id a string or a number (absent, null or "": FILE:LINE, see
// defaultID); type, rubric, lang, dataset and split a string or a number (true, false, a list or
// an object there is a bad item); prediction and prediction_model those of a prediction made by
// another tool (see takePrediction). Every source field not mapped goes to meta verbatim.
func JSONL(in Input, opt Options, emit Emit) error {
	id := func([]byte) string { return "" } // no id field: a bad line is named by its line alone
	if src := opt.Map.source("id"); src != "" {
		id = pathID(src)
	}
	return eachItemAt(in, opt, emit, id, func(raw jsonRaw, at itemAt, emit Emit) error {
		line := at.line
		obj, repeated, ok := members(raw)
		if !ok {
			if err := decodeItem(in, line, "", raw, &obj); err != nil { // not an object: the usual message
				return emit(nil, 0, err)
			}
		}
		item := fields{obj: obj, nested: true}
		if opt.Found != nil {
			opt.Found(item.has)
		}
		if repeated != "" {
			id := ""
			if src := opt.Map.source("id"); src != "" && repeated != pathHead(src) { // a repeated id names nothing
				id = pathID(src)(raw)
			}
			return emit(nil, 0, badf(in, line, id, "field %q is given twice", repeated))
		}
		rec, err := genericRecord(in, line, defaultID(in, at), item, opt.Map)
		return emit(rec, line, err)
	})
}

// members decodes the members of the JSON object raw (valid JSON) and returns the first key the
// object gives twice, if any. It reports false if raw is not an object.
//
// Note: json.Unmarshal into a map keeps the last of two members of one name, so
// {"answers":"a","answers":"b"} would load as answers ["b"] without a word. A generic record
// cannot say which it means, so a repeated key makes it a bad item, as a repeated CSV column
// makes the file an error. Objects nested in a field (meta) are kept verbatim, repeats and all.
func members(raw []byte) (obj map[string]jsonRaw, repeated string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, "", false
	}
	obj = make(map[string]jsonRaw)
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		var v jsonRaw
		if err != nil || !isKey || dec.Decode(&v) != nil {
			return nil, "", false // not reached for valid JSON
		}
		if _, seen := obj[key]; seen && repeated == "" {
			repeated = key
		}
		obj[key] = v
	}
	return obj, repeated, true
}

// questionHint says, for a record without its question field, which fields it has (those left in
// obj and taken) and, unless --map names the question's field already, how to name it.
func questionHint(obj map[string]jsonRaw, taken []string, m Mapping) string {
	list := fieldList(slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(obj)), taken...))))
	if _, mapped := m["question"]; mapped {
		return fmt.Sprintf(" (its fields: %s)", list)
	}
	return fmt.Sprintf(" (its fields: %s; if the question is under another name, give --map question=FIELD)", list)
}

// fieldList lists the source fields names, in their order, as a message shows them (fieldName):
// the first 8, and how many more; "none" for none.
func fieldList(names []string) string {
	const most = 8
	shown := make([]string, 0, min(len(names), most))
	for _, f := range names[:min(len(names), most)] {
		shown = append(shown, fieldName(f))
	}
	list := strings.Join(shown, ", ")
	if len(names) > most {
		list += fmt.Sprintf(", and %d more", len(names)-most)
	}
	if len(names) == 0 {
		list = "none"
	}
	return list
}

// fieldName is a source field's name as a list of them shows it: quoted when it is empty, has
// blanks at an end or holds a character that does not show, as a header "id, question, answers"
// gives " question", which the list read as "question", the very field said to be missing (and
// a second byte order mark "\ufeffid"), and when it holds a comma, which the list would show as
// two names.
func fieldName(f string) string {
	if f == "" || strings.TrimSpace(f) != f || strings.ContainsRune(f, ',') || strings.ContainsFunc(f, func(r rune) bool { return !strconv.IsPrint(r) }) {
		return strconv.Quote(f)
	}
	return f
}

// genericRecord makes the record of the row item at line, whose id is id when the row has none
// (no id field, or one that is null or "").
func genericRecord(in Input, line int, id string, item fields, m Mapping) (*record.Record, error) {
	t := &taker{item: item, m: m}
	rec := newRecord(id, "", "")
	taken, err := t.takeID(in, line, rec)
	if err != nil {
		return nil, err
	}
	if err := t.takeQuestion(in, line, rec, taken); err != nil {
		return nil, err
	}
	if err := t.takeFields(in, line, rec); err != nil {
		return nil, err
	}
	if t.fault != nil { // a later field's path did not hold: the fields after it were not read
		return nil, badf(in, line, rec.ID, "%v", t.fault)
	}
	// The gold supporting facts, left to meta: qa-score, which reads them there for sp_* and
	// joint_*, drops the whole record when they do not read, its answer's scores too.
	if raw, ok := item.obj["supporting_facts"]; ok && !isNull(raw) {
		if err := factsError(raw); err != nil {
			return nil, badf(in, line, rec.ID, "field %q: %v", "supporting_facts", err)
		}
	}
	// The abstention, left to meta, which qa-judge and qa-score read as true or false and refuse
	// otherwise: a CSV cell (text) or a JSON string that spells one is read as it; any other
	// value is a bad item here, where it was found only two stages on.
	if raw, ok := item.obj["abstention"]; ok && !isNull(raw) {
		b, keep, err := abstentionValue(raw)
		if err != nil {
			return nil, badf(in, line, rec.ID, "field %q: %v", "abstention", err)
		}
		if keep {
			item.obj["abstention"] = b
		} else {
			delete(item.obj, "abstention")
		}
	}
	for k, v := range item.obj {
		setMeta(rec, k, v)
	}
	return rec, nil
}

// abstentionValue returns the JSON of raw, an abstention field's value, as the true or false it
// spells (true or false; in text, as a CSV cell holds it, True, TRUE, false, …, or 1 and 0, as
// pandas writes a column of flags, blanks around it ignored), and whether to keep it: an empty
// text, or nan, a CSV cell of a missing value as pandas writes one, is no abstention given.
// Anything else is the error.
func abstentionValue(raw jsonRaw) (jsonRaw, bool, error) {
	switch t := bytes.TrimSpace(raw); string(t) {
	case "true", "false":
		return t, true, nil
	}
	var s string
	const hint = " (the later stages read it so; rename the field to keep it in meta as it is)"
	if json.Unmarshal(raw, &s) != nil {
		return nil, false, fmt.Errorf("want true or false, got %s%s", record.Kind(raw), hint)
	}
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "true", "false":
		return jsonRaw(v), true, nil
	case "1":
		return jsonRaw("true"), true, nil
	case "0":
		return jsonRaw("false"), true, nil
	case "", "nan":
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("want true or false, got %q%s", s, hint)
}

// taker takes the sources of record fields, as m maps them, out of a generic item, keeping the
// first source whose path does not hold (fault), after which it takes nothing.
type taker struct {
	item  fields
	m     Mapping
	fault error // the first source whose path does not hold
}

// take returns the value of the source of record field f, and whether it is there and not null.
func (t *taker) take(f string) (jsonRaw, bool) {
	src := t.m.source(f)
	if src == "" || t.fault != nil { // its field is another's source
		return nil, false
	}
	raw, ok, err := t.item.take(src)
	if err != nil {
		t.fault = fmt.Errorf("field %q: %w", src, err)
		if _, ok := errors.AsType[*givenTwice](err); ok {
			t.fault = err
		}
	}
	return raw, ok && !isNull(raw)
}

// takeID sets rec's id from the item's id field, when it has one that is not "", and returns
// the sources taken so far.
func (t *taker) takeID(in Input, line int, rec *record.Record) ([]string, error) {
	var taken []string
	raw, ok := t.take("id")
	if t.fault != nil {
		return nil, badf(in, line, "", "%v", t.fault)
	}
	if ok {
		taken = append(taken, t.m.source("id"))
		id, ok := scalarText(raw)
		if !ok || isBool(raw) {
			return nil, badf(in, line, "", "field %q: id must be a string or a number", t.m.source("id"))
		}
		if id != "" { // "" is no id, as null is: an empty CSV cell is how pandas writes NaN
			rec.ID = id
		}
	}
	return taken, nil
}

// takeQuestion sets rec's question, which must be a string that is not empty; a missing one's
// error lists the item's fields, the sources taken among them.
func (t *taker) takeQuestion(in Input, line int, rec *record.Record, taken []string) error {
	m := t.m
	if g := m.takenBy("question"); g != "" {
		return badf(in, line, rec.ID, "no field for the question: --map %s=question makes field \"question\" the %s; give --map question=FIELD", g, g)
	}
	present := t.item.has(m.source("question"))
	raw, ok := t.take("question")
	if t.fault != nil {
		return badf(in, line, rec.ID, "%v", t.fault)
	}
	if !ok && present {
		return badf(in, line, rec.ID, "field %q is null", m.source("question"))
	}
	if !ok {
		return badf(in, line, rec.ID, "missing field %q%s", m.source("question"), questionHint(t.item.obj, taken, m))
	}
	if !isString(raw) {
		return badf(in, line, rec.ID, "field %q: question must be a string", m.source("question"))
	}
	rec.Question, _ = scalarText(raw)
	if err := emptyQuestion(m.source("question"), rec.Question); err != nil {
		return badf(in, line, rec.ID, "%v", err)
	}
	return nil
}

// takeFields sets rec's answers, context, type, rubric, lang, dataset, split and prediction from
// their sources.
func (t *taker) takeFields(in Input, line int, rec *record.Record) error {
	m := t.m
	var err error
	answers, ok := t.take("answers")
	if rec.Answers, err = textList(answers, ok); err != nil {
		return badf(in, line, rec.ID, "field %q: %v%s", m.source("answers"), err, textHint(answers, m.source("answers"), rec))
	}
	rawCtx, given := t.take("context")
	ctx, err := textList(rawCtx, given)
	if err != nil && passagesGiven(rawCtx) {
		// A list of passages as the records hold them: a record's context given back.
		rec.Context, err = passageList(rawCtx)
	}
	if err != nil {
		return badf(in, line, rec.ID, "field %q: %v", m.source("context"), err)
	}
	if len(ctx) == 1 && strings.TrimSpace(ctx[0]) == "" && isString(rawCtx) {
		ctx = nil // a CSV cell left empty (or blank), or "": no passage, rather than one of nothing
	}
	for _, text := range ctx {
		rec.Context = append(rec.Context, record.Passage{Text: text})
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"type", &rec.Type}, {"rubric", &rec.Rubric}, {"lang", &rec.Lang}, {"dataset", &rec.Dataset},
		{"split", &rec.Split}} {
		if raw, ok := t.take(f.name); ok {
			// a list or an object would be lost without a word, and true would read "true"
			if *f.dst, ok = scalarText(raw); !ok || isBool(raw) {
				return badf(in, line, rec.ID, "field %q: %s must be a string or a number", m.source(f.name), f.name)
			}
		}
	}
	if rec.Prediction, err = takePrediction(t.take, m, t.item.nested); err != nil {
		return badf(in, line, rec.ID, "%v", err)
	}
	return nil
}

// defaultID is the id of a generic row without one: FILE:LINE (see idName), and FILE:LINE:COLUMN
// for an item of a JSON array that starts on the line where the item before it ends, as every
// item but the first of an array written on one line (json.dump's default) does: their ids would
// otherwise all be FILE:1, one --shard part and one joined row for them all. Ids that were
// unique stay as they were.
func defaultID(in Input, at itemAt) string {
	if at.col > 0 {
		return fmt.Sprintf("%s:%d:%d", idName(in), at.line, at.col)
	}
	return fmt.Sprintf("%s:%d", idName(in), at.line)
}

// idName is the file name in the default id of a generic record, FILE:LINE: the base name,
// without a ".gz" suffix (in any case), so that the id does not depend on how the path was typed or whether
// the file was compressed ("stdin" for standard input).
func idName(in Input) string {
	if in.Name == "" {
		return "stdin"
	}
	return format.TrimGz(filepath.Base(in.Name))
}

// textHint says, for the answers at the source src that are an object with a member "text" (a
// Hugging Face export's answers: {"text": [...], "answer_start": [...]}), the --map that reads
// them, else "".
//
// An object that has "answer_start" too is a SQuAD export's, which the squad format reads as the
// official file's questions, its unanswerable ones given the answer "" as --map cannot, or, for
// rec's Chinese question, CMRC 2018's, which the cmrc2018 format reads (exportFormat).
func textHint(raw jsonRaw, src string, rec *record.Record) string {
	obj, _, ok := members(raw)
	if !ok || obj["text"] == nil {
		return ""
	}
	if obj["answer_start"] != nil {
		f, of := exportFormat(rec), "SQuAD"
		if f == "cmrc2018" {
			of = "CMRC 2018"
		}
		return fmt.Sprintf(` (an object with "text" and "answer_start", as a Hugging Face export of %s holds answers: read the file with --format %s, or give --map answers=%s.text)`,
			of, f, src)
	}
	return fmt.Sprintf(` (an object with "text", as a Hugging Face export holds answers: give --map answers=%s.text)`, src)
}

// textList reads a string, a number or a list of them as a list of strings (absent: empty).
// passagesGiven reports whether raw, a context, is a list whose first item is an object: passages,
// not texts, whose faults textList words.
func passagesGiven(raw jsonRaw) bool {
	var items []jsonRaw
	return jsonUnmarshal(raw, &items) == nil && len(items) > 0 && trimSpace(items[0])[0] == '{'
}

// passageList reads raw, a context that is no text (textList), as a list of passages in the
// records' own shape, {title, date, text, sentences} (other members kept), each with a text; the
// error says what a context may be.
func passageList(raw jsonRaw) ([]record.Passage, error) {
	const want = "want a string, a list of strings, or a list of passages {title, date, text, sentences}"
	var items []jsonRaw
	if err := jsonUnmarshal(raw, &items); err != nil || len(items) == 0 {
		return nil, errors.New(want)
	}
	ps := make([]record.Passage, len(items))
	for i, it := range items {
		obj, _, ok := members(it)
		if !ok {
			return nil, fmt.Errorf("%s (item %d is %s)", want, i+1, record.Kind(it))
		}
		switch text := obj["text"]; {
		case len(text) == 0:
			return nil, fmt.Errorf("item %d: %v (a passage's)", i+1, missingField("text"))
		case !isString(text):
			return nil, fmt.Errorf("item %d: %v", i+1, wrongKind("text", "a string", text))
		}
		if err := record.Unmarshal(it, &ps[i]); err != nil {
			// the passage's decoder names its members under "context"
			return nil, fmt.Errorf("item %d: %s", i+1, strings.TrimPrefix(record.DescribeDecodeError(err), "context."))
		}
	}
	return ps, nil
}

func textList(raw jsonRaw, ok bool) ([]string, error) {
	if !ok {
		return []string{}, nil
	}
	if s, ok := scalarText(raw); ok {
		return []string{s}, nil
	}
	var items []jsonRaw
	if err := jsonUnmarshal(raw, &items); err != nil {
		return nil, errors.New("want a string or a list of strings")
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		if isNull(it) {
			return nil, fmt.Errorf("item %d is null; want a list of strings", i+1)
		}
		s, ok := scalarText(it)
		if !ok {
			return nil, errors.New("want a list of strings")
		}
		out = append(out, s)
	}
	return out, nil
}

// exportFormat is the format that reads, without --format, the Hugging Face export in SQuAD's
// features that rec's question comes from: cmrc2018 for Chinese text (its lang, or a question
// mostly in Chinese characters, as format.Detect tells the file), whose questions all have
// answers, else squad, whose v2.0 questions without one are unanswerable.
func exportFormat(rec *record.Record) string {
	if rec.IsChinese() || strings.TrimSpace(rec.Lang) == "" && format.MostlyHan(rec.Question) {
		return "cmrc2018"
	}
	return "squad"
}
