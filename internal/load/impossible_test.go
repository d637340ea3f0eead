package load

import (
	"reflect"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// loadTyped loads in with load, returning each record as TYPE=ANSWERS (meta.is_impossible
// appended as ;is_impossible=VALUE when kept), "bad" for a bad item, and the warnings.
func loadTyped(t *testing.T, load Loader, name, in string) ([]string, []string) {
	t.Helper()
	var got, warns []string
	opt := Options{Warn: func(msg string) { warns = append(warns, msg) }}
	err := load(Input{Name: name, R: strings.NewReader(in)}, opt, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			got = append(got, "bad")
			return nil
		}
		s := r.Type + "=" + strings.Join(r.Answers, "|")
		if v, ok := r.Meta["is_impossible"]; ok {
			s += ";is_impossible=" + string(v)
		}
		got = append(got, s)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return got, warns
}

// TestCMRCImpossible: a CMRC 2018 question with is_impossible, in any of the layouts CMRC 2018's
// files come in, is read as CMRC 2018's questions are (no type; "answers": [] no answer, not
// SQuAD v2.0's ""), the member kept in meta as another member the format does not read is, and
// one warning names the first and says the field is ignored. The questions after it stay
// untyped: a CMRC 2018 file is never SQuAD v2.0's.
func TestCMRCImpossible(t *testing.T) {
	const squadLayout = `{"version": "v1.0", "data": [{"title": "T", "paragraphs": [{"context": "北京是中国的首都。", "qas": [
 {"id": "a", "question": "首都？", "answers": [{"text": "北京", "answer_start": 0}]},
 {"id": "b", "question": "首都？", "answers": [], "is_impossible": true},
 {"id": "c", "question": "首都？", "answers": [{"text": "北京", "answer_start": 0}], "is_impossible": "false"},
 {"id": "d", "question": "首都？", "answers": [{"text": "北京", "answer_start": 0}]}]}]}]}`
	const articles = `[{"title": "T", "paragraphs": [{"context": "北京是中国的首都。", "qas": [
 {"id": "a", "question": "首都？", "answers": [{"text": "北京", "answer_start": 0}]},
 {"id": "b", "question": "首都？", "answers": [], "is_impossible": true},
 {"id": "c", "question": "首都？", "answers": [{"text": "北京", "answer_start": 0}], "is_impossible": "false"},
 {"id": "d", "question": "首都？", "answers": [{"text": "北京", "answer_start": 0}]}]}]}]`
	const first = `[{"context_id": "C", "context_text": "北京是中国的首都。", "title": "T", "qas": [
 {"query_id": "a", "query_text": "首都？", "answers": ["北京"]},
 {"query_id": "b", "query_text": "首都？", "answers": [], "is_impossible": true},
 {"query_id": "c", "query_text": "首都？", "answers": ["北京"], "is_impossible": "false"},
 {"query_id": "d", "query_text": "首都？", "answers": ["北京"]}]}]`
	const export = `{"id": "a", "context": "北京是中国的首都。", "question": "首都？", "answers": {"text": ["北京"], "answer_start": [0]}}
{"id": "b", "context": "北京是中国的首都。", "question": "首都？", "answers": {"text": [], "answer_start": []}, "is_impossible": true}
{"id": "c", "context": "北京是中国的首都。", "question": "首都？", "answers": {"text": ["北京"], "answer_start": [0]}, "is_impossible": "false"}
{"id": "d", "context": "北京是中国的首都。", "question": "首都？", "answers": {"text": ["北京"], "answer_start": [0]}}
`
	want := []string{"=北京", "=;is_impossible=true", `=北京;is_impossible="false"`, "=北京"}
	tests := []struct{ name, in, warn string }{
		{"SQuAD layout", squadLayout, `dev.json:3 (id "cmrc2018:b"): 2 questions have is_impossible`},
		{"array of SQuAD articles", articles, `dev.json:3 (id "cmrc2018:b"): 2 questions have is_impossible`},
		{"first layout", first, `dev.json:3 (id "cmrc2018:b"): 2 questions have is_impossible`},
		{"export", export, `dev.json:2 (id "cmrc2018:b"): 2 questions have is_impossible`},
	}
	for _, tt := range tests {
		got, warns := loadTyped(t, CMRC2018, "dev.json", tt.in)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: type=answers %q, want %q", tt.name, got, want)
		}
		if len(warns) != 1 || !strings.HasPrefix(warns[0], tt.warn) || !strings.Contains(warns[0], "cmrc2018_evaluate.py never reads it") {
			t.Errorf("%s: warnings %q, want one opening %q that says cmrc2018_evaluate.py never reads it", tt.name, warns, tt.warn)
		}
	}
}

// TestSQuADImpossibleMarksV2: in either layout of SQuAD, a question with is_impossible (of any
// value) shows the file SQuAD v2.0's from there on: the questions after it are typed by their
// answers, with or without the flag. The official layout, which does not hold its questions,
// reads those before it as v1.1's (untyped, and warned of); the export, which holds them until it
// knows, types them too.
func TestSQuADImpossibleMarksV2(t *testing.T) {
	const official = `{"data": [{"title": "T", "paragraphs": [{"context": "c", "qas": [
 {"id": "a", "question": "q?", "answers": [{"text": "x", "answer_start": 0}]},
 {"id": "b", "question": "q?", "answers": [{"text": "y", "answer_start": 0}], "is_impossible": false},
 {"id": "c", "question": "q?", "answers": [{"text": "z", "answer_start": 0}]}]}]}]}`
	const export = `{"id": "a", "title": "T", "context": "c", "question": "q?", "answers": {"text": ["x"], "answer_start": [0]}}
{"id": "b", "title": "T", "context": "c", "question": "q?", "answers": {"text": ["y"], "answer_start": [0]}, "is_impossible": false}
{"id": "c", "title": "T", "context": "c", "question": "q?", "answers": {"text": ["z"], "answer_start": [0]}}
`
	tests := []struct {
		name, in string
		want     []string
		warn     string
	}{
		{"official layout", official, []string{"=x", "has_answer=y", "has_answer=z"},
			`dev.json:2 (id "squad:a"): 1 answered question without is_impossible came before the file's first question with it`},
		{"export", export, []string{"has_answer=x", "has_answer=y", "has_answer=z"}, ""},
	}
	for _, tt := range tests {
		got, warns := loadTyped(t, SQuAD, "dev.json", tt.in)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: type=answers %q, want %q", tt.name, got, tt.want)
		}
		if tt.warn == "" && len(warns) > 0 || tt.warn != "" && (len(warns) != 1 || !strings.HasPrefix(warns[0], tt.warn)) {
			t.Errorf("%s: warnings %q, want one opening %q", tt.name, warns, tt.warn)
		}
	}
}
