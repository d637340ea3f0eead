package load

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// An official prediction file is read by its layout: SQuAD's object of answers, HotpotQA's
// object of answer and sp, LongMemEval's JSON Lines (or array) of hypotheses; what does not read
// is an error naming the file, and the line or the id at fault.
// arrayHint ends the error of a JSON array of predictions whose first item is no hypothesis.
const arrayHint = ` (a JSON array is read as LongMemEval's hypotheses; SQuAD's, CMRC 2018's and HotpotQA's predictions are one JSON object, {"qid": "answer"} or {"answer": {...}, "sp": {...}})`

// TestPredictionsArrayHint: the hint is for an array whose first item is no hypothesis; past a
// good first item the array is LongMemEval's, and a bad item is named alone.
func TestPredictionsArrayHint(t *testing.T) {
	for in, want := range map[string]string{
		`[{"a1": "x"}]`: `p.json: item 1: missing field "question_id"` + arrayHint,
		`[{"question_id": "e1", "hypothesis": "h"}, {"a1": "x"}]`: `p.json: item 2: missing field "question_id"`,
		`[{"question_id": "e1", "hypothesis": "h"}, 5]`:           `p.json: item 2: want an object with question_id and hypothesis, got a number`,
		"{\"a1\": \"x\", \"question_id\": null}\n":                `p.json:1: question_id: want a string, got null`,
	} {
		if _, err := parsePredictions("p.json", []byte(in)); err == nil || err.Error() != want {
			t.Errorf("parsePredictions(%q) = %v, want error %q", in, err, want)
		}
	}
}

func TestParsePredictions(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		format   string
		preds    []string // id=text[facts], sorted
		err      string
	}{
		{"squad", `{"q1": "a", "q2": ""}`, "squad", []string{`q1="a"[]`, `q2=""[]`}, ""},
		{"squad empty", `{}`, "squad", nil, ""},
		{"hotpotqa", `{"answer": {"a1": "yes"}, "sp": {"a1": [["T", 0], ["U", 1.0]], "a2": []}}`, "hotpotqa",
			[]string{`a1="yes"[{T 0} {U 1}]`, `a2=-[]`}, ""},
		{"hotpotqa without sp", `{"answer": {"a1": "no"}}`, "hotpotqa", []string{`a1="no"[]`}, ""},
		// Supporting facts alone, without the answers (a run scored on sp_* only), are HotpotQA's
		// too, not the answer "{...}" of a SQuAD question whose id is "sp".
		{"hotpotqa sp without answer", `{"sp": {"a1": [["T", 0]], "a2": []}}`, "hotpotqa", []string{`a1=-[{T 0}]`, `a2=-[]`}, ""},
		{"squad id sp", `{"sp": "a", "q1": "b"}`, "squad", []string{`q1="b"[]`, `sp="a"[]`}, ""},
		{"longmemeval", "{\"question_id\": \"e1\", \"hypothesis\": \"h\", \"autoeval_label\": {}}\n\n{\"question_id\": \"e2\", \"hypothesis\": \"\"}\n",
			"longmemeval", []string{`e1="h"[]`, `e2=""[]`}, ""},
		{"longmemeval array", `[{"question_id": "e1", "hypothesis": "h"}]`, "longmemeval", []string{`e1="h"[]`}, ""},
		{"squad number", `{"q1": 3, "q2": 20.0, "q3": 1e16, "q4": true}`, "squad", []string{`q1="3"[]`, `q2="20.0"[]`, `q3="1e+16"[]`, `q4="True"[]`}, ""},
		{"squad null and list", `{"q1": null, "q2": ["a", 1.50], "q3": {"a": null}}`, "squad", []string{`q1="None"[]`, `q2="['a', 1.5]"[]`, `q3="{'a': None}"[]`}, ""},
		{"hotpotqa answer number", `{"answer": {"a1": 3}}`, "", nil, `p.json: "answer": prediction "a1": want a string, got a number`},
		{"hotpotqa answer not a string", `{"answer": {"a1": null}}`, "", nil, `p.json: "answer": prediction "a1": want a string, got null`},
		{"hotpotqa bad sp", `{"answer": {}, "sp": {"a1": [["T", 0], ["T", null]]}}`, "", nil,
			`p.json: "sp": prediction "a1": [1][1]: want an integer, got null`},
		{"hotpotqa sp pair not a list", `{"answer": {}, "sp": {"a1": [["T", 0], 5]}}`, "", nil,
			`p.json: "sp": prediction "a1": [1]: want a [title, sentence index] pair, got the number 5`},
		{"hotpotqa sp a string", `{"answer": {}, "sp": {"a1": "T"}}`, "", nil,
			`p.json: "sp": prediction "a1": want a list of [title, sentence index] pairs, got a string`},
		{"hotpotqa sp not an object", `{"answer": {}, "sp": [["T", 0]]}`, "", nil,
			`p.json: "sp": want an object of [title, sentence index] lists by id: `},
		{"hotpotqa null sp", `{"answer": {"a1": "yes"}, "sp": {"a1": null}}`, "", nil,
			`p.json: "sp": prediction "a1": want a list of [title, sentence index] pairs, got null`},
		{"hotpotqa sp not a list", `{"answer": {}, "sp": {"a1": {"T": 0}}}`, "", nil,
			`p.json: "sp": prediction "a1": want a list of [title, sentence index] pairs, got an object`},
		{"longmemeval no hypothesis", "{\"question_id\": \"e1\", \"hypothesis\": \"h\"}\n{\"question_id\": \"e2\"}\n", "", nil,
			`p.json:2 (id "e2"): missing field "hypothesis"`},
		{"longmemeval twice", "{\"question_id\": \"e1\", \"hypothesis\": \"h\"}\n{\"question_id\": \"e1\", \"hypothesis\": \"i\"}\n", "", nil,
			`p.json:2 (id "e1"): a second hypothesis for the question (which is meant cannot be told)`},
		{"longmemeval hypotheses not strings", "{\"question_id\": \"e1\", \"hypothesis\": 3}\n{\"question_id\": \"e2\", \"hypothesis\": [\"a\", 2.50]}\n{\"question_id\": \"e3\", \"hypothesis\": false}\n",
			"longmemeval", []string{`e1="3"[]`, `e2="['a', 2.5]"[]`, `e3="False"[]`}, ""},
		{"longmemeval null hypothesis", "{\"question_id\": \"e1\", \"hypothesis\": \"h\"}\n{\"question_id\": \"e2\", \"hypothesis\": null}\n", "", nil,
			`p.json:2 (id "e2"): hypothesis: want a string, got null`},
		{"longmemeval no question_id", "{\"question_id\": \"e1\", \"hypothesis\": \"h\"}\n{\"hypothesis\": \"i\"}\n", "", nil,
			`p.json:2: missing field "question_id"`},
		{"longmemeval number id", `{"question_id": 7, "hypothesis": "h"}`, "", nil,
			`p.json:1: question_id: want a string, got a number`},
		{"longmemeval line not an object", "{\"question_id\": \"e1\", \"hypothesis\": \"h\"}\n[1]\n", "", nil,
			`p.json:2: want an object with question_id and hypothesis, got a list`},
		// A JSON Lines line that is no JSON is named by its line (and its id, when the members
		// before the fault give it), with the decoder's words, not as an object of the wrong kind.
		{"longmemeval line cut", "{\"question_id\": \"e1\", \"hypothesis\": \"h\"}\n{\"question_id\": \"e2\", \"hyp\n{\"question_id\": \"e3\", \"hypothesis\": \"h\"}\n", "", nil,
			`p.json:2 (id "e2"): invalid JSON: unexpected end of JSON input`},
		{"longmemeval line syntax", "{\"question_id\": \"e1\", \"hypothesis\": \"h\"}\n{\"question_id\": \"e2\", \"hypothesis\": \"h\",}\n", "", nil,
			`p.json:2 (id "e2"): invalid JSON: invalid character '}' looking for beginning of object key string at column 41`},
		{"longmemeval line not JSON", "{\"question_id\": \"e1\", \"hypothesis\": \"h\"}\ngarbage\n", "", nil,
			`p.json:2: invalid JSON: invalid character 'g' looking for beginning of value at column 1`},
		{"longmemeval last line cut", "{\"question_id\": \"e1\", \"hypothesis\": \"h\"}\n{\"question_id\": \"e2\", \"hypothesis\": \"You co", "", nil,
			`p.json:2 (id "e2"): invalid JSON: unexpected end of JSON input (` + record.ErrCutLine.Error() + `)`},
		{"squad answers in an array", `[{"q1": "a"}]`, "", nil,
			`p.json: item 1: missing field "question_id"` + arrayHint},
		{"pairs in an array", `[["q1", "a"]]`, "", nil,
			`p.json: item 1: want an object with question_id and hypothesis, got a list` + arrayHint},
		{"two objects", `{"q1": "a"} {"q2": "b"}`, "", nil, `p.json:1: more after the JSON object at column 13: `},
		{"two objects on lines", "{\n \"q1\": \"a\"\n}\n\n{\"q2\": \"b\"}\n", "", nil, `p.json:5: more after the JSON object at column 1: `},
		{"not an object", `"a"`, "", nil, `p.json: not a prediction file: want a JSON object, or JSON Lines of objects with question_id and hypothesis, got a string`},
		{"no JSON", `q1,a`, "", nil, `p.json:1: not a prediction file: invalid character 'q' looking for beginning of value at column 1`},
		// A file of many lines that a syntax error spoils is named at the byte at fault.
		{"squad syntax", "{\n \"q1\": \"a\",\n \"q2\": \"b\",\n}\n", "", nil,
			`p.json:4: invalid JSON: invalid character '}' looking for beginning of object key string at column 1`},
		{"squad cut", "{\n \"q1\": \"a\",\n \"q2\": \"b\"\n\n\n", "", nil, `p.json:3: invalid JSON: unexpected end of JSON input`},
		{"squad NaN", "{\n \"q1\": NaN}", "", nil, `p.json:2: invalid JSON: invalid character 'N' looking for beginning of value at column 8`},
		{"longmemeval array syntax", "[\n{\"question_id\": \"a\", \"hypothesis\": \"h\"},\n{\"question_id\": \"b\", \"hypothesis\": \"h\"},,\n]\n", "", nil,
			`p.json:3: invalid JSON: invalid character ',' looking for beginning of value at column 41`},
		{"longmemeval array syntax first", "[\n{\"question_id\": \"a\" \"hypothesis\": \"h\"}\n]\n", "", nil,
			`p.json:2: invalid JSON: invalid character '"' after object key:value pair at column 21`},
		{"longmemeval array then text", "[\n{\"question_id\": \"a\", \"hypothesis\": \"h\"}\n] x", "", nil,
			`p.json:3: invalid JSON: invalid character 'x' after top-level value at column 3`},
		{"longmemeval array more", "[\n{\"question_id\": \"a\", \"hypothesis\": \"h\"}\n]\n[]\n", "", nil,
			`p.json:4: invalid JSON: invalid character '[' after top-level value at column 1`},
		{"empty", "", "", nil, `p.json: empty: no predictions (want a JSON object, or JSON Lines of objects with question_id and hypothesis)`},
		{"blanks", " \n\t\n", "", nil, `p.json: empty: no predictions (want a JSON object, or JSON Lines of objects with question_id and hypothesis)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parsePredictions("p.json", []byte(tt.in))
			if tt.err != "" {
				if err == nil || len(err.Error()) < len(tt.err) || err.Error()[:len(tt.err)] != tt.err {
					t.Errorf("parsePredictions(%q) = %v, want error %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parsePredictions(%q): %v", tt.in, err)
			}
			var got []string
			for id, o := range p.byID {
				text := "-"
				if o.hasText {
					text = fmt.Sprintf("%q", o.text)
				}
				got = append(got, fmt.Sprintf("%s=%s%v", id, text, o.facts))
			}
			slices.Sort(got)
			if p.Format != tt.format || !slices.Equal(got, tt.preds) {
				t.Errorf("parsePredictions(%q) = %s %q, want %s %q", tt.in, p.Format, got, tt.format, tt.preds)
			}
		})
	}
}

// Of several answers or supporting facts that do not read, the error names the first by sorted id,
// the same one every run: the file's object was read as a Go map, whose order changes from run
// to run.
func TestParsePredictionsFirstFault(t *testing.T) {
	for _, tt := range []struct{ in, err string }{
		{`{"answer": {"e": 5, "c": 3, "a": 1, "d": 4, "b": 2}}`, `p.json: "answer": prediction "a": want a string, got a number`},
		{`{"answer": {}, "sp": {"e": 5, "c": 3, "a": 1, "d": 4, "b": 2}}`, `p.json: "sp": prediction "a": `},
	} {
		for range 20 {
			if _, err := parsePredictions("p.json", []byte(tt.in)); err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Fatalf("parsePredictions(%s) = %v, want error %q", tt.in, err, tt.err)
			}
		}
	}
}

// A record finds its prediction by its id after "DATASET:", or by its whole id when it has no
// such prefix (a generic record); one that carries a prediction keeps it (counted as kept only
// when the file has one for it too), and the file's ids no record has are counted, the first
// named in sorted order.
func TestAttachPredictions(t *testing.T) {
	p, err := parsePredictions("p.json", []byte(`{"q1": "a", "row-7": "b", "q3": "c", "q4": "d", "q5": "e", "q0": "f", "q9": "g", ":q9": "h", "DEV_1": "i"}`))
	if err != nil {
		t.Fatal(err)
	}
	recs := []*record.Record{
		{ID: "squad:q1", Dataset: "squad"},
		{ID: "row-7"},
		{ID: "squad:q3", Dataset: "squad", Prediction: &record.Prediction{Text: "mine"}},
		{ID: "cmrc2018:q2", Dataset: "cmrc2018"},
		{ID: "q4", Dataset: "squad"},                                                    // no prefix: the whole id
		{ID: "squad:q8", Dataset: "squad", Prediction: &record.Prediction{Text: "own"}}, // not in the file: not kept from it
		{ID: ":q9"}, // a record without a dataset: its whole id, the ":" too
		// a CMRC 2018 id stripped as Python's str.strip() strips it, U+001F too (not only Go's spaces)
		{ID: "cmrc2018:\x1f DEV_1\u3000", Dataset: "cmrc2018"},
	}
	for _, r := range recs {
		p.Count(r, p.Attach(r))
	}
	var texts []string
	for _, r := range recs {
		text := "-"
		if r.Prediction != nil {
			text = r.Prediction.Text
		}
		texts = append(texts, text)
	}
	if want := []string{"a", "b", "mine", "-", "d", "own", "h", "i"}; !slices.Equal(texts, want) {
		t.Errorf("predictions attached = %q, want %q", texts, want)
	}
	if p.Missing != 1 || p.FirstMissing != "cmrc2018:q2" || p.Written != 8 || p.Kept != 1 {
		t.Errorf("missing %d (first %q) of %d, kept %d; want 1 (cmrc2018:q2) of 8, 1", p.Missing, p.FirstMissing, p.Written, p.Kept)
	}
	if n, first := p.Unused(); n != 3 || first != "q0" {
		t.Errorf("Unused() = %d, %q; want 3, q0 (the first in sorted order)", n, first)
	}
}

// An answer that is no string attaches to a CMRC 2018 record as its str(), as
// cmrc2018_evaluate.py reads it; another record gets none, and Refused says why, as SQuAD's
// script stops on it.
func TestAttachNumberAnswer(t *testing.T) {
	p, err := parsePredictions("p.json", []byte(`{"DEV_0_QUERY_0": 2018, "DEV_0_QUERY_1": null, "q1": 3.50}`))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"DEV_0_QUERY_0": "2018", "DEV_0_QUERY_1": "None"} {
		rec := newRecord("cmrc2018:"+id, "cmrc2018", "zh")
		p.Attach(rec)
		if rec.Prediction == nil || rec.Prediction.Text != want || p.Refused(rec) != nil {
			t.Errorf("CMRC 2018 record %s: prediction %+v, refused %v; want the text %q", id, rec.Prediction, p.Refused(rec), want)
		}
	}
	rec := newRecord("squad:q1", "squad", "en")
	p.Attach(rec)
	want := `--predictions p.json: prediction "q1": want a string, got a number (only CMRC 2018's script reads one, as its str(); this record is not CMRC 2018's)`
	if err := p.Refused(rec); err == nil || err.Error() != want || rec.Prediction != nil {
		t.Errorf("SQuAD record: Refused = %v, prediction %+v; want error %q and none", err, rec.Prediction, want)
	}
	rec = newRecord("squad:q1", "squad", "en")
	rec.Prediction = &record.Prediction{Text: "mine"}
	p.Attach(rec)
	if err := p.Refused(rec); err != nil || rec.Prediction.Text != "mine" {
		t.Errorf("SQuAD record with its own prediction: Refused = %v, prediction %+v; want none, and its own kept", err, rec.Prediction)
	}
}

// cmrc2018_evaluate.py looks a prediction up by the question's id stripped of white space
// (qas['id'].strip()): a CMRC 2018 record whose id has blanks around it takes the file's answer to
// the stripped id, and the file's answer to the id with its blanks answers no question there.
// SQuAD's script does not strip, so neither does a SQuAD record.
func TestAttachCMRCStrippedID(t *testing.T) {
	p, err := parsePredictions("p.json", []byte(`{"DEV_1": "a", " DEV_2 ": "b", "DEV_2": "c", " q3": "d"}`))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, rec := range []*record.Record{
		newRecord("cmrc2018: DEV_1\t", "cmrc2018", "zh"),
		newRecord("cmrc2018: DEV_2 ", "cmrc2018", "zh"),
		newRecord("squad: q3", "squad", "en"),
	} {
		p.Attach(rec)
		text := "-"
		if rec.Prediction != nil {
			text = rec.Prediction.Text
		}
		texts = append(texts, text)
	}
	if want := []string{"a", "c", "d"}; !slices.Equal(texts, want) {
		t.Errorf("predictions attached = %q, want %q", texts, want)
	}
	if n, first := p.Unused(); n != 1 || first != " DEV_2 " {
		t.Errorf("Unused() = %d, %q; want 1, %q", n, first, " DEV_2 ")
	}
}

// HotpotQA's supporting facts given as an empty list (no fact named, which its evaluation scores
// 0) are written as [], not left out as facts not given, which qa-score leaves unscored.
func TestAttachEmptyFacts(t *testing.T) {
	p, err := parsePredictions("p.json", []byte(`{"answer": {"a1": "yes", "a2": "no"}, "sp": {"a1": []}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ id, want string }{
		{"hotpotqa:a1", `{"schema":1,"id":"hotpotqa:a1","dataset":"hotpotqa","question":"q","answers":["yes"],"prediction":{"text":"yes","supporting_facts":[]}}`},
		{"hotpotqa:a2", `{"schema":1,"id":"hotpotqa:a2","dataset":"hotpotqa","question":"q","answers":["yes"],"prediction":{"text":"no"}}`},
	} {
		rec := newRecord(c.id, "hotpotqa", "")
		rec.Question, rec.Answers = "q", []string{"yes"}
		p.Attach(rec)
		if b, err := record.Marshal(rec); err != nil || string(b) != c.want {
			t.Errorf("record %s with its prediction = %s, %v; want %s", c.id, b, err, c.want)
		}
	}
}

// TestReadLabel: an autoeval_label reads as evaluate_qa.py writes it, {"model": ..., "label":
// true or false}, other members left; anything else says which member is at fault.
func TestReadLabel(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want *autoevalLabel
		err  string
	}{
		{`{"model": "gpt-4o-2024-08-06", "label": true}`, &autoevalLabel{"gpt-4o-2024-08-06", true}, ""},
		{`{"label": false, "model": "m", "note": 1}`, &autoevalLabel{"m", false}, ""},
		{`{"model": "m", "label": "yes"}`, nil, `.label: want true or false (evaluate_qa.py's 'yes' in the judge's reply), got a string`},
		{`{"model": "m", "label": 1}`, nil, `.label: want true or false (evaluate_qa.py's 'yes' in the judge's reply), got a number`},
		{`{"model": "m", "label": null}`, nil, `.label: want true or false (evaluate_qa.py's 'yes' in the judge's reply), got null`},
		{`{"model": "m"}`, nil, `: missing field "label"`},
		{`{"Label": true, "model": "m"}`, nil, `: missing field "label"`},
		{`{"label": true}`, nil, `: missing field "model"`},
		{`{"model": 4, "label": true}`, nil, `.model: want a string, got a number`},
		{`{"model": " ", "label": true}`, nil, `.model: want the judge model's name, got " "`},
		{`null`, nil, `: want an object with model and label, got null`},
		{`true`, nil, `: want an object with model and label, got true or false`},
	} {
		got, err := readLabel(jsonRaw(tt.in))
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("readLabel(%s) = %v, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || *got != *tt.want {
			t.Errorf("readLabel(%s) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestAttachKeptJudgments: records that carry the judgment an autoeval_label makes keep it, each
// counted, and the warning names the first of them, not the last.
func TestAttachKeptJudgments(t *testing.T) {
	p, err := parsePredictions("hyp.eval-results-m", []byte(`{"question_id": "e1", "hypothesis": "A1", "autoeval_label": {"model": "m", "label": true}}
{"question_id": "e2", "hypothesis": "A2", "autoeval_label": {"model": "m", "label": true}}
{"question_id": "e3", "hypothesis": "A3", "autoeval_label": {"model": "m", "label": false}}
`))
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	recs := []*record.Record{
		{ID: "longmemeval:e1", Dataset: "longmemeval", Judgments: map[string]*record.Judgment{"longmemeval/m": {Score: &zero, Label: "no"}}},
		{ID: "longmemeval:e2", Dataset: "longmemeval", Judgments: map[string]*record.Judgment{"longmemeval/m": {Score: &zero, Label: "no"}}},
		{ID: "longmemeval:e3", Dataset: "longmemeval"},
	}
	for _, r := range recs {
		p.Count(r, p.Attach(r))
	}
	if p.KeptJudgments != 2 || p.FirstKeptJudgment != `id "longmemeval:e1", judgment "longmemeval/m"` {
		t.Errorf("kept judgments %d, the first %s; want 2, id \"longmemeval:e1\"", p.KeptJudgments, p.FirstKeptJudgment)
	}
	var got []string
	for _, r := range recs {
		jg := r.Judgments["longmemeval/m"]
		got = append(got, fmt.Sprintf("%s %v %s", r.Prediction.Text, *jg.Score, jg.Label))
	}
	if want := []string{"A1 0 no", "A2 0 no", "A3 0 no"}; !slices.Equal(got, want) {
		t.Errorf("predictions and judgments = %q, want %q", got, want)
	}
}

// A record that keeps a prediction of its own takes the file's autoeval_label only when that
// prediction is the hypothesis the label judged, answered without an error; else the label is
// left off and counted in LabelsLeft.
func TestAttachLabelOwnPrediction(t *testing.T) {
	tests := []struct {
		name      string
		pred      record.Prediction
		labelled  bool
		labelLeft bool
	}{
		{"the hypothesis", record.Prediction{Text: "A1"}, true, false},
		{"another answer", record.Prediction{Text: "mine"}, false, true},
		{"the hypothesis, failed", record.Prediction{Text: "A1", Error: "HTTP 500"}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parsePredictions("hyp.eval-results-m", []byte(`{"question_id": "e1", "hypothesis": "A1", "autoeval_label": {"model": "m", "label": true}}`+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			pred := tt.pred
			rec := &record.Record{ID: "longmemeval:e1", Dataset: "longmemeval", Prediction: &pred}
			kept := p.Attach(rec)
			p.Count(rec, kept)
			if got := rec.Judgments["longmemeval/m"] != nil; got != tt.labelled || kept.LabelLeft != tt.labelLeft || p.LabelsLeft != btoi(tt.labelLeft) {
				t.Errorf("labelled %v, label left %v (counted %d); want %v, %v", got, kept.LabelLeft, p.LabelsLeft, tt.labelled, tt.labelLeft)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
