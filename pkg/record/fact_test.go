package record

import (
	"strconv"
	"strings"
	"testing"
)

func TestFactJSON(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Fact
		ok   bool
	}{
		{`["Paris", 2]`, Fact{"Paris", 2}, true},
		{`["Paris", 2.0]`, Fact{"Paris", 2}, true}, // an integral float is that index, as in Python's tuples
		{`["Paris", 2e0]`, Fact{"Paris", 2}, true},
		{`["Paris", -0.0]`, Fact{"Paris", 0}, true},
		{`["Paris", 2.5]`, Fact{}, false},
		{`["Paris", "2"]`, Fact{}, false},
		{`["Paris", 1e300]`, Fact{}, false},
		{`["Paris"]`, Fact{}, false},
		{`["Paris", 1, 2]`, Fact{}, false},
		{`[3, 1]`, Fact{}, false},
	} {
		var f Fact
		err := f.UnmarshalJSON([]byte(c.in))
		if (err == nil) != c.ok || c.ok && f != c.want {
			t.Errorf("Fact from %s = %+v, %v; want %+v (ok %v)", c.in, f, err, c.want, c.ok)
		}
		if c.ok {
			if b, err := f.MarshalJSON(); err != nil || string(b) != `["Paris",`+strconv.Itoa(c.want.Sentence)+`]` {
				t.Errorf("Fact %+v written as %s, %v", f, b, err)
			}
		}
	}
}

// A prediction's supporting facts that a stage gives as an empty list (a model that named no
// fact, which HotpotQA's evaluation scores 0) are written as [], not left out as no facts, which
// qa-score would leave unscored; nil facts stay out, and an empty list read is written once.
func TestPredictionEmptyFacts(t *testing.T) {
	for _, c := range []struct {
		name string
		pred Prediction
		want string
	}{
		{"empty list", Prediction{Text: "a", SupportingFacts: []Fact{}}, `{"text":"a","supporting_facts":[]}`},
		{"nil", Prediction{Text: "a"}, `{"text":"a"}`},
		{"facts", Prediction{Text: "a", SupportingFacts: []Fact{{"P", 1}}}, `{"text":"a","supporting_facts":[["P",1]]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.pred.MarshalJSON()
			if err != nil || string(b) != c.want {
				t.Errorf("MarshalJSON(%+v) = %s, %v; want %s", c.pred, b, err, c.want)
			}
		})
	}
	in := `{"text":"a","supporting_facts":[]}`
	var p Prediction
	if err := p.UnmarshalJSON([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if b, err := p.MarshalJSON(); err != nil || string(b) != in {
		t.Errorf("prediction %s written again as %s, %v", in, b, err)
	}
}

// A prediction that gives supporting facts and no answer (HotpotQA's official prediction file may
// give a question's "sp" and no "answer") is read, has no text, and is written again without one,
// as is one that gives a metric's other input alone (a score, tokens) or a failed one whose text is
// null; a prediction with a text, even the empty answer "", has one.
func TestPredictionFactsAlone(t *testing.T) {
	for _, c := range []struct {
		line    string
		hasText bool
		want    string // the prediction written again
	}{
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":[["P",1]]}}`, false, `{"supporting_facts":[["P",1]]}`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":[]}}`, false, `{"supporting_facts":[]}`},
		{`{"schema":1,"id":"a","prediction":{"text":"","supporting_facts":[["P",1]]}}`, true, `{"text":"","supporting_facts":[["P",1]]}`},
		{`{"schema":1,"id":"a","prediction":{"text":"x"}}`, true, `{"text":"x"}`},
		{`{"schema":1,"id":"a","prediction":{"score":0.5}}`, false, `{"score":0.5}`},
		// a failed prediction's null text is none, written as null again
		{`{"schema":1,"id":"a","prediction":{"text":null,"error":"timeout"}}`, false, `{"error":"timeout","text":null}`},
		// the tokens perplexity reads, alone, as --tokens-field names them by default
		{`{"schema":1,"id":"a","prediction":{"tokens":3}}`, false, `{"tokens":3}`},
	} {
		rec, err := NewReader(strings.NewReader(c.line+"\n"), "in.jsonl").Read()
		if err != nil {
			t.Errorf("%s: Read = %v, want the record", c.line, err)
			continue
		}
		if got := rec.Prediction.HasText(); got != c.hasText {
			t.Errorf("%s: HasText() = %v, want %v", c.line, got, c.hasText)
		}
		if b, err := rec.Prediction.MarshalJSON(); err != nil || string(b) != c.want {
			t.Errorf("%s: prediction written as %s, %v; want %s", c.line, b, err, c.want)
		}
	}
	for _, c := range []struct {
		line, want string
	}{
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":null}}`, `prediction.text: missing`},
		{`{"schema":1,"id":"a","prediction":{"text":null,"supporting_facts":[]}}`, `prediction.text: want a string, got null`},
	} {
		_, err := NewReader(strings.NewReader(c.line+"\n"), "in.jsonl").Read()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Read error %v, want one saying %q", c.line, err, c.want)
		}
	}
}

// ClearText takes the text away, built in Go as a loader builds a prediction of facts alone.
func TestPredictionClearText(t *testing.T) {
	p := &Prediction{Text: "x", SupportingFacts: []Fact{{"P", 0}}}
	if !p.HasText() || !(&Prediction{}).HasText() {
		t.Fatalf("a prediction built in Go has no text")
	}
	p.ClearText()
	if p.HasText() || p.Text != "" {
		t.Errorf("after ClearText: HasText() = %v, Text %q; want false, \"\"", p.HasText(), p.Text)
	}
	if b, err := p.MarshalJSON(); err != nil || string(b) != `{"supporting_facts":[["P",0]]}` {
		t.Errorf("after ClearText written as %s, %v", b, err)
	}
	p.Text = "y"
	if !p.HasText() {
		t.Errorf("a text set after ClearText: HasText() = false")
	}
}

// TestFactFloatIndex: a sentence index written as a float is read when it is a whole number
// within ±2^53, 2^53 itself included, as HotpotQA's evaluation compares Python's tuples; one past
// it is refused.
func TestFactFloatIndex(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{`["Paris", 1.0]`, 1},
		{`["Paris", 1e0]`, 1},
		{`["Paris", 9007199254740992.0]`, 1 << 53},
		{`["Paris", -9007199254740992.0]`, -(1 << 53)},
	} {
		var f Fact
		if err := f.UnmarshalJSON([]byte(c.in)); err != nil || f != (Fact{"Paris", c.want}) {
			t.Errorf("Fact from %s = %+v, %v; want sentence %d", c.in, f, err, c.want)
		}
	}
	var f Fact
	if err := f.UnmarshalJSON([]byte(`["Paris", 9007199254740994.0]`)); err == nil {
		t.Errorf("Fact from an index past 2^53 = %+v, want an error", f)
	}
}

// TestFactJSONMessage: a sentence index that does not read says why; a whole number past what is
// read says it is read within 64 bits, where "want an integer" of an integer misled.
func TestFactJSONMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`["Paris", 9223372036854775808]`, "[1]: want an integer within 64 bits written in digits (within ±2^53 as a float), got the number 9223372036854775808"},
		{`["Paris", 1e17]`, "[1]: want an integer within 64 bits written in digits (within ±2^53 as a float), got the number 1e17"},
		{`["Paris", -1e300]`, "[1]: want an integer within 64 bits written in digits (within ±2^53 as a float), got the number -1e300"},
		{`["Paris", 2.5]`, "[1]: want an integer, got the number 2.5"},
		{`["Paris", 1e400]`, "[1]: want an integer, got the number 1e400"},
		{`["Paris", "2"]`, "[1]: want an integer, got a string"},
	} {
		var f Fact
		if err := f.UnmarshalJSON([]byte(c.in)); err == nil || err.Error() != c.want {
			t.Errorf("Fact from %s: error %v, want %q", c.in, err, c.want)
		}
	}
}
