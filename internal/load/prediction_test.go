package load

import (
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// loadLines runs load over in (named name) with the mapping s and returns the records as they
// are written, and the bad items' messages.
func loadLines(t *testing.T, load Loader, name, in, s string) (lines, bads []string) {
	t.Helper()
	m, err := ParseMap(s)
	if err != nil {
		t.Fatal(err)
	}
	err = load(Input{Name: name, R: strings.NewReader(in)}, Options{Map: m}, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			bads = append(bads, bad.Error())
			return nil
		}
		b, err := record.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines, bads
}

// A generic record's prediction, made by another tool, comes from the prediction source (by
// default the field "prediction"), a string or a number, and its model from prediction_model;
// an item without the source, or with null there, has no prediction, and a CSV cell left empty
// is the empty answer "". Nothing else is made up for it.
func TestGenericPrediction(t *testing.T) {
	for _, tt := range []struct {
		name  string
		load  Loader
		m, in string
		lines []string
		bads  []string
	}{
		{"jsonl mapped", JSONL, "prediction=out",
			`{"id":"1","question":"q","answers":"a","out":"a b"}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":["a"],"prediction":{"text":"a b"}}`}, nil},
		{"jsonl by its own name", JSONL, "",
			`{"id":"1","question":"q","prediction":"p"}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"prediction":{"text":"p"}}`}, nil},
		{"jsonl null and missing are none", JSONL, "prediction=out",
			`{"id":"1","question":"q","out":null}` + "\n" + `{"id":"2","question":"q"}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[]}`, `{"schema":1,"id":"2","question":"q","answers":[]}`}, nil},
		{"jsonl empty is the empty answer", JSONL, "prediction=out",
			`{"id":"1","question":"q","out":""}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"prediction":{"text":""}}`}, nil},
		{"jsonl number", JSONL, "prediction=out",
			`{"id":"1","question":"q","out":1989}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"prediction":{"text":"1989"}}`}, nil},
		{"jsonl path and model", JSONL, "prediction=out.text,prediction_model=out.model",
			`{"id":"1","question":"q","out":{"text":"t","model":"m1","tokens":3}}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"out":{"tokens":3}},"prediction":{"text":"t","model":"m1"}}`}, nil},
		{"jsonl model null", JSONL, "prediction=out,prediction_model=by",
			`{"id":"1","question":"q","out":"t","by":null}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"prediction":{"text":"t"}}`}, nil},
		{"jsonl model without a prediction goes to meta", JSONL, "prediction=out,prediction_model=by",
			`{"id":"1","question":"q","by":"m1"}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"by":"m1"}}`}, nil},
		{"jsonl list", JSONL, "prediction=out",
			`{"id":"1","question":"q","out":["a","b"]}`, nil,
			[]string{`p.jsonl:1 (id "1"): field "out": prediction must be a string or a number`}},
		{"jsonl object with text", JSONL, "",
			`{"id":"1","question":"q","prediction":{"text":"a"}}`, nil,
			[]string{`p.jsonl:1 (id "1"): field "prediction": prediction must be a string or a number (an object with "text": give --map prediction=prediction.text)`}},
		{"jsonl model list", JSONL, "prediction=out,prediction_model=by",
			`{"id":"1","question":"q","out":"t","by":["m"]}`, nil,
			[]string{`p.jsonl:1 (id "1"): field "by": prediction_model must be a string or a number`}},
		{"jsonl path through a list", JSONL, "prediction=out.text",
			`{"id":"1","question":"q","out":[{"text":"t"}]}`, nil,
			[]string{`p.jsonl:1 (id "1"): field "out.text": out: want an object, got a list`}},
		{"csv", CSV, "answers=gold,prediction=model_answer,prediction_model=model",
			"question,gold,model_answer,model\nq1,a,\"[\"\"a\"\"]\",m1\nq2,b,,\n",
			[]string{
				`{"schema":1,"id":"p.csv:2","question":"q1","answers":["a"],"prediction":{"text":"[\"a\"]","model":"m1"}}`,
				`{"schema":1,"id":"p.csv:3","question":"q2","answers":["b"],"prediction":{"text":""}}`,
			}, nil},
		{"csv without the column", CSV, "prediction=model_answer,prediction_model=model",
			"question,model\nq1,m1\n",
			[]string{`{"schema":1,"id":"p.csv:2","question":"q1","answers":[],"meta":{"model":"m1"}}`}, nil},
		{"csv source taken by answers", CSV, "answers=prediction",
			"question,prediction\nq1,a\n",
			[]string{`{"schema":1,"id":"p.csv:2","question":"q1","answers":["a"]}`}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := "p.jsonl"
			if strings.HasPrefix(tt.name, "csv") {
				name = "p.csv"
			}
			lines, bads := loadLines(t, tt.load, name, tt.in, tt.m)
			if !slices.Equal(lines, tt.lines) || !slices.Equal(bads, tt.bads) {
				t.Errorf("load %q with --map %q = %q, bad %q; want %q, bad %q", tt.in, tt.m, lines, bads, tt.lines, tt.bads)
			}
		})
	}
}
