package judge

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/interrupt"
)

const twoJudges = `{"schema":1,"id":"a","question":"q","answers":["x"],"judgments":{"a":{"score":1},"b":{"score":0}}}
{"schema":1,"id":"b","question":"q","answers":["x"],"judgments":{"a":{"score":1},"b":{"score":1}}}
`

// TestAgreeInterrupted checks that qa-judge agree, which makes no call, stops at the first signal
// (qa-judge's main only asks the run to finish) with exit 130 and no report: it read on and
// printed the agreement with exit 0. It says so after its own name, "qa-judge agree".
func TestAgreeInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stdin func(finish func() int) io.Reader
	}{
		{"before", func(finish func() int) io.Reader { finish(); return strings.NewReader(twoJudges) }},
		{"last read", func(finish func() int) io.Reader {
			return clitest.ThenAtEOF(strings.NewReader(twoJudges), func() { finish() })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, finish := interrupt.WithFinish(context.Background())
			var stdout, stderr bytes.Buffer
			err := Run(ctx, []string{"qa-judge", "agree"}, tc.stdin(finish), &stdout, &stderr)
			if code := command.ExitCode(err); code != command.ExitInterrupted || stdout.Len() > 0 {
				t.Errorf("agree (interrupted) exit = %d (%v), stdout %.80q; want %d and no report", code, err, stdout.String(), command.ExitInterrupted)
			}
			var report bytes.Buffer
			command.Report(&report, "qa-judge", err)
			if got, want := report.String(), "qa-judge agree: interrupted\n"; got != want {
				t.Errorf("agree (interrupted) reports %q, want %q", got, want)
			}
			if name, ok := interrupt.NoCallsName(ctx); !ok || name != "qa-judge agree" {
				t.Errorf("agree: interrupt.NoCallsName = %q, %v; want %q, true (no \"writing the records left\" at the signal)", name, ok, "qa-judge agree")
			}
		})
	}
}
