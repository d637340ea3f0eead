package record

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestDecodeErrorMessages: a value of the wrong type is reported by its path in the record and
// the JSON types wanted and found, never by Go's type names.
// TestKind: each JSON value is named by its first byte, after the blanks an indented file puts
// before it; a blank value is nothing.
func TestKind(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`["T", 0]`, "a list"},
		{"\n    [\"T\", 0]\n  ", "a list"},
		{` {"a": 1}`, "an object"},
		{`"yes"`, "a string"},
		{`true`, "true or false"},
		{` false`, "true or false"},
		{`null`, "null"},
		{`-1.5`, "a number"},
		{`0`, "a number"},
		{"", "nothing"},
		{" \t\n", "nothing"},
	} {
		if got := Kind([]byte(tc.raw)); got != tc.want {
			t.Errorf("Kind(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func TestDecodeErrorMessages(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"schema":"1","id":"a"}`, `schema: want an integer, got a string`},
		{`{"schema":1,"id":"a","answers":"x"}`, `answers: want a list of strings, got a string`},
		{`{"schema":1,"id":"a","answers":["x",2]}`, `answers[1]: want a string, got a number`},
		{`{"schema":1,"id":"a","answers":["x",null]}`, `answers[1]: want a string, got null (an unanswerable question's answer is "")`},
		{`{"schema":1,"id":"a","answers":[null]}`, `answers[0]: want a string, got null (an unanswerable question's answer is "")`},
		{`{"schema":1,"id":"a","scores":{"f1":0,"b":null}}`, `scores.b: want a number, got null`},
		{`{"schema":1,"id":"a","scores":{"f1":"high"}}`, `scores.f1: want a number, got a string`},
		{`{"schema":1,"id":"a","score_errors":{"f1":"","sbert":null}}`, `score_errors.sbert: want a string, got null`},
		{`{"schema":1,"id":"a","score_errors":{"sbert":1}}`, `score_errors.sbert: want a string, got a number`},
		{`{"schema":1,"id":"a","meta":[]}`, `meta: want an object, got a list`},
		{`{"schema":1,"id":"a","context":[{"title":3}]}`, `context[0].title: want a string, got a number`},
		{`{"schema":1,"id":"a","context":[{"text":"t"},{"text":"u"},{"text":"v","sentences":["x",2]}]}`, `context[2].sentences[1]: want a string, got a number`},
		{`{"schema":1,"id":"a","context":[{"text":"t"},{"date":1,"text":"u"}]}`, `context[1].date: want a string, got a number`},
		{`{"schema":1,"id":"a","prediction":{"text":5}}`, `prediction.text: want a string, got a number`},
		{`{"schema":1,"id":"a","prediction":{"text":null}}`, `prediction.text: want a string, got null (a prediction that failed carries an error; an empty answer is "")`},
		{`{"schema":1,"id":"a","prediction":{"model":"m","text" : null ,"cached":true}}`, `prediction.text: want a string, got null (a prediction that failed carries an error; an empty answer is "")`},
		{`{"schema":1,"id":"a","prediction":{"model":"gpt-4o"}}`, `prediction.text: missing (a prediction that failed carries an error; an empty answer is "")`},
		{`{"schema":1,"id":"a","prediction":{}}`, `prediction.text: missing (a prediction that failed carries an error; an empty answer is "")`},
		{`{"schema":1,"id":"a","prediction":{"Text":"x","error":""}}`, `prediction.text: missing (a prediction that failed carries an error; an empty answer is "")`},
		{`{"schema":1,"id":"a","prediction":{"usage":{"input_tokens":3},"score":null,"loss":null}}`, `prediction.text: missing (a prediction that failed carries an error; an empty answer is "")`},
		{`{"schema":1,"id":"a","prediction":{"text":"x"},"prediction":{"model":"m"}}`, `prediction.text: missing (a prediction that failed carries an error; an empty answer is "")`},
		{`{"schema":1,"id":"a","prediction":{"text":"1","score":null}}`, `prediction.score: want a number, got null (a prediction without a score leaves the member out)`},
		{`{"schema":1,"id":"a","prediction":{"text":"1","score":0.5,"notes":["null"],"score" : null }}`, `prediction.score: want a number, got null (a prediction without a score leaves the member out)`},
		{`{"schema":1,"id":"a","prediction":{"usage":{"input_tokens":1.5}}}`, `prediction.usage.input_tokens: want an integer, got the number 1.5`},
		{`{"schema":1,"id":"a","prediction":{"latency_ms":1e400}}`, `prediction.latency_ms: want an integer written in digits within 64 bits, got 1e400`},
		{`{"schema":1,"id":"a","prediction":{"usage":{"input_tokens":1e3}}}`, `prediction.usage.input_tokens: want an integer written in digits within 64 bits, got 1e3`},
		{`{"schema":1,"id":"a","prediction":{"usage":{"input_tokens":99999999999999999999}}}`, `prediction.usage.input_tokens: want an integer written in digits within 64 bits, got 99999999999999999999`},
		{`{"schema":1,"id":"a","judgments":{"j":{"score":1e400}}}`, `judgments.j.score: want a number within ±1.8e308, got 1e400`},
		{`{"schema":1,"id":"a","prediction":{"cached":"yes"}}`, `prediction.cached: want true or false, got a string`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":"T"}}`, `prediction.supporting_facts: want a list of [title, sentence index] pairs, got a string`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":["x"]}}`, `prediction.supporting_facts[0]: want a [title, sentence index] pair, got a string`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":[["T",1],null]}}`, `prediction.supporting_facts[1]: want a [title, sentence index] pair, got null`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":[["T","1"]]}}`, `prediction.supporting_facts[0][1]: want an integer, got a string`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":[["T",0],["T",null]]}}`, `prediction.supporting_facts[1][1]: want an integer, got null`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":[[null,0]]}}`, `prediction.supporting_facts[0][0]: want a string, got null`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":[["T",1],["T",1.5]]}}`, `prediction.supporting_facts[1][1]: want an integer, got the number 1.5`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":[[3,1]]}}`, `prediction.supporting_facts[0][0]: want a string, got the number 3`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":[["T"]]}}`, `prediction.supporting_facts[0]: want a [title, sentence index] pair, got a list of 1 element`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":[[]]}}`, `prediction.supporting_facts[0]: want a [title, sentence index] pair, got a list of 0 elements`},
		{`{"schema":1,"id":"a","prediction":{"supporting_facts":[["T",1,2]]}}`, `prediction.supporting_facts[0]: want a [title, sentence index] pair, got a list of 3 elements`},
		{`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"input_tokens":-5,"output_tokens":3}}}`, `prediction.usage.input_tokens: want a count, 0 or more, got -5`},
		{`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"input_tokens":5,"output_tokens":-1}}}`, `prediction.usage.output_tokens: want a count, 0 or more, got -1`},
		{`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"input_tokens":5,"cached_input_tokens":-2}}}`, `prediction.usage.cached_input_tokens: want a count, 0 or more, got -2`},
		{`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"input_tokens":5,"cache_write_input_tokens":-3}}}`, `prediction.usage.cache_write_input_tokens: want a count, 0 or more, got -3`},
		{`{"schema":1,"id":"a","prediction":{"text":"x","attempts":-1}}`, `prediction.attempts: want a count, 0 or more, got -1`},
		{`{"schema":1,"id":"a","prediction":{"text":"x","latency_ms":-40}}`, `prediction.latency_ms: want milliseconds, 0 or more, got -40`},
		{`{"schema":1,"id":"a","prediction":{"text":"x","cost_usd":-0.25}}`, `prediction.cost_usd: want US dollars, 0 or more, got -0.25`},
		{`{"schema":1,"id":"a","judgments":{"ok":{"score":1},"j":{"score":1,"attempts":-3}}}`, `judgments.j.attempts: want a count, 0 or more, got -3`},
		{`{"schema":1,"id":"a","judgments":{"j":{"score":1,"cost_usd":-1e-9}}}`, `judgments.j.cost_usd: want US dollars, 0 or more, got -1e-09`},
		{`{"schema":1,"id":"a","judgments":{"j":{"score":1,"usage":{"output_tokens":-7}}}}`, `judgments.j.usage.output_tokens: want a count, 0 or more, got -7`},
		{`{"schema":1,"id":"a","judgments":{"j":{"score":"high"}}}`, `judgments.j.score: want a number, got a string`},
		{`{"schema":1,"id":"a","judgments":{"j":{"score":null,"raw":"yes"}}}`, `judgments.j.score: want a number, got null (a judgment without a score leaves the member out)`},
		{`{"schema":1,"id":"a","judgments":{"z":{"score":null},"b":{"score":1},"a\u002e1":{"raw":"null","score" : null }}}`, `judgments.a.1.score: want a number, got null (a judgment without a score leaves the member out)`},
		{`{"schema":1,"id":"a","judgments":{"ok":{"score":1},"b.c":{"usage":{"input_tokens":"2"}}}}`, `judgments.b.c.usage.input_tokens: want an integer, got a string`},
		{`{"schema":1,"id":"a","turns":[{"role":"user"}]}`, `turns[0]: want a string, got an object`},
		{`{"schema":1,"id":"a"} x`, `invalid character 'x' after top-level value`},
		{`[{"schema":1,"id":"a"}]`, `want an object, got a list`},
		{`null`, `want an object, got null`},
		{`{"schema":1,"id":"a","context":[{"text":"x"},null]}`, `context: want an object, got null`},
	} {
		rd := NewReader(strings.NewReader(tc.line+"\n"), "in.jsonl")
		_, err := rd.Read()
		var rerr *Error
		if !errors.As(err, &rerr) {
			t.Errorf("%s: error %v, want a *record.Error", tc.line, err)
			continue
		}
		got := rerr.Err.Error()
		if got != "invalid record: "+tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.line, got, "invalid record: "+tc.want)
		}
		if strings.Contains(got, "Go ") || strings.Contains(got, "plain") {
			t.Errorf("%s: message %q names Go types", tc.line, got)
		}
		if _, err := rd.Read(); err != io.EOF {
			t.Errorf("%s: second Read = %v, want EOF", tc.line, err)
		}
	}
}

// TestDecodeErrorStandardLibrary: encoding/json's type errors are worded as the Reader's are, so
// that a stage decoding its own input with it (qa-load) says what the others say.
func TestDecodeErrorStandardLibrary(t *testing.T) {
	type item struct {
		Question string            `json:"question"`
		Answers  []string          `json:"answers"`
		Items    []json.RawMessage `json:"items"` // a list of any values: "a list"
	}
	for _, tc := range []struct{ in, want string }{
		{`{"items":"x"}`, `items: want a list, got a string`},
		{`[1]`, `want an object, got a list`},
		{`5`, `want an object, got a number`},
		{`"s"`, `want an object, got a string`},
		{`true`, `want an object, got true or false`},
		{`{"question":5}`, `question: want a string, got a number`},
		{`{"answers":"x"}`, `answers: want a list of strings, got a string`},
		{`{"question":"q"} x`, `invalid character 'x' after top-level value`},
	} {
		var v item
		err := json.Unmarshal([]byte(tc.in), &v)
		if err == nil {
			t.Errorf("Unmarshal(%s) = nil, want an error", tc.in)
			continue
		}
		if got := DescribeDecodeError(err); got != tc.want {
			t.Errorf("DescribeDecodeError(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFieldPath(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "",
		"answers":           "answers",
		"answers.0":         "answers[0]",
		"context.12.title":  "context[12].title",
		"judgments.j.score": "judgments.j.score",
		"0":                 "[0]",
	} {
		if got := fieldPath(in); got != want {
			t.Errorf("fieldPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNullTextAllowed: a prediction whose text is null or missing is read when it carries an
// error (the call failed, was interrupted or skipped, and the record is counted as failed), one
// without a text when it carries what a metric reads in place of one (a score, a loss and
// tokens), and an empty text "" is read as the empty answer; only a null or missing text
// without an error is refused (TestDecodeErrorMessages).
func TestNullTextAllowed(t *testing.T) {
	for _, line := range []string{
		`{"schema":1,"id":"a","prediction":{"text":null,"error":"timeout"}}`,
		`{"schema":1,"id":"a","prediction":{"error":"timeout"}}`,
		`{"schema":1,"id":"a","prediction":{"model":"m","error":"interrupted before the call was made"}}`,
		`{"schema":1,"id":"a","prediction":{"text":""}}`,
		`{"schema":1,"id":"a","prediction":{"\u0074ext":""}}`,
		`{"schema":1,"id":"a","prediction":{"score":0.7}}`,
		`{"schema":1,"id":"a","prediction":{"loss":2.5,"tokens":3}}`,
		`{"schema":1,"id":"a","prediction":{},"prediction":{"text":""}}`,
		`{"schema":1,"id":"a","prediction":null}`,
		`{"schema":1,"id":"a","prediction":{"text":"","notes":[null]}}`,
	} {
		rec, err := NewReader(strings.NewReader(line+"\n"), "in.jsonl").Read()
		if err != nil {
			t.Errorf("%s: Read = %v, want the record", line, err)
			continue
		}
		if p := rec.Prediction; p != nil && p.Text != "" {
			t.Errorf("%s: prediction text %q, want \"\"", line, p.Text)
		}
	}
}

// TestNullScoreAllowed: a prediction's score of null is read when the prediction carries an
// error (the call failed: no metric reads its score), and a score given twice is read from its
// last member, a number; a case variant ("Score") is an unknown member, kept as it is. Only a
// null score without an error is refused (TestDecodeErrorMessages).
func TestNullScoreAllowed(t *testing.T) {
	for _, tc := range []struct {
		line  string
		score *float64
	}{
		{`{"schema":1,"id":"a","prediction":{"text":"","score":null,"error":"timeout"}}`, nil},
		{`{"schema":1,"id":"a","prediction":{"text":"1","score":null,"score":0.5}}`, ptrTo(0.5)},
		{`{"schema":1,"id":"a","prediction":{"text":"null","Score":null}}`, nil},
		{`{"schema":1,"id":"a","prediction":{"text":"1","notes":[null]}}`, nil},
		{`{"schema":1,"id":"a","prediction":{"text":"1","score":0}}`, ptrTo(0)},
	} {
		rec, err := NewReader(strings.NewReader(tc.line+"\n"), "in.jsonl").Read()
		if err != nil {
			t.Errorf("%s: Read = %v, want the record", tc.line, err)
			continue
		}
		got := rec.Prediction.Score
		if (got == nil) != (tc.score == nil) || got != nil && *got != *tc.score {
			t.Errorf("%s: prediction score %v, want %v", tc.line, got, tc.score)
		}
	}
}

func ptrTo(f float64) *float64 { return &f }

// TestNullJudgmentScoreAllowed: a judgment's score of null is read when the judgment carries an
// error (the judge call failed: no metric reads its score), and a score given twice is read from
// its last member; a judgment without a score, or of null as a whole, is read as before. Only a
// null score without an error is refused (TestDecodeErrorMessages).
func TestNullJudgmentScoreAllowed(t *testing.T) {
	for _, tc := range []struct {
		line  string
		score *float64
	}{
		{`{"schema":1,"id":"a","judgments":{"j":{"score":null,"error":"judge call: timeout"}}}`, nil},
		{`{"schema":1,"id":"a","judgments":{"j":{"score":null,"score":1}}}`, ptrTo(1)},
		{`{"schema":1,"id":"a","judgments":{"j":{"raw":"null","label":"CORRECT"}}}`, nil},
		{`{"schema":1,"id":"a","judgments":{"j":{"score":0},"k":null}}`, ptrTo(0)},
		{`{"schema":1,"id":"a","judgments":{"j":{"score":null},"j":{"score":1}}}`, ptrTo(1)},
	} {
		rec, err := NewReader(strings.NewReader(tc.line+"\n"), "in.jsonl").Read()
		if err != nil {
			t.Errorf("%s: Read = %v, want the record", tc.line, err)
			continue
		}
		got := rec.Judgments["j"].Score
		if (got == nil) != (tc.score == nil) || got != nil && *got != *tc.score {
			t.Errorf("%s: judgment score %v, want %v", tc.line, got, tc.score)
		}
	}
}
