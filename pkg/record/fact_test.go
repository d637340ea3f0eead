package record

import (
	"strconv"
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
