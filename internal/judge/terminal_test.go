package judge

import (
	"fmt"
	"strings"
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

// TestProgressLines: with stderr no terminal, --progress or QA_JUDGE_PROGRESS reports every 100
// records judged; without either, only the summary.
func TestProgressLines(t *testing.T) {
	var in strings.Builder
	for i := range 250 {
		fmt.Fprintf(&in, `{"schema":1,"id":"q%d","question":"Who?","answers":["Barack Obama"],"prediction":{"text":"Barack Obama"}}`+"\n", i)
	}
	path := clitest.TempFile(t, "in.jsonl", []byte(in.String()))
	clitest.ProgressLines(t, Run, []string{"qa-judge", "--mode", "rules", path}, "QA_JUDGE_PROGRESS", 250)
}
