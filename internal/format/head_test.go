package format

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"weak"
)

// TestFirstObject: FirstObject stops at the byte that ends the first object, the top-level one
// or a top-level array's first item, or with data the first item of a top-level object's "data"
// list where that item is a SQuAD article, or at the first byte that shows there is none, or no
// JSON, and reads no further: given its input a byte at a time, as a slow pipe may give it, it
// returns the same bytes as given the input whole. An object longer than the reader's buffer is
// read whole.
func TestFirstObject(t *testing.T) {
	long := `{"a": "` + strings.Repeat("x", 10000) + `"}`
	for _, tt := range []struct {
		in   string
		data bool
		want string // the bytes read when it returns
	}{
		{`[{"a": "}]\"{"}, {"b": 1}]`, false, `[{"a": "}]\"{"}`},
		{` ` + "\n" + `{"a": {"b": ["}"]}, "c": "\\"}` + "\n" + `{"d": 2}`, false, ` ` + "\n" + `{"a": {"b": ["}"]}, "c": "\\"}`},
		{`{"version": "1.1", "data": [{"title": "t", "paragraphs": []}, {"title": "u"}]}`, true, `{"version": "1.1", "data": [{"title": "t", "paragraphs": []}`},
		{`{"data": [{"paragraphs": [{"qas": []}], "id": "DEV_0"}], "version": "v1.0"}`, true, `{"data": [{"paragraphs": [{"qas": []}], "id": "DEV_0"}`},
		// A "data" list of anything but SQuAD articles, or none, is read on: a row's data column.
		{`{"data": [{"title": "t"}, {"paragraphs": []}], "_id": "x"}` + "\n{}", true, `{"data": [{"title": "t"}, {"paragraphs": []}], "_id": "x"}`},
		{`{"data": [{"a": {"paragraphs": []}, "b": "paragraphs"}], "_id": "x"}`, true, `{"data": [{"a": {"paragraphs": []}, "b": "paragraphs"}], "_id": "x"}`},
		{`{"version": "1.1", "data": [], "x": 1}`, true, `{"version": "1.1", "data": [], "x": 1}`},
		{`{"data": ["t", {"title": "t"}], "x": [1]}`, true, `{"data": ["t", {"title": "t"}], "x": [1]}`},
		{`{"data": [null, 1], "x": {}}`, true, `{"data": [null, 1], "x": {}}`},
		{`{"data": [[1]], "x": 1}`, true, `{"data": [[1]], "x": 1}`},
		{long + "\n" + `{"b": 1}`, false, long},                        // longer than the buffer's 4096 bytes
		{"[" + long + `, {"b": 1}]`, false, "[" + long},                // likewise
		{`{"a": "cut` + "\n" + `{"b": 1}`, false, `{"a": "cut` + "\n"}, // a line cut in a string
		{"{\"a\": \"x\x1f\"}\n{\"b\": 1}", false, "{\"a\": \"x\x1f"},   // any control character
		{`{"a": {}"b": 1}` + "\n" + `{"b": 1}`, false, `{"a": {}"`},    // a key after a value, no comma
		{`{"a": ["x"]"b": 1}` + "\n" + `{"b": 1}`, false, `{"a": ["x"]"`},
		{`{"a": "cut"` + "\n" + `{"b": 1}`, false, `{"a": "cut"` + "\n" + `{`}, // a line cut after a value
		{`{"a": [1]` + "\n" + `{"b": 1}`, false, `{"a": [1]` + "\n" + `{`},     // likewise
		{`x"}` + "\n" + `{"b": 1}`, false, `x`},                                // a line cut at its start
		{`"a"`, false, `"`},                                                    // no object
		{`}` + "\n" + `{"b": 1}`, false, `}`},
		{`{"version": "1.1", "data": [{"title": "t"}]}`, false, `{"version": "1.1", "data": [{"title": "t"}]}`},
		{`{"data": {"x": [1]}, "y": [2]}`, true, `{"data": {"x": [1]}, "y": [2]}`}, // no list
		{`{"a": "data", "b": [1]}`, true, `{"a": "data", "b": [1]}`},               // a value, not a key
		{`[[1], {"a": 1}]`, false, `[[`},
		{`[1, {"a": 1}]`, false, `[1`},
		{`["s", {"a": 1}]`, false, `["s"`},
		{`[]`, false, `[]`},
		{`[{"a": 1`, false, `[{"a": 1`}, // the input ended first
	} {
		r, w := io.Pipe()
		go func() {
			for i := range len(tt.in) {
				w.Write([]byte{tt.in[i]})
			}
			w.Close()
		}()
		br := bufio.NewReader(r)
		got := string(FirstObject(br, tt.data))
		whole := string(FirstObject(bufio.NewReader(strings.NewReader(tt.in)), tt.data))
		if got != tt.want || whole != tt.want {
			t.Errorf("FirstObject(%q, %v) read %q a byte at a time (%q whole), want %q", tt.in, tt.data, got, whole, tt.want)
		}
		br.Discard(br.Buffered())
		go io.Copy(io.Discard, r) // the writer's other bytes
	}
}

// FuzzFirstObject: FirstObject, and Head, which reads on from where it stops, return the same
// bytes whether their input comes whole or a byte at a time, so that what a file is taken for
// does not hang on how a pipe cut it; HeadOf, given the input's text, returns Head's.
func FuzzFirstObject(f *testing.F) {
	for _, s := range []string{`[{"a": "}]\"{"}, {"b": 1}]`, `{"version": "1.1", "data": [{"title": "t"}]}`,
		`{"data": {"x": [1]}, "y": [2]}`, `{"a": "data", "b": [1]}`, `[[1], {"a": 1}]`, `["s", {"a": 1}]`, `[{"a": 1`,
		`{"d\u0061ta": [1], "data": [2]}`, " \n{\"a\": \"\\\\\"}\n{}", "x}\n\n{\"a\": 1}\n{}", "{\"a\": \"cut\n{\"b\": 1}\n",
		"{\"data\": [{\"paragraphs\": []}, 1]}", "{\"data\": [{\"title\": \"t\"}], \"_id\": 1}\n{}", "{\"data\": [], \"x\": [\"y\"]}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, data := range []bool{false, true} {
			whole := FirstObject(bufio.NewReader(bytes.NewReader(in)), data)
			slow := FirstObject(bufio.NewReader(iotest.OneByteReader(bytes.NewReader(in))), data)
			if !bytes.Equal(whole, slow) {
				t.Errorf("FirstObject(%q, %v) = %q a byte at a time, %q whole", in, data, slow, whole)
			}
		}
		whole, _, _ := Head(bufio.NewReader(bytes.NewReader(in)))
		slow, _, _ := Head(bufio.NewReader(iotest.OneByteReader(bytes.NewReader(in))))
		if !bytes.Equal(whole, slow) {
			t.Errorf("Head(%q) = %q a byte at a time, %q whole", in, slow, whole)
		}
		if of := HeadOf(in); !bytes.Equal(of, whole) {
			t.Errorf("HeadOf(%q) = %q, Head's %q", in, of, whole)
		}
	})
}

// TestDetectHead: detection decides on the first object (a SQuAD file's first article), or,
// where the text opens no JSON object or a faulty one, on the first two lines that are not
// blank; the same bytes whether the input comes whole or a byte at a time, or as text (HeadOf).
func TestDetectHead(t *testing.T) {
	record := `{"schema":1,"id":"b","question":"q"}`
	for _, tt := range []struct{ in, want string }{
		{record + "\n" + record + "\n", record},
		{`{"data": [{"paragraphs": []}, {"paragraphs": []}]}`, `{"data": [{"paragraphs": []}`},
		{`wers":["x"]}` + "\n" + record + "\n" + record + "\n", `wers":["x"]}` + "\n" + record + "\n"},
		{`"}}` + "\r\n\n" + record + "\n" + record, `"}}` + "\r\n\n" + record + "\n"},
		{`{"schema":1,"id":"a","qu` + "\n" + record + "\n" + record, `{"schema":1,"id":"a","qu` + "\n" + record + "\n"},
		{"id,question\n1,q\n2,r\n", "id,question\n1,q\n"},
		{"x}\n" + record, "x}\n" + record}, // the input ended first
		// a file of records cut at its start within a nested object: the line holds more after it
		{`{"title":"T"}],"meta":{}}` + "\n" + record + "\n" + record, `{"title":"T"}],"meta":{}}` + "\n" + record + "\n"},
		{`{"t":1} {"u":2}` + "\n" + record + "\n", `{"t":1} {"u":2}` + "\n" + record + "\n"},
		{record + " \r\n" + record + "\n", record},
		// lines that carriage returns alone end: the object is its line's only JSON
		{record + "\r" + record + "\r", record},
		{record + " \r" + record + "\r", record},
		{record, record},
		{record + " \t", record}, // the input ended in the blanks after it
		{" " + record + "  ", " " + record},
	} {
		whole, _, err := Head(bufio.NewReader(strings.NewReader(tt.in)))
		slow, _, _ := Head(bufio.NewReader(iotest.OneByteReader(strings.NewReader(tt.in))))
		if string(whole) != tt.want || string(slow) != tt.want || err != nil {
			t.Errorf("Head(%q) = %q, %v (%q a byte at a time), want %q", tt.in, whole, err, slow, tt.want)
		}
		if of := HeadOf([]byte(tt.in)); string(of) != tt.want {
			t.Errorf("HeadOf(%q) = %q, want %q", tt.in, of, tt.want)
		}
	}
}

// TestDetectHeadFull: a first object longer than MaxHead gives its first MaxHead bytes,
// full, and leaves them to be read.
func TestDetectHeadFull(t *testing.T) {
	in := `{"q": "` + strings.Repeat("x", MaxHead) + `"}`
	br := bufio.NewReader(strings.NewReader(in))
	head, full, err := Head(br)
	if len(head) != MaxHead || !full || err != nil {
		t.Fatalf("Head(a %d-byte object) = %d bytes, full %v, %v; want %d, true, nil", len(in), len(head), full, err, MaxHead)
	}
	if rest, err := io.ReadAll(br); string(rest) != in || err != nil {
		t.Errorf("after Head, the reader gives %d bytes, %v; want the input's %d", len(rest), err, len(in))
	}
}

// TestGrowLetsGo: the buffers a long head outgrows are let go of as it grows, all but the first
// (behind which the input is read on): each growth read from a copy of the reader before it, so
// that every buffer was kept until the input ended, as long in all as the head.
func TestGrowLetsGo(t *testing.T) {
	in := `{"q": "` + strings.Repeat("x", 1<<20) + `"}` + "\n{}\n"
	for _, r := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.HalfReader} {
		br := bufio.NewReaderSize(r(strings.NewReader(in)), 4096)
		var bufs []weak.Pointer[byte] // each buffer head was peeked from
		s := objectScan{data: true}
		head, _, err := peekUntil(br, func(head []byte) int {
			if len(head) > 0 && (len(bufs) == 0 || weak.Make(&head[0]) != bufs[len(bufs)-1]) {
				bufs = append(bufs, weak.Make(&head[0]))
			}
			return s.end(head)
		})
		if len(head) != len(in)-len("\n{}\n") || err != nil {
			t.Fatalf("peekUntil(a %d-byte object) = %d bytes, %v", len(in)-len("\n{}\n"), len(head), err)
		}
		runtime.GC()
		runtime.GC()
		var kept []int
		for i, p := range bufs {
			if p.Value() != nil {
				kept = append(kept, i)
			}
		}
		if want := []int{0, len(bufs) - 1}; !slices.Equal(kept, want) {
			t.Errorf("of the %d buffers of a growing head, %v are kept; want %v, the first and br's", len(bufs), kept, want)
		}
		if rest, err := io.ReadAll(br); string(rest) != in || err != nil {
			t.Errorf("after peekUntil, the reader gives %d bytes, %v; want the input's %d", len(rest), err, len(in))
		}
	}
}
