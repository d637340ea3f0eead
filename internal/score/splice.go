package score

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
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
	Schema   int      `json:"schema"`
	ID       string   `json:"id"`
	Dataset  string   `json:"dataset"`
	Lang     string   `json:"lang"`
	Type     string   `json:"type"`
	Question string   `json:"question"`
	Answers  []string `json:"answers"`
	Meta     *struct {
		Category        json.RawMessage `json:"category"`
		Abstention      json.RawMessage `json:"abstention"`
		SupportingFacts json.RawMessage `json:"supporting_facts"`
	} `json:"meta"`
	Prediction *struct {
		Text            *string         `json:"text"` // nil: none, a prediction of facts or a score alone (record.Prediction.HasText)
		Error           string          `json:"error"`
		SupportingFacts json.RawMessage `json:"supporting_facts"` // read by record.FactsError, which names the fact at fault
		Score           json.RawMessage `json:"score"`            // checked for null only: the corpus metrics read it by --score-field
	} `json:"prediction"`
	Judgments map[string]*struct {
		Score *float64 `json:"score"`
		Error string   `json:"error"`
		Mode  string   `json:"mode"` // for --mismatches, which says what a LoCoMo category-5 rule wanted
		Raw   string   `json:"raw"`  // an EvaLearn judge's reply, read when it has no score (item.verdict)
	} `json:"judgments"`
	Scores      json.RawMessage `json:"scores"`
	ScoreErrors json.RawMessage `json:"score_errors"`
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

// viewKeys are the keys view reads at each level: top, meta, prediction, a judgment.
var viewKeys = map[string][]string{
	"":           {"schema", "id", "dataset", "lang", "type", "question", "answers", "meta", "prediction", "judgments", "scores", "score_errors"},
	"meta":       {"category", "abstention", "supporting_facts"},
	"prediction": {"text", "error", "supporting_facts", "score"},
	"judgment":   {"score", "error", "mode", "raw"},
}

// exactKeys returns data, or, when a member at a level view reads has a key that differs from one
// view reads there only in case, data without those members. The decoder matches keys
// case-insensitively, so an unknown "ID", "Prediction" or "Score" member would otherwise be read
// as the record's own, as the other stages no longer read it.
func exactKeys(data []byte) []byte {
	variant := func(key, level string) bool {
		for _, k := range viewKeys[level] {
			if key != k && strings.EqualFold(key, k) {
				return true
			}
		}
		return false
	}
	// strip returns obj without its variant members at level, and whether it had any; sub
	// handles the value of a member kept.
	strip := func(obj []byte, level string, sub func(key string, val []byte) []byte) ([]byte, bool) {
		ms, err := record.Members(obj)
		if err != nil {
			return obj, false
		}
		changed := false
		out := []byte{'{'}
		for _, m := range ms {
			if variant(m.Key, level) {
				changed = true
				continue
			}
			if len(out) > 1 {
				out = append(out, ',')
			}
			val := obj[m.ValueStart:m.End]
			if sub != nil {
				if nv := sub(m.Key, val); nv != nil {
					changed = true
					val = nv
				}
			}
			out = append(out, obj[m.Start:m.ValueStart]...)
			out = append(out, val...)
		}
		if !changed {
			return obj, false
		}
		return append(out, '}'), true
	}
	isObject := func(b []byte) bool { return len(b) > 0 && b[0] == '{' }
	out, changed := strip(data, "", func(key string, val []byte) []byte {
		if !isObject(val) {
			return nil
		}
		switch key {
		case "meta", "prediction":
			if nv, ok := strip(val, key, nil); ok {
				return nv
			}
		case "judgments":
			if nv, ok := strip(val, "judgments", func(_ string, j []byte) []byte {
				if !isObject(j) {
					return nil
				}
				if nj, ok := strip(j, "judgment", nil); ok {
					return nj
				}
				return nil
			}); ok {
				return nv
			}
		}
		return nil
	})
	if !changed {
		return data
	}
	return out
}

// oddKeys reports whether data may hold a key the decoder would read otherwise than the other
// stages do: one that differs from a key view reads only in case (exactKeys takes it out), and
// prediction given twice (lastPrediction reads the last alone). It looks at every key, the text
// from a quote to the next `":` (blanks allowed before the colon), and says true for a key that
// holds an escape, or folds to a key of viewKeys without being it, or for a second prediction,
// at any level. exactKeys walks every member of every level read, which cost qa-score a third of
// its speed on lines that, all but never, hold such a key; this looks only at the bytes before
// each colon.
func oddKeys(data []byte) bool {
	predictions := 0
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], ':')
		if j < 0 {
			return false
		}
		end := i + j - 1 // the quote that ends a key, if this colon follows one
		i += j + 1
		if end >= 0 && data[end] != '"' && blank(data[end]) {
			for end--; end >= 0 && blank(data[end]); end-- {
			}
		}
		if end < 0 || data[end] != '"' {
			continue
		}
		// Back to the key's opening quote, noting whether the key could fold to one read.
		start, odd := -1, false
		for k := end - 1; k >= 0 && end-k <= longestViewKey+1; k-- {
			c := data[k]
			if c == '"' {
				start = k
				break
			}
			odd = odd || 'A' <= c && c <= 'Z' || c >= 0x80 || c == '\\'
		}
		if start < 0 {
			continue // a long key
		}
		if !odd { // a key of lower-case ASCII, without an escape
			if end-start == len(`"prediction`) && string(data[start+1:end]) == "prediction" {
				if predictions++; predictions > 1 {
					return true
				}
			}
			continue
		}
		if escapedAt(data, end) {
			continue // a quote inside a string
		}
		key := data[start+1 : end]
		if bytes.IndexByte(key, '\\') >= 0 {
			return true // a key with an escape: let exactKeys read it
		}
		for _, keys := range viewKeys {
			for _, k := range keys {
				if string(key) != k && strings.EqualFold(string(key), k) {
					return true
				}
			}
		}
	}
}

// blank reports whether c is JSON white space.
func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// longestViewKey is the most bytes a key that folds to one of viewKeys takes in a line: the
// longest of them (supporting_facts), each character written as a \u escape.
var longestViewKey = func() int {
	n := 0
	for _, keys := range viewKeys {
		for _, k := range keys {
			n = max(n, 6*len(k))
		}
	}
	return n
}()

// escapedAt reports whether the quote at data[i] is escaped: an odd run of backslashes before it.
func escapedAt(data []byte, i int) bool {
	n := 0
	for i > 0 && data[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

func decodeLine(l line, facts bool) (*record.Record, *record.Error) {
	var v view
	data := l.data
	odd := oddKeys(data)
	if odd {
		data = exactKeys(data)
	}
	if err := record.Unmarshal(data, &v); err != nil {
		return nil, &record.Error{File: l.file, Line: l.no, ID: record.PeekID(l.data), Err: record.CutLine(record.InvalidLine(l.data, err), l.data, l.unended)}
	}
	if odd {
		lastPrediction(data, &v)
	}
	if err := record.NullAnswer(data, v.Answers); err != nil {
		return nil, &record.Error{File: l.file, Line: l.no, ID: v.ID, Err: fmt.Errorf("invalid record: %w", err)}
	}
	rec := &record.Record{Schema: v.Schema, ID: v.ID, Dataset: v.Dataset, Lang: v.Lang, Type: v.Type,
		Question: v.Question, Answers: v.Answers}
	if err := rec.Validate(); err != nil {
		if derr := record.Unmarshal(l.data, new(record.Record)); derr != nil {
			// The view takes a null line for an object with no member: the record's decoder
			// says what the other stages say of it.
			return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: record.InvalidLine(l.data, derr)}
		}
		return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}
	}
	if v.Scores != nil {
		// Present (even as null): remember that, so the line's member is replaced, not added.
		var err error
		if rec.Scores, err = decodeMember[float64](v.Scores, "scores", "a number"); err != nil {
			return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}
		}
	}
	if v.ScoreErrors != nil { // as for scores
		var err error
		if rec.ScoreErrors, err = decodeMember[string](v.ScoreErrors, "score_errors", "a string"); err != nil {
			return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}
		}
	}
	if m := v.Meta; m != nil {
		if facts && m.SupportingFacts != nil {
			// Gold facts that cannot be read would leave the SP scores out without a word.
			var fs []record.Fact
			if err := readFacts("meta.supporting_facts", m.SupportingFacts, &fs); err != nil {
				return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}
			}
		}
		rec.Meta = map[string]json.RawMessage{}
		for k, raw := range map[string]json.RawMessage{"category": m.Category, "abstention": m.Abstention, "supporting_facts": m.SupportingFacts} {
			if raw != nil {
				rec.Meta[k] = raw
			}
		}
		// The facts that decide which scores and summary groups a record belongs to: unreadable,
		// they would drop or misfile it without a word.
		var err error
		switch {
		case rec.InDataset("locomo"):
			_, _, err = rec.LoCoMoCategory()
		case rec.InDataset("longmemeval"):
			_, err = rec.Abstention()
		}
		if err != nil {
			return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}
		}
	}
	if p := v.Prediction; p != nil {
		text := ""
		if p.Text != nil {
			text = *p.Text
		}
		if err := record.NullText(data, text, p.Error); err != nil {
			return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: fmt.Errorf("invalid record: %w", err)}
		}
		if err := nullScore(data, p.Score, p.Error); err != nil {
			return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: fmt.Errorf("invalid record: %w", err)}
		}
		rec.Prediction = &record.Prediction{Text: text, Error: p.Error}
		if p.Text == nil {
			rec.Prediction.ClearText()
		}
		switch {
		case p.SupportingFacts == nil || string(p.SupportingFacts) == "null":
		case !facts:
			rec.Prediction.SupportingFacts = []record.Fact{} // present, not read
		default:
			if err := readFacts("prediction.supporting_facts", p.SupportingFacts, &rec.Prediction.SupportingFacts); err != nil {
				return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}
			}
		}
	}
	if len(v.Judgments) > 0 {
		// Judgment names that differ only in lone surrogates would be read as one, the verdict of
		// one lost; the rest of the line is kept as it came, so only this member is checked.
		if err := record.KeyClash(data, "judgments"); err != nil {
			return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: fmt.Errorf("invalid record: %w", err)}
		}
		rec.Judgments = make(map[string]*record.Judgment, len(v.Judgments))
		for name, j := range v.Judgments {
			if j != nil {
				rec.Judgments[name] = &record.Judgment{Score: j.Score, Error: j.Error, Mode: j.Mode, Raw: j.Raw}
			} else {
				rec.Judgments[name] = nil
			}
		}
		if err := record.NullJudgmentScore(data, rec.Judgments); err != nil {
			return nil, &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: fmt.Errorf("invalid record: %w", err)}
		}
	}
	return rec, nil
}

// nullScore is record.NullScore for the view, which reads the prediction's score as raw JSON:
// only a null one is looked at again.
func nullScore(data, score json.RawMessage, errMsg string) error {
	if string(bytes.TrimSpace(score)) != "null" {
		return nil
	}
	return record.NullScore(data, nil, errMsg)
}

// lastPrediction sets v's prediction to the last top-level prediction member of data, decoded
// on its own, when data has several, as the other stages read such a line. The decoder reads
// each into the same struct, so members of an earlier one that the last leaves out (an error, a
// text, supporting facts) would be scored with the last one's; a record.Prediction is replaced.
// It walks the top level, so it is called only for a line oddKeys picks out.
func lastPrediction(data []byte, v *view) {
	ms, err := record.Members(data)
	if err != nil {
		return // cannot happen: data has been decoded
	}
	n, last := 0, record.Member{}
	for _, m := range ms {
		if m.Key == "prediction" {
			n, last = n+1, m
		}
	}
	if n > 1 {
		v.Prediction = nil
		// The decoder has read this value once already, into the same type.
		record.Unmarshal(data[last.ValueStart:last.End], &v.Prediction) //nolint:errcheck
	}
}

// decodeMember decodes raw, the record's object member name (present, even as null), into a map
// that is never nil. A null value, which decoding reads as the zero value, is refused as not
// being want. The error names the member and what is wrong with it.
func decodeMember[V comparable](raw json.RawMessage, name, want string) (map[string]V, error) {
	m := map[string]V{}
	if err := record.Unmarshal(raw, &m); err != nil {
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

// spliceScores returns line with its top-level scores member set to scores (removed when scores
// is empty). Every other member keeps its bytes, and the bytes around it; a duplicated scores key
// is replaced by one.
func spliceScores(line []byte, scores map[string]float64) ([]byte, error) {
	var val []byte
	if len(scores) > 0 {
		var err error
		if val, err = appendScores(nil, scores); err != nil {
			return nil, err
		}
	}
	return spliceMembers(line, member{"scores", val})
}

// member is a top-level member spliceMembers sets: val is its encoded value, nil to remove it.
type member struct {
	key string
	val []byte
}

// spliceMembers returns line with each of the given top-level members set (in place of the first
// of that key, the others of it dropped; a new one added at the end, in the order given) or
// removed. Every other member keeps its bytes, and the bytes around it.
func spliceMembers(line []byte, set ...member) ([]byte, error) {
	ms, err := record.Members(line)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, errors.New("empty object")
	}
	size := len(line)
	for _, m := range set {
		size += len(m.key) + len(m.val) + 4
	}
	out := make([]byte, 0, size)
	out = append(out, line[:ms[0].Start]...)
	first := true
	put := func(sep []byte, m member) {
		if !first {
			if len(sep) == 0 {
				sep = []byte(",")
			}
			out = append(out, sep...)
		}
		out = append(append(append(append(out, '"'), m.key...), `":`...), m.val...)
		first = false
	}
	done := make([]bool, len(set))
	for k, m := range ms {
		var sep []byte
		if k > 0 {
			sep = line[ms[k-1].End:m.Start]
		}
		i := slices.IndexFunc(set, func(s member) bool { return s.key == m.Key })
		switch {
		case i < 0:
			if !first {
				if len(sep) == 0 {
					sep = []byte(",")
				}
				out = append(out, sep...)
			}
			out = append(out, line[m.Start:m.End]...)
			first = false
		case set[i].val != nil && !done[i]:
			put(sep, set[i])
			done[i] = true
		}
	}
	for i, m := range set {
		if m.val != nil && !done[i] {
			put(nil, m)
		}
	}
	return append(out, line[ms[len(ms)-1].End:]...), nil
}

// appendScoreErrors appends errs as a JSON object with sorted keys, strings escaped as the record
// package writes them.
func appendScoreErrors(dst []byte, errs map[string]string) ([]byte, error) {
	dst = append(dst, '{')
	for i, k := range slices.Sorted(maps.Keys(errs)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		for _, s := range []string{k, errs[k]} {
			b, err := record.Marshal(s)
			if err != nil {
				return nil, err
			}
			dst = append(append(dst, b...), ':')
		}
		dst = dst[:len(dst)-1]
	}
	return append(dst, '}'), nil
}

// appendScores appends scores as a JSON object with sorted keys and numbers written as
// encoding/json writes them.
func appendScores(dst []byte, scores map[string]float64) ([]byte, error) {
	keys := make([]string, 0, len(scores))
	for k := range scores {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		if plainKey(k) {
			dst = append(append(append(dst, '"'), k...), '"')
		} else {
			kb, err := json.Marshal(k)
			if err != nil {
				return nil, err
			}
			dst = append(dst, kb...)
		}
		dst = append(dst, ':')
		var err error
		if dst, err = appendFloat(dst, scores[k]); err != nil {
			return nil, fmt.Errorf("score %s: %w", k, err)
		}
	}
	return append(dst, '}'), nil
}

// plainKey reports whether k needs no escaping in JSON (and none of encoding/json's HTML escapes).
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// encode returns line with the outcome's scores in it. When the line has no scores or
// score_errors member and the outcome no error (the usual case) the new member is written straight
// from the values, in sorted name order, and inserted before the closing brace; otherwise the old
// and new scores and errors are merged and the members replaced.
func (s *scorer) encode(line []byte, rec *record.Record, o outcome) ([]byte, error) {
	if rec.Scores != nil || rec.ScoreErrors != nil || len(o.errs) > 0 {
		s.write(rec, o)
		var scores, errs []byte
		var err error
		if len(rec.Scores) > 0 {
			if scores, err = appendScores(nil, rec.Scores); err != nil {
				return nil, err
			}
		}
		if len(rec.ScoreErrors) > 0 {
			if errs, err = appendScoreErrors(nil, rec.ScoreErrors); err != nil {
				return nil, err
			}
		}
		return spliceMembers(line, member{"scores", scores}, member{"score_errors", errs})
	}
	if o.failed {
		return line, nil
	}
	end := bytes.LastIndexByte(line, '}')
	if end < 0 {
		return nil, errors.New("not a JSON object")
	}
	out := append(getBuf(len(line)+s.memberSize), line[:end]...) // one buffer for line and member
	out = append(out, `,"scores":{`...)
	n := 0
	for _, k := range s.order {
		v := o.vals[k]
		if math.IsNaN(v) {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(append(append(out, '"'), s.sel.names[k]...), `":`...)
		var err error
		if out, err = appendFloat(out, v); err != nil {
			return nil, fmt.Errorf("score %s: %w", s.sel.names[k], err)
		}
		n++
	}
	if n == 0 {
		putBuf(out)
		return line, nil
	}
	return append(append(out, '}'), line[end:]...), nil
}

// appendFloat writes f as encoding/json does: the shortest representation that round-trips, in
// exponent form only below 1e-6 or from 1e21 up.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("unsupported value %v", f)
	}
	switch f {
	case 0:
		return append(dst, '0'), nil
	case 1:
		return append(dst, '1'), nil
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 → 1e-7, as encoding/json does.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
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
