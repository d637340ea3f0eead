package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		line string
	}{
		{"minimal", `{"schema":1,"id":"a","question":"q","answers":["x"]}`},
		{"empty question", `{"schema":1,"id":"a","question":"","answers":["x"]}`},
		{"unknown top-level fields kept verbatim", `{"schema":1,"id":"a","question":"q","answers":[""],"zeta":1.50,"alpha":{"b":[1,2,"c"]}}`},
		{"nested unknown fields", `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y","logprob":-0.125e0},"judgments":{"j":{"score":1,"label":"yes","extra":[true]}},"context":[{"title":"t","text":"s","url":"u"}]}`},
		{"meta verbatim", `{"schema":1,"id":"a","question":"q","answers":["x"],"meta":{"level":"hard","evidence":["D1:3"],"n":1e400}}`},
		{"facts and sequence", `{"schema":1,"id":"a","question":"q","answers":["x"],"sequence":{"id":"17","position":3},"prediction":{"text":"y","supporting_facts":[["T",0],["U",2]]}}`},
		{"escaped keys", `{"schema":1,"id":"a","question":"q","answers":["x"],"\u0069d2":"y","a\"b":{"c":"}"}}`},
		{"a prediction's reasoning beside unknown fields", `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"Paris","reasoning":"France's capital.\n\nParis.","reasoning_tokens":12,"thinking":{"effort":"high"}}}`},
		{"scores and their errors", `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y"},"scores":{"em":0},"score_errors":{"sbert":"embedding call failed: 503"}}`},
		{"html and unicode kept", `{"schema":1,"id":"a<b>&","question":"é\u2028x","answers":["<i>"]}`},
		{"unknown fields of usage, sequence and batch", `{"schema":1,"id":"a","question":"q","answers":["x"],"sequence":{"id":"1","position":2,"set":"a"},"prediction":{"text":"y","usage":{"input_tokens":1,"output_tokens":2,"cached_tokens":{"n":1.0}},"batch":{"first":"a","index":0,"size":2,"w":[]}},"judgments":{"j":{"score":1,"usage":{"input_tokens":3,"output_tokens":4,"reasoning_tokens":5}}}}`},
		{"keys that differ from known ones in case", `{"schema":1,"id":"a","ID":"b","question":"q","Question":5,"answers":["x"],"ANSWERS":[null],"Meta":{"level":"x"},"prediction":{"text":"y","Text":"z","USAGE":{"input_tokens":9}},"context":[{"text":"p","TEXT":5}],"judgments":{"j":{"score":1,"Score":"s","usage":{"input_tokens":1,"output_tokens":1,"Input_Tokens":"x"}}},"sequence":{"id":"1","position":2,"ID":"9","Position":"x"},"Prediction":{"text":"w"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r1 Record
			if err := Unmarshal([]byte(tt.line), &r1); err != nil {
				t.Fatalf("decode: %v", err)
			}
			b1, err := r1.MarshalJSON()
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			var r2 Record
			if err := Unmarshal(b1, &r2); err != nil {
				t.Fatalf("decode again: %v (%s)", err, b1)
			}
			if diff := cmp.Diff(r1, r2, cmp.AllowUnexported(Record{}, Prediction{}, Usage{}, Passage{}, Judgment{}, Sequence{}, Batch{}, emptyMember{})); diff != "" {
				t.Errorf("decode(encode(r)) != r (-first +second):\n%s", diff)
			}
			b2, _ := r2.MarshalJSON()
			if !bytes.Equal(b1, b2) {
				t.Errorf("encoding not stable:\n%s\n%s", b1, b2)
			}
			// every key/value of the input must survive semantically
			var in, out map[string]any
			_ = Unmarshal([]byte(tt.line), &in)
			_ = Unmarshal(b1, &out)
			if diff := cmp.Diff(in, out); diff != "" {
				t.Errorf("fields changed (-in +out):\n%s", diff)
			}
		})
	}
}

// TestCaseVariantKeysStayUnknown checks that a member whose key differs from a known one only in
// case is not read as the known member (the JSON decoder matches keys case-insensitively).
func TestCaseVariantKeysStayUnknown(t *testing.T) {
	line := `{"schema":1,"id":"a","ID":"b","question":"q","QUESTION":"other","answers":["x"],"Prediction":{"text":"w"},"context":[{"text":"p","Text":"t"}]}`
	var r Record
	if err := Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if r.ID != "a" || r.Question != "q" || r.Prediction != nil || r.Context[0].Text != "p" {
		t.Errorf("case variants read as known members: id %q, question %q, prediction %v, context text %q", r.ID, r.Question, r.Prediction, r.Context[0].Text)
	}
	if string(r.Extra["ID"]) != `"b"` || string(r.Extra["Prediction"]) != `{"text":"w"}` || string(r.Context[0].Extra["Text"]) != `"t"` {
		t.Errorf("case variants not kept as unknown members: %v, %v", r.Extra, r.Context[0].Extra)
	}
	// Z, the last upper-case letter, folds too: "siZe" is no batch's size.
	line = `{"schema":1,"id":"a","prediction":{"text":"y","batch":{"first":"a","index":0,"size":2,"siZe":9}}}`
	r = Record{}
	if err := Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if b := r.Prediction.Batch; b.Size != 2 || string(b.Extra["siZe"]) != "9" {
		t.Errorf("batch size %d, unknown members %v; want 2 and siZe kept", b.Size, b.Extra)
	}
}

func TestUnknownNumberBytesKept(t *testing.T) {
	line := `{"schema":1,"id":"a","question":"q","answers":["x"],"big":1e400,"dec":0.10}`
	var r Record
	if err := Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	b, _ := r.MarshalJSON()
	for _, want := range []string{`"big":1e400`, `"dec":0.10`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("encoded %s, want it to contain %s", b, want)
		}
	}
}

// TestNoAddedMembers: a record read without a question or answers is written without them, not
// with "" and null; an empty question or answer list, and questions or answers that look like
// those members, are written as they are.
func TestNoAddedMembers(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"schema":1,"id":"a","prediction":{"text":"x"}}`, `{"schema":1,"id":"a","prediction":{"text":"x"}}`},
		{`{"schema":1,"id":"a","question":"","answers":[]}`, `{"schema":1,"id":"a","question":"","answers":[]}`},
		{`{"schema":1,"id":"a","\u0071uestion":"","answers":["x"]}`, `{"schema":1,"id":"a","question":"","answers":["x"]}`},
		{`{"schema":1,"id":"a","question":null,"answers":["x"]}`, `{"schema":1,"id":"a","answers":["x"],"question":null}`},
		{`{"schema":1,"id":",\"question\":\"\"","type":",\"answers\":null","turns":["t"],"meta":{"answers":null,"question":""}}`,
			`{"schema":1,"id":",\"question\":\"\"","type":",\"answers\":null","turns":["t"],"meta":{"answers":null,"question":""}}`},
		{`{"schema":1,"id":"a","question":"q","answers":[""]}`, `{"schema":1,"id":"a","question":"q","answers":[""]}`},
		// A prediction without a text (a failed one, a score or a loss alone) gets no empty answer.
		{`{"schema":1,"id":"a","prediction":{"error":"timeout"}}`, `{"schema":1,"id":"a","prediction":{"error":"timeout"}}`},
		{`{"schema":1,"id":"a","prediction":{"text":"","error":"timeout"}}`, `{"schema":1,"id":"a","prediction":{"text":"","error":"timeout"}}`},
		// A failed prediction's null text stays null: written as "", it would be the empty answer.
		{`{"schema":1,"id":"a","prediction":{"text":null,"error":"timeout"}}`, `{"schema":1,"id":"a","prediction":{"error":"timeout","text":null}}`},
		{`{"schema":1,"id":"a","prediction":{"text":"x","text":null,"error":"timeout"}}`, `{"schema":1,"id":"a","prediction":{"text":"x","error":"timeout"}}`},
		{`{"schema":1,"id":"a","prediction":{"model":"m","score":0.5}}`, `{"schema":1,"id":"a","prediction":{"model":"m","score":0.5}}`},
		{`{"schema":1,"id":"a","prediction":{"loss":2.5,"tokens":3}}`, `{"schema":1,"id":"a","prediction":{"loss":2.5,"tokens":3}}`},
		// A token count left out is unknown, not 0, and stays out.
		{`{"schema":1,"id":"g:1","question":"Q?","answers":["x"],"prediction":{"text":"x","usage":{"input_tokens":812}},"judgments":{"j":{"score":1,"usage":{"output_tokens":3}}}}`,
			`{"schema":1,"id":"g:1","question":"Q?","answers":["x"],"prediction":{"text":"x","usage":{"input_tokens":812}},"judgments":{"j":{"score":1,"usage":{"output_tokens":3}}}}`},
		{`{"schema":1,"id":"a","prediction":{"text":"x","usage":{}}}`, `{"schema":1,"id":"a","prediction":{"text":"x","usage":{}}}`},
		// The input tokens a provider served from its prompt cache are kept; none is left out.
		{`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"cached_input_tokens":1024,"input_tokens":1500,"output_tokens":3}}}`,
			`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"input_tokens":1500,"output_tokens":3,"cached_input_tokens":1024}}}`},
		{`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"input_tokens":1500,"output_tokens":3,"cached_input_tokens":0}}}`,
			`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"input_tokens":1500,"output_tokens":3}}}`},
		// So are those it wrote to its cache, which Anthropic bills above the input rate.
		{`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"cache_write_input_tokens":3000,"input_tokens":23010,"output_tokens":30,"cached_input_tokens":20000}}}`,
			`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"input_tokens":23010,"output_tokens":30,"cached_input_tokens":20000,"cache_write_input_tokens":3000}}}`},
		{`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"input_tokens":1500,"output_tokens":3,"cache_write_input_tokens":0}}}`,
			`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"input_tokens":1500,"output_tokens":3}}}`},
	} {
		var r Record
		if err := Unmarshal([]byte(tt.in), &r); err != nil {
			t.Fatal(err)
		}
		if b, _ := r.MarshalJSON(); string(b) != tt.want {
			t.Errorf("%s\nencoded as %s\nwant       %s", tt.in, b, tt.want)
		}
	}
	// A question given a value by a stage is written whatever the line had; one built without
	// a question, or emptied, is left out.
	var r Record
	if err := Unmarshal([]byte(`{"schema":1,"id":"a","question":"","answers":["x"]}`), &r); err != nil {
		t.Fatal(err)
	}
	r.Question = "q"
	if b, _ := r.MarshalJSON(); string(b) != `{"schema":1,"id":"a","question":"q","answers":["x"]}` {
		t.Errorf("question set after decoding: encoded as %s", b)
	}
	if err := Unmarshal([]byte(`{"schema":1,"id":"a","question":"q","answers":["x"]}`), &r); err != nil {
		t.Fatal(err)
	}
	r.Question = ""
	if b, _ := r.MarshalJSON(); string(b) != `{"schema":1,"id":"a","answers":["x"]}` {
		t.Errorf("question emptied after decoding: encoded as %s", b)
	}
	if b, _ := (Record{Schema: 1, ID: "a", Answers: []string{"x"}}).MarshalJSON(); string(b) != `{"schema":1,"id":"a","answers":["x"]}` {
		t.Errorf("record built without a question: encoded as %s", b)
	}
}

// TestNoMembersTakenAway: a member of the schema's own whose value reads as its zero value ("",
// 0, false, null, [], {}), which the encoder leaves out, is written again as it came, at every
// level, so that a stage passing a record through takes no member away from it; one that a stage
// fills in is written as the stage set it.
func TestNoMembersTakenAway(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"schema":1,"id":"a","dataset":"","split":"","lang":"","type":"","question":"q","turns":[],"answers":["x"],"rubric":"","context":[],"meta":{},"scores":{},"score_errors":{}}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"dataset":"","split":"","lang":"","type":"","turns":[],"rubric":"","context":[],"meta":{},"scores":{},"score_errors":{}}`},
		{`{"schema":1,"id":"a","dataset":null,"question":"q","answers":["x"],"context":null,"sequence":null,"meta":null,"prediction":null,"judgments":null,"scores":null}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"dataset":null,"context":null,"sequence":null,"meta":null,"prediction":null,"judgments":null,"scores":null}`},
		{`{"schema":1,"id":"a","answers":null}`, `{"schema":1,"id":"a","answers":null}`},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"type":"x","type":""}`, `{"schema":1,"id":"a","question":"q","answers":["x"],"type":""}`},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"type":"","type":"x"}`, `{"schema":1,"id":"a","type":"x","question":"q","answers":["x"]}`},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y","model":"","latency_ms":0,"attempts":0,"cached":false,"error":"","prompt_sha256":"","error":"","supporting_facts":[ ],"notes":[],"reasoning":"","batch":{"first":"","index":0,"size":0},"cost_usd":null,"usage":null,"z":""}}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y","batch":{"first":"","index":0,"size":0},"model":"","latency_ms":0,"attempts":0,"cached":false,"error":"","prompt_sha256":"","supporting_facts":[],"notes":[],"reasoning":"","cost_usd":null,"usage":null,"z":""}}`},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y"},"judgments":{"j":{"score":0,"label":"","mode":"","cached":false,"error":"","attempts":0,"cost_usd":null}}}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y"},"judgments":{"j":{"score":0,"label":"","mode":"","cached":false,"error":"","attempts":0,"cost_usd":null}}}`},
		// -0, as JSON may write an integer, reads as 0 too: kept, as written.
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y","latency_ms":-0,"attempts":-0},"judgments":{"j":{"score":1,"attempts":-0}}}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y","latency_ms":-0,"attempts":-0},"judgments":{"j":{"score":1,"attempts":-0}}}`},
		// A judgment of empty members alone encodes as {} before they are put back.
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"judgments":{"j":{"label":"","error":""}}}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"judgments":{"j":{"label":"","error":""}}}`},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y","cut":""},"judgments":{"j":{"score":1,"cut":null}}}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y","cut":""},"judgments":{"j":{"score":1,"cut":null}}}`},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"context":[{"title":"","date":"","text":"t","sentences":[]}],"sequence":{"id":"","position":0}}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"context":[{"text":"t","title":"","date":"","sentences":[]}],"sequence":{"id":"","position":0}}`},
		// A null in a member the encoder always writes (a passage's text, a sequence's or a
		// batch's members) is written as null again, after the members that have values, not as
		// the "" or 0 it decodes to; one given again after the null is written as it reads.
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"context":[{"title":"t","text":null}],"sequence":{"id":null,"position":null},"prediction":{"text":"y","batch":{"first":null,"index":null,"size":null}}}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"context":[{"title":"t","text":null}],"sequence":{"id":null,"position":null},"prediction":{"text":"y","batch":{"first":null,"index":null,"size":null}}}`},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"sequence":{"id":null,"position":2},"prediction":{"text":"y","batch":{"first":"a","index":null,"size":2}}}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"sequence":{"position":2,"id":null},"prediction":{"text":"y","batch":{"first":"a","size":2,"index":null}}}`},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"sequence":{"id":null,"position":null,"id":"s","position":0}}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"sequence":{"id":"s","position":0}}`},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"sequence":{"id":"s","position":3,"id":null,"position":null}}`,
			`{"schema":1,"id":"a","question":"q","answers":["x"],"sequence":{"id":"s","position":3}}`},
	} {
		var r Record
		if err := Unmarshal([]byte(tt.in), &r); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if b, _ := r.MarshalJSON(); string(b) != tt.want {
			t.Errorf("%s\nencoded as %s\nwant       %s", tt.in, b, tt.want)
		}
	}
	// A pointer's 0 or {} is written anyway: nothing is kept for it (a wrong answer's judgment
	// score of 0 costs no allocation more).
	var p Record
	if err := Unmarshal([]byte(`{"schema":1,"id":"a","prediction":{"text":"y","cost_usd":0,"usage":{},"batch":{"first":"a","index":0,"size":1}},"judgments":{"j":{"score":0}},"sequence":{"id":"s","position":1}}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.empty != nil || p.Prediction.empty != nil || p.Judgments["j"].empty != nil {
		t.Errorf("kept members written anyway: %v, %v, %v", p.empty, p.Prediction.empty, p.Judgments["j"].empty)
	}
	// What a stage sets is written as it set it.
	var r Record
	if err := Unmarshal([]byte(`{"schema":1,"id":"a","question":"q","answers":["x"],"type":"","judgments":{},"prediction":{"text":"y","error":""}}`), &r); err != nil {
		t.Fatal(err)
	}
	r.Type = "bridge"
	r.Judgments["j"] = &Judgment{Label: "x"}
	r.Prediction.Error = "timeout"
	want := `{"schema":1,"id":"a","type":"bridge","question":"q","answers":["x"],"prediction":{"text":"y","error":"timeout"},"judgments":{"j":{"label":"x"}}}`
	if b, _ := r.MarshalJSON(); string(b) != want {
		t.Errorf("fields set after decoding: encoded as %s\nwant %s", b, want)
	}
}

// TestRepeatedKeyNotEmpty: a key given twice, an empty member and then one that is not (or, for
// an object, which the decoder reads from every member, one that is not and then an empty one),
// decodes to a field that is not empty, so the empty member is not kept for it: a stage that then
// empties the field leaves the member out, as for a record given the key once, instead of putting
// back the {} or "" that the decoder never read.
func TestRepeatedKeyNotEmpty(t *testing.T) {
	for _, tt := range []struct {
		in    string
		clear func(r *Record)
		want  string
	}{
		{`{"schema":1,"id":"a","scores":{},"scores":{"em":1}}`, func(r *Record) { r.Scores = nil }, `{"schema":1,"id":"a"}`},
		{`{"schema":1,"id":"a","score_errors":{},"score_errors":{"f1":"x"}}`, func(r *Record) { r.ScoreErrors = nil }, `{"schema":1,"id":"a"}`},
		{`{"schema":1,"id":"a","type":"","type":"x"}`, func(r *Record) { r.Type = "" }, `{"schema":1,"id":"a"}`},
		{`{"schema":1,"id":"a","meta":{},"meta":{"k":1}}`, func(r *Record) { r.Meta = nil }, `{"schema":1,"id":"a"}`},
		{`{"schema":1,"id":"a","meta":{"k":1},"meta":{}}`, func(r *Record) { r.Meta = nil }, `{"schema":1,"id":"a"}`},
		{`{"schema":1,"id":"a","judgments":{"j":{"score":1}},"judgments":{ }}`, func(r *Record) { r.Judgments = nil }, `{"schema":1,"id":"a"}`},
		{`{"schema":1,"id":"a","prediction":{"text":"y","error":"","error":"e"}}`, func(r *Record) { r.Prediction.Error = "" }, `{"schema":1,"id":"a","prediction":{"text":"y"}}`},
		// the last member empty, not an object: the field is empty, and the member is kept
		{`{"schema":1,"id":"a","type":"x","type":""}`, func(r *Record) {}, `{"schema":1,"id":"a","type":""}`},
		{`{"schema":1,"id":"a","scores":{"em":1},"scores":{}}`, func(r *Record) {}, `{"schema":1,"id":"a","scores":{}}`},
		{`{"schema":1,"id":"a","meta":{},"meta":{}}`, func(r *Record) {}, `{"schema":1,"id":"a","meta":{}}`},
		// a null sets a map anew, and a string is what the last member that is not null made it
		{`{"schema":1,"id":"a","meta":{"k":1},"meta":null,"meta":{}}`, func(r *Record) {}, `{"schema":1,"id":"a","meta":{}}`},
		{`{"schema":1,"id":"a","sequence":{"id":"s","id":"","id":null,"position":1}}`, func(r *Record) {},
			`{"schema":1,"id":"a","sequence":{"position":1,"id":null}}`},
	} {
		var r Record
		if err := Unmarshal([]byte(tt.in), &r); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		tt.clear(&r)
		if b, _ := r.MarshalJSON(); string(b) != tt.want {
			t.Errorf("%s, its field emptied: encoded as %s, want %s", tt.in, b, tt.want)
		}
	}
}

func TestNoHTMLEscaping(t *testing.T) {
	r := &Record{Schema: 1, ID: "a<b>&", Question: "x < y && z", Answers: []string{"<i>"},
		Prediction: &Prediction{Text: "a&b"}}
	b, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema":1,"id":"a<b>&","question":"x < y && z","answers":["<i>"],"prediction":{"text":"a&b"}}`
	if string(b) != want {
		t.Errorf("MarshalJSON = %s, want %s", b, want)
	}
}

func TestReaderErrors(t *testing.T) {
	in := strings.Join([]string{
		`{"schema":1,"id":"ok1","question":"q","answers":["a"]}`,
		``,
		`{"schema":1,"id":"bad","question":"q","answers":5}`,
		`not json`,
		`{"schema":1,"question":"q","answers":["a"]}`,
		`{"schema":2,"id":"v2","question":"q","answers":["a"]}`,
		`{"id":"v0","question":"q","answers":["a"]}`,
		`{"_id":"5ab4","answer":"romance","question":"q"}`,
		`{"questions":[{"category":4}],"answers":[{"stored":""}]}`, // no record, though "answers" fails first
		`{"id":"x","answers":[{"stored":""}]}`,
		`[{"schema":1,"id":"y"}]`,
		`{"schema":1,"id":"ok2","question":"q","answers":["a"]}`,
	}, "\n")
	r := NewReader(strings.NewReader(in), "preds.jsonl")
	var ids, errs []string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		var perr *Error
		if errors.As(err, &perr) {
			errs = append(errs, perr.Error())
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	if diff := cmp.Diff([]string{"ok1", "ok2"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	wantPrefixes := []string{`preds.jsonl:3 (id "bad"): invalid record`, `preds.jsonl:4: not JSON at column 1: invalid character 'o' in literal null (expecting 'u')`,
		`preds.jsonl:5: missing field "id"`, `preds.jsonl:6 (id "v2"): schema 2 is not supported`,
		`preds.jsonl:7 (id "v0"): field "schema" missing or 0 (records carry "schema": 1`,
		`preds.jsonl:8: not a qapipe record: no "schema" and no "id" (qa-load turns benchmark files into records)`,
		`preds.jsonl:9: not a qapipe record: no "schema" and no "id" (qa-load turns benchmark files into records)`,
		`preds.jsonl:10 (id "x"): invalid record: answers[0]: want a string, got an object`,
		`preds.jsonl:11: invalid record: want an object`}
	if len(errs) != len(wantPrefixes) {
		t.Fatalf("got %d errors %q, want %d", len(errs), errs, len(wantPrefixes))
	}
	for i, w := range wantPrefixes {
		if !strings.HasPrefix(errs[i], w) {
			t.Errorf("error %d = %q, want prefix %q", i, errs[i], w)
		}
	}
}

// TestInvalidLineNotJSON: a line that is no JSON at all says so, with the column where its
// text begins, before the decoder's words; one that begins as JSON does keeps the decoder's.
func TestInvalidLineNotJSON(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`nothing`, `not JSON at column 1: invalid character 'o' in literal null (expecting 'u')`},
		{`note: the run was cut`, `not JSON at column 1: invalid character 'o' in literal null (expecting 'u')`},
		{`  qid,question,answer`, `not JSON at column 3: invalid character 'q' looking for beginning of value`},
		{`None`, `not JSON at column 1: invalid character 'N' looking for beginning of value`},
		{`trueish`, `not JSON at column 1: invalid character 'i' after top-level value`},
		{`true, false`, `invalid record: invalid character ',' after top-level value`},
		{`{"schema":1,"id":"a",}`, `invalid record: invalid character '}' looking for beginning of object key string`},
		{`{"schema":1,"id":"a"`, `invalid record: unexpected end of JSON input`},
		{`"text"`, `invalid record: want an object, got a string`},
		// Python's json.dump writes -Infinity for float("-inf"): it begins as a number does, and
		// the note says what it is.
		{`-Infinity`, `invalid record: invalid character 'I' in numeric literal` + pyNote("-Infinity")},
		{`{"schema":1,"id":"a","meta":{"p":NaN}}`, `invalid record: invalid character 'N' looking for beginning of value` + pyNote("NaN")},
		{`{"schema":1,"id":"a","meta":{"p":Infinity}}`, `invalid record: invalid character 'I' looking for beginning of value` + pyNote("Infinity")},
		{`{"schema":1,"id":"a","meta":{"p":Nan}}`, `invalid record: invalid character 'N' looking for beginning of value`},
		// A CSV header whose first column's name begins with a JSON literal and an underscore.
		{`true_label,question`, `not JSON at column 1: invalid character '_' after top-level value`},
		// A non-ASCII character is named whole, not by its first byte read as Latin-1 ('Ã' for
		// "é", 'Â' for a no-break space pasted as indentation).
		{`été`, `not JSON at column 1: invalid character 'é' looking for beginning of value`},
		{`{"schema":1,"id":"a", é}`, `invalid record: invalid character 'é' looking for beginning of object key string`},
		{"{\"schema\":1,\"id\":\u00a0\"a\"}", `invalid record: invalid character '\u00a0' looking for beginning of value`},
		{`{"schema":1,"id":"a"…}`, `invalid record: invalid character '…' after object key:value pair`},
		// Two records on one line, as cat a.jsonl b.jsonl leaves a file whose last line has no
		// line end: the second record is named too, as it is lost with the first.
		{`{"schema":1,"id":"a"}{"schema":1,"id":"b"}`, `invalid record: invalid character '{' after top-level value` + joinedNote(22, "b")},
		{`{"schema":1,"id":"a"} {"schema":1,"id":"b","question":"q`, `invalid record: invalid character '{' after top-level value` + joinedNote(23, "b")},
		{`{"schema":1,"id":"a"}{"question":"q"}`, `invalid record: invalid character '{' after top-level value` + joinedNote(22, "")},
		{`{"schema":1,"id":"a"} {`, `invalid record: invalid character '{' after top-level value` + joinedNote(23, "")},
		{`{"schema":1,"id":"a"} [1]`, `invalid record: invalid character '[' after top-level value`},
		// White space of any kind between them, a tab or a carriage return left alone.
		{"{\"schema\":1,\"id\":\"a\"}\t{\"schema\":1,\"id\":\"b\"}", `invalid record: invalid character '{' after top-level value` + joinedNote(23, "b")},
		{"{\"schema\":1,\"id\":\"a\"}\r {\"schema\":1,\"id\":\"b\"}", `invalid record: invalid character '{' after top-level value` + joinedNote(24, "b")},
		// A first value that is no object is no record: an object after it is no second one.
		{`[1] {"schema":1,"id":"b"}`, `invalid record: invalid character '{' after top-level value`},
		{`"a" {"schema":1,"id":"b"}`, `invalid record: invalid character '{' after top-level value`},
	} {
		err := unmarshal([]byte(tc.line), new(Record))
		if err == nil {
			t.Fatalf("%q decoded", tc.line)
		}
		if got := InvalidLine([]byte(tc.line), err).Error(); got != tc.want {
			t.Errorf("InvalidLine(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// joinedNote is InvalidLine's note on a line whose record is followed by another at column col,
// whose id is id.
func joinedNote(col int, id string) string {
	named := ""
	if id != "" {
		named = fmt.Sprintf(", id %q", id)
	}
	return fmt.Sprintf(" (another JSON object follows at column %d%s: two records on one line, both skipped; "+
		"was a file whose last line has no line end joined to the next, as cat does?)", col, named)
}

// pyNote is PythonConstant's note on lit.
func pyNote(lit string) string {
	return " (" + lit + " is an extension of Python's json, not JSON: write null or a number there)"
}

// TestPythonConstant: the note names the value at the byte a syntax error is about, -Infinity
// with its sign, and nothing for other bytes or a place outside b.
func TestPythonConstant(t *testing.T) {
	for _, tc := range []struct {
		b    string
		bad  int64
		want string
	}{
		{`[NaN]`, 1, pyNote("NaN")},
		{`[-Infinity]`, 2, pyNote("-Infinity")},
		{`[Infinity]`, 1, pyNote("Infinity")},
		{`[Infinit]`, 1, ""},
		{`[nan]`, 1, ""},
		{`[NaN]`, 0, ""},
		{`[NaN]`, -1, ""},
		{`[NaN]`, 5, ""},
	} {
		if got := PythonConstant([]byte(tc.b), tc.bad); got != tc.want {
			t.Errorf("PythonConstant(%q, %d) = %q, want %q", tc.b, tc.bad, got, tc.want)
		}
	}
}

// TestReaderJoinedFiles: a byte order mark at the start of a line, where cat put a file that
// began with one, is skipped as at the start of the input; Read and ReadRaw both drop it, and
// only at the start of a line.
func TestReaderJoinedFiles(t *testing.T) {
	const bom = "\ufeff"
	in := `{"schema":1,"id":"a"}` + "\r\n" + bom + `{"schema":1,"id":"b"}` + "\r\n" + `{"schema":1,"id":"c","question":"` + bom + `x"}` + "\n"
	r := NewReader(strings.NewReader(in), "joined.jsonl")
	var ids []string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("line %d: %v", r.Line(), err)
		}
		ids = append(ids, rec.ID)
		if rec.ID == "c" && rec.Question != bom+"x" {
			t.Errorf("record c: question %q, want the mark inside a value kept", rec.Question)
		}
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	r = NewReader(strings.NewReader(in), "joined.jsonl")
	r.ReadRaw()
	if raw, err := r.ReadRaw(); err != nil || string(raw) != `{"schema":1,"id":"b"}` {
		t.Errorf("ReadRaw of line 2 = %q, %v, want the line without its mark", raw, err)
	}
}

func TestReaderLineTooLong(t *testing.T) {
	long := `{"schema":1,"id":"long","question":"` + strings.Repeat("x", 300) + `","answers":[]}`
	in := long + "\n" + `{"schema":1,"id":"next","question":"q","answers":[]}` + "\n"
	r := NewReader(strings.NewReader(in), "f")
	r.SetMaxLine(100)
	_, err := r.Read()
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("first Read error = %v, want ErrLineTooLong", err)
	}
	if want := "line too long (more than 100 bytes)"; !strings.Contains(err.Error(), want) {
		t.Errorf("first Read error = %v, want it to say %q", err, want)
	}
	rec, err := r.Read()
	if err != nil || rec.ID != "next" || r.Line() != 2 {
		t.Fatalf("second Read = %v, %v at line %d; want record next at line 2", rec, err, r.Line())
	}
}

// TestReaderLineTooLongTerminator: the limit is on a line's text, whatever ends it: "\r\n", "\n",
// or the end of the input (a last line of one byte more was once let through, and a line of the
// limit ending in "\r\n" was once refused).
func TestReaderLineTooLongTerminator(t *testing.T) {
	for _, tc := range []struct {
		in      string
		tooLong bool
	}{
		{`{"a"}` + "\r\n", false}, {`{"a"}` + "\n", false}, {`{"a"}`, false},
		{`{"ab"}` + "\r\n", true}, {`{"ab"}` + "\n", true}, {`{"ab"}`, true},
	} {
		r := NewReader(strings.NewReader(tc.in), "f")
		r.SetMaxLine(5)
		if _, err := r.Read(); errors.Is(err, ErrLineTooLong) != tc.tooLong {
			t.Errorf("Read(%q) with a limit of 5 bytes = %v, want too long %v", tc.in, err, tc.tooLong)
		}
	}
}

// TestReaderLineTooLongOneByte: a limit of one byte is said in the singular.
func TestReaderLineTooLongOneByte(t *testing.T) {
	r := NewReader(strings.NewReader("{}\n"), "f")
	r.SetMaxLine(1)
	_, err := r.Read()
	if want := "line too long (more than 1 byte)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Read error = %v, want it to say %q", err, want)
	}
}

// TestSetMaxLineBelowOne: a limit under one byte would refuse every line, "line too long (more
// than -1 bytes)"; SetMaxLine panics, as documented, rather than read on so.
func TestSetMaxLineBelowOne(t *testing.T) {
	for _, n := range []int{0, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetMaxLine(%d) did not panic", n)
				}
			}()
			NewReader(strings.NewReader("{}\n"), "f").SetMaxLine(n)
		}()
	}
}

// TestReaderLineHugeLimit: a limit near math.MaxInt (--max-line 9223372036854775807) reads lines
// as any generous one does. The limit plus the two bytes of "\r\n" once overflowed to a negative
// number: every line was too long, and so was the empty read at the end of the input, without end.
func TestReaderLineHugeLimit(t *testing.T) {
	for _, limit := range []int{math.MaxInt, math.MaxInt - 1, math.MaxInt - 2} {
		r := NewReader(strings.NewReader(`{"schema":1,"id":"a"}`+"\n"+`{"schema":1,"id":"b"}`), "f")
		r.SetMaxLine(limit)
		var got []string
		for len(got) < 5 {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				got = append(got, err.Error())
				continue
			}
			got = append(got, rec.ID)
		}
		if want := []string{"a", "b"}; !slices.Equal(got, want) {
			t.Errorf("Read with a limit of %d bytes = %q, want %q", limit, got, want)
		}
	}
}

// TestErrorPlace: an error names its file, "-" for stdin, then its line and id when it knows them.
func TestErrorPlace(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{File: "preds.jsonl", Line: 42, ID: "q-17"}, `preds.jsonl:42 (id "q-17")`},
		{Error{File: "preds.jsonl", Line: 42}, `preds.jsonl:42`},
		{Error{File: "preds.jsonl", ID: "q-17"}, `preds.jsonl (id "q-17")`},
		{Error{Line: 3}, `-:3`},
		{Error{}, `-`},
	} {
		if got := tc.e.Place(); got != tc.want {
			t.Errorf("%+v.Place() = %q, want %q", tc.e, got, tc.want)
		}
	}
}

// TestUTF8ErrorWithin: a bad byte in a CSV cell is placed by its byte in the cell, whose column
// in the line its quoting hides.
func TestUTF8ErrorWithin(t *testing.T) {
	e := CheckUTF8([]byte("caf\xe9"))
	e.Within = "cell"
	want := "not UTF-8 text: byte 0xE9 at byte 4 of the cell (convert the file to UTF-8, e.g. iconv -f latin1 -t utf-8)"
	if got := e.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestCheckUTF8(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{`{"q":"café € 😀 中文"}`, ""},
		{"caf\xe9", "byte 0xE9 at column 4"},          // Latin-1 é
		{"ok\xc3", "byte 0xC3 at column 3"},           // a sequence cut short at the end
		{"a\xc3(b", "byte 0xC3 at column 2"},          // a lead byte without its continuation
		{"\x80", "byte 0x80 at column 1"},             // a lone continuation byte
		{"\xc0\xaf", "byte 0xC0 at column 1"},         // an overlong encoding of '/'
		{"x\xed\xa0\x80", "byte 0xED at column 2"},    // a UTF-16 surrogate
		{"\xf4\x90\x80\x80", "byte 0xF4 at column 1"}, // beyond U+10FFFF
		{"é\xff", "byte 0xFF at column 3"},
		{"caf\xe9", "iconv -f latin1"},
		// UTF-16LE without a byte order mark: é is E9 00, so a Latin-1 conversion would garble it.
		{"{\x00\"\x00\xe9\x00\"\x00}\x00", "byte 0xE9 at column 5, and NUL bytes: text in UTF-16 or UTF-32 without a byte order mark?"},
	} {
		err := CheckUTF8([]byte(c.in))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckUTF8(%q) = %v, want nil", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckUTF8(%q) = %v, want an error with %q", c.in, err, c.want)
		}
	}
}

// TestReaderNotUTF8: a line that is not UTF-8 is a bad line naming its id, and the stream goes on.
func TestReaderNotUTF8(t *testing.T) {
	in := "{\"schema\":1,\"id\":\"q1\",\"question\":\"Ren\xe9e?\",\"answers\":[]}\n" +
		`{"schema":1,"id":"q2","question":"Renée?","answers":[]}` + "\n"
	r := NewReader(strings.NewReader(in), "f.jsonl")
	_, err := r.Read()
	var bad *Error
	var enc *UTF8Error
	if !errors.As(err, &bad) || !errors.As(err, &enc) || bad.ID != "q1" ||
		!strings.HasPrefix(err.Error(), `f.jsonl:1 (id "q1"): not UTF-8 text: byte 0xE9 at column 38`) {
		t.Fatalf("first Read error = %v, want a bad line f.jsonl:1 (id \"q1\") naming byte 0xE9 at column 38", err)
	}
	if _, err := r.ReadRaw(); err != nil || r.Line() != 2 {
		t.Fatalf("second ReadRaw: %v at line %d; want line 2", err, r.Line())
	}
}

// TestReaderNotUTF8Record: a line that is not UTF-8 is still a record (Error.Record) when it has
// a top-level "schema" member, as a line with a field of the wrong type is, so that a file of
// records in Latin-1 is read to its end, each line reported, and not taken for no file of
// records (a benchmark file for qa-load); a line without one, or with "schema" deeper down, is not.
func TestReaderNotUTF8Record(t *testing.T) {
	for _, c := range []struct {
		name, line string
		record     bool
	}{
		{"record", "{\"schema\":1,\"id\":\"q1\",\"question\":\"Ren\xe9e?\",\"answers\":[]}", true},
		{"bad byte before the schema", "{\"question\":\"Ren\xe9e?\",\"schema\":1,\"id\":\"q1\"}", true},
		{"bad byte in a key", "{\"schema\":1,\"q\xe9\":1}", true},
		{"benchmark item", "{\"_id\":\"a\",\"question\":\"Ren\xe9e?\",\"answer\":\"x\"}", false},
		{"schema inside a value", "{\"id\":\"v\",\"meta\":{\"schema\":1},\"q\":\"\xe9\"}", false},
		{"not json", "Ren\xe9e;x", false},
	} {
		r := NewReader(strings.NewReader(c.line+"\n"), "f")
		_, err := r.Read()
		var e *Error
		var enc *UTF8Error
		if !errors.As(err, &e) || !errors.As(err, &enc) {
			t.Errorf("%s: Read = %v, want a not-UTF-8 bad line", c.name, err)
			continue
		}
		if e.Record != c.record {
			t.Errorf("%s: Read = %v with Record %v, want %v", c.name, err, e.Record, c.record)
		}
	}
}

// TestReaderCRLineEndings: a line that is not JSON, or is too long, because carriage returns
// alone end the lines it holds (a file with classic Mac OS line endings) is a bad line that says
// so, naming where the first one is and no id, for Read and ReadRaw alike. A carriage return
// that JSON reads as a blank, and CRLF line endings, read as they did.
func TestReaderCRLineEndings(t *testing.T) {
	const a, b = `{"schema":1,"id":"a"}`, `{"schema":1,"id":"b"}`
	cr := func(col int) string {
		return fmt.Sprintf("f.jsonl:1: the file has CR line endings (a carriage return with no line feed after it, at column %d): convert them to LF with tr '\\r' '\\n'", col)
	}
	for _, tc := range []struct {
		name, in string
		maxLine  int
		want     []string // ids read, or the error of a bad line
	}{
		{"CR", a + "\r" + b + "\r", 0, []string{cr(22)}},
		{"CR at the start", "\r\r" + a + "\r" + b, 0, []string{cr(1)}},
		{"CR and a bad record", a + "\r" + `{"schema":1}`, 0, []string{cr(22)}},
		{"CR too long", a + "\r" + b + "\r" + a, 30, []string{cr(22)}},
		{"CR then LF lines", a + "\r" + b + "\n" + b + "\n", 0, []string{cr(22), "b"}},
		{"one record ending in CR", a + "\r", 0, []string{"a"}},
		{"CRLF", a + "\r\n" + b + "\r\n", 0, []string{"a", "b"}},
		{"CR CRLF", a + "\r\r\n" + b + "\r\r\n", 0, []string{"a", "b"}},
		{"CR in a string", `{"schema":1,"id":"a","question":"x` + "\r" + `y"}` + "\n" + b, 0, []string{`f.jsonl:1 (id "a"): invalid record`, "b"}},
		{"CR in a string, spaces about", `{"schema":1,"id":"a","question":"x ` + "\r" + ` y"}`, 0, []string{`f.jsonl:1 (id "a"): invalid record`}},
		{"CR as a blank", `{"schema":1,` + "\r" + `"id":"a"}` + "\n", 0, []string{"a"}},
		{"trailing CR of a bad line", `{"schema":1,"id":"a",}` + "\r\r\n", 0, []string{`f.jsonl:1 (id "a"): invalid record`}},
		{"too long, CR at the end", a + "\r\r\n", 10, []string{`f.jsonl:1 (id "a"): line too long (more than 10 bytes)`}},
	} {
		for _, raw := range []bool{false, true} {
			r := NewReader(strings.NewReader(tc.in), "f.jsonl")
			if tc.maxLine > 0 {
				r.SetMaxLine(tc.maxLine)
			}
			var got []string
			for {
				var rec Record
				var err error
				if raw {
					var line []byte
					if line, err = r.ReadRaw(); err == nil {
						err = unmarshal(line, &rec)
					}
				} else {
					var p *Record
					if p, err = r.Read(); p != nil {
						rec = *p
					}
				}
				if err == io.EOF {
					break
				}
				var perr *Error
				switch {
				case errors.As(err, &perr):
					msg := perr.Error()
					if strings.Contains(msg, "invalid record") {
						msg = msg[:strings.Index(msg, "invalid record")+len("invalid record")]
					}
					if errors.Is(err, ErrCRLineEndings) != strings.Contains(msg, "CR line endings") {
						t.Errorf("%s: %v: errors.Is(ErrCRLineEndings) wrong", tc.name, err)
					}
					got = append(got, msg)
				case err != nil && raw:
					got = append(got, "not decoded")
				case err != nil:
					t.Fatalf("%s: %v", tc.name, err)
				default:
					got = append(got, rec.ID)
				}
			}
			want := slices.Clone(tc.want)
			for i, w := range want {
				if raw && strings.HasSuffix(w, "invalid record") {
					want[i] = "not decoded" // ReadRaw leaves the decoding to its caller
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (ReadRaw %v): %q read (-want +got):\n%s", tc.name, raw, tc.in, diff)
			}
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestWriterKeepsFirstError(t *testing.T) {
	fw := &failWriter{}
	w := NewWriter(fw)
	rec := &Record{ID: "a", Question: strings.Repeat("q", 1<<17)}
	if err := w.Write(rec); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Write error = %v, want disk full", err)
	}
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Flush error = %v, want disk full", err)
	}
	if fw.n != 1 {
		t.Errorf("underlying writes = %d, want 1 (no writes after the first error)", fw.n)
	}
}

func TestWriterEscapesLineBreaks(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Write(&Record{ID: "a", Question: "x\u0085y\u2028z\u2029é…", Answers: []string{}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `{"schema":1,"id":"a","question":"x\u0085y\u2028z\u2029é…","answers":[]}` + "\n"
	if buf.String() != want {
		t.Errorf("Write = %q, want %q", buf.String(), want)
	}
	var back Record
	if err := Unmarshal(bytes.TrimSpace(buf.Bytes()), &back); err != nil || back.Question != "x\u0085y\u2028z\u2029é…" {
		t.Errorf("decoded question = %q (%v), want the original", back.Question, err)
	}
}

func TestMembers(t *testing.T) {
	line := []byte(` {"a" : 1, "b\u0063":{"x":"}"} ,"d":[1,"]"]}`)
	ms, err := Members(line)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Key+"="+string(line[m.ValueStart:m.End]))
	}
	want := []string{"a=1", `bc={"x":"}"}`, `d=[1,"]"]`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Members (-want +got):\n%s", diff)
	}
	if string(line[ms[0].Start:ms[0].End]) != `"a" : 1` {
		t.Errorf("member span = %q, want %q", line[ms[0].Start:ms[0].End], `"a" : 1`)
	}
	// An object cut short, with no closing brace, is an error.
	for _, cut := range []string{`{"a":1`, `{"a":1,`, `{"a":{"b":2}`, `{`} {
		if _, err := Members([]byte(cut)); err == nil {
			t.Errorf("Members(%s): no error", cut)
		}
	}
}

// TestReaderLineTooLongID: a line too long to read is named by its id when the id comes before
// the cut, as in every line the stages write, however long the line and whatever its end; and
// it is a record (Error.Record) when a "schema" member comes before the cut, as in those lines
// too, so that a file of such records is not taken for no file of records.
func TestReaderLineTooLongID(t *testing.T) {
	for _, c := range []struct {
		name, line string
		max        int
		want       string
		record     bool
	}{
		{"one chunk", `{"schema":1,"id":"long","question":"` + strings.Repeat("x", 300) + `"}`, 100, "long", true},
		{"many chunks", `{"schema":1,"id":"huge","question":"` + strings.Repeat("x", 200_000) + `"}`, 1000, "huge", true},
		{"escaped id", `{"schema":1,"id":"a\"b","question":"` + strings.Repeat("x", 300) + `"}`, 100, `a"b`, true},
		{"last line", `{"id":"end","question":"` + strings.Repeat("x", 300) + `"}`, 100, "end", false},
		{"just over", `{"id":"edge","q":"` + strings.Repeat("x", 10) + `"}`, 29, "edge", false},
		{"id after the cut", `{"schema":1,"question":"` + strings.Repeat("x", 9000) + `","id":"late"}`, 100, "", true},
		{"no id", `{"schema":1,"question":"` + strings.Repeat("x", 300) + `"}`, 100, "", true},
		{"schema after the cut", `{"id":"s","question":"` + strings.Repeat("x", 9000) + `","schema":1}`, 100, "s", false},
		{"escaped schema key", `{"\u0073chema":1,"id":"u","question":"` + strings.Repeat("x", 300) + `"}`, 100, "u", true},
		{"schema inside a value", `{"id":"v","meta":{"schema":1},"question":"` + strings.Repeat("x", 300) + `"}`, 100, "v", false},
		{"not json", strings.Repeat("x", 300), 100, "", false},
		// The line's first 4 kB alone are looked in, not spliced to the start of the read (64 kB
		// on) where the limit is passed: there a nested "id" would read as the record's.
		{"nested id past the first read", `{"schema":1,"id":"real","question":"` + strings.Repeat("x", 5000) + `","meta":{"blob":"` +
			strings.Repeat("y", 1<<16-5000-len(`{"schema":1,"id":"real","question":"","meta":{"blob":"`)+1) + `","id":"wrong"},"pad":"` +
			strings.Repeat("z", 10000) + `"}`, 70000, "real", true},
	} {
		in := c.line + "\n"
		if c.name == "last line" {
			in = c.line
		}
		r := NewReader(strings.NewReader(in), "f")
		r.SetMaxLine(c.max)
		_, err := r.Read()
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrLineTooLong) || e.ID != c.want {
			t.Errorf("%s: Read = %v, want a line-too-long error with id %q", c.name, err, c.want)
			continue
		}
		if e.Record != c.record {
			t.Errorf("%s: Read = %v with Record %v, want %v", c.name, err, e.Record, c.record)
		}
	}
}

// TestReaderValidateRecord: a line that decodes but fails Validate is a record (Error.Record) when
// it carries a schema, bad or missing its id, and none when it has no schema (a benchmark's own
// line with an id), so that a file of those is taken for no file of records.
func TestReaderValidateRecord(t *testing.T) {
	for _, c := range []struct {
		line, want string
		record     bool
	}{
		{`{"id":"q1","question":"Q?"}`, `f:1 (id "q1"): field "schema" missing or 0 (records carry "schema": 1; qa-load turns other files into records)`, false},
		{`{"schema":1,"question":"Q?"}`, `f:1: missing field "id"`, true},
		{`{"schema":1,"id":null,"question":"Q?"}`, `f:1: missing field "id"`, true},
		{`{"schema":1,"id":"","question":"Q?"}`, `f:1: field "id" is empty`, true},
		{`{"schema":1,"id":"x","id":"","question":"Q?"}`, `f:1: field "id" is empty`, true},
		{`{"schema":1,"id":"","id":null,"question":"Q?"}`, `f:1: missing field "id"`, true},
		{`{"schema":7,"id":""}`, `f:1: field "id" is empty`, true},
		{`{"schema":1,"Id":""}`, `f:1: missing field "id"`, true}, // "Id" is no id, as the decoder reads it
		{`{"schema":1,"i\u0064":"","ID":"x"}`, `f:1: field "id" is empty`, true},
		{`{"id":"","question":"Q?"}`, `f:1: field "schema" missing or 0 (records carry "schema": 1; qa-load turns other files into records)`, false},
		{`{"schema":7,"id":"q1"}`, `f:1 (id "q1"): schema 7 is not supported (want 1)`, true},
	} {
		_, err := NewReader(strings.NewReader(c.line+"\n"), "f").Read()
		var e *Error
		if !errors.As(err, &e) || err.Error() != c.want || e.Record != c.record {
			t.Errorf("Read(%s) = %v (Record %v), want %q (Record %v)", c.line, err, e != nil && e.Record, c.want, c.record)
		}
	}
}

// TestReaderBadLine: BadLine holds the first 4 kB of a line too long to keep, or the whole of a
// line that is not UTF-8, or that Read could not decode, after the error about it, and nil after
// a good line or a line ReadRaw does not decode, so that a caller can name such a line by an id
// under another key, or tell what it is.
func TestReaderBadLine(t *testing.T) {
	long := `{"_id":"h","q":"` + strings.Repeat("x", 9000) + `"}`
	latin := "{\"_id\":\"l\",\"q\":\"Ren\xe9e\"}"
	r := NewReader(strings.NewReader(`{"schema":1,"id":"a"}`+"\n"+long+"\n"+latin+"\n"+"not json\n"), "f")
	r.SetMaxLine(100)
	for i, want := range []string{"", long[:4096], latin, ""} {
		_, err := r.ReadRaw()
		if got := string(r.BadLine()); got != want || (want != "") != (err != nil) {
			t.Errorf("line %d: ReadRaw error %v, BadLine %.40q (%d bytes); want %.40q (%d bytes)", i+1, err, got, len(got), want, len(want))
		}
	}
	if _, err := r.Read(); err != io.EOF || r.BadLine() != nil {
		t.Errorf("at the end: Read error %v, BadLine %q; want io.EOF, nil", err, r.BadLine())
	}
	r = NewReader(strings.NewReader(`{"gpt4res":"x","id":7}`+"\n\n"+`{"schema":1}`+"\n"+`{"schema":1,"id":"a"}`+"\n"), "f")
	for i, want := range []string{`{"gpt4res":"x","id":7}`, `{"schema":1}`, ""} {
		_, err := r.Read()
		if got := string(r.BadLine()); got != want || (want != "") != (err != nil) {
			t.Errorf("Read %d: error %v, BadLine %q; want %q", i+1, err, got, want)
		}
	}
}

// TestKnownKeysLowerASCII: foldsToKnown skips keys of lower-case ASCII, which holds only while
// every known key is lower-case ASCII itself.
func TestKnownKeysLowerASCII(t *testing.T) {
	for _, set := range []map[string]keyRole{recordKeys, passageKeys, predictionKeys, judgmentKeys, sequenceKeys, usageKeys, batchKeys} {
		for k := range set {
			if mayFold(k) {
				t.Errorf("known key %q is not lower-case ASCII: foldsToKnown would miss its case variants", k)
			}
		}
	}
	if !foldsToKnown("ID", recordKeys) || !foldsToKnown("ſchema", recordKeys) || foldsToKnown("ids", recordKeys) {
		t.Errorf("foldsToKnown: want ID and ſchema to fold to known keys and ids not")
	}
}

// TestPeekID: the id of a line that fails to decode is the member the decoder reads as the id:
// key "id" exactly, the last of several; a key that differs only in case is an unknown member.
// Where the line does decode, PeekID agrees with the record's id. A line that is not JSON is
// named by the last "id" member whole before the fault.
func TestPeekID(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"schema":1,"id":"a","question":5}`, "a"},
		{`{"schema":1,"ID":"b","question":5}`, ""},
		{`{"schema":1,"Id":"b","iD":"c","question":5}`, ""},
		{`{"schema":1,"id":"a","ID":"b","question":5}`, "a"},
		{`{"schema":1,"ID":"b","id":"a","question":5}`, "a"},
		{`{"schema":1,"\u0069d":"a","question":5}`, "a"},
		{`{"schema":1,"id":"a","id":"b","question":5}`, "b"},
		{`{"schema":1,"id":5,"question":"q"}`, ""},
		{`{"schema":1,"id":"a",}`, "a"},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"te`, "a"},
		{`{"schema":1,"id":"a","question":"q" "answers":["x"]}`, "a"},
		{`{"schema":1,"id":"a","question":"q",,"id":"b"}`, "a"},
		{`{"schema":1,"id":"a","id":"b","question":"q`, "b"},
		{`{"schema":1,"id":"a","id":7,"question":"q`, ""},
		{`{"schema":1,"id":"ab`, ""},
		{`{"schema":1,"question":"say "id" twice","id":"a"}`, ""},
		{`{"schema":1,"id":5,"question":"q`, ""},
		{`{"schema":1,"ID":"a","question":"q`, ""},
		{`["id","a"]`, ""},
		{`{"schema":1,"id":"a","ID":"b","question":"q","answers":["x"]}`, "a"},
		{`{"schema":1,"ID":"b","id":"a","question":"q","answers":["x"]}`, "a"},
		{`{"schema":1,"id":"a","id":"b","question":"q","answers":["x"]}`, "b"},
	} {
		if got := PeekID([]byte(tt.line)); got != tt.want {
			t.Errorf("PeekID(%s) = %q, want %q", tt.line, got, tt.want)
		}
		var r Record
		if Unmarshal([]byte(tt.line), &r) == nil && r.ID != tt.want {
			t.Errorf("%s decodes with id %q, PeekID wants %q", tt.line, r.ID, tt.want)
		}
	}
}

// TestRepeatedScores: a scores or score_errors member given twice is read from the last alone,
// as qa-score reads it and writes one in its place; the decoder would merge the two objects, so
// that a null score in the first (read as 0) or a score the last leaves out went on as a value.
// A null in the last is a bad line, as in a single member. A case variant ("Scores") stays an
// unknown member, and scores beside score_errors, each once, are not a repeat.
func TestRepeatedScores(t *testing.T) {
	const head = `{"schema":1,"id":"a","question":"q","answers":["x"],`
	for _, tt := range []struct {
		name, line string
		scores     map[string]float64
		errs       map[string]string
		out        string // the record encoded again
		err        string // the Reader's error, "" for none
	}{
		{"scores", head + `"scores":{"f1":0.5},"scores":{"em":1}}`, map[string]float64{"em": 1}, nil,
			head + `"scores":{"em":1}}`, ""},
		{"a null score before", head + `"scores":{"f1":null},"scores":{"em":1}}`, map[string]float64{"em": 1}, nil,
			head + `"scores":{"em":1}}`, ""},
		{"a null score after", head + `"scores":{"em":1},"scores":{"f1":null}}`, nil, nil,
			"", `in.jsonl:1 (id "a"): invalid record: scores.f1: want a number, got null`},
		{"a null beside a zero after", head + `"scores":{"em":0},"scores":{"em":0,"f1":null}}`, nil, nil,
			"", `in.jsonl:1 (id "a"): invalid record: scores.f1: want a number, got null`},
		{"the same score twice", head + `"scores":{"f1":0.25,"em":1},"scores":{"f1":0.5}}`, map[string]float64{"f1": 0.5}, nil,
			head + `"scores":{"f1":0.5}}`, ""},
		{"scores then null", head + `"scores":{"f1":0.5},"scores":null}`, nil, nil, head + `"scores":null}`, ""},
		{"no object before", head + `"scores":5,"scores":{"em":1}}`, map[string]float64{"em": 1}, nil,
			head + `"scores":{"em":1}}`, ""},
		{"no object after", head + `"scores":{"em":1},"scores":[1]}`, nil, nil,
			"", `in.jsonl:1 (id "a"): invalid record: scores: want an object, got a list`},
		{"score errors", head + `"score_errors":{"sbert":"503"},"score_errors":{"bertscore_f1":"504"}}`, nil,
			map[string]string{"bertscore_f1": "504"}, head + `"score_errors":{"bertscore_f1":"504"}}`, ""},
		{"a null score error before", head + `"score_errors":{"sbert":null},"score_errors":{}}`, nil, map[string]string{},
			head + `"score_errors":{}}`, ""},
		{"a null score error after", head + `"score_errors":{"sbert":"503"},"score_errors":{"sbert":null}}`, nil, nil,
			"", `in.jsonl:1 (id "a"): invalid record: score_errors.sbert: want a string, got null`},
		{"interleaved", head + `"scores":{"a":1},"score_errors":{"b":"x"},"z":0,"scores":{"c":2},"score_errors":{"d":"y"}}`,
			map[string]float64{"c": 2}, map[string]string{"d": "y"}, head + `"scores":{"c":2},"score_errors":{"d":"y"},"z":0}`, ""},
		{"escaped key", head + `"scores":{"f1":null},"score\u0073":{"em":1}}`, map[string]float64{"em": 1}, nil,
			head + `"scores":{"em":1}}`, ""},
		{"case variant", head + `"scores":{"f1":0.5},"Scores":{"em":null}}`, map[string]float64{"f1": 0.5}, nil,
			head + `"scores":{"f1":0.5},"Scores":{"em":null}}`, ""},
		{"each once", head + `"scores":{"em":0},"score_errors":{"sbert":"503"}}`, map[string]float64{"em": 0},
			map[string]string{"sbert": "503"}, head + `"scores":{"em":0},"score_errors":{"sbert":"503"}}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := readLine(t, tt.line, tt.err)
			if rec == nil {
				return
			}
			if !cmp.Equal(rec.Scores, tt.scores) || !cmp.Equal(rec.ScoreErrors, tt.errs) {
				t.Errorf("Read(%s): scores %v, score_errors %v; want %v, %v", tt.line, rec.Scores, rec.ScoreErrors, tt.scores, tt.errs)
			}
			if b, err := rec.MarshalJSON(); err != nil || string(b) != tt.out {
				t.Errorf("encoded as %s (%v), want %s", b, err, tt.out)
			}
		})
	}
}

// TestRepeatedKeyLastValue: of a key given twice, at the top level or in a nested object, an
// earlier member that a later one replaces is not type-checked: the line reads as the last value
// (the last that is not null, for a string, number or bool, which null leaves as it was), as the
// README says. An object member of meta or judgments is merged with the later ones, as the
// decoder reads it, a name given twice in them read as its last value too. A last value of the
// wrong type is still a bad line.
func TestRepeatedKeyLastValue(t *testing.T) {
	const head = `{"schema":1,"id":"a","question":"q",`
	for _, tt := range []struct {
		name, line string
		out        string // the record encoded again
		err        string // the Reader's error, "" for none
	}{
		{"answers", head + `"answers":5,"answers":["x"]}`, head + `"answers":["x"]}`, ""},
		{"answers then null", head + `"answers":5,"answers":null}`, `{"schema":1,"id":"a","question":"q","answers":null}`, ""},
		{"id", `{"schema":1,"id":5,"id":"b","question":"q"}`, `{"schema":1,"id":"b","question":"q"}`, ""},
		{"id then null", `{"schema":1,"id":5,"id":"b","id":null,"question":"q"}`, `{"schema":1,"id":"b","question":"q"}`, ""},
		{"schema", `{"schema":"1","schema":1,"id":"a","question":"q"}`, `{"schema":1,"id":"a","question":"q"}`, ""},
		{"type", head + `"type":["x"],"type":"bridge"}`, `{"schema":1,"id":"a","type":"bridge","question":"q"}`, ""},
		{"a null type after", head + `"type":["x"],"type":null}`, "",
			`in.jsonl:1 (id "a"): invalid record: type: want a string, got a list`},
		{"context", head + `"context":{"text":"t"},"context":[{"text":"t"}]}`, head + `"context":[{"text":"t"}]}`, ""},
		{"passage text", head + `"context":[{"text":5,"text":"t"}]}`, head + `"context":[{"text":"t"}]}`, ""},
		{"sequence", head + `"sequence":{"id":1,"id":"s","position":"1","position":1}}`, head + `"sequence":{"id":"s","position":1}}`, ""},
		{"prediction", head + `"prediction":5,"prediction":{"text":"x"}}`, head + `"prediction":{"text":"x"}}`, ""},
		{"prediction text", head + `"prediction":{"text":5,"text":"x"}}`, head + `"prediction":{"text":"x"}}`, ""},
		{"a negative cost before", head + `"prediction":{"text":"x","cost_usd":-1},"prediction":{"text":"y"}}`, head + `"prediction":{"text":"y"}}`, ""},
		{"usage", head + `"prediction":{"text":"x","usage":5,"usage":{"input_tokens":3}}}`, head + `"prediction":{"text":"x","usage":{"input_tokens":3}}}`, ""},
		{"usage count", head + `"prediction":{"text":"x","usage":{"input_tokens":"3","input_tokens":3}}}`, head + `"prediction":{"text":"x","usage":{"input_tokens":3}}}`, ""},
		{"facts", head + `"prediction":{"text":"x","supporting_facts":[["t"]],"supporting_facts":[["t",1]]}}`,
			head + `"prediction":{"text":"x","supporting_facts":[["t",1]]}}`, ""},
		{"batch", head + `"prediction":{"text":"x","batch":{"first":"a","index":"0","index":0,"size":2}}}`,
			head + `"prediction":{"text":"x","batch":{"first":"a","index":0,"size":2}}}`, ""},
		{"meta", head + `"meta":5,"meta":{"k":1}}`, head + `"meta":{"k":1}}`, ""},
		{"meta merged", head + `"meta":{"k":1},"meta":{"j":2}}`, head + `"meta":{"j":2,"k":1}}`, ""},
		{"meta merged after a bad one", head + `"meta":{"k":1},"meta":5,"meta":{"j":2},"answers":5,"answers":["x"]}`,
			head + `"answers":["x"],"meta":{"j":2}}`, ""},
		{"judgments", head + `"judgments":5,"judgments":{"j":{"score":1}}}`, head + `"judgments":{"j":{"score":1}}}`, ""},
		{"judgment score", head + `"judgments":{"j":{"score":"1","score":1}}}`, head + `"judgments":{"j":{"score":1}}}`, ""},
		{"judgment named twice", head + `"judgments":{"j":5,"j":{"score":1}}}`, head + `"judgments":{"j":{"score":1}}}`, ""},
		{"judgment named twice across members", head + `"judgments":{"j":{"score":"1"},"k":{"score":0}},"judgments":{"j":{"score":1}}}`,
			head + `"judgments":{"j":{"score":1},"k":{"score":0}}}`, ""},
		{"judgment cost", head + `"judgments":{"j":{"score":1,"cost_usd":-1,"cost_usd":0.5}}}`, head + `"judgments":{"j":{"score":1,"cost_usd":0.5}}}`, ""},
		{"score named twice", head + `"scores":{"em":"1","em":1}}`, head + `"scores":{"em":1}}`, ""},
		// the last value is read, and checked
		{"the last answers bad", head + `"answers":["x"],"answers":5}`, "",
			`in.jsonl:1 (id "a"): invalid record: answers: want a list of strings, got a number`},
		{"the last prediction text bad", head + `"prediction":{"text":"x","text":5}}`, "",
			`in.jsonl:1 (id "a"): invalid record: prediction.text: want a string, got a number`},
		{"the last judgment bad", head + `"judgments":{"j":{"score":1}},"judgments":{"j":{"score":"1"}}}`, "",
			`in.jsonl:1 (id "a"): invalid record: judgments.j.score: want a number, got a string`},
		{"the last meta bad", head + `"meta":{"k":1},"meta":5}`, "",
			`in.jsonl:1 (id "a"): invalid record: meta: want an object, got a number`},
		{"the last passage bad", head + `"context":[{"text":5}],"context":[{"text":"t"},{"text":6}]}`, "",
			`in.jsonl:1 (id "a"): invalid record: context[1].text: want a string, got a number`},
		{"no JSON before", head + `"answers":tru,"answers":["x"]}`, "",
			`in.jsonl:1 (id "a"): invalid record: invalid character ',' in literal true (expecting 'e') (` + ErrCutLine.Error() + `)`},
		{"a null answer in the last", head + `"answers":5,"answers":[null]}`, "",
			`in.jsonl:1 (id "a"): invalid record: answers[0]: want a string, got null (an unanswerable question's answer is "")`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := readLine(t, tt.line, tt.err)
			if rec == nil {
				return
			}
			if b, err := rec.MarshalJSON(); err != nil || string(b) != tt.out {
				t.Errorf("Read(%s): encoded as %s (%v), want %s", tt.line, b, err, tt.out)
			}
		})
	}
}

// readLine reads line as the one line of "in.jsonl": the record, or nil when wantErr is not ""
// and reading it failed with that error (any other outcome fails the test).
func readLine(t *testing.T, line, wantErr string) *Record {
	t.Helper()
	rec, err := NewReader(strings.NewReader(line), "in.jsonl").Read()
	if wantErr != "" {
		if err == nil || err.Error() != wantErr {
			t.Fatalf("Read(%s): error %v, want %s", line, err, wantErr)
		}
		return nil
	}
	if err != nil {
		t.Fatalf("Read(%s): %v", line, err)
	}
	return rec
}

// lastAloneInner is a struct that, by its own UnmarshalJSON, is read from the last member of its
// key alone, as the record's nested types are.
type lastAloneInner struct {
	N int `json:"n"`
}

func (l *lastAloneInner) UnmarshalJSON(b []byte) error {
	type plain lastAloneInner
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*l = lastAloneInner(p)
	return nil
}

// TestLastValues: LastValues takes out the members a later one replaces, at every depth of the
// type, merges a map's objects, and leaves an object alone that has none, or that is no JSON (a
// member with a syntax error is no value a later one replaces).
func TestLastValues(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type outer struct {
		S  string            `json:"s"`
		In *inner            `json:"in"`
		M  map[string]inner  `json:"m"`
		L  []inner           `json:"l"`
		R  map[string]string `json:"r"`
		V  inner             `json:"v"`
		U  *lastAloneInner   `json:"u"`
	}
	for _, tt := range []struct{ in, want string }{
		{`{"s":"a","n":1}`, ""},
		{`{"s":1,"s":"a"}`, `{"s":"a"}`},
		{`{"s":1,"s":"a","s":null}`, `{"s":"a","s":null}`},
		{`{"s":null,"s":null}`, `{"s":null}`},
		{`{"x":1,"x":2}`, ""}, // not the type's: kept, as the decoder ignores it
		{`{"in":{"n":"1","n":1}}`, `{"in":{"n":1}}`},
		{`{"in":5,"in":{"n":1},"s":"a"}`, `{"in":{"n":1},"s":"a"}`},
		{`{"in":{"n":1},"in":null}`, `{"in":null}`},
		// a struct without an UnmarshalJSON of its own is filled from every object of its key,
		// as a map is: they are merged, from the last member that is no object on
		{`{"in":{"n":1},"in":{}}`, `{"in":{"n":1}}`},
		{`{"in":{"n":1},"in":{},"s":1,"s":"a"}`, `{"in":{"n":1},"s":"a"}`},
		{`{"in":{"n":1},"in":5,"in":{},"in":{"n":"2","n":3}}`, `{"in":{"n":3}}`},
		{`{"in":{"n":1},"in":null,"in":{}}`, `{"in":{}}`},
		{`{"v":{"n":1},"v":null,"v":{}}`, `{"v":{"n":1}}`}, // a null leaves a struct that is no pointer as it was
		{`{"v":{"n":1},"v":5,"v":{}}`, `{"v":{}}`},
		{`{"u":{"n":"1"},"u":{}}`, `{"u":{}}`}, // its own UnmarshalJSON reads the last alone
		{`{"m":{"a":{"n":"1"}},"m":{"b":{"n":2},"a":{"n":1,"n":3}}}`, `{"m":{"b":{"n":2},"a":{"n":3}}}`},
		{`{"m":{"a":{"n":1}},"m":5,"m":{"b":{"n":2}}}`, `{"m":{"b":{"n":2}}}`},
		{`{"m":{"a":{"n":1}},"m":null}`, `{"m":null}`},
		{`{"r":{"a":1,"a":"x"}}`, `{"r":{"a":"x"}}`},
		{`{"l":[{"n":"1","n":1}]}`, ""}, // a list's elements are not looked into
		{`{"s":tru,"s":"a"}`, ""},
		{`{"s":1,"s":"a"`, ""},
	} {
		got := LastValues([]byte(tt.in), reflect.TypeFor[outer]())
		if string(got) != tt.want {
			t.Errorf("LastValues(%s) = %s, want %s", tt.in, got, tt.want)
		}
		if got == nil {
			continue
		}
		var v1, v2 outer
		if json.Unmarshal([]byte(tt.in), &v1) == nil {
			if err := json.Unmarshal(got, &v2); err != nil || !cmp.Equal(v1, v2) {
				t.Errorf("%s decodes to %+v, LastValues's %s to %+v (%v)", tt.in, v1, got, v2, err)
			}
		} else if err := json.Unmarshal(got, &v2); err != nil {
			t.Errorf("LastValues(%s) = %s: %v", tt.in, got, err)
		}
	}
	if got := LastValues([]byte(`{"a":1,"a":"x"}`), reflect.TypeFor[map[string]string]()); string(got) != `{"a":"x"}` {
		t.Errorf("LastValues of a map = %s", got)
	}
}

// TestNullMember: a null among an object's values is named, the first key in sorted order, where
// the decoder reads it (the last of a key given twice); an object without one, or no object, is
// nil.
func TestNullMember(t *testing.T) {
	for _, tt := range []struct{ obj, want string }{
		{`{"f1":0,"em":0}`, ""},
		{`{"f1":0,"em":null,"bleu":null}`, "scores.bleu: want a number, got null"},
		{`{"f1":0, "em" : null }`, "scores.em: want a number, got null"},
		{`{"f1":0,"f1":null}`, "scores.f1: want a number, got null"},
		{`{"f1":null,"f1":0}`, ""},
		{`{"note":"null"}`, ""},
		{`{}`, ""},
		{`null`, ""},
		{`[null]`, ""},
		{``, ""},
	} {
		err := NullMember([]byte(tt.obj), "scores", "a number")
		if got := fmt.Sprint(err); err == nil && tt.want != "" || err != nil && got != tt.want {
			t.Errorf("NullMember(%s) = %v, want %q", tt.obj, err, tt.want)
		}
	}
}

// TestZeroScoreAllocations: a record with a score of 0, which the decoder may have read from a
// null, is checked in its scores member's own bytes, allocating no more than a record without
// one; the whole line was decoded again into a map for it.
func TestZeroScoreAllocations(t *testing.T) {
	allocs := func(score float64) float64 {
		r := benchRecord(1)
		r.Scores = map[string]float64{"em": score, "f1": 0.75}
		line, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(100, func() {
			var r Record
			if err := Unmarshal(line, &r); err != nil {
				t.Fatal(err)
			}
		})
	}
	// The decoder's pools may add an allocation now and then.
	if zero, one := allocs(0), allocs(1); zero > one+2 {
		t.Errorf("decoding a record with a score of 0 allocates %v times, one with none %v", zero, one)
	}
}

// TestReaderCutLastLine: a last line with no line end that is no whole JSON value (a writer that
// stopped mid-line) says the input ends inside it; a whole last line without a line end reads,
// and a bad line that is not the last, or is whole JSON, gets no such words.
func TestReaderCutLastLine(t *testing.T) {
	const cut = "the input ends inside this line, which has no line end: was it cut short, or did its writer stop?"
	rec := `{"schema":1,"id":"a","question":"q","answers":["a"]}`
	for _, tc := range []struct {
		name, in string
		cut      bool // the last line's error says it was cut
		bad      int  // bad lines
	}{
		{"cut", rec + "\n" + `{"schema":1,"id":"b","quest`, true, 1},
		{"whole, no line end", rec + "\n" + rec, false, 0},
		{"cut, then a line end", rec + "\n" + `{"schema":1,"id":"b","quest` + "\n", false, 1},
		{"whole JSON, bad record, no line end", rec + "\n" + `{"schema":1,"id":"b","answers":5}`, false, 1},
	} {
		r := NewReader(strings.NewReader(tc.in), "run.jsonl")
		var bads []error
		for {
			_, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				bads = append(bads, err)
			}
		}
		if len(bads) != tc.bad {
			t.Errorf("%s: %d bad lines %v, want %d", tc.name, len(bads), bads, tc.bad)
			continue
		}
		for _, err := range bads {
			if got := errors.Is(err, ErrCutLine) && strings.HasSuffix(err.Error(), "("+cut+")"); got != tc.cut {
				t.Errorf("%s: %v; cut = %v, want %v", tc.name, err, got, tc.cut)
			}
		}
	}
}

// TestPredictionReasoning: a prediction's reasoning is a known member, read into Reasoning and
// written after notes; members beside it that the schema does not know stay unknown.
func TestPredictionReasoning(t *testing.T) {
	line := `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"Paris","reasoning_tokens":12,"reasoning":"France's capital."}}`
	var r Record
	if err := Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if p := r.Prediction; p.Reasoning != "France's capital." || len(p.Extra) != 1 || string(p.Extra["reasoning_tokens"]) != "12" {
		t.Errorf("prediction = %+v, want reasoning %q and only reasoning_tokens unknown", p, "France's capital.")
	}
	b, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `"prediction":{"text":"Paris","reasoning":"France's capital.","reasoning_tokens":12}`
	if !strings.Contains(string(b), want) {
		t.Errorf("encoded %s, want it to hold %s", b, want)
	}
}

// TestCut: a prediction's and a judgment's cut are known members, read into Cut and written again
// as they came, after the text and after the thinking; a record without them gets none.
func TestCut(t *testing.T) {
	for _, tt := range []struct {
		line, pred, judged string
		want               string // what the encoding holds
	}{
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"model":"m","cut":"max_tokens","text":"The capital of"},"judgments":{"j":{"score":1,"raw":"yes, the","cut":"max_tokens"}}}`,
			CutMaxTokens, CutMaxTokens,
			`"prediction":{"text":"The capital of","cut":"max_tokens","model":"m"},"judgments":{"j":{"score":1,"raw":"yes, the","cut":"max_tokens"}}}`},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"Par","cut":"context_window"}}`,
			CutContextWindow, "", `"prediction":{"text":"Par","cut":"context_window"}}`},
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"Paris"},"judgments":{"j":{"score":1}}}`,
			"", "", `"prediction":{"text":"Paris"},"judgments":{"j":{"score":1}}}`},
	} {
		var r Record
		if err := Unmarshal([]byte(tt.line), &r); err != nil {
			t.Fatalf("%s: %v", tt.line, err)
		}
		p := r.Prediction
		if p.Cut != tt.pred || p.Extra != nil {
			t.Errorf("%s: prediction cut %q, extra %v, want %q and none", tt.line, p.Cut, p.Extra, tt.pred)
		}
		if j := r.Judgments["j"]; j != nil && (j.Cut != tt.judged || j.Extra != nil) {
			t.Errorf("%s: judgment cut %q, extra %v, want %q and none", tt.line, j.Cut, j.Extra, tt.judged)
		}
		b, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(b), tt.want) {
			t.Errorf("encoded %s, want it to end %s", b, tt.want)
		}
	}
	var bad Record
	if err := Unmarshal([]byte(`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y","cut":true}}`), &bad); err == nil {
		t.Errorf("a cut that is no string decodes")
	}
}

// TestEscapeLineBreaks: each of U+0085, U+2028 and U+2029 is escaped, alone or with the others; a
// line without them comes back as it was.
func TestEscapeLineBreaks(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\"x\u2028y\"", `"x\u2028y"`},
		{"\"x\u2029\"", `"x\u2029"`},
		{"\"\u0085\"", `"\u0085"`},
		{"\"é…\u2027\"", "\"é…\u2027\""},
	} {
		if got := EscapeLineBreaks([]byte(tc.in)); string(got) != tc.want {
			t.Errorf("EscapeLineBreaks(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLineSafe: what a json.Encoder writes through LineSafe has U+0085, U+2028 and U+2029 as \u
// escapes, decodes to the same value, and counts as written in full; a failed write is passed on.
func TestLineSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `"plain"` + "\n"},
		{"a\u0085b\u2028c\u2029d", `"a\u0085b\u2028c\u2029d"` + "\n"},
		{"é\u0084\u2027", "\"é\u0084\u2027\"\n"}, // neighbours of the three, kept raw
	} {
		var b bytes.Buffer
		enc := json.NewEncoder(LineSafe(&b))
		if err := enc.Encode(tc.in); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("LineSafe wrote %q for %q, want %q", b.String(), tc.in, tc.want)
		}
		var back string
		if err := json.Unmarshal(b.Bytes(), &back); err != nil || back != tc.in {
			t.Errorf("%q decodes to %q, %v; want %q", b.String(), back, err, tc.in)
		}
	}
	w := LineSafe(&failWriter{})
	if n, err := w.Write([]byte("x\u0085")); err == nil || n != 0 {
		t.Errorf("Write to a failing writer = %d, %v; want 0 and its error", n, err)
	}
	if n, err := LineSafe(io.Discard).Write([]byte("x\u0085")); err != nil || n != 3 {
		t.Errorf("Write = %d, %v; want 3 (the bytes given), nil", n, err)
	}
}

// lockedBuffer is a bytes.Buffer safe for a writer goroutine and a reading test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFlushWhenIdle: a line no other follows reaches the underlying writer with no Flush called,
// and after stop only Flush writes; an error of a flush is kept for the calls after it.
func TestFlushWhenIdle(t *testing.T) {
	var out lockedBuffer
	w := NewWriter(&out)
	stop := w.FlushWhenIdle()
	if err := w.WriteRaw([]byte(`{"id":"a"}`)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute) // a bound on a hang, not a timing assertion
	for out.String() != `{"id":"a"}`+"\n" {
		if time.Now().After(deadline) {
			t.Fatalf("the idle line was not flushed: %q", out.String())
		}
		time.Sleep(IdleFlush / 4)
	}
	stop()
	stop() // again: nothing
	if err := w.WriteRaw([]byte(`{"id":"b"}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil || out.String() != `{"id":"a"}`+"\n"+`{"id":"b"}`+"\n" {
		t.Errorf("after stop: Flush = %v, output %q", err, out.String())
	}

	var failed failingCount
	w = NewWriter(&failed)
	stop = w.FlushWhenIdle()
	defer stop()
	if err := w.WriteRaw([]byte(`{"id":"a"}`)); err != nil {
		t.Fatal(err)
	}
	for failed.calls.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no idle flush reached the failing writer")
		}
		time.Sleep(IdleFlush / 4)
	}
	if err := w.WriteRaw([]byte(`{"id":"b"}`)); err == nil || err.Error() != "disk full" {
		t.Errorf("write after a failed idle flush: %v, want disk full", err)
	}
}

// TestFlushWhenIdleHoldsAStream: lines that come one after another, none IdleFlush after the last,
// are not flushed while they come; once they stop, they are.
func TestFlushWhenIdleHoldsAStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		w := NewWriter(&out)
		stop := w.FlushWhenIdle()
		defer stop()
		for range 30 {
			if err := w.WriteRaw([]byte(`{"id":"a"}`)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(IdleFlush / 10)
		}
		synctest.Wait()
		if got := out.String(); got != "" {
			t.Errorf("flushed while lines kept coming: %d lines", strings.Count(got, "\n"))
		}
		time.Sleep(2 * IdleFlush)
		synctest.Wait()
		if got := strings.Count(out.String(), "\n"); got != 30 {
			t.Errorf("after the lines stopped: %d lines flushed, want 30", got)
		}
	})
}

// failingCount fails every write and counts them.
type failingCount struct{ calls atomic.Int64 }

func (f *failingCount) Write([]byte) (int, error) {
	f.calls.Add(1)
	return 0, errors.New("disk full")
}

// TestUsageCounts: a token count that the decoded usage left out, or gave as null, is unknown:
// it reads as 0, is not Known, and is left out when the usage is written again; a count given,
// 0 included, and every count of a Usage built in code (what a model call reports) is written.
func TestUsageCounts(t *testing.T) {
	for _, tt := range []struct {
		in, want  string
		in0, out0 bool // InputKnown, OutputKnown
	}{
		{`{"input_tokens":812,"output_tokens":9}`, `{"input_tokens":812,"output_tokens":9}`, true, true},
		{`{"input_tokens":0,"output_tokens":0}`, `{"input_tokens":0,"output_tokens":0}`, true, true},
		{`{"input_tokens":812}`, `{"input_tokens":812}`, true, false},
		{`{"output_tokens":3}`, `{"output_tokens":3}`, false, true},
		{`{}`, `{}`, false, false},
		{`{"input_tokens":null,"output_tokens":2}`, `{"output_tokens":2}`, false, true},
		{`{"output_tokens":2,"input_tokens":0,"input_tokens":null}`, `{"output_tokens":2}`, false, true},
		{`{"input_tokens":null,"input_tokens":0}`, `{"input_tokens":0}`, true, false},
		{`{"cached_tokens":4,"input_tokens":5}`, `{"input_tokens":5,"cached_tokens":4}`, true, false},
		{`{"Input_Tokens":7}`, `{"Input_Tokens":7}`, false, false},
		{`{"\u0069nput_tokens":7}`, `{"input_tokens":7}`, true, false},
		// a cache's count alone is written alone, as it came
		{`{"cached_input_tokens":4}`, `{"cached_input_tokens":4}`, false, false},
		{`{"cache_write_input_tokens":5}`, `{"cache_write_input_tokens":5}`, false, false},
	} {
		var u Usage
		if err := Unmarshal([]byte(tt.in), &u); err != nil {
			t.Errorf("Unmarshal(%s) = %v", tt.in, err)
			continue
		}
		if u.InputKnown() != tt.in0 || u.OutputKnown() != tt.out0 || u.Known() != (tt.in0 && tt.out0) {
			t.Errorf("%s: InputKnown, OutputKnown, Known = %v, %v, %v, want %v, %v, %v", tt.in,
				u.InputKnown(), u.OutputKnown(), u.Known(), tt.in0, tt.out0, tt.in0 && tt.out0)
		}
		if b, err := Marshal(u); err != nil || string(b) != tt.want {
			t.Errorf("%s: encoded as %s (%v), want %s", tt.in, b, err, tt.want)
		}
	}
	// A count set after decoding is known: written, whatever the object had.
	var u Usage
	if err := Unmarshal([]byte(`{"output_tokens":3}`), &u); err != nil {
		t.Fatal(err)
	}
	u.InputTokens = 7
	if b, _ := Marshal(u); string(b) != `{"input_tokens":7,"output_tokens":3}` || !u.Known() {
		t.Errorf("input count set after decoding: encoded as %s, Known %v", b, u.Known())
	}
	u = Usage{}
	if err := Unmarshal([]byte(`{"input_tokens":7}`), &u); err != nil {
		t.Fatal(err)
	}
	u.OutputTokens = 3
	if b, _ := Marshal(u); string(b) != `{"input_tokens":7,"output_tokens":3}` || !u.Known() {
		t.Errorf("output count set after decoding: encoded as %s, Known %v", b, u.Known())
	}
	for _, u := range []Usage{{}, {OutputTokens: 3}, {InputTokens: 5, Extra: map[string]json.RawMessage{"c": json.RawMessage("1")}}} {
		want := fmt.Sprintf(`{"input_tokens":%d,"output_tokens":%d`, u.InputTokens, u.OutputTokens)
		if u.Extra != nil {
			want += `,"c":1`
		}
		want += "}"
		if b, err := Marshal(u); err != nil || string(b) != want || !u.Known() {
			t.Errorf("%+v built in code: encoded as %s (%v), Known %v; want %s, known", u, b, err, u.Known(), want)
		}
	}
}

// TestUsageIsZero: a usage is zero when it counts nothing and carries nothing else: an unknown
// member (a provider's further count) is something.
func TestUsageIsZero(t *testing.T) {
	for _, tc := range []struct {
		u    Usage
		want bool
	}{
		{Usage{}, true},
		{Usage{InputTokens: 1}, false},
		{Usage{OutputTokens: 1}, false},
		{Usage{Extra: map[string]json.RawMessage{"reasoning_tokens": json.RawMessage("0")}}, false},
	} {
		if got := tc.u.IsZero(); got != tc.want {
			t.Errorf("%+v.IsZero() = %v, want %v", tc.u, got, tc.want)
		}
	}
}

// TestMetaString: MetaString gives a meta value that is a JSON string, and nothing for one that is
// absent or is no string; MetaValue decodes a value present, and says whether it was.
func TestMetaString(t *testing.T) {
	r := &Record{ID: "a"}
	if err := r.SetMeta("speaker_a", "Caroline"); err != nil {
		t.Fatal(err)
	}
	r.Meta["n"] = json.RawMessage("3")
	r.Meta["none"] = json.RawMessage("null")
	for _, tc := range []struct {
		key  string
		want string
		ok   bool
	}{
		{"speaker_a", "Caroline", true},
		{"n", "", false},
		{"none", "", false}, // null, a missing value as pandas writes it: no string
		{"missing", "", false},
	} {
		if got, ok := r.MetaString(tc.key); got != tc.want || ok != tc.ok {
			t.Errorf("MetaString(%q) = %q, %v; want %q, %v", tc.key, got, ok, tc.want, tc.ok)
		}
	}
	var n int
	if ok, err := r.MetaValue("n", &n); !ok || err != nil || n != 3 {
		t.Errorf("MetaValue(n) = %v, %v, %d; want true, nil, 3", ok, err, n)
	}
	if ok, err := r.MetaValue("speaker_a", &n); !ok || err == nil {
		t.Errorf("MetaValue(speaker_a) into an int = %v, %v; want true and an error", ok, err)
	}
	if ok, err := r.MetaValue("missing", &n); ok || err != nil {
		t.Errorf("MetaValue(missing) = %v, %v; want false, nil", ok, err)
	}
}

// TestFailed: a record has failed when its prediction or any of its judgments carries an error; a
// nil judgment or one without an error is no failure.
func TestFailed(t *testing.T) {
	for _, tc := range []struct {
		name string
		rec  Record
		want bool
	}{
		{"nothing", Record{ID: "a"}, false},
		{"prediction ok", Record{ID: "a", Prediction: &Prediction{Text: "x"}}, false},
		{"prediction error", Record{ID: "a", Prediction: &Prediction{Error: "timeout"}}, true},
		{"judgment error", Record{ID: "a", Prediction: &Prediction{Text: "x"},
			Judgments: map[string]*Judgment{"ok": {Label: "yes"}, "bad": {Error: "refused"}}}, true},
		{"nil judgment", Record{ID: "a", Judgments: map[string]*Judgment{"j": nil}}, false},
	} {
		if got := tc.rec.Failed(); got != tc.want {
			t.Errorf("%s: Failed() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestReaderDropsLongLineBuffer: the buffer a long line grew is not kept once a short line
// has been read after it (that one is read into it), nor is one grown for a line too long to
// keep; one that lines of its size, or of more than a quarter of it, keep filling is kept.
func TestReaderDropsLongLineBuffer(t *testing.T) {
	long := func(n int) string { return `{"schema":1,"id":"x","context":"` + strings.Repeat("w", n) + `"}` + "\n" }
	short := `{"schema":1,"id":"s"}` + "\n"
	r := NewReader(strings.NewReader(long(5<<20)+short+short+long(3<<20)+long(3<<20)+long(3<<20)+short+short), "in.jsonl")
	r.SetMaxLine(8 << 20)
	caps := []int{}
	var firsts []*byte
	for {
		line, err := r.ReadRaw()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		caps = append(caps, cap(r.buf))
		firsts = append(firsts, &line[0])
	}
	if len(caps) != 8 {
		t.Fatalf("%d lines read, want 8", len(caps))
	}
	if caps[0] < 5<<20 || caps[2] > keepBuf {
		t.Errorf("buffer capacity %d after a 5 MB line and %d after two short lines, want at most %d", caps[0], caps[2], keepBuf)
	}
	if firsts[4] != firsts[3] || firsts[5] != firsts[3] {
		t.Error("the buffer of a 3 MB line was not kept for the 3 MB lines after it")
	}
	if caps[7] > keepBuf {
		t.Errorf("buffer capacity %d after two short lines, want at most %d", caps[7], keepBuf)
	}

	// Lines that fill more than a quarter of it keep it: 1.5 MB lines after a 4 MB one.
	r = NewReader(strings.NewReader(long(4<<20)+long(3<<19)+long(3<<19)), "in.jsonl")
	r.SetMaxLine(8 << 20)
	firsts = firsts[:0]
	for range 3 {
		line, err := r.ReadRaw()
		if err != nil {
			t.Fatal(err)
		}
		firsts = append(firsts, &line[0])
	}
	if firsts[1] != firsts[0] || firsts[2] != firsts[0] {
		t.Error("the buffer of a 4 MB line was not kept for the 1.5 MB lines after it")
	}

	r = NewReader(strings.NewReader(long(3<<20)+short), "in.jsonl")
	r.SetMaxLine(2 << 20)
	if _, err := r.ReadRaw(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("first line: %v, want ErrLineTooLong", err)
	}
	if _, err := r.ReadRaw(); err != nil {
		t.Fatal(err)
	}
	if c := cap(r.buf); c > keepBuf {
		t.Errorf("buffer capacity %d after a line too long to keep and a short line, want at most %d", c, keepBuf)
	}
}

// TestHasSchema: a line with a "schema" member is a record, if perhaps a bad one, unless the
// schema is null or 0, which Validate finds missing; a line cut after its schema still counts.
func TestHasSchema(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{`{"schema":1,"id":"a"}`, true},
		{`{"schema":"1","id":"a"}`, true},
		{`{"schema":2,"id":"a","answers":3}`, true},
		{`{"schema":1,"id":"a","answers":["x"`, true},
		{`{"schema":null,"id":"a"}`, false},
		{`{"schema": 0 ,"id":"a"}`, false},
		{`{"schema":-0,"id":"a"}`, false},
		{`{"schema":0.0,"id":"a"}`, true},
		{`{"schema":null,"id":"a","answers":["x"`, false},
		{`{"schema":0,"id":"a","answers":["x"`, false},
		{`{"id":"a"}`, false},
		{`["schema",1]`, false},
	} {
		if got := HasSchema([]byte(tt.line)); got != tt.want {
			t.Errorf("HasSchema(%s) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

// TestInvalidLineWide: a line that holds NUL bytes, which no JSON text does, is named as UTF-16 or
// UTF-32 without a byte order mark, begun as JSON or not; another line is not.
func TestInvalidLineWide(t *testing.T) {
	const wide = "(NUL bytes in the line: text in UTF-16 or UTF-32 without a byte order mark?"
	for _, tt := range []struct {
		line string
		want bool
	}{
		{"{\x00\"\x00a\x00\"\x00}\x00", true}, // UTF-16LE
		{"\x00{\x00\"\x00a\x00\"\x00}", true}, // UTF-16BE
		{`{"schema":1,"id":"a",}`, false},
	} {
		var v Record
		err := InvalidLine([]byte(tt.line), unmarshal([]byte(tt.line), &v))
		if got := strings.Contains(err.Error(), wide); got != tt.want {
			t.Errorf("InvalidLine(%q) = %v; says UTF-16 %v, want %v", tt.line, err, got, tt.want)
		}
	}
}

// TestMaxDepth checks that MaxDepth is the deepest line the Reader reads.
func TestMaxDepth(t *testing.T) {
	line := func(depth int) string { // the record's object and depth-1 lists under "x"
		return `{"schema":1,"id":"a","question":"q","answers":[],"x":` +
			strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + "}\n"
	}
	for _, tt := range []struct {
		depth int
		ok    bool
	}{{MaxDepth, true}, {MaxDepth + 1, false}} {
		_, err := NewReader(strings.NewReader(line(tt.depth)), "f").Read()
		if (err == nil) != tt.ok {
			t.Errorf("Read of a line %d deep: %v, want ok %v", tt.depth, err, tt.ok)
		}
	}
}

func TestJudgmentScoreError(t *testing.T) {
	score := func(v float64) *Judgment { return &Judgment{Score: &v} }
	for _, tt := range []struct {
		name string
		j    *Judgment
		want string
	}{
		{"nil", nil, ""},
		{"no score", &Judgment{Raw: "CORRECT"}, ""},
		{"zero", score(0), ""},
		{"negative zero", score(math.Copysign(0, -1)), ""},
		{"one", score(1), ""},
		{"half", score(0.5), ""},
		{"rubric", score(5), "judgments.j.score: want a score from 0 to 1, got 5"},
		{"negative", score(-1), "judgments.j.score: want a score from 0 to 1, got -1"},
		{"above one", score(1.5), "judgments.j.score: want a score from 0 to 1, got 1.5"},
		{"just above one", score(math.Nextafter(1, 2)), "judgments.j.score: want a score from 0 to 1, got 1.0000000000000002"},
		{"huge", score(1.7e308), "judgments.j.score: want a score from 0 to 1, got 1.7e+308"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := tt.j.ScoreError("j"); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("ScoreError(%q) = %q, want %q", "j", got, tt.want)
			}
		})
	}
}

// TestScoreErrorJudgment: the judgment a ScoreError message names is read back whole, a name with
// dots or ".score: " in it included; a message in another form names none.
func TestScoreErrorJudgment(t *testing.T) {
	for _, name := range []string{"a", "", "longmemeval/gpt-4o-2024-08-06", "x.score: y", "a.b", "judgments.c"} {
		for _, v := range []float64{3, -1, math.Inf(1), 1.7e308} {
			msg := (&Judgment{Score: &v}).ScoreError(name).Error()
			if got, ok := ScoreErrorJudgment(msg); !ok || got != name {
				t.Errorf("ScoreErrorJudgment(%q) = %q, %v, want %q, true", msg, got, ok, name)
			}
		}
	}
	for _, msg := range []string{"", "out of range", "judgments.r", "judgment.r.score: x", " judgments.r.score: x"} {
		if got, ok := ScoreErrorJudgment(msg); ok {
			t.Errorf("ScoreErrorJudgment(%q) = %q, true, want false", msg, got)
		}
	}
}
