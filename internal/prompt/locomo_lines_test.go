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
		{`["a"]`, 1, "raises IndexError: the reply has 1 line"},
		{"[\"a\",\n\"b\"]", 2, "raises IndexError: the reply has 2 lines"},
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
