package predict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestProgressBar: on a terminal qa-predict draws a bar of the records answered against the
// input file's lines.
func TestProgressBar(t *testing.T) {
	path := clitest.TempFile(t, "in.jsonl", []byte(`{"schema":1,"id":"a","question":"Where was Ann born?","context":[{"text":"Ann was born in Paris. She moved to Rome."}],"answers":["Paris"]}
{"schema":1,"id":"b","question":"Where did Ann move?","context":[{"text":"Ann was born in Paris. She moved to Rome."}],"answers":["Rome"]}
{"schema":1,"id":"c","question":"Who moved?","context":[{"text":"Ann was born in Paris. She moved to Rome."}],"answers":["Ann"]}
`))
	clitest.ProgressBar(t, Run, []string{"qa-predict", "--provider", "extractive", path}, "(3/3, ")
}

// TestProgressLines: with stderr no terminal (a log, a CI job), --progress or QA_PREDICT_PROGRESS
// reports every 100 records answered, as qa-judge's --progress does; without either, only the
// summary.
func TestProgressLines(t *testing.T) {
	var in strings.Builder
	for i := range 250 {
		fmt.Fprintf(&in, `{"schema":1,"id":"q%d","question":"Where was Ann born?","context":[{"text":"Ann was born in Paris. She moved to Rome."}],"answers":["Paris"]}`+"\n", i)
	}
	path := clitest.TempFile(t, "in.jsonl", []byte(in.String()))
	clitest.ProgressLines(t, Run, []string{"qa-predict", "--provider", "extractive", path}, "QA_PREDICT_PROGRESS", 250)
}
