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
			[]string{`p.jsonl:1 (id "1"): field "out": prediction must be a string or a number (a list: give --map prediction=out[0] for its first item)`}},
		{"jsonl object with text", JSONL, "",
			`{"id":"1","question":"q","prediction":{"text":"a"}}`, nil,
			[]string{`p.jsonl:1 (id "1"): field "prediction": prediction must be a string or a number (an object with "text": give --map prediction=prediction.text)`}},
		{"jsonl model list", JSONL, "prediction=out,prediction_model=by",
			`{"id":"1","question":"q","out":"t","by":["m"]}`, nil,
			[]string{`p.jsonl:1 (id "1"): field "by": prediction_model must be a string or a number`}},
		{"jsonl path through a list", JSONL, "prediction=out.text",
			`{"id":"1","question":"q","out":[{"text":"t"}]}`, nil,
			[]string{`p.jsonl:1 (id "1"): field "out.text": out: want an object, got a list`}},
		{"jsonl score", JSONL, "prediction=out,prediction_score=p",
			`{"id":"1","question":"q","out":"1","p":0.75}` + "\n" + `{"id":"2","question":"q","out":"0","p":-2.5e-1}` + "\n" +
				`{"id":"3","question":"q","out":"0","p":null}` + "\n" + `{"id":"4","question":"q","out":"0"}`,
			[]string{
				`{"schema":1,"id":"1","question":"q","answers":[],"prediction":{"text":"1","score":0.75}}`,
				`{"schema":1,"id":"2","question":"q","answers":[],"prediction":{"text":"0","score":-0.25}}`,
				`{"schema":1,"id":"3","question":"q","answers":[],"prediction":{"text":"0"}}`,
				`{"schema":1,"id":"4","question":"q","answers":[],"prediction":{"text":"0"}}`,
			}, nil},
		{"jsonl score by its own name", JSONL, "",
			`{"id":"1","question":"q","prediction":"1","prediction_score":1}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"prediction":{"text":"1","score":1}}`}, nil},
		{"jsonl score without a prediction goes to meta", JSONL, "prediction=out,prediction_score=p",
			`{"id":"1","question":"q","p":0.5}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"p":0.5}}`}, nil},
		{"jsonl score not a number", JSONL, "prediction=out,prediction_score=p",
			`{"id":"1","question":"q","out":"1","p":"0.5"}` + "\n" + `{"id":"2","question":"q","out":"1","p":[0.5]}` + "\n" +
				`{"id":"3","question":"q","out":"1","p":1e400}`, nil,
			[]string{
				`p.jsonl:1 (id "1"): field "p": prediction_score: want a number, got a string`,
				`p.jsonl:2 (id "2"): field "p": prediction_score: want a number, got a list`,
				`p.jsonl:3 (id "3"): field "p": prediction_score: want a number from -1.7976931348623157e+308 to 1.7976931348623157e+308, got "1e400"`,
			}},
		{"jsonl facts", JSONL, "prediction=out,prediction_supporting_facts=sp",
			`{"id":"1","question":"q","out":"yes","sp":[["Paris",0],["France",2.0]]}` + "\n" +
				`{"id":"2","question":"q","out":"no","sp":[]}` + "\n" + `{"id":"3","question":"q","out":"no","sp":null}`,
			[]string{
				`{"schema":1,"id":"1","question":"q","answers":[],"prediction":{"text":"yes","supporting_facts":[["Paris",0],["France",2]]}}`,
				`{"schema":1,"id":"2","question":"q","answers":[],"prediction":{"text":"no","supporting_facts":[]}}`,
				`{"schema":1,"id":"3","question":"q","answers":[],"prediction":{"text":"no"}}`,
			}, nil},
		{"jsonl facts that do not read", JSONL, "prediction=out,prediction_supporting_facts=pred.sp",
			`{"id":"1","question":"q","out":"a","pred":{"sp":[["T",0],["U","1"]]}}` + "\n" +
				`{"id":"2","question":"q","out":"a","pred":{"sp":[["T",0],[null,1]]}}` + "\n" +
				`{"id":"3","question":"q","out":"a","pred":{"sp":[["T"]]}}` + "\n" +
				`{"id":"4","question":"q","out":"a","pred":{"sp":{"T":0}}}` + "\n" +
				`{"id":"5","question":"q","out":"a","pred":{"sp":"T"}}`, nil,
			[]string{
				`p.jsonl:1 (id "1"): field "pred.sp": [1][1]: want an integer, got a string`,
				`p.jsonl:2 (id "2"): field "pred.sp": [1][0]: want a string, got null`,
				`p.jsonl:3 (id "3"): field "pred.sp": [0]: want a [title, sentence index] pair, got a list of 1 element`,
				`p.jsonl:4 (id "4"): field "pred.sp": prediction_supporting_facts: want a list of [title, sentence index] pairs, got an object`,
				`p.jsonl:5 (id "5"): field "pred.sp": prediction_supporting_facts: want a list of [title, sentence index] pairs, got a string`,
			}},
		{"csv score", CSV, "answers=gold,prediction=label,prediction_score=p",
			"question,gold,label,p\nq1,1,1,0.9\nq2,0,1, .55 \nq3,0,0,\nq4,1,0,1e-3\n",
			[]string{
				`{"schema":1,"id":"p.csv:2","question":"q1","answers":["1"],"prediction":{"text":"1","score":0.9}}`,
				`{"schema":1,"id":"p.csv:3","question":"q2","answers":["0"],"prediction":{"text":"1","score":0.55}}`,
				`{"schema":1,"id":"p.csv:4","question":"q3","answers":["0"],"prediction":{"text":"0"}}`,
				`{"schema":1,"id":"p.csv:5","question":"q4","answers":["1"],"prediction":{"text":"0","score":0.001}}`,
			}, nil},
		{"csv score not a decimal", CSV, "id=id,prediction=label,prediction_score=p",
			"id,question,label,p\na,q,1,NaN\nb,q,1,inf\nc,q,1,0x1p-1\nd,q,1,high\ne,q,1,\"0,5\"\n", nil,
			[]string{
				`p.csv:2 (id "a"): field "p": prediction_score: want a finite number, got "NaN"`,
				`p.csv:3 (id "b"): field "p": prediction_score: want a finite number, got "inf"`,
				`p.csv:4 (id "c"): field "p": prediction_score: want a decimal number, got "0x1p-1"`,
				`p.csv:5 (id "d"): field "p": prediction_score: want a number, got "high"`,
				`p.csv:6 (id "e"): field "p": prediction_score: want a number, got "0,5"`,
			}},
		{"csv facts column of the field's name", CSV, "",
			"question,prediction,prediction_supporting_facts\nq,a,\"[[\"\"T\"\",0]]\"\nq,b,\"[('U', 1), ['V', 2]]\"\nq,c,\nq,d,\"[[\"\"T\"\",\"\"0\"\"]]\"\nq,e,T 0\n",
			[]string{
				`{"schema":1,"id":"p.csv:2","question":"q","answers":[],"prediction":{"text":"a","supporting_facts":[["T",0]]}}`,
				`{"schema":1,"id":"p.csv:3","question":"q","answers":[],"prediction":{"text":"b","supporting_facts":[["U",1],["V",2]]}}`,
				`{"schema":1,"id":"p.csv:4","question":"q","answers":[],"prediction":{"text":"c"}}`,
			},
			[]string{
				`p.csv:5 (id "p.csv:5"): field "prediction_supporting_facts": [0][1]: want an integer, got a string`,
				`p.csv:6 (id "p.csv:6"): field "prediction_supporting_facts": want a list of [title, sentence index] pairs, as JSON ([["Title", 0]]) or Python's str() of one ([['Title', 0]]), got "T 0"`,
			}},
		{"csv facts of numpy 2 scalars", CSV, "id=qid,prediction=pred,prediction_supporting_facts=sp",
			"qid,question,pred,sp,supporting_facts\n" +
				"h1,q,yes,\"[('Title', np.int64(0)), ('Other', np.int64(2))]\",\"[(np.str_('Title'), np.int64(0))]\"\n" +
				"h2,q,no,\"[('Title', np.float64(0.0))]\",\n",
			[]string{
				`{"schema":1,"id":"h1","question":"q","answers":[],"meta":{"supporting_facts":[["Title",0]]},"prediction":{"text":"yes","supporting_facts":[["Title",0],["Other",2]]}}`,
			},
			[]string{
				`p.csv:3 (id "h2"): field "sp": want a list of [title, sentence index] pairs, as JSON ([["Title", 0]]) or Python's str() of one ([['Title', 0]]), got "[('Title', np.float64(0.0))]"`,
			}},
		{"csv gold facts", CSV, "id=qid,prediction=pred,prediction_supporting_facts=sp",
			"qid,question,answers,pred,sp,supporting_facts\n" +
				"h1,q,yes,yes,\"[[\"\"T\"\", 0]]\",\"[[\"\"Arthur's Magazine\"\", 0], ['First for Women', 1]]\"\n" +
				"h2,q,no,no,,\n" +
				"h3,q,no,no,,\"[[\"\"T\"\", 1.5]]\"\n" +
				"h4,q,no,no,,\"{'title': ['T'], 'sent_id': [0]}\"\n",
			[]string{
				`{"schema":1,"id":"h1","question":"q","answers":["yes"],"meta":{"supporting_facts":[["Arthur's Magazine",0],["First for Women",1]]},"prediction":{"text":"yes","supporting_facts":[["T",0]]}}`,
				`{"schema":1,"id":"h2","question":"q","answers":["no"],"prediction":{"text":"no"}}`,
			},
			[]string{
				`p.csv:4 (id "h3"): field "supporting_facts": [0][1]: want an integer, got the number 1.5`,
				`p.csv:5 (id "h4"): field "supporting_facts": want a list of [title, sentence index] pairs, as JSON ([["Title", 0]]) or Python's str() of one ([['Title', 0]]), got "{'title': ['T'], 'sent_id': [0]}"`,
			}},
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
