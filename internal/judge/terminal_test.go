package judge

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestProgressBar: on a terminal qa-judge draws a bar of the records judged against the input
// file's lines.
func TestProgressBar(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.jsonl")
	in := `{"schema":1,"id":"a","question":"Who?","answers":["Barack Obama"],"prediction":{"text":"Barack Obama"}}
{"schema":1,"id":"b","question":"Where?","answers":["London"],"prediction":{"text":"Manchester"}}
`
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.ProgressBar(t, Run, []string{"qa-judge", "--mode", "rules", path}, "(2/2, ")
}
