package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// readResult is one Read: a record, or the line and kind of a bad line's error.
type readResult struct {
	rec     *Record
	line    int
	tooLong bool
	utf8    bool
	cr      bool // a line with CR line endings (ErrCRLineEndings)
}

// referenceRead is what a Reader with the given longest line reads from data, worked out over the
// whole input at once: lines end at "\n" (a "\r" before it is the line's too), blank lines are
// skipped, the length of a line is that of its text without its terminator, and a line's leading
// byte order mark is dropped after that. A line that is too long, or is no JSON, is one with CR
// line endings when a carriage return with text after it is in it (between records, when not
// too long: see RecordsCR); when it is longer than the
// maximum with its terminator, in what the Reader holds of it: its bytes up to the end of the
// buffer's worth (of bufSize bytes) that took it past the maximum, at most headLen.
func referenceRead(data []byte, maxLine, bufSize int) []readResult {
	var out []readResult
	lines := bytes.Split(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		raw := l
		if i < len(lines)-1 || len(data) > 0 && data[len(data)-1] == '\n' {
			raw = append(raw[:len(raw):len(raw)], '\n')
		}
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(l) > maxLine {
			head := l
			if len(raw) > maxLine+len("\r\n") {
				held := (maxLine + len("\r\n") + bufSize) / bufSize * bufSize
				head = raw[:min(len(raw), held, headLen)]
			}
			if LoneCR(head) >= 0 {
				out = append(out, readResult{line: i + 1, cr: true})
			} else {
				out = append(out, readResult{line: i + 1, tooLong: true})
			}
			continue
		}
		if b := bytes.TrimPrefix(l, byteOrderMark); RecordsCR(b) >= 0 && !json.Valid(b) {
			out = append(out, readResult{line: i + 1, cr: true})
			continue
		}
		switch {
		case !utf8.Valid(bytes.TrimPrefix(l, byteOrderMark)):
			out = append(out, readResult{line: i + 1, utf8: true})
			continue
		}
		l = bytes.TrimPrefix(l, byteOrderMark)
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		rec := new(Record)
		if Unmarshal(l, rec) != nil || rec.Validate() != nil {
			out = append(out, readResult{line: i + 1})
			continue
		}
		out = append(out, readResult{rec: rec, line: i + 1})
	}
	return out
}

// FuzzReader checks the Reader's own line framing (a small buffer, so that lines come in pieces,
// and a small --max-line) against referenceRead: the same records and bad lines, at the same line
// numbers, and each bad line a *Error the caller can skip.
func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"schema":1,"id":"a","question":"q","answers":[]}`+"\n\n"+`{"schema":1,"id":"b"}`+"\r\n"), uint8(60), false)
	f.Add([]byte("\ufeff{\"schema\":1,\"id\":\"a\"}\n\xff\n{}"), uint8(21), true)
	f.Add([]byte("abc\r\nabcd\nabcde"), uint8(3), false)
	f.Add([]byte(strings.Repeat("x", 40)+"\n"+`{"schema":1,"id":"c"}`), uint8(25), true)
	f.Add([]byte(`{"schema":1,"id":"a"}`+"\r"+`{"schema":1,"id":"b"}`+"\n000\r0\n"), uint8(60), false)
	f.Fuzz(func(t *testing.T, data []byte, most uint8, oneByte bool) {
		maxLine := int(most%64) + 1
		var in io.Reader = bytes.NewReader(data)
		if oneByte {
			in = iotest.OneByteReader(in)
		}
		const bufSize = 16
		r := &Reader{br: bufio.NewReaderSize(in, bufSize), file: "f", maxLine: maxLine}
		want := referenceRead(data, maxLine, bufSize)
		for k := 0; ; k++ {
			rec, err := r.Read()
			if err == io.EOF {
				if k != len(want) {
					t.Fatalf("Read(%q, max %d): EOF after %d results, want %d", data, maxLine, k, len(want))
				}
				return
			}
			if k >= len(want) {
				t.Fatalf("Read(%q, max %d): result %d (%v, %v) past the %d wanted", data, maxLine, k, rec, err, len(want))
			}
			w := want[k]
			var e *Error
			var ue *UTF8Error
			switch {
			case err != nil && !errors.As(err, &e):
				t.Fatalf("Read(%q, max %d): %v, not a *Error", data, maxLine, err)
			case r.Line() != w.line || (e != nil && e.Line != w.line):
				t.Fatalf("Read(%q, max %d): result %d at line %d (%v), want line %d", data, maxLine, k, r.Line(), err, w.line)
			case (err != nil) != (w.rec == nil):
				t.Fatalf("Read(%q, max %d): line %d = %v, %v; want record %v", data, maxLine, w.line, rec, err, w.rec)
			case errors.Is(err, ErrLineTooLong) != w.tooLong || errors.As(err, &ue) != w.utf8 || errors.Is(err, ErrCRLineEndings) != w.cr:
				t.Fatalf("Read(%q, max %d): line %d error %v, want too long %v, not UTF-8 %v, CR line endings %v", data, maxLine, w.line, err, w.tooLong, w.utf8, w.cr)
			case w.rec != nil && !cmp.Equal(rec, w.rec, cmp.AllowUnexported(Record{}, Prediction{}, Usage{}, Passage{}, Judgment{}, Sequence{}, Batch{}, emptyMember{})):
				t.Fatalf("Read(%q, max %d): line %d = %+v, want %+v", data, maxLine, w.line, rec, w.rec)
			}
		}
	})
}

// FuzzPeekIDCut: a record line cut anywhere, as a full disk or a killed writer leaves it, is named
// by its id once the id member is whole (every stage writes it second, after the schema), and by
// no other id before that.
func FuzzPeekIDCut(f *testing.F) {
	f.Add("hotpotqa:5a8b", "Who?", "x", 40)
	f.Add(`q"\u2028`, "", "{\"id\":\"fake\"}", 1000)
	f.Fuzz(func(t *testing.T, id, question, meta string, cut int) {
		if id == "" || !utf8.ValidString(id) || !utf8.ValidString(question) || !utf8.ValidString(meta) {
			t.Skip() // an id is required, and the writer's strings are UTF-8
		}
		rec := &Record{Schema: SchemaVersion, ID: id, Question: question, Answers: []string{meta},
			Meta: map[string]json.RawMessage{"note": json.RawMessage(`{"id":"not this"}`)}}
		line, err := rec.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		ms, err := Members(line)
		if err != nil || len(ms) < 2 || ms[1].Key != "id" {
			t.Fatalf("Members(%s) = %v, %v; want the id second", line, ms, err)
		}
		idEnd := ms[1].End
		cut = min(max(cut, 0), len(line))
		got := PeekID(line[:cut])
		switch {
		case cut >= idEnd && got != id:
			t.Errorf("PeekID(%q) = %q, want %q (the id member is whole)", line[:cut], got, id)
		case cut < idEnd && got != "" && got != id:
			t.Errorf("PeekID(%q) = %q, want %q or none", line[:cut], got, id)
		}
	})
}
