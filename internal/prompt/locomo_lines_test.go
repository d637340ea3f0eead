package prompt_test

import (
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/prompt"
)

// TestLoCoMoBatchAnswersLineCount: a question past the last line of a batched reply names how many
// lines the reply has, in the singular for one.
func TestLoCoMoBatchAnswersLineCount(t *testing.T) {
	for _, tc := range []struct {
		reply string
		k     int
		want  string
	}{
		{`["a"]`, 1, "raises IndexError: the reply, cleaned up (json and ` taken out, stripped), has 1 line"},
		{"[\"a\",\n\"b\"]", 2, "raises IndexError: the reply, cleaned up (json and ` taken out, stripped), has 2 lines"},
		{"```json\n{\"0\": \"a\"}\n```", 1, "raises IndexError: the reply, cleaned up (json and ` taken out, stripped), has 1 line"},
	} {
		asks := make([]prompt.LoCoMoAsk, tc.k+1)
		for i := range asks {
			asks[i].Category = 1
		}
		got, err := prompt.LoCoMoBatchAnswers(tc.reply, asks)
		if err != nil || len(got) != len(asks) {
			t.Fatalf("LoCoMoBatchAnswers(%q) = %+v, %v", tc.reply, got, err)
		}
		if e := got[tc.k].Err; e == nil || !strings.HasSuffix(e.Error(), tc.want) {
			t.Errorf("LoCoMoBatchAnswers(%q) question %d error %v, want it to end %q", tc.reply, tc.k, e, tc.want)
		}
	}
}

// TestLoCoMoBatchAnswersLastItem: where the last reading's json.loads(line)[0] raises, the error
// names the exception Python 3 raises there, as the sibling errors do (run in Python 3.11).
func TestLoCoMoBatchAnswersLastItem(t *testing.T) {
	for _, tc := range []struct {
		reply string
		want  string
	}{
		{`{"1": "a"}`, "raises KeyError: 0 (the line is a JSON object, whose keys are strings)"},
		{`[]`, "raises IndexError: list index out of range"},
		{`""`, "raises IndexError: string index out of range"},
		{`7`, "raises TypeError: 'int' object is not subscriptable"},
		{`1.5`, "raises TypeError: 'float' object is not subscriptable"},
		{`true`, "raises TypeError: 'bool' object is not subscriptable"},
		{`null`, "raises TypeError: 'NoneType' object is not subscriptable"},
	} {
		got, err := prompt.LoCoMoBatchAnswers(tc.reply, []prompt.LoCoMoAsk{{Category: 1}})
		if err != nil || len(got) != 1 {
			t.Fatalf("LoCoMoBatchAnswers(%q) = %+v, %v", tc.reply, got, err)
		}
		if e := got[0].Err; e == nil || !strings.HasSuffix(e.Error(), tc.want) {
			t.Errorf("LoCoMoBatchAnswers(%q) error %v, want it to end %q", tc.reply, e, tc.want)
		}
	}
}

// TestLoCoMoBatchAnswersLastLine: the last reading takes the reply's last line too. In this
// reply, whose single quotes outnumber its double ones, process_ouput reads the dict {"0": "x",
// "2": "y"}; question 1 is not in it and the reply itself is no JSON, so LoCoMo's script reads
// line 2, the JSON string "'2': 'y'}", and stores its first character (run in Python 3.11).
func TestLoCoMoBatchAnswersLastLine(t *testing.T) {
	reply := "{'0': 'x',\n\"'2': 'y'}\""
	got, err := prompt.LoCoMoBatchAnswers(reply, []prompt.LoCoMoAsk{{Category: 1}, {Category: 1}})
	if err != nil || len(got) != 2 {
		t.Fatalf("LoCoMoBatchAnswers(%q) = %+v, %v", reply, got, err)
	}
	for k, want := range []string{"x", "'"} {
		if got[k].Err != nil || got[k].Text != want {
			t.Errorf("question %d = %q, %v; want %q", k, got[k].Text, got[k].Err, want)
		}
	}
}
