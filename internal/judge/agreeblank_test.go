package judge

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// TestAgreeNamesBlankIsUsageError: agree --names (or QA_AGREE_NAMES) of blanks alone names no
// judgment, as "," does (agree_names_none.txtar): a usage error, not a run over every name seen,
// which urfave/cli made of it by trimming the value to nothing.
func TestAgreeNamesBlankIsUsageError(t *testing.T) {
	in := `{"schema":1,"id":"r1","type":"a","question":"q","answers":["x"],"judgments":{"big":{"score":1},"cheap":{"score":0}}}` + "\n"
	for _, v := range []string{" ", "\t", " , "} {
		for _, env := range []bool{false, true} {
			args := []string{"qa-judge", "agree", "--names", v}
			if env {
				t.Setenv("QA_AGREE_NAMES", v)
				args = []string{"qa-judge", "agree"}
			}
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), args, strings.NewReader(in), &stdout, &stderr)
			if code := command.ExitCode(err); code != command.ExitUsage || stdout.Len() != 0 || !strings.Contains(err.Error(), "names no judgment") {
				t.Errorf("--names %q (from QA_AGREE_NAMES: %v): exit %d (%v), %d bytes written; want a usage error that names no judgment", v, env, code, err, stdout.Len())
			}
			t.Setenv("QA_AGREE_NAMES", "")
		}
	}
}
