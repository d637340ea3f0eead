package record

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestWriterRefuses: a record the Writer cannot write as one valid line that the Reader reads
// back as the same record is an error, kept as the Writer's (so Flush reports it too and no later
// record is written after the gap): nil, no id, another schema, a value JSON has not (NaN), an
// unknown member whose value is no JSON or spans lines, or whose key is a field of the schema's,
// at the top level or in a nested object (the line would give the key twice, and the reader
// takes the last). Nothing of such a record reaches the output.
func TestWriterRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		rec  *Record
		want string
	}{
		{"nil", nil, "record: nil"},
		{"no id", &Record{}, `record: missing field "id"`},
		{"other schema", &Record{Schema: 2, ID: "a"}, `record "a": schema 2 is not supported`},
		{"NaN score", &Record{ID: "a", Scores: map[string]float64{"f1": math.NaN()}}, "NaN"},
		{"extra not JSON", &Record{ID: "a", Extra: map[string]json.RawMessage{"x": json.RawMessage(`nope`)}}, `unknown member "x": its value is no JSON on one line`},
		{"extra over lines", &Record{ID: "a", Extra: map[string]json.RawMessage{"x": json.RawMessage("{\"a\":\n1}")}}, `unknown member "x": its value is no JSON on one line`},
		{"extra under id", &Record{ID: "a", Extra: map[string]json.RawMessage{"id": json.RawMessage(`"other"`)}}, `unknown member "id": the key is the schema's own field`},
		{"extra under a prediction's text", &Record{ID: "a", Prediction: &Prediction{Text: "t", Extra: map[string]json.RawMessage{"text": json.RawMessage(`"u"`)}}}, `unknown member "text"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			w := NewWriter(&out)
			err := w.Write(tc.rec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Write = %v, want an error with %q", err, tc.want)
			}
			if err := w.Write(&Record{ID: "next"}); err == nil {
				t.Error("a later Write succeeded after the error")
			}
			if err := w.Flush(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Flush = %v, want the first error", err)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %q, want nothing", out.String())
			}
		})
	}
	// Valid unknown members, spaces inside them included, are written as they are.
	var out bytes.Buffer
	w := NewWriter(&out)
	rec := &Record{ID: "a", Extra: map[string]json.RawMessage{"x": json.RawMessage(`{"a": [1, 2.50]}`), "ID": json.RawMessage(`7`)}}
	if err := w.Write(rec); err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	if want := `{"schema":1,"id":"a","ID":7,"x":{"a": [1, 2.50]}}` + "\n"; out.String() != want {
		t.Errorf("wrote %q, want %q", out.String(), want)
	}
}
