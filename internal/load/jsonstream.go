package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	gojson "github.com/goccy/go-json"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/format"
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

// firstObject returns br's bytes, without consuming them, up to the one that ends the first JSON
// object it opens (the top-level value, or a top-level array's first item, as
// format.FirstMembers reads it) or shows the value there to be no object, or no JSON; or what br
// holds when the input ended, or format.MaxHead bytes came, first. With data, a top-level
// object's member "data" that opens a list ends it with that list's first item where that is a
// SQuAD article (SQuAD's first article, not the whole file after it; see itemEnds). It reads no
// further, so that a JSON document written on one line, read from a pipe, is loaded as it comes,
// not once a buffer's worth is there; and it returns no more than that, though a read brought
// more (a file's first read most often fills the buffer), so that what the bytes are taken for
// does not hang on how a pipe cut them. An object longer than br's buffer grows it (peekUntil).
//
// Note: a Peek of the whole buffer held a SQuAD or CMRC 2018 file written on one line, from a
// slow pipe, until 64 kB of it had come, though its first question was whole long before; and
// one whose first question was longer than the buffer's 64 kB was taken for no export.
func firstObject(br *bufio.Reader, data bool) []byte {
	s := objectScan{data: data}
	head, _, _ := peekUntil(br, s.end)
	return head
}

// detectHead returns the bytes of br, without consuming them, that a format is detected from
// (format.Detect), and that --format's warning of another format looks at: firstObject's, with
// data; or, when they show that the text opens no JSON object, or not one that is JSON (a table,
// a file of records cut at its start, a first line cut short), or a top-level object with more
// text after it on its line (a file of records cut within a nested object), its first two lines
// that are not blank, as Detect looks past one line that is not JSON. Whole or a byte at a time, from a file
// or a pipe, the input gives the same bytes. full reports that format.MaxHead bytes came before
// their end; err is the read error that came first (not io.EOF).
//
// Note: detection read a file's first 64 kB (a pipe's, or what it held once the loader gave its
// first item): a Hugging Face export of SQuAD whose first context was longer was no export, a
// named pipe gave no record until 64 kB of it had come, and --format's warning over indented
// JSON from a pipe was given or not as the bytes happened to come.
func detectHead(br *bufio.Reader) (head []byte, full bool, err error) {
	s := objectScan{data: true}
	obj, j := 0, 0          // the first object's length once it ended; how far the rest of its line is read
	lines, text := 0, false // the lines ended that held text; whether this one does
	i := 0
	// One peekUntil, which reads on past the object's line, or past a fault for two lines, so
	// that it grows br's buffer from one reader (see grow).
	head, full, err = peekUntil(br, func(head []byte) int {
		if !s.fault && obj == 0 {
			if obj = s.end(head); obj == 0 || !s.fault && s.list != 0 {
				return obj
			}
			j = obj
		}
		if !s.fault {
			// An object that is the whole top-level value is a line's only JSON when the rest
			// of its line is blank; else the line is no JSON (a file of records cut at its start
			// within a nested object: {"title": "T"}], "meta": {}}), told as a fault is.
			for ; j < len(head); j++ {
				if c := head[j]; c == '\n' {
					return obj
				} else if !isSpace(c) {
					s.fault = true
					break
				}
			}
			if !s.fault {
				return 0
			}
		}
		for ; i < len(head); i++ {
			switch c := head[i]; {
			case c == '\n' && text:
				if lines++; lines == 2 {
					return i + 1
				}
				text = false
			case !isSpace(c):
				text = true
			}
		}
		return 0
	})
	if obj > 0 && !s.fault && len(head) > obj { // the input ended, or the head filled, in the blanks after it
		head, full = head[:obj], false
	}
	return head, full, err
}

// peekUntil peeks at br until end, given the bytes peeked so far, returns how many of them it
// wants (0 for more), and returns them, unconsumed; or what br holds when the input ends (err,
// the read error, nil at io.EOF), or when format.MaxHead bytes are there (full). A buffer that
// fills first is grown, to format.MaxHead at most.
func peekUntil(br *bufio.Reader, end func(head []byte) int) (head []byte, full bool, err error) {
	var src io.Reader // what br reads on from once grown
	for {
		head, _ = br.Peek(br.Buffered())
		if n := end(head); n > 0 {
			return head[:n], false, nil
		}
		_, err = br.Peek(len(head) + 1)
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull) && br.Size() < format.MaxHead:
			src = grow(br, src, min(2*br.Size(), format.MaxHead))
		case errors.Is(err, bufio.ErrBufferFull):
			return head, true, nil
		case err == io.EOF:
			return head, false, nil
		default:
			return head, false, err
		}
	}
}

// grow gives br a buffer of size bytes that holds what it held, unconsumed, its reader reading on
// where it was: every holder of br reads on through the larger buffer. It returns what br reads
// on from after what it holds, to be given back as src when br is grown again before anything is
// consumed from it (peekUntil): br's first reader behind a copy of br (src nil), whose buffer,
// empty then, is the one kept until the input ends. The bytes held are read from the buffer
// they are in, which nothing else writes (the copy of br reads into its buffer only after them).
//
// Note: a bufio.Reader cannot grow its buffer, and its reader cannot be taken back from it: each
// growth read from a copy of the reader before it, so that a chain of copies kept every smaller
// buffer, 16 MiB in all for a first object of 16 MiB, until the input ended, and passed every
// byte of the input through each of them.
func grow(br *bufio.Reader, src io.Reader, size int) io.Reader {
	held, _ := br.Peek(br.Buffered())
	if src == nil {
		old := new(bufio.Reader)
		*old = *br
		old.Discard(len(held))
		src = old
	}
	*br = *bufio.NewReaderSize(io.MultiReader(bytes.NewReader(held), src), size)
	return src
}

// objectScan follows the JSON text that firstObject peeks at, a byte once, for the end of its
// first object.
type objectScan struct {
	data     bool   // a top-level object's "data" list ends the scan with its first item (itemEnds)
	i        int    // the bytes scanned
	depth    int    // the arrays and objects open
	list     int    // the depth inside the list whose first item ends the scan (0: none)
	article  bool   // the first item of the "data" list has a "paragraphs" key of its own
	str, esc bool   // in a string; after its backslash
	strAt    int    // where the string being read opens
	key      string // the last string closed in the top-level object
	colon    bool   // the byte before this one was a ':' of the top-level object
	prev     byte   // the last byte, not a blank, outside a string ('"' for a string)
	keyOpen  bool   // the string being read opens after a '{' or ',' (a key, in an object)
	fault    bool   // the scan ended at a byte that shows no JSON object, or no JSON
}

// itemEnds reports whether the first item of the list the scan ends with (or the list, empty),
// just ended, ends the scan. A "data" list's first item ends it only where it is a SQuAD article
// (its own "paragraphs"): elsewhere the object is read on to its end, as any other is, so that a
// JSON Lines row with a data column is told by its own members, as one without it is, and not by
// its text up to the column (a benchmark's key nested in meta, or in the column, taken for its
// format).
func (s *objectScan) itemEnds() bool {
	if s.list == 2 && !s.article {
		s.list = 0
		return false
	}
	return true
}

// end is scan as peekUntil asks it: how many bytes of head end the first object, or 0.
func (s *objectScan) end(head []byte) int {
	if s.scan(head) {
		return s.i + 1
	}
	return 0
}

// scan reads the bytes of head past those already read and reports whether the first object
// ended in them, at head[s.i]. It ends at a byte that no JSON holds there as well: a control
// character in a string (a line cut short in it, the next line read on as the string's), or a
// value or key that follows no '{', '[', ',' or ':' (a line cut short after a value, the next
// line's object read on as the cut line's); and at a first byte that opens no object or list.
func (s *objectScan) scan(head []byte) bool {
	for ; s.i < len(head); s.i++ {
		c := head[s.i]
		if s.str {
			switch {
			case c < 0x20:
				s.fault = true
				return true
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.str, s.prev = false, '"'
				if s.depth == s.list && s.itemEnds() { // a string, not an object
					return true
				}
				if s.depth == 1 {
					s.key = string(head[s.strAt+1 : s.i])
				}
				if s.list == 2 && s.depth == 3 && s.keyOpen && string(head[s.strAt+1:s.i]) == "paragraphs" {
					s.article = true
				}
			}
			continue
		}
		if isSpace(c) {
			continue
		}
		afterColon, prev := s.colon, s.prev
		s.colon, s.prev = false, c
		if s.depth == 0 && c != '{' && c != '[' ||
			s.depth > 0 && (c == '{' || c == '[' || c == '"') && !strings.ContainsRune("{[,:", rune(prev)) {
			s.fault = true
			return true
		}
		switch c {
		case '"':
			s.str, s.strAt, s.keyOpen = true, s.i, prev == '{' || prev == ','
		case ':':
			s.colon = s.depth == 1
		case '{', '[':
			switch {
			case s.depth == 0 && c == '[':
				s.list = 1
			case s.depth == s.list && c != '{' && s.itemEnds(): // a list, not an object
				return true
			case s.depth == 1 && s.list == 0 && s.data && afterColon && c == '[' && s.key == "data":
				s.list = 2
			}
			s.depth++
		case '}', ']':
			if s.depth--; s.depth <= s.list && s.itemEnds() { // the item, or the list, ended
				return true
			}
		default: // a number, true, false or null: no object where it is the first item
			if s.depth == s.list && s.itemEnds() {
				return true
			}
		}
	}
	return false
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
// has one (so that it reads as the records' ids do: hotpotqa:5a8b…, not 5a8b…).
func decodeRecord(in Input, line int, prefix, key string, raw []byte, v any) error {
	if isNull(raw) {
		return badf(in, line, "", nullItem)
	}
	if msg := decodeExact(raw, v); msg != "" {
		id := peekID(raw, key)
		if id != "" {
			id = prefix + id
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
