package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/record"
)

// endlessArray yields head, then item(0), item(1), … separated by ",\n", forever, counting the
// bytes it served.
type endlessArray struct {
	head string
	item func(n int) string
	buf  bytes.Buffer
	n    int
	read int64
}

func (e *endlessArray) Read(p []byte) (int, error) {
	for e.buf.Len() < len(p) {
		if e.n == 0 {
			e.buf.WriteString(e.head)
		} else {
			e.buf.WriteString(",\n")
		}
		e.buf.WriteString(e.item(e.n))
		e.n++
	}
	n, _ := e.buf.Read(p)
	e.read += int64(n)
	return n, nil
}

// LongMemEval files are gigabytes: records must come out while the array is still being read.
func TestLongMemEvalStreams(t *testing.T) {
	src := &endlessArray{head: "[", item: func(n int) string {
		return fmt.Sprintf(`{"question_id": "q%d", "question_type": "multi-session", "question": "q?", "answer": %d, `+
			`"question_date": "d", "haystack_session_ids": ["s"], "haystack_dates": ["d"], "haystack_sessions": [[{"role": "user", "content": "%s"}]]}`,
			n, n, strings.Repeat("x", 10_000))
	}}
	stop := errors.New("stop")
	var ids []string
	err := LongMemEval(Input{Name: "endless.json", R: src}, Options{}, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			t.Fatalf("bad item: %v", bad)
		}
		ids = append(ids, r.ID)
		if len(ids) == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("LongMemEval = %v, want the emit error back", err)
	}
	if ids[2] != "longmemeval:q2" || src.read > 1<<20 {
		t.Errorf("got %v after reading %d bytes; want 3 records from well under 1 MiB", ids, src.read)
	}
}

func TestArrayLineNumbers(t *testing.T) {
	in := "[\n  {\"_id\": \"a\", \"question\": \"q\", \"answer\": \"x\"},\n  {\n    \"_id\": \"b\",\n    \"question\": 5\n  },\n" +
		"  {\"question\": \"no id\"},\n\n  {\"_id\": \"d\", \"question\": \"q\", \"answer\": \"y\"}\n]\n"
	var bads []string
	var ids []string
	err := HotpotQA(Input{Name: "a.json", R: strings.NewReader(in)}, Options{}, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			bads = append(bads, bad.Error())
		} else {
			ids = append(ids, r.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`a.json:3 (id "hotpotqa:b"): question: want a string, got a number`, `a.json:7: missing field "_id"`}
	if strings.Join(bads, "\n") != strings.Join(want, "\n") || strings.Join(ids, ",") != "hotpotqa:a,hotpotqa:d" {
		t.Errorf("bad = %q, ids = %q; want %q and hotpotqa:a,hotpotqa:d", bads, ids, want)
	}
}

// A SQuAD file is one JSON object: its questions must come out article by article.
func TestSQuADStreams(t *testing.T) {
	src := &endlessArray{head: `{"version": "v2.0", "data": [`, item: func(n int) string {
		return fmt.Sprintf(`{"paragraphs": [{"qas": [{"id": "q%d", "question": "q?", "answers": [], "is_impossible": true}], `+
			`"context": "%s"}], "title": "t%d"}`, n, strings.Repeat("x", 10_000), n)
	}}
	stop := errors.New("stop")
	var recs []*record.Record
	err := SQuAD(Input{Name: "endless.json", R: src}, Options{}, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			t.Fatalf("bad item: %v", bad)
		}
		if recs = append(recs, r); len(recs) == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("SQuAD = %v, want the emit error back", err)
	}
	if r := recs[2]; r.ID != "squad:q2" || r.Context[0].Title != "t2" || len(r.Context[0].Text) != 10_000 || src.read > 1<<20 {
		t.Errorf("got %s (title %q) after reading %d bytes; want squad:q2 in t2 from well under 1 MiB", r.ID, r.Context[0].Title, src.read)
	}
}

func TestTruncatedArrayIsFatal(t *testing.T) {
	item := `{"_id": "a", "question": "q", "answer": "x"}`
	for _, tc := range []struct {
		in, want string
		items    int
	}{
		{"[\n " + item + ",\n {\"_id\": \"b\", \"quest", "t.json:3: unexpected end of JSON array", 1},
		// cut at an item's end (head -n over one item a line): the ']' is missing all the same
		{"[\n " + item + ",\n " + item + "\n", "t.json:4: unexpected end of JSON array", 2},
		{"[" + item + "," + item, "t.json:1: unexpected end of JSON array", 2},
		{"[\n " + item + ",\n", "t.json:3: unexpected end of JSON array", 1},
		{"[\n", "t.json:2: unexpected end of JSON array", 0},
		{"[", "t.json:1: unexpected end of JSON array", 0},
		{"[]", "", 0},
	} {
		n := 0
		err := HotpotQA(Input{Name: "t.json", R: strings.NewReader(tc.in)}, Options{}, func(*record.Record, int, error) error { n++; return nil })
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want || n != tc.items {
			t.Errorf("HotpotQA(%q) = %q after %d items, want %q after %d", tc.in, got, n, tc.want, tc.items)
		}
	}
}

// FuzzLoaders feeds arbitrary input to every single-file loader: no panic, and every record it
// emits is valid and encodes as one JSON line.
func FuzzLoaders(f *testing.F) {
	for _, name := range []string{"squad_v20_synthetic.json", "longmemeval_synthetic.json", "generic.jsonl",
		"generic.csv", "hotpotqa_array5.json", "evalearn_results_edge60.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 8<<10 {
			b = b[:8<<10]
		}
		f.Add(b)
	}
	f.Add([]byte(`[{"qa": [{"question": "q", "answer": 1, "category": 5}], "conversation": {"session_1": []}, "sample_id": "c"}]`))
	f.Add([]byte("[1, \"x\", null, {}]"))
	f.Add([]byte("[\n  {\"schema\": 1, \"id\": \"a\", \"meta\": {\n    \"k\": 2.50}, \"x\": [\n 1e5]},\n  {\"schema\": 2}, {\"id\": 3}\n]"))
	f.Add([]byte(`{"qid":"1","q":"x","q":"y","gold":"a"}` + "\n" + `{"qid":"2","q":" ","gold":"b"}` + "\n"))
	f.Add([]byte(`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"},"x":[1]}` + "\n\n{\"schema\":2}\n"))
	f.Add([]byte(`{"id":"1","q":{"text":"x","n":1},"answers":{"text":["a"],"answer_start":[0]},"meta":{"qid":2}}` + "\n" +
		`[{"q":{"text":"y"},"answers":{"text":[],"text":[]}},{"q":[],"meta":null}]`))
	f.Add([]byte(`{"q":"x","prediction":"p","prediction_score":-1e-3,"prediction_supporting_facts":[["T",0],["U",1.0]]}` + "\n" +
		`{"q":"y","prediction":1,"prediction_score":1e400,"prediction_supporting_facts":[]}` + "\n"))
	f.Add([]byte("q,prediction,prediction_score\nx,p, .5 \ny,,NaN\nz,q,\n"))
	f.Add([]byte(`{"id":"a","title":"T","context":"c","question":"q?","answers":{"text":["c"],"answer_start":[0]}}` + "\n" +
		`{"id":"b","title":"T","context":"c","question":"q?","answers":{"text":[],"answer_start":[]},"index":1}` + "\n")) // a SQuAD export
	m, _ := ParseMap("question=q,answers=gold,id=qid,type=category")
	paths, _ := ParseMap("question=q.text,answers=answers.text,id=meta.qid,context=c\\.d")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range append(Formats(), "jsonl paths", "csv paths") {
			load, err := LoaderFor(strings.TrimSuffix(format, " paths"))
			if err != nil {
				continue // evalearn reads a pair
			}
			opt := Options{Map: m}
			if strings.HasSuffix(format, " paths") {
				opt.Map = paths
			}
			_ = load(Input{Name: "fuzz", R: bytes.NewReader(data)}, opt, func(r *record.Record, _ int, bad error) error {
				if bad != nil {
					var re *record.Error
					if !errors.As(bad, &re) {
						t.Errorf("%s: bad item %v is not a *record.Error", format, bad)
					}
					return nil
				}
				if err := r.Validate(); err != nil {
					t.Errorf("%s: invalid record %+v: %v", format, r, err)
				}
				line, err := r.MarshalJSON()
				if err != nil || bytes.ContainsAny(line, "\n\r") {
					t.Errorf("%s: record %q encodes as %q, %v", format, r.ID, line, err)
				}
				return nil
			})
		}
	})
}

var _ io.Reader = (*endlessArray)(nil)

func TestPrettyObjectStream(t *testing.T) {
	in := "{\n  \"qid\": \"p1\",\n  \"question\": \"q1\",\n  \"answers\": \"a\"\n}\n{\"qid\": \"p2\", \"question\": \"q2\"}\n{\n \"qid\": \"p3\"\n}\n"
	m, _ := ParseMap("id=qid")
	var ids, bads []string
	err := JSONL(Input{Name: "p.json", R: strings.NewReader(in)}, Options{Map: m}, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			bads = append(bads, bad.Error())
		} else {
			ids = append(ids, r.ID)
		}
		return nil
	})
	if err != nil || strings.Join(ids, ",") != "p1,p2" || len(bads) != 1 || bads[0] != `p.json:7 (id "p3"): missing field "question" (its fields: qid; if the question is under another name, give --map question=FIELD)` {
		t.Errorf("JSONL(pretty objects) = %v, ids %q, bad %q; want p1,p2 and p3 bad at line 7", err, ids, bads)
	}
}

// A stream of indented objects cut inside its last object is cut input, not a cut array: no
// bracket holds it.
func TestPrettyObjectStreamCut(t *testing.T) {
	in := "{\n \"_id\": \"a\", \"question\": \"q\", \"answer\": \"x\"\n}\n{\n \"_id\": \"b\",\n"
	ids, _, err := loadString(t, HotpotQA, "p.json", in, Options{})
	if err == nil || err.Error() != "p.json:6: unexpected end of JSON input" || len(ids) != 1 {
		t.Errorf("HotpotQA(cut object stream) = %v after %q, want p.json:6: unexpected end of JSON input after 1", err, ids)
	}
}

// What follows an array's closing bracket is no part of it: a second array (cat a.json b.json)
// or stray text stops the load, as Python's json.load stops on it, rather than being dropped.
func TestArrayTrailingData(t *testing.T) {
	item := `{"_id": "a", "question": "q", "answer": "x"}`
	for _, tc := range []struct{ in, want string }{
		{"[" + item + "]\n \n", ""},
		{"[" + item + "]\n[" + item + "]\n", "t.json:2: more JSON after the top-level array"},
		{"[\n" + item + "\n]\n\nxyz\n", "t.json:5: more JSON after the top-level array"},
		{"[" + item + "]]", "t.json:1: more JSON after the top-level array"},
	} {
		n := 0
		err := HotpotQA(Input{Name: "t.json", R: strings.NewReader(tc.in)}, Options{}, func(*record.Record, int, error) error { n++; return nil })
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want || n != 1 {
			t.Errorf("HotpotQA(%q) = %q after %d items, want %q after 1", tc.in, got, n, tc.want)
		}
	}
}

// A syntax error is named by the line and column of its byte, as Python's json.load names it, not
// by the line where the item holding it begins: in an indented file (LoCoMo's) an item runs to
// thousands of lines, and a file that is all one line (SQuAD's) needs the column.
func TestSyntaxErrorPlace(t *testing.T) {
	locomo := "[\n  {\n    \"sample_id\": \"c\",\n    \"qa\": [],\n    \"conversation\": {\n      \"speaker_a\": \"A\",\n" +
		"      \"speaker_b\" \"B\"\n    }\n  }\n]\n"
	squad := `{"data": [{"title": "t", "paragraphs": [{"context": "c", "qas": [{"id": "1", "question": "q"` + "\n" +
		` "answers": []}]}]}]}`
	for _, tc := range []struct {
		name string
		load Loader
		in   string
		want string
	}{
		{"locomo", LoCoMo, locomo, `x.json:7: invalid character '"' after object key at column 19`},
		{"hotpotqa", HotpotQA, `[{"_id": "a", "question": "q", "answer": "x"}, {"_id": "b", "question": x}]`,
			`x.json:1: invalid character 'x' looking for beginning of value at column 73`},
		{"squad", SQuAD, squad, `x.json:2: invalid character '"' after object key:value pair at column 2`},
		{"squad token", SQuAD, `{"data": [{"title": "t" "paragraphs": []}]}`,
			`x.json:1: invalid character '"' after object key:value pair at column 25`},
		// Python's json.dump writes a float nan or inf so; the hint says what the byte begins.
		{"NaN", HotpotQA, `[{"_id": "a", "question": "q", "answer": "x", "level": NaN}]`,
			`x.json:1: invalid character 'N' looking for beginning of value at column 56 (NaN is an extension of Python's json, not JSON: write null or a number there)`},
		{"-Infinity", HotpotQA, `[{"_id": "a", "question": "q", "answer": "x", "level": -Infinity}]`,
			`x.json:1: invalid character 'I' in numeric literal at column 57 (-Infinity is an extension of Python's json, not JSON: write null or a number there)`},
		{"Nope", HotpotQA, `[{"_id": "a", "question": "q", "answer": "x", "level": Nope}]`,
			`x.json:1: invalid character 'N' looking for beginning of value at column 56`},
	} {
		err := tc.load(Input{Name: "x.json", R: strings.NewReader(tc.in)}, Options{}, func(*record.Record, int, error) error { return nil })
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: load = %v, want %s", tc.name, err, tc.want)
		}
	}
}

// TestRecordsAsTheyCome: a record loaded from a line of stdin is written out before the next line
// comes, not held in the output buffer until the input ends, nor held back until 64 kB of input
// are there to see whether it looks like another format than --format's, or to pick a CSV file's
// delimiter.
func TestRecordsAsTheyCome(t *testing.T) {
	for _, tc := range []struct{ format, line string }{
		{"jsonl", `{"id":"q%d","question":"Where?","answers":["Paris"]}`},
		{"hotpotqa", `{"_id":"q%d","question":"Where?","answer":"Paris","context":[],"supporting_facts":[]}`},
		{"records", `{"schema":1,"id":"q%d","question":"Where?","answers":["Paris"]}`},
		// the header comes with the first row: the delimiter is sniffed from the header line
		// alone, not from 64 kB of rows
		{"csv", `q%d,Where?,Paris`},
	} {
		var lines []string
		for i := range 3 {
			lines = append(lines, fmt.Sprintf(tc.line, i))
		}
		if tc.format == "csv" {
			lines[0] = "id,question,answers\n" + lines[0]
		}
		out := clitest.RecordsAsTheyCome(t, Run, []string{"qa-load", "--format", tc.format}, lines)
		if n := strings.Count(out, `"schema":1`); n != 3 {
			t.Errorf("--format %s: %d records, want 3:\n%s", tc.format, n, out)
		}
	}
}

// TestOneLineDocumentAsItComes: a benchmark file that is one JSON document on one line (a JSON
// array of questions, a SQuAD object, as json.dump writes them by default) gives each record once
// its item is in, before the rest of the line comes from a slow pipe: not once the line ends, nor
// once 64 kB are there to see whether the file looks like another format than --format's.
//
// Each item is longer than the 512 bytes textfile.NewReader looks at before its first Read
// returns, to tell a tar archive by its mark at byte 257 (see textfile.HeadSize).
func TestOneLineDocumentAsItComes(t *testing.T) {
	q := "Where? " + strings.Repeat("x", textfile.HeadSize) // longer than textfile's head
	squad := `{"title":"t%d","paragraphs":[{"context":"Paris is in France.","qas":[{"id":"q%d","question":"Where?","answers":[{"text":"Paris","answer_start":0}]}]}]}`
	cmrc := `{"paragraphs":[{"id":"C%d","context":"巴黎在法国。","qas":[{"id":"C%d_Q","question":"在哪里？","answers":[{"text":"巴黎","answer_start":0}]}]}]}`
	cmrc = strings.ReplaceAll(cmrc, `"在哪里？"`, `"Where?"`)
	for _, tc := range []struct {
		format, head, item, tail string
	}{
		{"hotpotqa", "[", `{"_id":"q%d","question":"Where?","answer":"Paris","context":[],"supporting_facts":[]}`, "]"},
		{"squad", `{"version":"v1.1","data":[`, squad, "]}"},
		{"cmrc2018", `{"version":"v1.0","data":[`, cmrc, "]}"},
		{"longmemeval", "[", `{"question_id":"q%d","question_type":"single-session-user","question":"Where?","answer":"Paris",` +
			`"question_date":"d","haystack_session_ids":[],"haystack_dates":[],"haystack_sessions":[]}`, "]"},
		{"locomo", "[", `{"sample_id":"c%d","qa":[{"question":"Where?","answer":"Paris","evidence":[],"category":1}],` +
			`"conversation":{"speaker_a":"A","speaker_b":"B"}}`, "]"},
		{"records", "[", `{"schema":1,"id":"q%d","question":"Where?","answers":["Paris"]}`, "]"},
		{"evalearn-results", "[", `{"id":%d,"type":"Extraction","level":1,"prompt":["Where?"],"rubric":"r","canonical_answer":"Paris",` +
			`"gpt4res":"Paris","gpt4judge":"[Grade]: 1 points","sequence_id":1,"position_in_sequence":%d}`, "]"},
		{"jsonl", "[", `{"id":"q%d","question":"Where?","answers":["Paris"]}`, "]"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			// Each chunk ends just after an item, before the comma or bracket that follows it:
			// the item is whole, and what comes after it is not there yet.
			item := func(n int) string {
				return strings.NewReplacer("%d", fmt.Sprint(n), `"Where?"`, `"`+q+`"`).Replace(tc.item)
			}
			chunks := []string{tc.head + item(0), "," + item(1), "," + item(2), tc.tail + "\n"}
			out := clitest.ChunksAsTheyCome(t, Run, []string{"qa-load", "--format", tc.format}, chunks, []int{1, 2, 3, 3})
			if n := strings.Count(out, `"schema":1`); n != 3 {
				t.Errorf("--format %s: %d records, want 3:\n%s", tc.format, n, out)
			}
		})
	}
}

// TestSQuADSniffChunks: what a SQuAD or CMRC 2018 file is (its layout, or a Hugging Face export)
// is told by the bytes up to where format.FirstObject stops, not by how many more a read brought
// with them, so that a file loads the same from a pipe that gives it a byte at a time as given
// whole.
func TestSQuADSniffChunks(t *testing.T) {
	art := `{"title":"t","paragraphs":[{"context":"Paris is in France.","qas":[{"id":"q1","question":"Where?","answers":[{"text":"Paris","answer_start":0}]}]}]}`
	for _, in := range []string{
		// SQuAD's layout by its "data" list, whatever members follow it
		`{"data":[` + art + `],"question":"q","context":"c","answers":{"text":[],"answer_start":[]}}`,
		`{"version":"v2.0","data":[` + art + `]}`,
		`[{"id":"h1","title":"t","context":"c","question":"q","answers":{"text":["c"],"answer_start":[0]}}]`,
	} {
		for _, load := range []struct {
			name string
			load Loader
		}{{"squad", SQuAD}, {"cmrc2018", CMRC2018}} {
			run := func(r io.Reader) string {
				var out []string
				err := load.load(Input{Name: "s.json", R: r}, Options{}, func(r *record.Record, _ int, bad error) error {
					if bad != nil {
						out = append(out, "bad: "+bad.Error())
					} else {
						out = append(out, r.ID+" "+r.Type+" "+strings.Join(r.Answers, "|"))
					}
					return nil
				})
				return fmt.Sprintf("%q, %v", out, err)
			}
			whole, slow := run(strings.NewReader(in)), run(iotest.OneByteReader(strings.NewReader(in)))
			if whole != slow {
				t.Errorf("%s(%.60q…) a byte at a time = %s, whole = %s", load.name, in, slow, whole)
			}
		}
	}
}

// TestArrayItemIndex: a bad item of a JSON array that does not begin its line (the array's '['
// or the item before it comes first, as in an array written on one line, json.dump's default)
// is named by its index in the array as well as its line, which alone does not find it; one that
// begins its line, and every JSON Lines line, by its line alone.
func TestArrayItemIndex(t *testing.T) {
	good := `{"_id":"a","question":"q","answer":"x"}`
	for _, tt := range []struct {
		name string
		load Loader
		in   string
		want []string
	}{
		{"one line", HotpotQA, `[` + good + `,{"question":"no id"},null,{"_id":"c","question":5}]`, []string{
			`h.json:1: [1]: missing field "_id"`,
			`h.json:1: [2]: want an object, got null`,
			`h.json:1 (id "hotpotqa:c"): [3]: question: want a string, got a number`}},
		{"first item beside the bracket", HotpotQA, `[{"question":"no id"},` + "\n" + `{"_id":"c","question":5}]`, []string{
			`h.json:1: [0]: missing field "_id"`,
			`h.json:2 (id "hotpotqa:c"): question: want a string, got a number`}},
		{"indented", HotpotQA, "[\n  {\"question\": \"no id\"},\n  " + good + ", {\"_id\": \"c\", \"question\": 5},\n  null\n]", []string{
			`h.json:2: missing field "_id"`,
			`h.json:3 (id "hotpotqa:c"): [2]: question: want a string, got a number`,
			`h.json:4: want an object, got null`}},
		{"json lines", HotpotQA, `{"question":"no id"}` + "\n" + `{"_id":"c","question":5}`, []string{
			`h.json:1: missing field "_id"`,
			`h.json:2 (id "hotpotqa:c"): question: want a string, got a number`}},
		{"longmemeval", LongMemEval, `[{"question_id":"a","question_type":"t","question":"q","answer":"x","question_date":"d"},` +
			`{"question_id":"b","question_type":"t","question":"q","answer":null,"question_date":"d"}]`, []string{
			`h.json:1 (id "longmemeval:b"): [1]: answer: want a string, a number, a list or an object, got null`}},
		{"generic", JSONL, `[{"question":"a"},{"question":""},{"id":"x","question":"c","answers":{}}]`, []string{
			`h.json:1 (id "h.json:1:19"): [1]: field "question" is empty`,
			`h.json:1 (id "x"): [2]: field "answers": want a string or a list of strings`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, bads, err := loadString(t, tt.load, "h.json", tt.in, Options{})
			if err != nil || !slices.Equal(bads, tt.want) {
				t.Errorf("load(%s) = bad %q, %v; want %q", tt.in, bads, err, tt.want)
			}
		})
	}
}

// TestLeadingBlankLines: blank lines before the first item of a file are lines: every later line
// is reported, and a generic record's FILE:LINE id made, with its own number in the file, in
// every layout (an array, JSON Lines, indented objects, a SQuAD object, CMRC's first layout).
func TestLeadingBlankLines(t *testing.T) {
	for _, tt := range []struct {
		name string
		load Loader
		in   string
		ids  []string
		bads []string
	}{
		{"array", HotpotQA, "\n\n[\n{\"question\": \"no id\"}\n]\n", nil, []string{`b.json:4: missing field "_id"`}},
		{"json lines", HotpotQA, "\n \n{\"question\": \"no id\"}\n", nil, []string{`b.json:3: missing field "_id"`}},
		{"squad", SQuAD, "\r\n\r\n{\"data\": [{\"paragraphs\": [{\"qas\": [\n{\"question\": \"q\"}]}]}]}\n", nil,
			[]string{`b.json:4: data[0].paragraphs[0].qas[0]: missing field "id"`}},
		{"cmrc first layout", CMRC2018, "\n\n[{\"context_id\": \"C\", \"context_text\": \"c\", \"qas\": [\n{\"query_text\": \"q\", \"answers\": [\"a\"]}]}]", nil,
			[]string{`b.json:4: missing field "query_id"`}},
		{"generic lines", JSONL, "\n\n{\"question\": \"a\"}\n{\"question\": \"\"}\n", []string{"b.json:3"},
			[]string{`b.json:4 (id "b.json:4"): field "question" is empty`}},
		{"generic one-line array", JSONL, "\n\n[{\"question\": \"a\"}, {\"question\": \"b\"}]", []string{"b.json:3", "b.json:3:21"}, nil},
		{"generic indented objects", JSONL, "\n\t\n{\n  \"question\": \"a\"\n}\n", []string{"b.json:3"}, nil},
		{"blanks beyond the buffer", JSONL, strings.Repeat(" ", 70000) + "{\"question\": \"a\"}\n", []string{"b.json:1"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, bads, err := loadString(t, tt.load, "b.json", tt.in, Options{})
			if err != nil || !slices.Equal(ids, tt.ids) || !slices.Equal(bads, tt.bads) {
				t.Errorf("load(%q) = ids %q, bad %q, %v; want %q, %q", tt.in, ids, bads, err, tt.ids, tt.bads)
			}
		})
	}
}

// TestPythonOnlyLine: a JSON Lines item holding NaN or Infinity, as Python's json.dump writes a
// float nan or inf, is a bad item whose message says what the value is; the next line is read.
func TestPythonOnlyLine(t *testing.T) {
	in := `{"_id": "a", "question": "q", "answer": "x", "level": Infinity}` + "\n" +
		`{"_id": "b", "question": "q", "answer": "x"}` + "\n"
	var errs []string
	n := 0
	err := HotpotQA(Input{Name: "x.jsonl", R: strings.NewReader(in)}, Options{}, func(r *record.Record, _ int, err error) error {
		if err != nil {
			errs = append(errs, err.Error())
		} else {
			n++
		}
		return nil
	})
	want := `x.jsonl:1 (id "hotpotqa:a"): invalid JSON: invalid character 'I' looking for beginning of value` +
		` (Infinity is an extension of Python's json, not JSON: write null or a number there)`
	if err != nil || n != 1 || len(errs) != 1 || errs[0] != want {
		t.Errorf("HotpotQA = %v, %d records, item errors %q; want 1 record and %q", err, n, errs, want)
	}
}
