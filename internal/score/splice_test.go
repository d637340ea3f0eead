package score

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/record"
)

func TestSpliceScores(t *testing.T) {
	tests := []struct {
		line   string
		scores map[string]float64
		want   string
	}{
		{`{"id":"a"}`, map[string]float64{"f1": 0.5}, `{"id":"a","scores":{"f1":0.5}}`},
		{`{"id":"a"}`, nil, `{"id":"a"}`},
		{` { "id" : "a" , "x" : [1, {"scores": 2}] } `, map[string]float64{"em": 1, "f1": 0.5},
			` { "id" : "a" , "x" : [1, {"scores": 2}],"scores":{"em":1,"f1":0.5} } `},
		{`{"scores":{"old":1},"id":"a"}`, map[string]float64{"em": 0}, `{"scores":{"em":0},"id":"a"}`},
		{`{"id":"a","scores":{"old":1}}`, nil, `{"id":"a"}`},
		{`{"scores":{"old":1}, "id":"a"}`, nil, `{"id":"a"}`},
		{`{"id":"a", "scores":null, "b":"}\"{"}`, nil, `{"id":"a", "b":"}\"{"}`},
		{`{"id":"a","scores":1,"scores":2}`, map[string]float64{"x": 1}, `{"id":"a","scores":{"x":1}}`},
		{`{"id":"a","scores":1,"scores":2}`, nil, `{"id":"a"}`},
		{`{"\u0073cores":{"a":1},"id":"é"}`, map[string]float64{"b": 1}, `{"scores":{"b":1},"id":"é"}`},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, err := spliceScores([]byte(tt.line), tt.scores)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("spliceScores(%q, %v) = %q, want %q", tt.line, tt.scores, got, tt.want)
			}
		})
	}
}

// FuzzSpliceScores checks, for any JSON object, that the spliced line is valid JSON with the same
// members except scores, which holds exactly the new scores.
func FuzzSpliceScores(f *testing.F) {
	f.Add(`{"id":"a","scores":{"x":1}}`, 0.5)
	f.Add(` {"a":[1,"]",{"b":null}], "scores" : 3 ,"c":"\\\""} `, 1.0)
	f.Add(`{"id":"a"}`, -1.0)
	f.Fuzz(func(t *testing.T, line string, v float64) {
		var before map[string]any
		if json.Unmarshal([]byte(line), &before) != nil || before == nil || len(before) == 0 {
			return
		}
		var scores map[string]float64
		if v >= 0 && v <= 1 {
			scores = map[string]float64{"f1": v}
		}
		got, err := spliceScores([]byte(line), scores)
		if err != nil {
			t.Fatalf("spliceScores(%q): %v", line, err)
		}
		var after map[string]any
		if err := json.Unmarshal(got, &after); err != nil {
			t.Fatalf("spliceScores(%q) = %q, not JSON: %v", line, got, err)
		}
		want := maps.Clone(before)
		delete(want, "scores")
		if scores != nil {
			want["scores"] = map[string]any{"f1": v}
		}
		if !reflect.DeepEqual(after, want) {
			t.Errorf("spliceScores(%q) = %q, decodes to %v, want %v", line, got, after, want)
		}
	})
}

func TestAppendScores(t *testing.T) {
	scores := map[string]float64{"f1": 2.0 / 3, "em": 1, "tiny": 1e-7, "huge": 1e21, "zero": 0, "a<b": 0.5, "a&b": 0.75, "é": 0.25}
	got, err := appendScores(nil, scores)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(scores)
	if string(got) != string(want) {
		t.Errorf("appendScores(%v) = %s, want %s (encoding/json)", scores, got, want)
	}
	if _, err := appendScores(nil, map[string]float64{"x": math.NaN()}); err == nil {
		t.Errorf("appendScores(NaN) succeeded, want an error")
	}
}

// FuzzAppendScores: for any key and value, appendScores writes what encoding/json writes.
func FuzzAppendScores(f *testing.F) {
	f.Add("f1", 0.5)
	f.Add("x\"<\u2028", 1e-300)
	f.Add("", -123456789.125)
	f.Fuzz(func(t *testing.T, k string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		m := map[string]float64{k: v, "em": 1}
		got, err := appendScores(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(m)
		if string(got) != string(want) {
			t.Errorf("appendScores(%v) = %s, want %s", m, got, want)
		}
	})
}

func TestSpliceMembers(t *testing.T) {
	errs := member{"score_errors", []byte(`{"sbert":"x"}`)}
	tests := []struct {
		line string
		set  []member
		want string
	}{
		{`{"id":"a"}`, []member{{"scores", nil}, errs}, `{"id":"a","score_errors":{"sbert":"x"}}`},
		{`{"id":"a","scores":{"em":1}}`, []member{{"scores", []byte(`{"em":0}`)}, errs}, `{"id":"a","scores":{"em":0},"score_errors":{"sbert":"x"}}`},
		{`{"score_errors":{"f1":"y"}, "id":"a" ,"scores":{"em":1}}`, []member{{"scores", nil}, errs}, `{"score_errors":{"sbert":"x"}, "id":"a"}`},
		{`{"score_errors":{"f1":"y"}, "id":"a"}`, []member{{"scores", nil}, {"score_errors", nil}}, `{"id":"a"}`},
		{`{"score_errors":1,"score_errors":2,"id":"a"}`, []member{errs}, `{"score_errors":{"sbert":"x"},"id":"a"}`},
	}
	for _, tt := range tests {
		got, err := spliceMembers([]byte(tt.line), tt.set...)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("spliceMembers(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// FuzzSpliceScoreErrors checks, for any JSON object and message, that the spliced line is valid
// JSON with the same members except scores and score_errors, which hold exactly the new ones.
func FuzzSpliceScoreErrors(f *testing.F) {
	f.Add(`{"id":"a","score_errors":{"sbert":"x"},"scores":{"em":1}}`, "embedding call failed: <503>", 0.5)
	f.Add(` {"a":[1,"]"], "score_errors" : 3 ,"c":"\\\""} `, "café\u2028\"", -1.0)
	f.Fuzz(func(t *testing.T, line, msg string, v float64) {
		var before map[string]any
		if json.Unmarshal([]byte(line), &before) != nil || len(before) == 0 || !utf8.ValidString(msg) {
			return
		}
		var scores []byte
		if v >= 0 && v <= 1 {
			scores, _ = appendScores(nil, map[string]float64{"f1": v})
		}
		var errs []byte
		if msg != "" {
			var err error
			if errs, err = appendScoreErrors(nil, map[string]string{"sbert": msg}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := spliceMembers([]byte(line), member{"scores", scores}, member{"score_errors", errs})
		if err != nil {
			t.Fatalf("spliceMembers(%q): %v", line, err)
		}
		var after map[string]any
		if err := json.Unmarshal(got, &after); err != nil {
			t.Fatalf("spliceMembers(%q) = %q, not JSON: %v", line, got, err)
		}
		want := maps.Clone(before)
		delete(want, "scores")
		delete(want, "score_errors")
		if scores != nil {
			want["scores"] = map[string]any{"f1": v}
		}
		if errs != nil {
			want["score_errors"] = map[string]any{"sbert": msg}
		}
		if !reflect.DeepEqual(after, want) {
			t.Errorf("spliceMembers(%q) = %q, decodes to %v, want %v", line, got, after, want)
		}
	})
}

// TestOddKeys: the quick look before exactKeys and lastPrediction finds every key that folds to
// one qa-score reads, at any level, escaped keys too, and a second prediction key, blanks before
// a colon or not, and passes over quotes inside strings.
func TestOddKeys(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}`, false},
		{`{"schema":1,"id":"a","ID":"b","question":"q"}`, true},
		{`{"schema":1,"id":"a","Prediction":{"text":"y"}}`, true},
		{`{"id":"a","meta":{"Category":4}}`, true},
		{`{"id":"a","judgments":{"j":{"score":1,"Score":0}}}`, true},
		{`{"id":"a","judgments":{"j":{"score":1,"raw":"{\"Score\": 0, \"ID\":1}"}}}`, false},
		{`{"id":"a","question":"ends with a backslash \\","answers":[]}`, false},
		{`{"\u0069d":"a"}`, true},
		{`{"id":"a","ſcore":1}`, true},
		{`{"id":"a","Notes":"x","Extra":1,"context":[{"Title":"t"}]}`, false},
		// The longest key read, every character escaped: 96 bytes.
		{`{"id":"a","prediction":{"supporting_facts":[],"` + escapeAll("Supporting_Facts") + `":[["t",0]]}}`, true},
		{`{"schema":1,"id":"a" , "ID" :"b"}`, true},
		{`{"id":"a","prediction":{"text":"x"},"prediction":{"text":"y"}}`, true},
		{"{\"id\":\"a\",\"prediction\" : {\"text\":\"x\"},\n\"prediction\"\t:{}}", true},
		{`{"id":"a","meta":{"prediction":1},"prediction":{"text":"x"}}`, true},
		{`{"id":"a","meta":{"task":"prediction"},"prediction":{"text":"prediction:"},"raw":"\"prediction\": 1"}`, false},
	} {
		if got := oddKeys([]byte(c.line)); got != c.want {
			t.Errorf("oddKeys(%s) = %v, want %v", c.line, got, c.want)
		}
	}
}

// escapeAll writes every character of s as a \u escape.
func escapeAll(s string) string {
	var b strings.Builder
	for _, c := range s {
		fmt.Fprintf(&b, `\u%04x`, c)
	}
	return b.String()
}

// TestRepeatedMembers: of a top-level member given twice, qa-score reads what the other stages
// read (record.Record): the last value, all of it. A prediction is the last one alone, never
// the last one's members over the first's (an error, a text or supporting facts the last leaves
// out); the last answers, dataset and type decide the scores as they do elsewhere.
func TestRepeatedMembers(t *testing.T) {
	const head = `{"schema":1,"id":"a","question":"q",`
	for _, tt := range []struct {
		name, line string
		pred       *record.Prediction
	}{
		{"prediction, text", head + `"answers":["Paris"],"prediction":{"text":"Lyon"},"prediction":{"text":"Paris"}}`,
			&record.Prediction{Text: "Paris"}},
		{"prediction, error then text", head + `"answers":["Paris"],"prediction":{"text":"","error":"timeout"},"prediction":{"text":"Paris"}}`,
			&record.Prediction{Text: "Paris"}},
		{"prediction, text then an empty one", head + `"answers":["Paris"],"prediction":{"text":"Paris"},"prediction":{"text":"","error":"e"}}`,
			&record.Prediction{Error: "e"}},
		{"prediction, facts then none", head + `"answers":["Paris"],"prediction":{"text":"Paris","supporting_facts":[["T",0]]},"prediction":{"text":"Paris"}}`,
			&record.Prediction{Text: "Paris"}},
		{"prediction, then null", head + `"answers":["Paris"],"prediction":{"text":"Paris"},"prediction":null}`, nil},
		{"prediction, escaped key", head + `"answers":["Paris"],"prediction":{"text":"Paris","error":"e"},"\u0070rediction":{"text":"Lyon"}}`,
			&record.Prediction{Text: "Lyon"}},
		{"prediction, case variant", head + `"answers":["Paris"],"prediction":{"text":"Paris"},"Prediction":{"text":"Lyon"}}`,
			&record.Prediction{Text: "Paris"}},
		{"prediction, nested key", head + `"answers":["Paris"],"meta":{"task":"prediction"},"prediction":{"text":"Paris","error":"e"}}`,
			&record.Prediction{Text: "Paris", Error: "e"}},
		{"answers", head + `"answers":["Lyon"],"answers":["Paris"],"prediction":{"text":"Paris"}}`, &record.Prediction{Text: "Paris"}},
		{"dataset and type", `{"schema":1,"id":"a","dataset":"squad","type":"x","question":"q","answers":["Paris"],"dataset":"locomo","type":"y","meta":{"category":1},"prediction":{"text":"Paris"}}`,
			&record.Prediction{Text: "Paris"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var want record.Record
			if err := record.Unmarshal([]byte(tt.line), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(want.Prediction, tt.pred) {
				t.Fatalf("record.Unmarshal: prediction %+v, want %+v", want.Prediction, tt.pred)
			}
			got, bad := decodeView(line{file: "in.jsonl", no: 1, data: []byte(tt.line)}, true)
			if bad != nil {
				t.Fatal(bad)
			}
			if !reflect.DeepEqual(got.Prediction, want.Prediction) || !reflect.DeepEqual(got.Answers, want.Answers) ||
				got.Dataset != want.Dataset || got.Type != want.Type {
				t.Errorf("decodeView: prediction %+v, answers %q, dataset %q, type %q; want %+v, %q, %q, %q (as record.Record)",
					got.Prediction, got.Answers, got.Dataset, got.Type, want.Prediction, want.Answers, want.Dataset, want.Type)
			}
		})
	}
}

// TestRepeatedScoreMembers: of a scores or score_errors member given twice, qa-score and
// record.Record read the last alone, and a line is bad for both or for neither, with the same
// message: a stage that decodes and writes records again does not merge the first member (or a
// null score in it, as 0) into the scores qa-score would keep.
func TestRepeatedScoreMembers(t *testing.T) {
	const head = `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"},`
	for _, tail := range []string{
		`"scores":{"f1":0.5},"scores":{"em":1}}`,
		`"scores":{"f1":null},"scores":{"em":1}}`,
		`"scores":{"em":1},"scores":{"f1":null}}`,
		`"scores":{"f1":0.25,"em":1},"scores":{"f1":0.5}}`,
		`"scores":{"f1":0.5},"scores":null}`,
		`"scores":5,"scores":{"em":1}}`,
		`"scores":{"em":1},"scores":[1]}`,
		`"score_errors":{"sbert":"503"},"score_errors":{"bertscore_f1":"504"}}`,
		`"score_errors":{"sbert":null},"score_errors":{}}`,
		`"score_errors":{"sbert":"503"},"score_errors":{"sbert":null}}`,
		`"scores":{"a":1},"score_errors":{"b":"x"},"scores":{"c":2},"score_errors":{"d":"y"}}`,
		`"scores":{"f1":null},"score\u0073":{"em":1}}`,
		`"scores":{"f1":0.5},"Scores":{"em":null}}`,
	} {
		ln := head + tail
		got, bad := decodeView(line{file: "in.jsonl", no: 1, data: []byte(ln)}, true)
		want, err := record.NewReader(strings.NewReader(ln), "in.jsonl").Read()
		switch {
		case bad != nil || err != nil:
			if bad == nil || err == nil || bad.Error() != err.Error() {
				t.Errorf("%s: qa-score's error %v, record.Reader's %v", ln, bad, err)
			}
		case !maps.Equal(got.Scores, want.Scores) || !maps.Equal(got.ScoreErrors, want.ScoreErrors):
			t.Errorf("%s: qa-score reads scores %v, score_errors %v; record.Reader %v, %v",
				ln, got.Scores, got.ScoreErrors, want.Scores, want.ScoreErrors)
		}
	}
}

// TestLinesNoRecord: a line that is no record (a JSON value other than an object, or an object
// without schema or id) is bad in qa-score with the message record.Reader gives it, null
// included, which the view decodes as an object with no member.
func TestLinesNoRecord(t *testing.T) {
	for _, ln := range []string{`null`, ` null `, `[]`, `5`, `"x"`, `true`, `{}`, `{"question":"q"}`, `{"schema":1}`, `{"id":"a"}`} {
		_, bad := decodeView(line{file: "in.jsonl", no: 1, data: []byte(ln)}, true)
		_, err := record.NewReader(strings.NewReader(ln), "in.jsonl").Read()
		if bad == nil || err == nil || bad.Error() != err.Error() {
			t.Errorf("%s: qa-score's error %v, record.Reader's %v", ln, bad, err)
		}
	}
}

// badAgrees checks that qa-score's view and record.Reader both refuse the line ln, with the same
// message, when bad, and both read it otherwise.
func badAgrees(t *testing.T, ln string, bad bool) {
	t.Helper()
	_, viewErr := decodeView(line{file: "in.jsonl", no: 1, data: []byte(ln)}, true)
	_, err := record.NewReader(strings.NewReader(ln), "in.jsonl").Read()
	switch {
	case (viewErr != nil) != bad || (err != nil) != bad:
		t.Errorf("%s: qa-score's error %v, record.Reader's %v; want bad %v", ln, viewErr, err, bad)
	case viewErr != nil && viewErr.Error() != err.Error():
		t.Errorf("%s: qa-score's error %v, record.Reader's %v", ln, viewErr, err)
	}
}

// TestNullScoreAgrees: a prediction's null score without an error is a bad line in qa-score's
// view as in record.Reader, with the same message, wherever the member is (given twice, with
// an escaped key, in a prediction given twice), and neither refuses what the other reads.
func TestNullScoreAgrees(t *testing.T) {
	const head = `{"schema":1,"id":"a","question":"q","answers":["x"],`
	for _, tc := range []struct {
		tail string
		bad  bool
	}{
		{`"prediction":{"text":"x","score":null}}`, true},
		{`"prediction":{"text":"x","score" : null }}`, true},
		{`"prediction":{"text":"x","score":0.5,"score":null}}`, true},
		{`"prediction":{"text":"x","scor\u0065":null}}`, true},
		{`"prediction":{"text":"x","score":0.5},"prediction":{"text":"x","score":null}}`, true},
		{`"prediction":{"text":"x","score":null,"score":0.5}}`, false},
		{`"prediction":{"text":"x","score":null},"prediction":{"text":"x","score":0.5}}`, false},
		{`"prediction":{"text":"","score":null,"error":"timeout"}}`, false},
		{`"prediction":{"text":"x","Score":null}}`, false},
		{`"prediction":{"text":"x","meta":{"score":null}}}`, false},
		{`"prediction":{"text":"null"}}`, false},
		{`"meta":{"score":null},"prediction":{"text":"x","score":0}}`, false},
	} {
		badAgrees(t, head+tc.tail, tc.bad)
	}
}

// TestMissingTextAgrees: a prediction without a text that carries no error is a bad line in
// qa-score's view as in record.Reader, with the same message (never the empty answer, which
// SQuAD v2's scores credit as declining), wherever the prediction is; one that failed, or that
// carries a score or a loss and tokens in place of a text, is read by both.
func TestMissingTextAgrees(t *testing.T) {
	const head = `{"schema":1,"id":"a","dataset":"squad","type":"no_answer","question":"q","answers":[""],`
	for _, tc := range []struct {
		tail string
		bad  bool
	}{
		{`"prediction":{"model":"gpt-4o"}}`, true},
		{`"prediction":{}}`, true},
		{`"prediction":{"text":"x"},"prediction":{"model":"m"}}`, true},
		{`"prediction":{"Text":"x"}}`, true},
		{`"prediction":{"text":"","error":""},"Prediction":{"text":"x"},"prediction":{"error":""}}`, true},
		{`"prediction":{"score":null,"loss":null}}`, true},
		{`"prediction":{"model":"m"},"prediction":{"text":""}}`, false},
		{`"prediction":{"\u0074ext":""}}`, false},
		{`"prediction":{"error":"timeout"}}`, false},
		{`"prediction":{"model":"m","error":"interrupted before the call was made"}}`, false},
		{`"prediction":{"score":0.25}}`, false},
		{`"prediction":{"loss":2.5,"tokens":3}}`, false},
		{`"prediction":null}`, false},
	} {
		badAgrees(t, head+tc.tail, tc.bad)
	}
}
