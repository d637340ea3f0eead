package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	gojson "github.com/goccy/go-json"
)

// marshal and unmarshal are the one seam to the JSON library; swapping it means editing these two.
// Text is written as is (no \u003c for "<"): records are data, not HTML.
func marshal(v any) ([]byte, error)   { return gojson.MarshalWithOption(v, gojson.DisableHTMLEscape()) }
func unmarshal(b []byte, v any) error { return gojson.Unmarshal(b, v) }

// Marshal encodes v with the record package's JSON library.
func Marshal(v any) ([]byte, error) { return marshal(v) }

// Unmarshal decodes b into v with the record package's JSON library.
func Unmarshal(b []byte, v any) error { return unmarshal(b, v) }

var (
	// scores and score_errors are read from their last member alone, as qa-score reads them: it
	// splices the one it writes in place of every member of the key.
	recordKeys = lastAlone(pointers(written(keySet("schema", "id", "dataset", "split", "lang", "type", "question", "turns",
		"answers", "rubric", "context", "sequence", "meta", "prediction", "judgments"), "schema", "id"), "sequence", "prediction"), "scores", "score_errors")
	passageKeys    = written(keySet("title", "date", "text", "sentences"), "text")
	predictionKeys = pointers(written(keySet("text", "model", "provider", "usage", "cost_usd", "latency_ms", "attempts",
		"cached", "error", "prompt_sha256", "score", "supporting_facts", "notes", "reasoning", "batch"), "text"),
		"usage", "cost_usd", "score", "batch")
	judgmentKeys = pointers(keySet("score", "label", "mode", "model", "prompt_sha256", "raw", "reasoning",
		"thinking", "usage", "cost_usd", "attempts", "cached", "error"), "score", "usage", "cost_usd")
	sequenceKeys = written(keySet("id", "position"), "id", "position")
	usageKeys    = keySet("input_tokens", "output_tokens", "cached_input_tokens")
	batchKeys    = written(keySet("first", "index", "size"), "first", "index", "size")
)

// keyRole says how a type's decoder reads a member of the JSON object it decodes.
type keyRole uint8

const (
	unknownKey keyRole = iota // not the type's own: kept verbatim among its unknown members
	knownKey                  // read by the JSON decoder, a key given twice as it reads one
	// writtenKey: a knownKey whose field the encoder writes whatever its value, so an empty
	// value needs no keeping (see emptyMembers).
	writtenKey
	// pointerKey: a knownKey whose field is a pointer, which the encoder writes unless it is
	// null (nil), so only null needs keeping.
	pointerKey
	// lastKey and up: read from its last member alone when given twice (see decodeKnown). Each
	// such key of a set has a role of its own, lastKey+i, so that one given twice is told from
	// two such keys given once.
	lastKey
)

// maxLastKeys is the most keys of one set that lastAlone can mark (unknownFields notes them in a
// uint64).
const maxLastKeys = 64

// keySet returns the roles of a type's keys, each of keys known.
func keySet(keys ...string) map[string]keyRole {
	m := make(map[string]keyRole, len(keys))
	for _, k := range keys {
		m[k] = knownKey
	}
	return m
}

// written marks keys of set as keys whose fields are always written (writtenKey), and returns set.
func written(set map[string]keyRole, keys ...string) map[string]keyRole {
	for _, k := range keys {
		set[k] = writtenKey
	}
	return set
}

// pointers marks keys of set as keys whose fields are pointers (pointerKey), and returns set.
func pointers(set map[string]keyRole, keys ...string) map[string]keyRole {
	for _, k := range keys {
		set[k] = pointerKey
	}
	return set
}

// lastAlone adds keys to set as keys read from their last member alone, and returns set.
func lastAlone(set map[string]keyRole, keys ...string) map[string]keyRole {
	if len(keys) > maxLastKeys {
		panic("record: too many keys read from their last member")
	}
	for i, k := range keys {
		set[k] = lastKey + keyRole(i)
	}
	return set
}

// checkExtra returns an error when the unknown member k: v of an object of the type whose keys
// are known could not be written as it is: under a key of the type's own, which the line would
// then give twice (the reader takes the last), or with a value that is no JSON, or holds a line
// end, which would cut the record's line. A value read by the Reader is neither; a value a
// program set may be.
//
// Note: encoding/json's Valid took 3 µs for a 1 kB value, a third of encoding a record holding
// it; the JSON library's own takes a tenth of that, and IndexByte finds a line end faster than
// ContainsAny.
func checkExtra(k string, v json.RawMessage, known map[string]keyRole) error {
	if _, own := known[k]; own {
		return fmt.Errorf("unknown member %q: the key is the schema's own field", k)
	}
	if bytes.IndexByte(v, '\n') >= 0 || bytes.IndexByte(v, '\r') >= 0 || !gojson.Valid(v) {
		return fmt.Errorf("unknown member %q: its value is no JSON on one line: %.40q", k, v)
	}
	return nil
}

// appendExtra splices extra members, in sorted key order, into the encoded object obj, whose
// type's own keys are known: an extra member under one of them, or whose value is no JSON, is an
// error (see checkExtra).
func appendExtra(obj []byte, extra map[string]json.RawMessage, known map[string]keyRole) ([]byte, error) {
	if len(extra) == 0 {
		return obj, nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := bytes.TrimRight(obj, " \n")
	out = out[:len(out)-1] // drop '}'
	empty := len(bytes.TrimSpace(out)) == 1
	for _, k := range keys {
		if !empty {
			out = append(out, ',')
		}
		empty = false
		kb, err := marshal(k)
		if err != nil {
			return nil, err
		}
		out = append(out, kb...)
		out = append(out, ':')
		v := extra[k]
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		if err := checkExtra(k, v, known); err != nil {
			return nil, err
		}
		out = append(out, v...)
	}
	return append(out, '}'), nil
}

// MarshalJSON encodes the known fields in schema order followed by the unknown ones, sorted.
//
// An empty question and nil answers (a record read without them) are left out rather than
// written as "" and null: a stage that passes a record through must not add members to it, nor
// take them away, so a question read as "" is written as "". The
// known members come first, and every string before answers is escaped, so the first such
// member in the encoding is the record's own.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record
	b, err := marshal(plain(r))
	if err != nil {
		return nil, err
	}
	if r.Question == "" && !r.emptyQuestion {
		b = bytes.Replace(b, []byte(`,"question":""`), nil, 1)
	}
	if r.Answers == nil {
		b = bytes.Replace(b, []byte(`,"answers":null`), nil, 1)
	}
	if b, err = r.empty.restore(b); err != nil {
		return nil, err
	}
	return appendExtra(b, r.Extra, recordKeys)
}

// UnmarshalJSON decodes a record, keeping unknown fields in Extra.
func (r *Record) UnmarshalJSON(b []byte) error {
	type plain Record
	var p plain
	src, extra, empty, err := decodeKnown(b, recordKeys, &p)
	if err != nil {
		return judgmentPath(b, err)
	}
	if err := surrogateClash(src); err != nil {
		return err
	}
	if err := NullAnswer(src, p.Answers); err != nil {
		return err
	}
	if pr := p.Prediction; pr != nil {
		if err := NullText(src, pr.Text, pr.Error); err != nil {
			return err
		}
		if err := NullScore(src, pr.Score, pr.Error); err != nil {
			return err
		}
	}
	if err := NullJudgmentScore(src, p.Judgments); err != nil {
		return err
	}
	if err := nullValue(src, p.Scores, "scores", "a number"); err != nil {
		return err
	}
	if err := nullValue(src, p.ScoreErrors, "score_errors", "a string"); err != nil {
		return err
	}
	*r = Record(p)
	r.Extra = extra
	r.empty = empty
	r.emptyQuestion = p.Question == "" && hasQuestion(src)
	return nil
}

// hasQuestion reports whether the record encoded in b has a question member (of any value).
func hasQuestion(b []byte) bool {
	var v struct {
		Question *json.RawMessage `json:"question"`
	}
	return unmarshal(b, &v) == nil && v.Question != nil
}

// NullAnswer returns an error naming the first null among the answers of the record encoded in
// b, given the answers b decoded to, or nil. The decoder reads a null answer as "", the answer of
// an unanswerable question, which would turn a missing gold answer into a question to decline
// without a word. Only a record with an empty answer is looked at again.
func NullAnswer(b []byte, answers []string) error {
	if !slices.Contains(answers, "") {
		return nil
	}
	var v struct {
		Answers []*string `json:"answers"`
	}
	if unmarshal(b, &v) != nil {
		return nil
	}
	for i, a := range v.Answers {
		if a == nil {
			return fmt.Errorf(`answers[%d]: want a string, got null (an unanswerable question's answer is "")`, i)
		}
	}
	return nil
}

// NullText returns an error when the record encoded in b has a prediction whose text is null or
// missing and which carries no error, given the text and error its prediction decoded to; else
// nil. The decoder reads a null or missing text as "", the empty answer, which SQuAD v2's rules
// score as a right "no answer" to an unanswerable question: a prediction a script wrote as None
// or left without a text (a generation that failed) would be credited as declining, without a
// word. A prediction without a text that carries a metric's other input is kept (textOptional).
// Only a prediction with an empty text and no error is looked at again.
func NullText(b []byte, text, errMsg string) error {
	if text != "" || errMsg != "" {
		return nil
	}
	pred := lastMember(b, "prediction")
	switch t := lastMember(pred, "text"); {
	case string(bytes.TrimSpace(t)) == "null":
		return errors.New(`prediction.text: want a string, got null (a prediction that failed carries an error; an empty answer is "")`)
	case t == nil && Kind(pred) == "an object" && !textOptional(pred):
		return errors.New(`prediction.text: missing (a prediction that failed carries an error; an empty answer is "")`)
	}
	return nil
}

// textOptional reports whether pred, an encoded prediction without a text, carries what a metric
// reads in place of a text: a positive-class score (auc, pn, pairwise_acc, mrr, map), the loss
// and tokens perplexity reads, the members qa-score's --score-field, --loss-field and
// --tokens-field name by default, or HotpotQA's supporting facts (sp_em, sp_f1), which its
// official prediction file may give for a question it gives no answer for. A classifier's or a
// language model's scores are no answer declined, nor are facts alone: such a prediction has no
// text (HasText), and the metrics of an answer leave it out.
//
// Note: refusing every prediction without a text but a failed one would be simpler, but would
// turn away score-only ranking and perplexity files that the metrics reading them take as they
// are; whether such a shape is meant as an answer is not ours to say, so it stays valid.
func textOptional(pred []byte) bool {
	for _, k := range []string{"score", "loss", "tokens", "supporting_facts"} {
		if v := lastMember(pred, k); v != nil && Kind(v) != "null" {
			return true
		}
	}
	return false
}

// NullScore returns an error when the record encoded in b has a prediction whose score is null
// and which carries no error, given the score and error its prediction decoded to; else nil.
// The decoder reads a null score as no score, so a record whose classifier wrote None (pandas
// writes a NaN so) would leave auc, pn, pairwise_acc, mrr and map without a word; a prediction
// without a score leaves the member out. Beside an error it is a failed prediction's, which no
// metric reads. Only a line that holds "null" and a prediction without a score or an error is
// looked at again: most predictions have no score, and walking every line's members cost more
// than finding no "null" in it. As for the text, the last prediction member and its last score
// member are the ones read.
func NullScore(b []byte, score *float64, errMsg string) error {
	if score != nil || errMsg != "" || !bytes.Contains(b, []byte("null")) {
		return nil
	}
	if s := lastMember(lastMember(b, "prediction"), "score"); string(bytes.TrimSpace(s)) == "null" {
		return errors.New(`prediction.score: want a number, got null (a prediction without a score leaves the member out)`)
	}
	return nil
}

// NullJudgmentScore returns an error naming the first (in sorted order) judgment of the record
// encoded in b whose score is null and which carries no error, given the judgments b decoded to;
// else nil. The decoder reads a null score as no score, so judge_score would leave the record out
// and qa-learncurve read the judge's raw reply instead, without a word, where a judge's score of
// None (pandas: NaN) is a fault of the file; a judgment without a score leaves the member out.
// As for a prediction's score (NullScore), only a line that holds "null" and a judgment without
// a score or an error is looked at again, and the last members are the ones read.
func NullJudgmentScore(b []byte, judgments map[string]*Judgment) error {
	if len(judgments) == 0 || !bytes.Contains(b, []byte("null")) {
		return nil
	}
	var js []byte
	for _, name := range slices.Sorted(maps.Keys(judgments)) {
		if j := judgments[name]; j == nil || j.Score != nil || j.Error != "" {
			continue
		}
		if js == nil {
			js = lastMember(b, "judgments")
		}
		if s := lastMember(lastMember(js, name), "score"); string(bytes.TrimSpace(s)) == "null" {
			return fmt.Errorf(`judgments.%s.score: want a number, got null (a judgment without a score leaves the member out)`, name)
		}
	}
	return nil
}

// nullValue returns an error naming the first null among the values of the record's object
// member (scores, score_errors) encoded in b, or nil. The decoder reads a null there as the zero
// value (a null score, what pandas writes for a NaN, as 0; a null message as ""), which a stage
// passing the record on would then write as a value: only when vals, what b's member decoded to,
// holds a zero value is the member's own encoding looked at again.
//
// Note: it decoded the whole of b into a map to find the member, which cost a record with a score
// of 0 (a wrong answer's em) two fifths more time and 42 allocations more than another.
func nullValue[V comparable](b []byte, vals map[string]V, member, want string) error {
	var zero V
	for _, v := range vals {
		if v == zero {
			return NullMember(lastMember(b, member), member, want)
		}
	}
	return nil
}

// lastMember returns the value of the last top-level member of the object b whose key is key, or
// nil.
func lastMember(b []byte, key string) []byte {
	var val []byte
	_ = walkMembers(b, func(q []byte, escaped bool, _, vStart, vEnd int) error { // b has been decoded
		match := string(q[1:len(q)-1]) == key // this comparison does not allocate
		if escaped {
			k, err := decodeKey(q, escaped)
			match = err == nil && k == key
		}
		if match {
			val = b[vStart:vEnd]
		}
		return nil
	})
	return val
}

// NullMember returns an error naming the first (in sorted order) key of obj, the encoded object
// of a record's member named member, whose value is null where want was wanted; nil when there is
// none, or when obj is no object.
func NullMember(obj []byte, member, want string) error {
	nulls := false
	err := walkMembers(obj, func(_ []byte, _ bool, _, vStart, vEnd int) error {
		nulls = nulls || string(obj[vStart:vEnd]) == "null"
		return nil
	})
	if err == nil && !nulls {
		return nil // the usual case, a score of 0, read without decoding the object
	}
	var vals map[string]json.RawMessage
	if unmarshal(obj, &vals) != nil {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		if string(bytes.TrimSpace(vals[k])) == "null" {
			return fmt.Errorf("%s.%s: want %s, got null", member, k, want)
		}
	}
	return nil
}

// MarshalJSON encodes the passage with its unknown fields.
func (p Passage) MarshalJSON() ([]byte, error) {
	type plain Passage
	return encodeWithExtra(plain(p), p.empty, p.Extra, passageKeys)
}

// UnmarshalJSON decodes a passage, keeping unknown fields in Extra.
func (p *Passage) UnmarshalJSON(b []byte) error {
	type plain Passage
	var q plain
	extra, empty, err := decodeWithExtra(b, passageKeys, "context", &q)
	if err != nil {
		return err
	}
	*p = Passage(q)
	p.Extra = extra
	p.empty = empty
	return nil
}

// MarshalJSON encodes the prediction with its unknown fields. An empty text read from a
// prediction without one is left out, not written as "", the empty answer. Supporting facts that
// are an empty list, not nil, are written as []: a model that named no fact, which HotpotQA's
// evaluation scores 0, where facts left out are none given, which qa-score leaves unscored.
func (p Prediction) MarshalJSON() ([]byte, error) {
	type plain Prediction
	b, err := marshal(plain(p))
	if err != nil {
		return nil, err
	}
	if p.Text == "" && p.noText { // text is the first member
		if rest, ok := bytes.CutPrefix(b, []byte(`{"text":""`)); ok {
			b = append([]byte{'{'}, bytes.TrimPrefix(rest, []byte(","))...)
		}
	}
	empty := p.empty
	if p.SupportingFacts != nil && len(p.SupportingFacts) == 0 && !slices.ContainsFunc(empty, func(e emptyMember) bool { return e.key == "supporting_facts" }) {
		empty = append(slices.Clip(empty), emptyMember{"supporting_facts", json.RawMessage("[]")})
	}
	if b, err = empty.restore(b); err != nil {
		return nil, err
	}
	return appendExtra(b, p.Extra, predictionKeys)
}

// UnmarshalJSON decodes a prediction, keeping unknown fields in Extra.
func (p *Prediction) UnmarshalJSON(b []byte) error {
	type plain Prediction
	var q plain
	extra, empty, err := decodeWithExtra(b, predictionKeys, "prediction", &q)
	if err != nil {
		if _, ok := errors.AsType[*factError](err); ok { // the decoder does not say which fact
			var v struct {
				Facts json.RawMessage `json:"supporting_facts"`
			}
			if unmarshal(b, &v) == nil {
				if ferr := FactsError("prediction.supporting_facts", v.Facts); ferr != nil {
					return ferr
				}
			}
		}
		return err
	}
	*p = Prediction(q)
	p.Extra = extra
	p.empty = empty
	p.noText = q.Text == "" && lastMember(b, "text") == nil // only an empty text is looked at again
	return nil
}

// MarshalJSON encodes the judgment with its unknown fields.
func (j Judgment) MarshalJSON() ([]byte, error) {
	type plain Judgment
	return encodeWithExtra(plain(j), j.empty, j.Extra, judgmentKeys)
}

// UnmarshalJSON decodes a judgment, keeping unknown fields in Extra.
func (j *Judgment) UnmarshalJSON(b []byte) error {
	type plain Judgment
	var q plain
	extra, empty, err := decodeWithExtra(b, judgmentKeys, "judgment", &q)
	if err != nil {
		return err
	}
	*j = Judgment(q)
	j.Extra = extra
	j.empty = empty
	return nil
}

// MarshalJSON writes the fact as [title, sentence].
func (f Fact) MarshalJSON() ([]byte, error) {
	t, err := marshal(f.Title)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, "[%s,%d]", t, f.Sentence), nil
}

// UnmarshalJSON reads a fact from [title, sentence]. Its error is a *factError, which
// FactsError and a prediction's decoder put under the fact's path.
func (f *Fact) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := unmarshal(b, &pair); err != nil || pair == nil {
		return &factError{msg: "want a [title, sentence index] pair, got " + kindOf(b)}
	}
	if len(pair) != 2 {
		return &factError{msg: "want a [title, sentence index] pair, got a list of " + count(len(pair), "element", "elements")}
	}
	// null decodes into a string or an int as nothing, leaving "" or 0, which HotpotQA's
	// evaluation, comparing Python tuples, tells apart from None: it is no title or index.
	if err := unmarshal(pair[0], &f.Title); err != nil || isNull(pair[0]) {
		return &factError{at: "[0]", msg: "want a string, got " + kindOf(pair[0])}
	}
	if isNull(pair[1]) {
		return &factError{at: "[1]", msg: "want an integer, got " + kindOf(pair[1])}
	}
	if err := unmarshal(pair[1], &f.Sentence); err != nil {
		// An integral number written as a float (1.0, 1e0) is that index, as Python's tuples
		// compare it in HotpotQA's evaluation.
		var x float64
		if unmarshal(pair[1], &x) != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return &factError{at: "[1]", msg: "want an integer, got " + kindOf(pair[1])}
		}
		f.Sentence = int(x)
	}
	return nil
}

// factError is a supporting fact that does not read: at is "" for the pair itself, "[0]" for its
// title, "[1]" for its sentence index; FactsError puts the list's path and index before it.
type factError struct{ at, msg string }

func (e *factError) Error() string {
	if e.at == "" {
		return e.msg
	}
	return e.at + ": " + e.msg
}

// FactsError returns the fault of raw, supporting facts found at path, when it is not a list of
// [title, sentence index] pairs, named by its path as the record reader names a field's
// ("meta.supporting_facts[2][1]: want an integer, got a string"); else nil.
func FactsError(path string, raw []byte) error {
	var elems []json.RawMessage
	if err := unmarshal(raw, &elems); err != nil {
		return fmt.Errorf("%s: want a list of [title, sentence index] pairs, got %s", path, kindOf(raw))
	}
	for i, e := range elems {
		var f Fact
		if err := unmarshal(e, &f); err != nil {
			if fe, ok := errors.AsType[*factError](err); ok {
				return fmt.Errorf("%s[%d]%s: %s", path, i, fe.at, fe.msg)
			}
			return fmt.Errorf("%s[%d]: %s", path, i, DescribeDecodeError(err))
		}
	}
	return nil
}

// Kind names the JSON value raw as the decode errors name a value of the wrong kind: "a list",
// "an object", "a string", "a number", "true or false", "null" ("nothing" when raw is blank).
// qa-load words the faults of the benchmark files it reads with it.
func Kind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '[':
		return "a list"
	case '{':
		return "an object"
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}

// kindOf is Kind, with a number's text: "the number 1.5", for a pair's sentence index.
func kindOf(b []byte) string {
	if k := Kind(b); k != "a number" {
		return k
	}
	return "the number " + string(bytes.TrimSpace(b))
}

// MarshalJSON encodes the sequence with its unknown fields.
func (s Sequence) MarshalJSON() ([]byte, error) {
	type plain Sequence
	return encodeWithExtra(plain(s), s.empty, s.Extra, sequenceKeys)
}

// UnmarshalJSON decodes a sequence, keeping unknown fields in Extra.
func (s *Sequence) UnmarshalJSON(b []byte) error {
	type plain Sequence
	var q plain
	extra, empty, err := decodeWithExtra(b, sequenceKeys, "sequence", &q)
	if err != nil {
		return err
	}
	*s = Sequence(q)
	s.Extra = extra
	s.empty = empty
	return nil
}

// MarshalJSON encodes the usage's known counts (see Usage) with its unknown fields: a count the
// decoded object left out stays out, never written as 0.
func (u Usage) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 64)
	b = append(b, '{')
	if u.InputKnown() {
		b = strconv.AppendInt(append(b, `"input_tokens":`...), int64(u.InputTokens), 10)
	}
	if u.OutputKnown() {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `"output_tokens":`...), int64(u.OutputTokens), 10)
	}
	if u.CachedInputTokens != 0 {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `"cached_input_tokens":`...), int64(u.CachedInputTokens), 10)
	}
	return appendExtra(append(b, '}'), u.Extra, usageKeys)
}

// UnmarshalJSON decodes a usage, keeping unknown fields in Extra and noting the counts left out
// (or null): unknown, not 0. Only a count that decoded to 0 is looked at again.
//
// Note: decoding the counts into *int told a count left out from one given without looking
// again, but cost every record with a usage two allocations more (4% more in BenchmarkReader).
func (u *Usage) UnmarshalJSON(b []byte) error {
	type plain Usage
	var q plain
	extra, _, err := decodeWithExtra(b, usageKeys, "usage", &q) // a null count stays out (see Usage)
	if err != nil {
		return err
	}
	*u = Usage(q)
	u.Extra = extra
	if u.InputTokens == 0 && !givenCount(b, "input_tokens") {
		u.unknown |= unknownInput
	}
	if u.OutputTokens == 0 && !givenCount(b, "output_tokens") {
		u.unknown |= unknownOutput
	}
	return nil
}

// givenCount reports whether the encoded usage b gives a count under key: its last such member
// is there and not null, as the decoder reads it.
func givenCount(b []byte, key string) bool {
	v := lastMember(b, key)
	return v != nil && Kind(v) != "null"
}

// MarshalJSON encodes the batch with its unknown fields.
func (b Batch) MarshalJSON() ([]byte, error) {
	type plain Batch
	return encodeWithExtra(plain(b), b.empty, b.Extra, batchKeys)
}

// UnmarshalJSON decodes a batch, keeping unknown fields in Extra.
func (b *Batch) UnmarshalJSON(data []byte) error {
	type plain Batch
	var q plain
	extra, empty, err := decodeWithExtra(data, batchKeys, "batch", &q)
	if err != nil {
		return err
	}
	*b = Batch(q)
	b.Extra = extra
	b.empty = empty
	return nil
}

// encodeWithExtra encodes v, the plain form of a type (without its MarshalJSON), followed by
// the empty members it was decoded with that the encoding leaves out, and extra, its unknown
// members.
func encodeWithExtra(v any, empty emptyMembers, extra map[string]json.RawMessage, known map[string]keyRole) ([]byte, error) {
	b, err := marshal(v)
	if err != nil {
		return nil, err
	}
	if b, err = empty.restore(b); err != nil {
		return nil, err
	}
	return appendExtra(b, extra, known)
}

// decodeWithExtra decodes the members of b whose keys are in known into v, the plain form of a
// type (without its UnmarshalJSON), and returns the others and the empty ones (see
// emptyMembers); an error is placed in field.
func decodeWithExtra(b []byte, known map[string]keyRole, field string, v any) (map[string]json.RawMessage, emptyMembers, error) {
	_, extra, empty, err := decodeKnown(b, known, v)
	if err != nil {
		return nil, nil, inField(field, err)
	}
	return extra, empty, nil
}
