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
// record is written after the gap, and a later record refused does not replace it): nil, no id, another schema, a value JSON has not (NaN), an
// unknown member whose value is no JSON or spans lines, or whose key is a field of the schema's,
// at the top level or in a nested object (the line would give the key twice, and the reader
// takes the last). Nothing of such a record reaches the output.
//
// So is a record the Reader would refuse as a bad line: a count, latency or cost below 0, or a
// prediction without a text that carries no error nor anything a metric reads in its place (of
// several judgments with such a count, the first by name is named).
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
		{"extra over lines by a CR", &Record{ID: "a", Extra: map[string]json.RawMessage{"x": json.RawMessage("[1,\r2]")}}, `unknown member "x": its value is no JSON on one line`},
		{"extra under id", &Record{ID: "a", Extra: map[string]json.RawMessage{"id": json.RawMessage(`"other"`)}}, `unknown member "id": the key is the schema's own field`},
		{"extra under a prediction's text", &Record{ID: "a", Prediction: &Prediction{Text: "t", Extra: map[string]json.RawMessage{"text": json.RawMessage(`"u"`)}}}, `unknown member "text"`},
		{"negative latency", &Record{ID: "a", Prediction: &Prediction{Text: "t", LatencyMS: -3}}, `record "a": prediction.latency_ms: want milliseconds, 0 or more, got -3`},
		{"negative attempts", &Record{ID: "a", Prediction: &Prediction{Text: "t", Attempts: -1}}, `prediction.attempts: want a count, 0 or more, got -1`},
		{"negative cost", &Record{ID: "a", Prediction: &Prediction{Text: "t", CostUSD: ptrTo(-0.5)}}, `prediction.cost_usd: want US dollars, 0 or more, got -0.5`},
		{"negative token count", &Record{ID: "a", Prediction: &Prediction{Text: "t", Usage: &Usage{InputTokens: -5}}}, `prediction.usage.input_tokens: want a count, 0 or more, got -5`},
		{"negative cached count", &Record{ID: "a", Prediction: &Prediction{Text: "t", Usage: &Usage{CachedInputTokens: -1}}}, `prediction.usage.cached_input_tokens: want a count`},
		{"negative cache write count", &Record{ID: "a", Prediction: &Prediction{Text: "t", Usage: &Usage{CacheWriteInputTokens: -1}}}, `prediction.usage.cache_write_input_tokens: want a count`},
		{"negative judgment attempts", &Record{ID: "a", Judgments: map[string]*Judgment{"j": {Score: ptrTo(1), Attempts: -2}}}, `judgments.j.attempts: want a count, 0 or more, got -2`},
		{"negative judgment cost", &Record{ID: "a", Judgments: map[string]*Judgment{"j": {Score: ptrTo(1), CostUSD: ptrTo(-1)}}}, `judgments.j.cost_usd: want US dollars`},
		{"negative judgment tokens", &Record{ID: "a", Judgments: map[string]*Judgment{"j": {Score: ptrTo(1), Usage: &Usage{OutputTokens: -7}}}}, `judgments.j.usage.output_tokens: want a count`},
		{"negative counts in judgments", &Record{ID: "a", Judgments: map[string]*Judgment{"b": {Attempts: -1}, "a": {Attempts: -2}, "c": {Attempts: -3}}},
			`record "a": judgments.a.attempts: want a count, 0 or more, got -2`}, // the first by name
		{"prediction cleared of its text alone", &Record{ID: "a", Prediction: cleared(&Prediction{Model: "m"})}, `prediction.text: missing`},
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
			if err := w.Write(&Record{ID: "next", Schema: 3}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("a later record refused: Write = %v, want the first error", err)
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
	// An empty value is null.
	rec := &Record{ID: "a", Extra: map[string]json.RawMessage{"x": json.RawMessage(`{"a": [1, 2.50]}`), "ID": json.RawMessage(`7`), "n": nil}}
	if err := w.Write(rec); err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	if want := `{"schema":1,"id":"a","ID":7,"n":null,"x":{"a": [1, 2.50]}}` + "\n"; out.String() != want {
		t.Errorf("wrote %q, want %q", out.String(), want)
	}
}

// cleared returns p with its text taken away (ClearText).
func cleared(p *Prediction) *Prediction {
	p.ClearText()
	return p
}

// TestWriterKeepsTextless: a prediction without a text that the Reader takes, a failed one or one
// that gives supporting facts or a score alone, is written, and read back without a text.
func TestWriterKeepsTextless(t *testing.T) {
	for _, p := range []*Prediction{
		cleared(&Prediction{Error: "call failed"}),
		cleared(&Prediction{SupportingFacts: []Fact{{"A", 0}}}),
		cleared(&Prediction{Score: ptrTo(0.3)}),
		cleared(&Prediction{Extra: map[string]json.RawMessage{"loss": json.RawMessage(`2.5`), "tokens": json.RawMessage(`3`)}}),
	} {
		var out bytes.Buffer
		w := NewWriter(&out)
		if err := w.Write(&Record{ID: "a", Prediction: p}); err != nil || w.Flush() != nil {
			t.Fatalf("Write(%+v) = %v", p, err)
		}
		rec, err := NewReader(&out, "").Read()
		if err != nil {
			t.Fatalf("Read(%q) = %v", out.String(), err)
		}
		if rec.Prediction.HasText() {
			t.Errorf("Read(%q): prediction has a text, want none", out.String())
		}
	}
}
