package predict

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestProgressBar: on a terminal qa-predict draws a bar of the records answered against the
// input file's lines.
func TestProgressBar(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.jsonl")
	in := `{"schema":1,"id":"a","question":"Where was Ann born?","context":[{"text":"Ann was born in Paris. She moved to Rome."}],"answers":["Paris"]}
{"schema":1,"id":"b","question":"Where did Ann move?","context":[{"text":"Ann was born in Paris. She moved to Rome."}],"answers":["Rome"]}
{"schema":1,"id":"c","question":"Who moved?","context":[{"text":"Ann was born in Paris. She moved to Rome."}],"answers":["Ann"]}
`
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.ProgressBar(t, Run, []string{"qa-predict", "--provider", "extractive", path}, "(3/3, ")
}
