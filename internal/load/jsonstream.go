package load

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	gojson "github.com/goccy/go-json"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

type jsonRaw = json.RawMessage

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
func jsonMarshal(v any) ([]byte, error)   { return json.Marshal(v) }

// items yields the top-level items of a JSON array, or the lines of a JSON Lines file, one at a
// time with the line each starts on. A malformed JSONL line is a bad item (the stream goes on); a
// syntax error inside an array is fatal, because a decoder cannot resynchronise inside an array.
// An input whose first line is a lone "{" (indented objects, one or several in a row) is read as
// a stream of JSON values, like an array without brackets.
type items struct {
	in    Input
	id    func(line []byte) string // the id of a JSONL line that is not JSON, for its error
	dec   *json.Decoder            // array mode
	array bool                     // the input opened with '[': nothing may follow its ']'
	ended int                      // array mode: the line the last item ended on (0 before the first)
	open  int                      // array mode: the line of the array's '['
	count int                      // array mode: the items read
	lines *lineCounter
	jsonl *record.Reader // JSONL mode
}

// newItems sniffs the first non-blank byte of br: '[' means a JSON array, anything else JSON Lines.
func newItems(in Input, br *bufio.Reader, maxLine int, id func([]byte) string) (*items, error) {
	first, err := firstByte(br)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", in.DisplayName(), err) // no text (a tar archive), a damaged gzip file
	}
	it := &items{in: in, id: id}
	if first != '[' && !(first == '{' && multiline(br)) {
		it.jsonl = record.NewReader(br, in.DisplayName())
		if maxLine > 0 {
			it.jsonl.SetMaxLine(maxLine)
		}
		return it, nil
	}
	it.lines = &lineCounter{r: br}
	it.dec = json.NewDecoder(it.lines)
	if first != '[' {
		return it, nil
	}
	it.array = true
	if _, err := it.dec.Token(); err != nil {
		if _, ok := errors.AsType[*lineError](err); ok { // text not UTF-8 in the first bytes read
			return nil, atLine(in, 0, err)
		}
		return nil, fmt.Errorf("%s: %w", in.DisplayName(), err)
	}
	it.open = it.lines.lineAt(it.dec.InputOffset())
	return it, nil
}

// multiline reports whether the first line of br that is not blank is a lone "{", as in indented
// JSON: then the input is not JSON Lines. (A JSONL file whose first line is merely malformed
// stays JSONL, so the line is reported and skipped.) It reads no further than the first byte
// after the "{" that is not a blank, so that a JSON document written on one line, read from a
// pipe, is loaded as it comes and not once its line has ended.
func multiline(br *bufio.Reader) bool {
	brace := false
	for n := 1; ; n++ {
		b, _ := br.Peek(n)
		if len(b) < n { // the input ended, or the buffer filled, first
			return false
		}
		switch c := b[n-1]; {
		case !brace && isSpace(c):
		case !brace:
			if brace = c == '{'; !brace {
				return false
			}
		case c == '\n':
			return true
		case !isSpace(c):
			return false
		}
	}
}

// firstByte returns the first non-blank byte (0 for an empty input) without consuming it, nor the
// blanks before it, so that the lines they end are counted by what reads br next. Blanks that fill
// br's buffer are consumed.
//
// Note: the blanks were consumed, so that a file that begins with blank lines had every line
// reported, and every generic record's FILE:LINE id made, that many lines too early.
func firstByte(br *bufio.Reader) (byte, error) {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if len(b) == n && !isSpace(b[n-1]) {
			return b[n-1], nil
		}
		switch {
		case err == io.EOF:
			return 0, nil
		case errors.Is(err, bufio.ErrBufferFull): // more blanks than the buffer holds
			br.Discard(br.Buffered())
			n = 0
		case err != nil:
			return 0, err
		}
	}
}

// itemAt is where an item starts: its line, and its byte column when an item before it ends on
// that line, as in a JSON array written on one line (0 otherwise, as for every JSONL line).
type itemAt struct {
	line, col int
	// index is the item's place in its JSON array, from 0; inLine says that the item does not
	// begin its line, the array's '[' or the item before it coming first, as in an array written
	// on one line (json.dump's default), where the line alone does not find the item.
	index  int
	inLine bool
}

// next returns the next item and where it starts. A bad JSONL line comes back as a *record.Error;
// the end is io.EOF; other errors are fatal.
func (it *items) next() (jsonRaw, itemAt, error) {
	if it.jsonl != nil {
		line, err := it.jsonl.ReadRaw()
		var bad *record.Error
		switch {
		case errors.As(err, &bad):
			if head := it.jsonl.BadLine(); head != nil && it.id != nil {
				bad.ID = it.id(head) // the format's id, not a member named "id"
			}
			return nil, itemAt{line: it.jsonl.Line()}, err
		case err != nil && err != io.EOF: // a damaged or cut gzip file: say how much was read
			return nil, itemAt{line: it.jsonl.Line()}, command.ReadError(it.in.DisplayName(), it.jsonl.Line(), err)
		case err != nil:
			return nil, itemAt{line: it.jsonl.Line()}, err
		}
		if !json.Valid(line) {
			var v any
			err := json.Unmarshal(line, &v)
			what, hint := "invalid JSON", ""
			if col := record.NotJSON(line); col > 0 {
				what = fmt.Sprintf("not JSON at column %d", col) // as the other stages say it
			}
			if se, ok := errors.AsType[*json.SyntaxError](err); ok {
				// Two items on one line, as cat joins a file to the next, skipped together:
				// the second is named too.
				hint = record.PythonConstant(line, se.Offset-1) + record.Joined(line, it.id)
				if msg := record.WholeCharacter(err.Error(), line, se.Offset-1); msg != err.Error() {
					err = errors.New(msg) // the character named whole, not its first byte
				}
			}
			err = record.CutLine(fmt.Errorf("%s: %w%s", what, err, hint), line, it.jsonl.Unended())
			return nil, itemAt{line: it.jsonl.Line()}, badf(it.in, it.jsonl.Line(), it.id(line), "%w", err)
		}
		return jsonRaw(line), itemAt{line: it.jsonl.Line()}, nil
	}
	if !it.dec.More() {
		// In an array, the input ending here (after an item, or after '[') leaves it without
		// its ']': a file cut at an item's end, which is no less cut than one cut inside an item.
		if _, err := it.dec.Token(); err != nil && (it.array || !errors.Is(err, io.EOF)) {
			return nil, itemAt{}, it.fatal(err)
		}
		if it.array {
			return nil, itemAt{}, it.end()
		}
		return nil, itemAt{}, io.EOF
	}
	var raw jsonRaw
	if err := it.dec.Decode(&raw); err != nil {
		return nil, itemAt{}, it.fatal(err)
	}
	var at itemAt
	at.line, at.col = it.lines.position(it.dec.InputOffset() - int64(len(raw)))
	at.index, at.inLine = it.count, it.array && (at.line == it.ended || it.count == 0 && at.line == it.open)
	it.count++
	if at.line != it.ended {
		at.col = 0
	}
	it.ended = it.lines.lineAt(it.dec.InputOffset())
	return raw, at, nil
}

// end returns io.EOF after the closing ']' of an array when only blanks follow it, else the error
// that names what does (a second array, as `cat a.json b.json` makes, or stray text), which
// would otherwise be dropped without a word: Python's json.load fails on it ("Extra data").
// Later calls return io.EOF.
func (it *items) end() error {
	it.array = false
	_, err := it.dec.Token()
	switch {
	case err == io.EOF:
		return io.EOF
	case errors.As(err, new(*lineError)):
		return it.fatal(err)
	}
	return atLine(it.in, it.lines.lineAt(it.dec.InputOffset()), errors.New("more JSON after the top-level array"))
}

// fatal places an error inside an array: at the end of the input when the input ended early,
// else where the decoder stopped (a syntax error at its byte, see syntaxAt).
func (it *items) fatal(err error) error {
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		what := "unexpected end of JSON array"
		if !it.array { // a stream of indented objects, which no bracket holds
			what = "unexpected end of JSON input"
		}
		return atLine(it.in, it.lines.lineAt(it.lines.read), errors.New(what))
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return syntaxAt(it.in, it.dec, it.lines, se)
	}
	return atLine(it.in, it.lines.lineAt(it.dec.InputOffset()), err)
}

// syntaxAt returns the syntax error se, which dec met reading in, as FILE:LINE: message at column
// C, placed at the byte it is about. A failed Decode leaves the decoder at the start of the value
// it could not read (a whole LoCoMo conversation, thousands of lines of indented JSON), and its
// buffer holds that value up to the bad byte: scanning those bytes again finds the byte. A failed
// Token leaves the decoder at the bad byte itself, which a new scan may read otherwise; then the
// two messages differ and the decoder's place is the one. The column counts bytes, as a UTF-8
// error's does, and locates the fault in a file that is all one line (HotpotQA's, SQuAD's).
func syntaxAt(in Input, dec *json.Decoder, lines *lineCounter, se *json.SyntaxError) error {
	off := dec.InputOffset()
	rest, _ := io.ReadAll(dec.Buffered())
	var v jsonRaw
	hint, msg := "", se.Error()
	if again, ok := errors.AsType[*json.SyntaxError](json.Unmarshal(rest, &v)); ok && again.Error() == se.Error() {
		off += again.Offset - 1 // Offset counts the bytes read, the bad one included
		hint = record.PythonConstant(rest, again.Offset-1)
		msg = record.WholeCharacter(msg, rest, again.Offset-1)
	}
	line, col := lines.position(off)
	return fmt.Errorf("%s:%d: %s at column %d%s", in.DisplayName(), line, msg, col, hint)
}

// decodeItem decodes raw, an item that must be an object, into v, turning a type error (or null)
// into a bad item at line that names the item's own id when it has one.
func decodeItem(in Input, line int, id string, raw []byte, v any) error {
	if isNull(raw) {
		return badf(in, line, id, nullItem)
	}
	if msg := decodeExact(raw, v); msg != "" {
		if id == "" {
			id = peekID(raw)
		}
		return badf(in, line, id, "%s", msg)
	}
	return nil
}

// decodeRecord decodes raw, an item whose record id is prefix followed by the item's member key,
// into v, turning a type error into a bad item at line that names that record id when the item
// has one (so that it reads as the records' ids do: hotpotqa:5a8b…, not 5a8b…), or that says the
// item lacks the member key when it does.
func decodeRecord(in Input, line int, prefix, key string, raw []byte, v any) error {
	if isNull(raw) {
		return badf(in, line, "", nullItem)
	}
	if msg := decodeExact(raw, v); msg != "" {
		id := peekID(raw, key)
		if id != "" {
			id = prefix + id
		} else if obj, _, ok := members(raw); ok {
			if _, has := obj[key]; !has {
				// An item without the benchmark's id member is named so first, its other faults
				// after it is mended: a generic row read as a benchmark's (its name chose
				// it) lacks the id, whatever its fields hold (a context that is text), and
				// qa-load stops such a file by that fault (lacksID).
				return badf(in, line, "", "%v", missingField(key))
			}
		}
		return badf(in, line, id, "%s", msg)
	}
	return nil
}

// decodeExact decodes raw into v, or returns what is wrong: a value of a type v does not take
// (DescribeDecodeError's words), or a member, at any depth, whose key differs from a key of v's
// only in case (foldedKey).
func decodeExact(raw []byte, v any) string {
	if err := foldedKey(raw, v); err != nil {
		return err.Error()
	}
	if err := json.Unmarshal(raw, v); err != nil {
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			// encoding/json's path leaves out the index in a list ("haystack_session_ids",
			// "ranked_items.corpus_id"); go-json's gives it ("haystack_session_ids.1"), which a
			// list of hundreds of sessions or turns needs to tell where the value is.
			again := gojson.Unmarshal(raw, reflect.New(reflect.TypeOf(v).Elem()).Interface())
			if te, ok := errors.AsType[*gojson.UnmarshalTypeError](again); ok && te.Type != nil {
				err = again
			}
		}
		return record.DescribeDecodeError(err)
	}
	return ""
}

// foldedKey returns an error for a member of raw, at any depth, whose key differs only in case
// from a key that v's type reads at its place (record.FoldedKey): Go's decoder would read it as
// that member where the benchmark's script, Python's json, does not (a SQuAD answer's "Text" as
// its "text"), so the record would not be the one the script reads.
func foldedKey(raw []byte, v any) error {
	path, field := record.FoldedKey(raw, reflect.TypeOf(v))
	if path == "" {
		return nil
	}
	return errors.New(foldedMessage(path, field))
}

// foldedMessage says that the member at path differs from field only in case.
func foldedMessage(path, field string) string {
	return fmt.Sprintf("member %q differs from %q only in case: the benchmark's script does not read it, where the decoder may read it as %q (rename it)", path, field, field)
}

// itemID returns the function that names an item by peekID's rule, its id after prefix.
func itemID(prefix string, keys ...string) func([]byte) string {
	return func(raw []byte) string {
		if id := peekID(raw, keys...); id != "" {
			return prefix + id
		}
		return ""
	}
}

// peekID returns the first string or number under one of keys (by default, the keys benchmarks
// use for ids), or "". In a JSONL line that is not JSON (cut short, a stray comma) it looks at
// the members whole before the fault.
func peekID(raw []byte, keys ...string) string {
	var m map[string]jsonRaw
	if json.Unmarshal(raw, &m) != nil {
		if json.Valid(raw) {
			return "" // not an object
		}
		ms, _ := record.Members(raw)
		m = make(map[string]jsonRaw, len(ms))
		for _, mb := range ms {
			m[mb.Key] = raw[mb.ValueStart:mb.End]
		}
	}
	if len(keys) == 0 {
		keys = []string{"_id", "id", "question_id", "sample_id", "sequence_id"}
	}
	for _, k := range keys {
		if s, ok := scalarText(m[k]); ok && s != "" && len(m[k]) > 0 {
			return s
		}
	}
	return ""
}

// nullItem is the message of an item that is null: a decoder takes it for an object with no
// member, and it is worded as the other stages word a line that is null.
const nullItem = "want an object, got null"
