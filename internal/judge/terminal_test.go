package judge

import (
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestProgressBar: on a terminal qa-judge draws a bar of the records judged against the input
// file's lines.
func TestProgressBar(t *testing.T) {
	path := clitest.TempFile(t, "in.jsonl", []byte(`{"schema":1,"id":"a","question":"Who?","answers":["Barack Obama"],"prediction":{"text":"Barack Obama"}}
{"schema":1,"id":"b","question":"Where?","answers":["London"],"prediction":{"text":"Manchester"}}
`))
	clitest.ProgressBar(t, Run, []string{"qa-judge", "--mode", "rules", path}, "(2/2, ")
}
