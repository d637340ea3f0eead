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
