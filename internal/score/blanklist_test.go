package score

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// TestMetricsBlankIsUsageError: a --metrics (or QA_METRICS) of blanks alone names no metric, as
// "," does (metrics_none_named.txtar): a usage error, not a run of the default metrics, which
// urfave/cli made of it by trimming the value to nothing. An empty one is the default.
func TestMetricsBlankIsUsageError(t *testing.T) {
	in := `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\n"
	for _, v := range []string{" ", "\t", " , "} {
		for _, env := range []bool{false, true} {
			args := []string{"qa-score", "--metrics", v}
			if env {
				t.Setenv("QA_METRICS", v)
				args = []string{"qa-score"}
			}
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), args, strings.NewReader(in), &stdout, &stderr)
			if code := command.ExitCode(err); code != command.ExitUsage || stdout.Len() != 0 || !strings.Contains(err.Error(), "names no metric") {
				t.Errorf("--metrics %q (from QA_METRICS: %v): exit %d (%v), %d bytes written; want a usage error that names no metric", v, env, code, err, stdout.Len())
			}
			t.Setenv("QA_METRICS", "")
		}
	}
}
