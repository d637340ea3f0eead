package invariants

import (
	"fmt"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/judge"
	"github.com/qapipe/qapipe/internal/learncurve"
	"github.com/qapipe/qapipe/internal/load"
	"github.com/qapipe/qapipe/internal/predict"
	"github.com/qapipe/qapipe/internal/score"
)

// stage is a command that reads stageRecords: its name as typed ("qa-judge agree"), its Run, and
// the flags with which it reads them.
type stage struct {
	prog string
	run  command.RunFunc
	args []string
}

// everyStage is every command and subcommand that reads records, each with the flags that read
// stageRecords. qa-learncurve's --problems is the caller's to add: its one sequence is as long as
// the input.
var everyStage = []stage{
	{"qa-load", load.Run, []string{"--format", "records"}},
	{"qa-predict", predict.Run, []string{"--provider", "extractive", "--force"}},
	{"qa-judge", judge.Run, []string{"--mode", "rules", "--force"}},
	{"qa-judge agree", judge.Run, []string{"--names", "a,b"}},
	{"qa-score", score.Run, []string{"--metrics", "em"}},
	{"qa-learncurve", learncurve.Run, []string{"--judge", "evalearn", "--warmup", "0"}},
}

// line returns the command line that runs st over the input with extra flags: the command's
// name, its subcommand, its flags and extra.
func (st stage) line(extra ...string) []string {
	return append(append(strings.Fields(st.prog), st.args...), extra...)
}

// stageRecords returns n records that every stage reads: a question with its context, answered,
// and judged by a, b (which agree on the even records) and evalearn; for qa-learncurve, the
// positions 1 to n of one sequence, which qa-predict would ask a judge for.
func stageRecords(prog string, n int) string {
	var b strings.Builder
	for i := range n {
		seq := ""
		if prog == "qa-learncurve" {
			seq = fmt.Sprintf(`,"sequence":{"id":"1","position":%d}`, i+1)
		}
		fmt.Fprintf(&b, `{"schema":1,"id":"q%d","question":"q","answers":["Paris"],"context":[{"text":"Paris is a city."}],`+
			`"prediction":{"text":"Paris"},"judgments":{"a":{"score":1},"b":{"score":%d},"evalearn":{"score":1}}%s}`+"\n", i, 1-i%2, seq)
	}
	return b.String()
}
