package judge

import (
	"fmt"
	"regexp"
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

// TestProgressLinesSpend: a run that asks a model reports the tokens and cost spent so far on
// each progress line, as qa-predict's does, before the failed and unparsable judgments.
func TestProgressLinesSpend(t *testing.T) {
	srv := newChatServer(t, func(chatRequest) (string, int) { return `{"label": "CORRECT"}`, 0 })
	var in strings.Builder
	for i := range 100 {
		fmt.Fprintf(&in, `{"schema":1,"id":"q%d","question":"Who?","answers":["Barack Obama"],"prediction":{"text":"Obama"}}`+"\n", i)
	}
	_, stderr, code := runJudge(t, []string{"--progress", "--mode", "mem0", "--base-url", srv.URL, "--model", "gpt-4o-mini"}, in.String())
	// 100 replies of 100 input and 5 output tokens, at gpt-4o-mini's $0.15 and $0.60 a million.
	want := regexp.MustCompile(`(?m)^qa-judge: 100 records \([^)]*\): tokens 10000/500  \$0\.0018  failed 0  unparsable 0$`)
	if code != 0 || !want.MatchString(stderr) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 0 and a line matching %s", code, stderr, want)
	}
}
