// Package load turns benchmark files (HotpotQA, SQuAD, CMRC 2018, LoCoMo, LongMemEval, EvaLearn,
// EvaLearn results, generic JSONL and CSV) into qapipe records, and holds the qa-load command.
//
// Each format is one Loader: it reads one input and hands every record, or every bad item as a
// *record.Error, to an Emit callback, so a bad item is a value the caller reports and skips.
// JSON arrays are walked item by item with a json.Decoder, never loaded whole, so multi-gigabyte
// LongMemEval files load in bounded memory.
//
// Note: loaders do not filter, sample or shard; Select does that once for every format, so the
// same --sample/--shard flags give the same ids whatever the input format.
package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Input is one input stream: a named file or standard input (Name ""), as every command opens
// them.
type Input = command.Input

// Emit receives either a record, with the line its item starts on in the input read (0 when not
// known), or a bad item (a *record.Error, which says where it is; rec nil, line 0). Returning an
// error stops the loader, which returns that error.
type Emit func(rec *record.Record, line int, bad error) error

// Options tune a loader.
type Options struct {
	// Map names the source fields of the generic jsonl and csv formats (see ParseMap).
	Map Mapping
	// MapFrom is " from QA_MAP" when that variable gave Map, for the messages that name --map
	// and are no usage error (a usage error that begins with --map is traced as every flag's is).
	MapFrom string
	// Found, if not nil, is called for each item of a generic jsonl or csv input whose fields
	// could be read (a JSON object, good or bad, or a CSV header), with has, which reports
	// whether the item holds a source field, so that the caller can say which --map source no
	// item has: a misspelt one otherwise just leaves its field empty.
	Found func(has func(source string) bool)
	// MaxLine is the longest line of a JSON Lines input accepted, in bytes (0: the default,
	// record.DefaultMaxLine). It does not bound a JSON document (an array, an object, or indented
	// objects one after the other), which is read an item at a time whatever the length of its
	// lines. It bounds a CSV row, all its lines and its line end: a longer one stops the load.
	//
	// Note: bounding an array's items as lines are bounded was rejected: a json.Decoder reads
	// ahead past an item by as much as its buffer holds, which grows with the largest item read,
	// so the bytes read do not tell how long the item being read is; and such an item could not
	// be skipped as a line is, only the load failed.
	MaxLine int
	// LoCoMoModel, if not "", names the run of LoCoMo's evaluate_qa.py whose answers, each
	// question's member <LoCoMoModel>_prediction in its output file, become the LoCoMo records'
	// predictions (see locomoPrediction).
	LoCoMoModel string
	// LoCoMoRead, if not nil, is called with the meta of each LoCoMo question read whose fields
	// could be read, before LoCoMoModel's answer is taken out of it, so that the caller can say
	// which models' answers the file holds when none is LoCoMoModel's.
	LoCoMoRead func(meta map[string]jsonRaw)
	// Warn, if not nil, is given a warning about the input being read that no record or bad item
	// carries (a SQuAD export's typing, see loadSQuADExport), to print as it comes.
	Warn func(msg string)
}

// Loader reads every record of one input.
type Loader func(in Input, opt Options, emit Emit) error

// Formats returns every format name qa-load accepts, in the order --help shows them.
func Formats() []string {
	return []string{"hotpotqa", "squad", "cmrc2018", "locomo", "longmemeval", "evalearn",
		"evalearn-results", "jsonl", "csv", "records"}
}

// ReadFile reads every record of the file at path with loader, for callers that want a small
// file whole (tests, tools); the first bad item is the error. The commands stream instead.
func ReadFile(loader Loader, path string) ([]*record.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []*record.Record
	err = loader(Input{Name: path, R: textfile.NewReader(f)}, Options{}, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			return bad
		}
		recs = append(recs, r)
		return nil
	})
	return recs, err
}

// ErrUnknownFormat is returned for a format name not in Formats.
var ErrUnknownFormat = errors.New("unknown format")

// LoaderFor returns the loader of a single-file format. The evalearn format reads a pair of
// files and has its own entry point, EvaLearn.
func LoaderFor(format string) (Loader, error) {
	switch format {
	case "hotpotqa":
		return HotpotQA, nil
	case "squad":
		return SQuAD, nil
	case "cmrc2018":
		return CMRC2018, nil
	case "locomo":
		return LoCoMo, nil
	case "longmemeval":
		return LongMemEval, nil
	case "evalearn-results":
		return EvaLearnResults, nil
	case "jsonl":
		return JSONL, nil
	case "csv":
		return CSV, nil
	case "records":
		return Records, nil
	}
	if slices.Contains(Formats(), format) {
		return nil, fmt.Errorf("format %q reads a pair of files", format)
	}
	return nil, fmt.Errorf("%w %q (want one of %v)", ErrUnknownFormat, format, Formats())
}

// badf returns the *record.Error for a bad item of input in at line (0 when unknown).
func badf(in Input, line int, id, format string, args ...any) *record.Error {
	return &record.Error{File: in.DisplayName(), Line: line, ID: id, Err: fmt.Errorf(format, args...)}
}

// withItems returns bad, the bad item of an item that holds n questions (a LoCoMo conversation's
// QA items, a sequence's positions), saying that they are skipped with it, so that one fault
// that loses many records says how many: the count of bad items counts it once.
func withItems(bad error, n int, singular, plural string) error {
	re, ok := bad.(*record.Error)
	if !ok || n == 0 {
		return bad
	}
	moved := *re
	moved.Err = skippedWith(re.Err, n, singular, plural)
	return &moved
}

// skippedWith returns err saying that n items are skipped with it (err itself when n is 0).
func skippedWith(err error, n int, singular, plural string) error {
	if n == 0 {
		return err
	}
	return fmt.Errorf("%w (%s skipped with it)", err, english.Count(n, singular, plural))
}

// The faults of a benchmark's fields are worded as the record reader words a record's, which
// the other stages print: `missing field "question"` for a field that is absent, and the field's
// path, what it wants and the kind of value it holds for one of the wrong kind
// (`answers[0].text: want a string or a number, got a list`).

// missingField returns the error of a field that is absent, name being its path: `missing field
// "id"`, or `answers[0]: missing field "text"` for a field inside another.
func missingField(name string) error {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return fmt.Errorf("%s: missing field %q", name[:i], name[i+1:])
	}
	return fmt.Errorf("missing field %q", name)
}

// emptyField returns the error of a field whose value is "", name being its path, where a value is
// wanted (an id): `field "id" is empty`, or `answers[0]: field "text" is empty` for a field
// inside another, as the record reader says of a record's id that is "".
func emptyField(name string) error {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return fmt.Errorf("%s: field %q is empty", name[:i], name[i+1:])
	}
	return fmt.Errorf("field %q is empty", name)
}

// noID returns the error of a benchmark item, raw, whose id, its member key, was decoded as ""
// (absent, null or ""): emptyField when the member is the string "", else missingField.
func noID(raw jsonRaw, key string) error {
	if obj, _, ok := members(raw); ok && string(trimSpace(obj[key])) == `""` {
		return emptyField(key)
	}
	return missingField(key)
}

// noQuestion returns the error of a benchmark item, raw, whose question, its member key, is
// absent or null (a *string left nil): one that is there but null is named so, as a null answer
// is, rather than missing.
func noQuestion(raw jsonRaw, key string) error { return noValue(raw, key, "a string") }

// noValue returns the error of a benchmark item, raw, whose member key, which it needs, is absent
// or null (a nil list or pointer): `qas: want a list, got null` when it is there but null, which
// sends no one to look for a member that is there, else missingField.
func noValue(raw jsonRaw, key, want string) error {
	if obj, _, ok := members(raw); ok && obj[key] != nil {
		return fmt.Errorf("%s: want %s, got null", key, want)
	}
	return missingField(key)
}

// turnFault finds, in raw (a JSON list of a history's turns, already decoded), the first turn that
// is null or lacks one of the members keys names (or has it null), which the benchmarks' scripts
// read, stopping without them: its index and the key it lacks ("" for a null turn); i is -1 when
// every turn is whole.
func turnFault(raw jsonRaw, keys ...string) (i int, lacks string) {
	var turns []map[string]jsonRaw
	_ = jsonUnmarshal(raw, &turns) // a list: its turns decoded before
	for i, t := range turns {
		if t == nil {
			return i, ""
		}
		for _, k := range keys {
			if v, ok := t[k]; !ok || string(bytes.TrimSpace(v)) == "null" {
				return i, k
			}
		}
	}
	return -1, ""
}

// emptyQuestion returns the error of an item whose question, the text of the field name (a path), is
// empty or only blanks, or nil: `field "question" is empty`. Every benchmark loader, and the
// generic ones, refuse such an item, since a model would be asked nothing (the benchmarks' own
// scripts would send it as it is). Blanks are white space as the benchmarks' Python knows it
// (textnorm.IsSpace, what str.strip() removes), so the file separators \x1c..\x1f are blanks too.
//
// Note: strings.TrimSpace was rejected: its unicode.IsSpace lacks \x1c..\x1f, so a question of
// them alone, blank to Python, would have been sent to a model.
func emptyQuestion(name, text string) error {
	if textnorm.Strip(text) == "" {
		return fmt.Errorf("field %q is empty", name)
	}
	return nil
}

// wrongKind returns the error of the field name, whose value raw is not want.
func wrongKind(name, want string, raw []byte) error {
	return fmt.Errorf("%s: want %s, got %s", name, want, record.Kind(raw))
}

// fieldText returns the text of raw, the value of the field name (a path), as scalarText reads
// it, or the error that says it is absent (raw empty) or no string or number (null, a list, an
// object).
func fieldText(name string, raw []byte) (string, error) {
	text, ok := scalarText(raw)
	switch {
	case len(trimSpace(raw)) == 0:
		return "", missingField(name)
	case !ok || isNull(raw):
		return "", wrongKind(name, "a string or a number", raw)
	}
	return text, nil
}

// answerText is fieldText for an answer: a number or true/false is Python's str() of the loaded
// value (1e20 → "1e+20", -12.50 → "-12.5", true → "True"), as a benchmark's script that reads the
// answer with str() (CMRC 2018's mixed_segmentation) sees it, not its JSON text.
func answerText(name string, raw []byte) (string, error) {
	text, err := fieldText(name, raw)
	if err != nil || trimSpace(raw)[0] == '"' {
		return text, err
	}
	if s, ok := pyStrAnswer(raw); ok {
		return s, nil
	}
	return text, nil
}

// idText is fieldText for an id, which is missing when it is null too, and empty (emptyField)
// when it is "", as a record's id is.
func idText(name string, raw []byte) (string, error) {
	if isNull(raw) {
		return "", missingField(name)
	}
	id, err := fieldText(name, raw)
	if err == nil && id == "" {
		err = emptyField(name)
	}
	return id, err
}

// scalarText renders a JSON scalar answer as text: strings as they are, numbers and booleans as
// their JSON text (2022 → "2022"), null as "". It reports false for arrays and objects.
func scalarText(raw []byte) (string, bool) {
	raw = trimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if jsonUnmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	case '[', '{':
		return "", false
	case 'n':
		return "", true
	}
	return string(raw), true
}

// pyStrAnswer renders a JSON scalar answer as the benchmark's own Python code does, str() of the
// loaded value (2022 → "2022", 3.0 → "3.0", true → "True"); it reports false for arrays, objects
// and null (no answer).
func pyStrAnswer(raw []byte) (string, bool) {
	raw = trimSpace(raw)
	if len(raw) == 0 || raw[0] == '[' || raw[0] == '{' || string(raw) == "null" {
		return "", false
	}
	s, err := python.StrOfJSON(raw)
	return s, err == nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// newRecord returns a record with the schema version and the fields every loader sets.
func newRecord(id, dataset, lang string) *record.Record {
	return &record.Record{Schema: record.SchemaVersion, ID: id, Dataset: dataset, Lang: lang}
}

// compact returns raw without insignificant white space (a copy), or raw itself if it is invalid.
func compact(raw []byte) jsonRaw {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return jsonRaw(slices.Clone(raw))
	}
	return jsonRaw(b.Bytes())
}

// keepUnknown keeps in rec's meta, verbatim (compacted), each member of the benchmark item raw
// whose key its format does not read, known (jsonKeys of the item's type): a field added to a
// benchmark's file (a column of one's own, a later release's) goes with its record rather than
// being lost without a word, as the generic formats keep every field no --map names. A key the
// loader gives meta itself keeps the loader's value; of a key given twice, the last counts, as
// Python's json reads it. It returns an error, for a bad item, for a key that names a meta
// member later stages act on (metaRead), which would change how the record is asked, judged or
// scored. (A key that differs from a known one only in case has made the item bad before:
// decodeRecord and decodeItem refuse it.)
func keepUnknown(rec *record.Record, raw jsonRaw, known map[string]bool) error {
	ms, err := record.UnknownMembers(raw, known)
	if err != nil || len(ms) == 0 {
		return nil // an error is not reached: a decoder has read raw
	}
	var ours map[string]bool // the keys set here, which a later member of the key replaces
	for _, m := range ms {
		if metaRead[m.Key] {
			return fmt.Errorf("member %q is not the format's own, and meta.%s is read by the stages after it: rename it", m.Key, m.Key)
		}
		if _, set := rec.Meta[m.Key]; set && !ours[m.Key] {
			continue
		}
		if ours == nil {
			ours = map[string]bool{}
		}
		ours[m.Key] = true
		setMeta(rec, m.Key, raw[m.ValueStart:m.End])
	}
	return nil
}

// metaRead are the meta members a later stage reads by name: the abstention and LoCoMo category
// rules, HotpotQA's gold supporting facts, LongMemEval's dates, haystack and retrieval ranking,
// EvaLearn's fields, LoCoMo's speakers and adversarial answer, and the ranking metrics' default
// query group (--group-field).
var metaRead = map[string]bool{
	"abstention": true, "category": true, "supporting_facts": true, "question_date": true,
	"haystack_session_ids": true, "haystack_dates": true, "haystack_sessions": true,
	"retrieval_corpus_ids": true, "retrieval_texts": true, "evalearn_type": true, "evalearn_position": true,
	"sequence_type": true, "speaker_a": true, "speaker_b": true, "adversarial_answer": true,
	"group": true,
}

// jsonKeys returns the JSON keys of the fields of the struct v: the members a benchmark item of
// its type is read for (see keepUnknown).
func jsonKeys(v any) map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" {
			keys[name] = true // a field without a tag is the loader's own, read from no member
		}
	}
	return keys
}

// setMeta stores raw JSON under key, compacted (numbers and strings keep their exact text),
// unless it is absent.
func setMeta(rec *record.Record, key string, raw []byte) {
	if len(raw) == 0 {
		return
	}
	if rec.Meta == nil {
		rec.Meta = make(map[string]jsonRaw)
	}
	rec.Meta[key] = compact(raw)
}

// metaTooDeep returns an error when a value of rec's meta nests so deep that rec's line would
// nest deeper than record.MaxDepth: meta holds a value a level or more deeper than the item it
// was read from (a JSONL line's field, one level), and the later stages would refuse the line.
func metaTooDeep(rec *record.Record) error {
	for _, k := range slices.Sorted(maps.Keys(rec.Meta)) {
		if d := nesting(rec.Meta[k]); d+metaDepth > record.MaxDepth {
			return fmt.Errorf("field %q nests %d levels deep, and %d in the record's meta: "+
				"more than the %d the later stages read", k, d, d+metaDepth, record.MaxDepth)
		}
	}
	return nil
}

// metaDepth is how deep a record line holds the values of meta: in the record's object and
// meta's.
const metaDepth = 2

// nesting returns how deeply the valid JSON raw nests objects and lists: 0 for a number or a
// string, 1 for [] or {"a":1}.
func nesting(raw []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}
