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

// TestJudgeNamesCapped: without --judge, the summary's judgments keep the first maxJudgeNames
// names read and no more, and the warning of the judgments records carry beside the one read
// lists at most maxJudgeNames of them.
func TestJudgeNamesCapped(t *testing.T) {
	const n = maxJudgeNames + 3
	rec := func(id string, judgments []string) string {
		var js []string
		for _, j := range judgments {
			js = append(js, fmt.Sprintf(`"%s":{"score":1}`, j))
		}
		return fmt.Sprintf(`{"schema":1,"id":%q,"question":"q","answers":["a"],"prediction":{"text":"a"},"judgments":{%s}}`+"\n", id, strings.Join(js, ","))
	}
	name := func(i int) string { return fmt.Sprintf("j%03d", i) }
	args := []string{"--metrics", "judge_score", "--bootstrap", "0", "--jobs", "1"}

	var read strings.Builder // one judge per record, a new one each
	for i := range n {
		read.WriteString(rec(fmt.Sprint(i), []string{name(i)}))
	}
	s, _ := summaryOf(t, read.String(), args)
	if len(s.Judgments) != maxJudgeNames || s.Judgments[name(0)] != 1 || s.Judgments[name(maxJudgeNames-1)] != 1 {
		t.Errorf("judgments of %d names: %d kept (%v), want the first %d", n, len(s.Judgments), s.Judgments, maxJudgeNames)
	}

	all := []string{"a"} // one record with "a", read, and the others beside it
	for i := range n {
		all = append(all, name(i))
	}
	s, _ = summaryOf(t, rec("q", all), args)
	for _, w := range s.Warnings {
		if strings.HasPrefix(w, `judge_score read the judgment "a"`) {
			if got := strings.Count(w, `"j`); got != maxJudgeNames {
				t.Errorf("warning lists %d other judgments, want %d: %s", got, maxJudgeNames, w)
			}
			return
		}
	}
	t.Errorf("no warning of the other judgments: %q", s.Warnings)
}
