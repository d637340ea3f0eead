package predict

import (
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
