package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLine is the default longest line a Reader accepts. Long-context records (LongMemEval
// haystacks) run to several megabytes, so the default is generous.
const DefaultMaxLine = 64 << 20

// MaxDepth is how deeply a line a Reader accepts may nest objects and lists, the record's own
// object included: encoding/json's limit, which the Reader checks every line against. A deeper
// line is a bad line.
const MaxDepth = 10000

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

// keepBuf is the largest line buffer a Reader keeps for the next line whatever the line read
// last: a larger one, grown for a long line, is kept while the lines read fill a quarter of it,
// and dropped once a shorter one was read, so that one long line does not hold its memory for
// the rest of the run (nor does a line too long to keep, which leaves the buffer empty).
const keepBuf = 1 << 20

// NewReader returns a Reader over r; file names the input in errors ("" for stdin).
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 1<<16), file: file, maxLine: DefaultMaxLine}
}

// SetMaxLine sets the longest line accepted, in bytes. n must be 1 or more; SetMaxLine panics
// otherwise, as a limit that refuses every line is a programming error.
func (r *Reader) SetMaxLine(n int) {
	if n < 1 {
		panic(fmt.Sprintf("record: SetMaxLine(%d): want 1 or more bytes", n))
	}
	r.maxLine = n
}

// Line returns the number of the line read last (1-based).
func (r *Reader) Line() int { return r.line }

// File returns the input name given to NewReader.
func (r *Reader) File() string { return r.file }

// Read returns the next record. A malformed line (not a record, not JSON, not UTF-8, too long)
// yields a *Error (the caller may report it and call Read again); the end of input yields
// io.EOF; any other error, the underlying reader's, is fatal. Blank lines are skipped.
func (r *Reader) Read() (*Record, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec, err := r.decode(line)
		if err != nil {
			r.bad = line
		}
		return rec, err
	}
}

// BadLine returns what was read of the line the last error from Read or ReadRaw was about: its
// first 4 kB when it was too long to keep, else all of it (a line that is not UTF-8 text, or one
// Read could not decode as a record), so that a caller whose lines name their ids under other
// keys than "id" can find the id there, or one that finds no records can tell what the lines
// are; nil after a good line. It is valid until the next read.
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
	if err := rec.ValidateLine(line); err != nil {
		e := r.errorf(rec.ID, "%s", err)
		e.Record = rec.Schema != 0
		return nil, e
	}
	return rec, nil
}

// HasSchema reports whether line is a JSON object with a "schema" member: a record, if perhaps a
// bad one. A schema of null, 0 or -0 is none, as Validate finds it missing ("schema" missing or 0),
// so that a file whose lines all carry one is no file of records in every stage. A line that is
// no whole JSON value counts when a "schema" member comes before what breaks it: a record cut
// short (the last line of an input whose writer stopped) or mistyped.
func HasSchema(line []byte) bool {
	if !bytes.HasPrefix(bytes.TrimLeft(line, " \t\r"), []byte("{")) {
		return false
	}
	var v struct {
		Schema json.RawMessage `json:"schema"`
	}
	if unmarshal(line, &v) == nil {
		return v.Schema != nil && !noSchema(v.Schema)
	}
	return headHasSchema(line)
}

// noSchema reports whether v, a "schema" member's value, gives no schema as Validate reads it
// ("missing or 0"): null, 0 or -0. A 0.0 is a schema written wrong, which the decoder refuses as
// no integer: a record's error.
func noSchema(v []byte) bool {
	switch string(bytes.TrimSpace(v)) {
	case "null", "0", "-0":
		return true
	}
	return false
}

// errNotRecord is the error of a line with neither an id nor a schema.
var errNotRecord = errors.New(`not a qapipe record: no "schema" and no "id" (qa-load turns benchmark files into records)`)

// Unended reports whether the line read last ended at the end of the input, with no line end.
func (r *Reader) Unended() bool { return r.unended }

// Validate checks what every stage relies on: an id and a known schema version. A line with
// neither is most likely a benchmark's own data given to a stage that wants records, and the
// message says what turns it into records. ValidateLine tells, of a decoded line, an empty id
// from a missing one.
func (r *Record) Validate() error {
	switch {
	case r.ID == "" && r.Schema == 0:
		return errNotRecord
	case r.ID == "":
		return errMissingID
	case r.Schema == 0:
		return errNoSchema
	case r.Schema != SchemaVersion:
		return fmt.Errorf("schema %d is not supported (want %d)", r.Schema, SchemaVersion)
	}
	return nil
}

// errMissingID and errNoSchema are Validate's errors of a record without an id, and of one
// without a schema.
var (
	errMissingID = errors.New(`missing field "id"`)
	errNoSchema  = fmt.Errorf(`field "schema" missing or 0 (records carry "schema": %d; qa-load turns other files into records)`, SchemaVersion)
)

// ValidateLine is Validate of r, decoded from line, a JSON object, telling an id that is "" from
// one missing (or null): `field "id" is empty`, where Validate says `missing field "id"`, and a
// line of an empty id and no schema is told of the schema, as a line with an id is. Every stage
// that reads records checks them so.
//
// Note: an empty id was reported as a missing one, sending the reader to look for a member the
// line has.
func (r *Record) ValidateLine(line []byte) error {
	err := r.Validate()
	if (err == errMissingID || err == errNotRecord) && hasStringID(line) {
		if r.Schema == 0 {
			return errNoSchema
		}
		return errors.New(`field "id" is empty`)
	}
	return err
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
	r.bad = nil
	if cap(r.buf) > keepBuf && len(r.buf) < cap(r.buf)/4 {
		r.buf = nil // grown for a long line: not kept for the short ones after it
	}
	r.buf = r.buf[:0]
	tooLong := false
	read := 0 // bytes of the line read, kept or not
	for {
		chunk, err := r.br.ReadSlice('\n')
		read += len(chunk)
		if !tooLong {
			// Subtracted from the length, not added to the limit, which may be math.MaxInt.
			if len(r.buf)+len(chunk)-len("\r\n") > r.maxLine {
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
			if read == 0 { // nothing after the last line end, whatever the limit
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
		if i := RecordsCR(line); i >= 0 && !json.Valid(line) {
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

// crError is the error of the line just read, which has CR line endings, the first at byte i. It
// names no id: the line holds the records of several.
func (r *Reader) crError(i int) *Error {
	return &Error{File: r.file, Line: r.line, Err: CRLineEndings(i + 1)}
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
	walkMembers(head, func(q []byte, escaped bool, _, vStart, vEnd int) error { //nolint:errcheck // a cut line ends in an error
		if key, err := decodeKey(q, escaped); err == nil && key == "schema" {
			found = !noSchema(head[vStart:vEnd])
		}
		return nil
	})
	return found
}
