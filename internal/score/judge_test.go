package score

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestVerdictSkipsNullJudgments: without --judge, judge_score reads the first judgment in sorted
// order that is there; a null judgment ("judgments": {"a": null, ...}) is passed over, not read as
// none. With --judge naming the null one, there is no verdict.
func TestVerdictSkipsNullJudgments(t *testing.T) {
	one, half := 1.0, 0.5
	rec := &record.Record{ID: "q", Judgments: map[string]*record.Judgment{"a": nil, "b": {Score: &one}, "c": {Score: &half}}}
	for _, tc := range []struct {
		judge  string
		want   float64
		wantOK bool
	}{{"", 1, true}, {"c", 0.5, true}, {"a", 0, false}, {"z", 0, false}} {
		it := &item{rec: rec, judge: tc.judge}
		if got, ok, _ := it.verdict(); got != tc.want || ok != tc.wantOK {
			t.Errorf("--judge %q: verdict() = %v, %v, want %v, %v", tc.judge, got, ok, tc.want, tc.wantOK)
		}
	}
}

// TestJudgeNamedPastManyNames: --judge's judgment is counted in the summary's judgments however
// many other names the records without it carry first (more than the names otherwise kept), and
// no warning says that no record has it.
func TestJudgeNamedPastManyNames(t *testing.T) {
	var in strings.Builder
	for i := range maxJudgeNames + 2 {
		fmt.Fprintf(&in, `{"schema":1,"id":"o%d","question":"q","answers":["a"],"prediction":{"text":"a"},"judgments":{"other%d":{"score":1}}}`+"\n", i, i)
	}
	for i := range 2 {
		fmt.Fprintf(&in, `{"schema":1,"id":"b%d","question":"q","answers":["a"],"prediction":{"text":"a"},"judgments":{"b":{"score":%d}}}`+"\n", i, i)
	}
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-score", "--metrics", "judge_score", "--judge", "b", "--bootstrap", "0", "--summary", "-"},
		strings.NewReader(in.String()), &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var s struct {
		Judgments map[string]int `json:"judgments"`
		Warnings  []string       `json:"warnings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Judgments, map[string]int{"b": 2}) {
		t.Errorf("judgments %v, want b on 2 records", s.Judgments)
	}
	for _, w := range s.Warnings {
		if strings.Contains(w, "no record has a judgment named") {
			t.Errorf("warning %q", w)
		}
	}
}
