package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// DefaultMaxLine is the default longest line a Reader accepts. Long-context records (LongMemEval
// haystacks) run to several megabytes, so the default is generous.
const DefaultMaxLine = 64 << 20

// Error is a problem with one input line: where it is, which record it was, what is wrong.
// It reads `preds.jsonl:42 (id "q-17"): missing field "answers"`.
type Error struct {
	File string
	Line int
	ID   string
	Err  error
	// Record says the line is a record, though a bad one: a JSON object with a "schema" member.
	// A stage that stops at a file whose first lines are no records counts only the others.
	Record bool
}

func (e *Error) Error() string {
	return e.Place() + ": " + e.Err.Error()
}

// Place is where the error is, as Error begins: FILE:LINE (id "x"), "-" for stdin.
func (e *Error) Place() string {
	var b bytes.Buffer
	if e.File != "" {
		b.WriteString(e.File)
	} else {
		b.WriteString("-")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.ID != "" {
		fmt.Fprintf(&b, " (id %q)", e.ID)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrLineTooLong is wrapped by the Error for a line longer than the Reader's maximum.
var ErrLineTooLong = errors.New("line too long")

// ErrCRLineEndings is wrapped by the Error for a line that is not JSON, or too long, and holds a
// carriage return with text after it and no line feed: most likely lines of a file with CR
// line endings (classic Mac OS), which the Reader, ending lines at "\n" as JSON Lines does,
// reads as one.
var ErrCRLineEndings = errors.New("the file has CR line endings")

// UTF8Error is the error for text that is not UTF-8 (see CheckUTF8).
type UTF8Error struct {
	Byte   byte // the first byte that is not UTF-8 text
	Column int  // its 1-based byte column in the line, or in Within
	// Within names the part of the line Column counts in ("cell": a CSV cell, whose column
	// in the line its quoting hides); "" for the line.
	Within string
}

func (e *UTF8Error) Error() string {
	at := fmt.Sprintf("column %d", e.Column)
	if e.Within != "" {
		at = fmt.Sprintf("byte %d of the %s", e.Column, e.Within)
	}
	return fmt.Sprintf("not UTF-8 text: byte 0x%02X at %s (convert the file to UTF-8, e.g. iconv -f latin1 -t utf-8)", e.Byte, at)
}

// CheckUTF8 returns nil when b is UTF-8 text, else a *UTF8Error naming the first byte that is
// not, its column counted from b's start.
//
// Note: JSON text is UTF-8, and the benchmarks' Python scripts stop on anything else. The JSON
// decoders here would instead put U+FFFD in place of each bad byte, so a Latin-1 file would be
// scored on altered text without a word.
func CheckUTF8(b []byte) *UTF8Error {
	if utf8.Valid(b) {
		return nil
	}
	i := 0
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	return &UTF8Error{Byte: b[i], Column: i + 1}
}

// Reader reads records from JSON Lines, one at a time, in bounded memory. It frames lines itself
// so that a line longer than the maximum is reported and skipped rather than ending the stream.
type Reader struct {
	br      *bufio.Reader
	file    string
	line    int
	maxLine int
	buf     []byte
	head    []byte // the start of a line too long to keep, for its id
	bad     []byte // what BadLine returns
	unended bool   // the line read last ended at the end of the input, with no line end
}

// headLen is how much of a line too long to keep is held to find its id in.
const headLen = 4096

// NewReader returns a Reader over r; file names the input in errors ("" for stdin).
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 1<<16), file: file, maxLine: DefaultMaxLine}
}

// SetMaxLine sets the longest line accepted, in bytes.
func (r *Reader) SetMaxLine(n int) { r.maxLine = n }

// Line returns the number of the line read last (1-based).
func (r *Reader) Line() int { return r.line }

// File returns the input name given to NewReader.
func (r *Reader) File() string { return r.file }

// Read returns the next record. A malformed line (not a record, not JSON, not UTF-8, too long)
// yields a *Error (the caller may report it and call Read again); the end of input yields io.EOF; any other error is fatal. Blank lines are
// skipped.
func (r *Reader) Read() (*Record, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return r.decode(line)
	}
}

// BadLine returns what was read of the line the last error from Read or ReadRaw was about, when
// that line was too long to keep (its first 4 kB) or not UTF-8 text (all of it), so that a
// caller whose lines name their ids under other keys than "id" can find the id there; else nil.
// It is valid until the next read.
func (r *Reader) BadLine() []byte { return r.bad }

// ReadRaw returns the next non-blank line without decoding it. Errors are as for Read.
func (r *Reader) ReadRaw() ([]byte, error) {
	for {
		line, err := r.readLine()
		if err != nil || len(bytes.TrimSpace(line)) > 0 {
			return line, err
		}
	}
}

func (r *Reader) decode(line []byte) (*Record, error) {
	rec := new(Record)
	if err := unmarshal(line, rec); err != nil {
		e := r.errorf(PeekID(line), "%w", CutLine(InvalidLine(line, err), line, r.unended))
		e.Record = HasSchema(line)
		return nil, e
	}
	if err := rec.Validate(); err != nil {
		e := r.errorf(rec.ID, "%s", err)
		e.Record = rec.Schema != 0
		return nil, e
	}
	return rec, nil
}

// HasSchema reports whether line is a JSON object with a "schema" member: a record, if perhaps a
// bad one. A line that is no whole JSON value counts when a "schema" member comes before what
// breaks it: a record cut short (the last line of an input whose writer stopped) or mistyped.
func HasSchema(line []byte) bool {
	if !bytes.HasPrefix(bytes.TrimLeft(line, " \t\r"), []byte("{")) {
		return false
	}
	var v struct {
		Schema json.RawMessage `json:"schema"`
	}
	if unmarshal(line, &v) == nil {
		return v.Schema != nil
	}
	return headHasSchema(line)
}

// errNotRecord is the error of a line with neither an id nor a schema.
var errNotRecord = errors.New(`not a qapipe record: no "schema" and no "id" (qa-load turns benchmark files into records)`)

// Unended reports whether the line read last ended at the end of the input, with no line end.
func (r *Reader) Unended() bool { return r.unended }

// ErrCutLine is wrapped by the error of a last line that has no line end and is no whole JSON
// value: an input cut short, or written by a stage that stopped in the middle of a line.
var ErrCutLine = errors.New("the input ends inside this line, which has no line end: was it cut short, or did its writer stop?")

// CutLine returns err, line's error, with ErrCutLine's words after it when line is the last of
// its input and has no line end (unended) and is no whole JSON value; else err.
func CutLine(err error, line []byte, unended bool) error {
	if !unended || json.Valid(line) {
		return err
	}
	return fmt.Errorf("%w (%w)", err, ErrCutLine)
}

// InvalidLine returns the error of a line that err, from decoding it as a record, rejects:
// "invalid record: " and what did not decode; for a line that is no JSON at all (NotJSON), "not
// JSON at column N: " and the decoder's words; or, for a JSON object with neither a "schema" nor
// an "id" member, the error Validate gives such a line. Such a line is most likely a benchmark's
// own data, whose first field of the wrong type says less than that.
func InvalidLine(line []byte, err error) error {
	var v struct {
		Schema json.RawMessage `json:"schema"`
		ID     json.RawMessage `json:"id"`
	}
	if bytes.HasPrefix(bytes.TrimLeft(line, " \t\r"), []byte("{")) && unmarshal(line, &v) == nil && v.Schema == nil && v.ID == nil {
		return errNotRecord
	}
	if col := NotJSON(line); col > 0 {
		return fmt.Errorf("not JSON at column %d: %s", col, DescribeDecodeError(err))
	}
	return fmt.Errorf("invalid record: %s", DescribeDecodeError(err))
}

// NotJSON returns the 1-based byte column at which line, one that did not decode, shows itself
// to be no JSON at all, or 0 when it begins as JSON does: its first character, after blanks,
// begins no JSON value ("note: …", a CSV header), or begins a word that is not true, false or
// null ("nothing", "None"). The decoder's words for such a line ("invalid character 'o' in
// literal null") are about a JSON value no one wrote. A line that begins as JSON and goes wrong
// later (cut short, a stray comma, text after a value) is left to the decoder's words.
func NotJSON(line []byte) int {
	rest := bytes.TrimLeft(line, " \t\r\n")
	col := len(line) - len(rest) + 1
	if len(rest) == 0 {
		return 0
	}
	switch c := rest[0]; {
	case c == '{' || c == '[' || c == '"' || c == '-' || '0' <= c && c <= '9':
		return 0
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(rest, []byte(lit)) && (len(rest) == len(lit) || !isWordByte(rest[len(lit)])) {
			return 0
		}
	}
	return col
}

// isWordByte reports whether c continues a word: a letter, a digit, an underscore or any byte of
// a non-ASCII character.
func isWordByte(c byte) bool {
	return c >= 0x80 || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// Validate checks what every stage relies on: an id and a known schema version. A line with
// neither is most likely a benchmark's own data given to a stage that wants records, and the
// message says what turns it into records.
func (r *Record) Validate() error {
	switch {
	case r.ID == "" && r.Schema == 0:
		return errNotRecord
	case r.ID == "":
		return errors.New(`missing field "id"`)
	case r.Schema == 0:
		return fmt.Errorf(`field "schema" missing or 0 (records carry "schema": %d; qa-load turns other files into records)`, SchemaVersion)
	case r.Schema != SchemaVersion:
		return fmt.Errorf("schema %d is not supported (want %d)", r.Schema, SchemaVersion)
	}
	return nil
}

func (r *Reader) errorf(id, format string, args ...any) *Error {
	return &Error{File: r.file, Line: r.line, ID: id, Err: fmt.Errorf(format, args...)}
}

// byteOrderMark is U+FEFF in UTF-8.
var byteOrderMark = []byte("\xef\xbb\xbf")

// readLine returns the next line without its terminator. The slice is valid until the next call.
// A line is too long when its text, without "\n" or "\r\n", is longer than the maximum, whether
// or not it ends the input.
func (r *Reader) readLine() ([]byte, error) {
	r.buf, r.bad = r.buf[:0], nil
	tooLong := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		if !tooLong {
			if len(r.buf)+len(chunk) > r.maxLine+len("\r\n") {
				tooLong = true
				r.head = append(r.head[:0], r.buf[:min(len(r.buf), headLen)]...)
				r.head = append(r.head, chunk[:min(len(chunk), headLen-len(r.head))]...)
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			if len(r.buf) == 0 && !tooLong {
				return nil, io.EOF
			}
		case err != nil:
			return nil, err
		}
		r.line++
		r.unended = err == io.EOF
		line := bytes.TrimSuffix(bytes.TrimSuffix(r.buf, []byte("\n")), []byte("\r"))
		if tooLong || len(line) > r.maxLine {
			head := r.head
			if !tooLong {
				head = line
			}
			if i := LoneCR(head); i >= 0 {
				return nil, r.crError(i)
			}
			e := r.errorf(headID(head), "%w (more than %s)", ErrLineTooLong, count(r.maxLine, "byte", "bytes"))
			e.Record = headHasSchema(head)
			r.bad = head[:min(len(head), headLen)]
			return nil, e
		}
		// A byte order mark at the start of a line is one of a file that began with it, joined
		// to others (cat a.jsonl b.jsonl): skipped, as at the start of an input.
		line = bytes.TrimPrefix(line, byteOrderMark)
		if i := LoneCR(line); i >= 0 && !json.Valid(line) {
			return nil, r.crError(i)
		}
		if err := CheckUTF8(line); err != nil {
			// A record in Latin-1, say, is a record still: its file is no benchmark file.
			r.bad = line
			return nil, &Error{File: r.file, Line: r.line, ID: PeekID(line), Err: err, Record: headHasSchema(line)}
		}
		return line, nil
	}
}

// LoneCR returns the index of the first carriage return in line, a line without its terminator,
// when text other than blanks follows it, else -1: the sign of lines that carriage returns alone
// ended (CR line endings), which a reader ending lines at "\n" reads as one. JSON takes a
// carriage return for a blank, so the Reader asks only of a line that is not JSON, or too long.
//
// Note: a CR followed by blanks alone is left alone, as the end of a line that ended in
// "\r\r\n"; CRLF input never gets here, its "\r\n" being the terminator.
func LoneCR(line []byte) int {
	i := bytes.IndexByte(line, '\r')
	if i < 0 || len(bytes.TrimSpace(line[i:])) == 0 {
		return -1
	}
	return i
}

// crError is the error of the line just read, which has CR line endings, the first at byte i. It
// names no id: the line holds the records of several.
func (r *Reader) crError(i int) *Error {
	return &Error{File: r.file, Line: r.line, Err: CRLineEndings(i + 1)}
}

// CRLineEndings returns the error, wrapping ErrCRLineEndings, of a line whose first carriage
// return with no line feed after it is at byte column col: it says how to convert the file.
// qa-load words a CSV file's with it.
func CRLineEndings(col int) error {
	return fmt.Errorf("%w (a carriage return with no line feed after it, at column %d): convert them to LF with tr '\\r' '\\n'", ErrCRLineEndings, col)
}

// PeekID recovers the id of a line that failed to decode as a record, if it has one, for the
// error message. The id is the member a record's decoder reads as its id: key "id" exactly (a
// key such as "ID" is an unknown member), the last when there are several. A line that is not
// JSON (cut short, a stray comma) is named by the last "id" member before the fault.
func PeekID(line []byte) string {
	var v struct {
		ID string `json:"id"`
	}
	if _, _, _, err := decodeKnown(line, idKey, &v); err != nil {
		if !json.Valid(line) {
			return headID(line)
		}
		return ""
	}
	return v.ID
}

var idKey = keySet("id")

// headID returns the id of a line from its start, its last "id" member (when a string) that comes
// whole before the line is cut or stops being JSON, as in the lines every stage writes: a
// line too long to read, or broken, is still named by its id.
func headID(head []byte) string {
	var id string
	walkMembers(head, func(q []byte, escaped bool, _, vStart, vEnd int) error { //nolint:errcheck // a cut line ends in an error
		if key, err := decodeKey(q, escaped); err == nil && key == "id" {
			id = ""
			unmarshal(head[vStart:vEnd], &id) //nolint:errcheck // not a string: no id
		}
		return nil
	})
	return id
}

// headHasSchema reports whether a line's start holds a "schema" member whole before it is cut or
// stops being JSON: a line too long to read, or not UTF-8, that is a record, as HasSchema tells
// of a whole line, so that a file of such records is not taken for no file of records.
func headHasSchema(head []byte) bool {
	found := false
	walkMembers(head, func(q []byte, escaped bool, _, _, _ int) error { //nolint:errcheck // a cut line ends in an error
		if key, err := decodeKey(q, escaped); err == nil && key == "schema" {
			found = true
		}
		return nil
	})
	return found
}

// Writer writes records as JSON Lines through a buffer. It keeps the first error and returns it
// from every later call and from Flush. Its methods may be called from one goroutine while
// FlushWhenIdle's flushes it from another.
type Writer struct {
	mu     sync.Mutex
	bw     *bufio.Writer
	err    error
	writes uint64 // lines written, for FlushWhenIdle to see that none came
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{bw: bufio.NewWriterSize(w, 1<<16)} }

// Write encodes rec as one line. It sets Schema to SchemaVersion if it is zero. A record that the
// Reader would refuse (nil, without an id, of another schema) or that does not encode (a NaN
// score, an Extra value that is no JSON) is an error, kept as any other: a stream missing a
// record is no stream to go on writing.
func (w *Writer) Write(rec *Record) error {
	if rec == nil {
		return w.keep(errors.New("record: nil"))
	}
	if rec.Schema == 0 {
		rec.Schema = SchemaVersion
	}
	if err := rec.Validate(); err != nil {
		return w.keep(fmt.Errorf("record %q: %w", rec.ID, err))
	}
	b, err := rec.MarshalJSON()
	if err != nil {
		return w.keep(fmt.Errorf("record %q: %w", rec.ID, err))
	}
	return w.WriteRaw(b)
}

// keep records err as the Writer's error unless it has one, and returns the one it keeps.
func (w *Writer) keep(err error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
	return w.err
}

// WriteRaw writes an already-encoded record line (without its newline). U+0085, U+2028 and U+2029
// are escaped on the way (see EscapeLineBreaks), so every line survives Python's splitlines().
func (w *Writer) WriteRaw(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.writes++
	if _, err := w.bw.Write(EscapeLineBreaks(line)); err != nil {
		w.err = err
		return err
	}
	if err := w.bw.WriteByte('\n'); err != nil {
		w.err = err
	}
	return w.err
}

// IdleFlush is how long a Writer under FlushWhenIdle holds lines that no others follow: from one
// to two of these pass before they are written.
const IdleFlush = 100 * time.Millisecond

// FlushWhenIdle flushes w, from a goroutine of its own, whenever a line is buffered and none has
// been written for IdleFlush, until the returned stop is called (stop waits for the goroutine to
// end; calling it again does nothing). A stage whose records come slowly (each a model call, or
// read from such a stage through a pipe) so shows each one soon after it is done, to tail -f or
// the next stage, rather than 64 kB at a time, while a stream of records still goes out a
// buffer at a time. An error of such a flush is kept, as any other.
func (w *Writer) FlushWhenIdle() (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(IdleFlush)
		defer tick.Stop()
		var seen uint64
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			w.mu.Lock()
			if w.writes == seen && w.err == nil && w.bw.Buffered() > 0 {
				w.err = w.bw.Flush()
			}
			seen = w.writes
			w.mu.Unlock()
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-done
		})
	}
}

// Flush writes any buffered data and returns the first error seen.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.err = w.bw.Flush()
	return w.err
}
