package record

// This file says what is wrong with a line the Reader or a stage could not read (see stream.go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

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

// Error returns Place, a colon and what is wrong.
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

// Unwrap returns what is wrong, so that errors.Is finds ErrLineTooLong, ErrCutLine and the like.
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
	// Wide is set when the text holds NUL bytes too: most likely UTF-16 or UTF-32 without a byte
	// order mark, which converting from Latin-1 would garble.
	Wide bool
}

// Error names the byte and its column and says how to convert the text.
func (e *UTF8Error) Error() string {
	at := fmt.Sprintf("column %d", e.Column)
	if e.Within != "" {
		at = fmt.Sprintf("byte %d of the %s", e.Column, e.Within)
	}
	if e.Wide {
		return fmt.Sprintf("not UTF-8 text: byte 0x%02X at %s, and NUL bytes: %s", e.Byte, at, wideAdvice)
	}
	return fmt.Sprintf("not UTF-8 text: byte 0x%02X at %s (convert the file to UTF-8, e.g. iconv -f latin1 -t utf-8)", e.Byte, at)
}

// wideAdvice is what a line holding NUL bytes most likely is, and how to mend it: no JSON text
// holds a raw NUL, and UTF-16 and UTF-32 put one beside every ASCII character.
const wideAdvice = "text in UTF-16 or UTF-32 without a byte order mark? convert the file to UTF-8 first (iconv -f UTF-16LE -t utf-8, or from UTF-16BE, UTF-32LE or UTF-32BE)"

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
	return &UTF8Error{Byte: b[i], Column: i + 1, Wide: bytes.IndexByte(b, 0) >= 0}
}

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
// own data, whose first field of the wrong type says less than that. A note follows the words of
// a line with NUL bytes, or with NaN or Infinity where the syntax fails (PythonConstant).
func InvalidLine(line []byte, err error) error {
	var v struct {
		Schema json.RawMessage `json:"schema"`
		ID     json.RawMessage `json:"id"`
	}
	if bytes.HasPrefix(bytes.TrimLeft(line, " \t\r"), []byte("{")) && unmarshal(line, &v) == nil && v.Schema == nil && v.ID == nil {
		return errNotRecord
	}
	note := "" // what the decoder's words leave unsaid
	if bytes.IndexByte(line, 0) >= 0 {
		note = " (NUL bytes in the line: " + wideAdvice + ")"
	}
	msg := DescribeDecodeError(err)
	// The byte is found as qa-load finds it (encoding/json's Offset), on a line already refused.
	se, syntax := errors.AsType[*json.SyntaxError](json.Unmarshal(line, new(json.RawMessage)))
	if syntax {
		msg = WholeCharacter(msg, line, se.Offset-1)
	}
	if col := NotJSON(line); col > 0 {
		return fmt.Errorf("not JSON at column %d: %s%s", col, msg, note)
	}
	if syntax {
		note += PythonConstant(line, se.Offset-1) + Joined(line, PeekID)
	}
	return fmt.Errorf("invalid record: %s%s", msg, note)
}

// Joined returns a note on a line that holds a JSON object and, after it, the start of another:
// two records on one line, as cat leaves a file whose last line has no line end and the next
// file's first. The decoder's words ("invalid character '{' after top-level value") name neither
// the cause nor the second record, which is skipped with the first; the note gives its column
// and its id, as id reads it from the rest of the line (PeekID for a record; qa-load passes its
// format's), when it finds one. Otherwise it returns "".
func Joined(line []byte, id func([]byte) string) string {
	dec := json.NewDecoder(bytes.NewReader(line))
	var first json.RawMessage
	if dec.Decode(&first) != nil || !bytes.HasPrefix(first, []byte("{")) {
		return ""
	}
	end := int(dec.InputOffset())
	rest := bytes.TrimLeft(line[end:], " \t\r\n")
	if !bytes.HasPrefix(rest, []byte("{")) {
		return ""
	}
	at := len(line) - len(rest)
	named := ""
	if k := id(rest); k != "" {
		named = fmt.Sprintf(", id %q", k)
	}
	return fmt.Sprintf(" (another JSON object follows at column %d%s: two records on one line, both skipped; "+
		"was a file whose last line has no line end joined to the next, as cat does?)", at+1, named)
}

// WholeCharacter returns msg, a decoder's words for a syntax error at byte bad of b, with the
// character there named whole when it is not ASCII: both JSON decoders name the byte where the
// syntax fails as a character of its own, as if the text were Latin-1 ("invalid character 'Ã'"
// for "é", 'Â' for a no-break space), which reads as text decoded in the wrong encoding. A
// character that does not print is named by its escape ('\u00a0').
func WholeCharacter(msg string, b []byte, bad int64) string {
	if bad < 0 || bad >= int64(len(b)) || b[bad] < utf8.RuneSelf {
		return msg
	}
	r, size := utf8.DecodeRune(b[bad:])
	if r == utf8.RuneError && size <= 1 {
		return msg
	}
	return strings.Replace(msg, "invalid character '"+string(rune(b[bad]))+"'", "invalid character "+strconv.QuoteRune(r), 1)
}

// PythonConstant returns a note on a syntax error at byte bad of b when the bytes there begin
// NaN or Infinity (or -Infinity), which Python's json writes for such floats but JSON has no
// value for: the decoders' words ("invalid character 'N' looking for beginning of value") do not
// say what was meant, nor where it came from. Otherwise it returns "".
func PythonConstant(b []byte, bad int64) string {
	if bad < 0 || bad >= int64(len(b)) {
		return ""
	}
	for _, lit := range []string{"NaN", "Infinity"} {
		if bytes.HasPrefix(b[bad:], []byte(lit)) {
			if lit == "Infinity" && bad > 0 && b[bad-1] == '-' {
				lit = "-Infinity"
			}
			return " (" + lit + " is an extension of Python's json, not JSON: write null or a number there)"
		}
	}
	return ""
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

// RecordsCR returns LoneCR's index for a line that is no JSON when the carriage return there
// stands between records, as in a file with CR line endings: a '}' before it or a '{' after it,
// blanks aside. Else it returns -1: a carriage return inside a string (which JSON would have
// escaped as \r) has text on both sides, and the line is a bad one of its own, which tr '\r'
// '\n' would cut in two.
func RecordsCR(line []byte) int {
	i := LoneCR(line)
	if i < 0 {
		return -1
	}
	before, after := bytes.TrimRight(line[:i], " \t\r"), bytes.TrimLeft(line[i+1:], " \t\r")
	if bytes.HasSuffix(before, []byte("}")) || bytes.HasPrefix(after, []byte("{")) {
		return i
	}
	return -1
}

// CRLineEndings returns the error, wrapping ErrCRLineEndings, of a line whose first carriage
// return with no line feed after it is at byte column col: it says how to convert the file.
// qa-load words a CSV file's with it.
func CRLineEndings(col int) error {
	return fmt.Errorf("%w (a carriage return with no line feed after it, at column %d): convert them to LF with tr '\\r' '\\n'", ErrCRLineEndings, col)
}
