package judge

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

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

// TestAgreeInterruptedInBootstrap: a signal while the intervals are computed, every record read,
// stops qa-judge agree there (exit 130, no report): the resampling went on to its end and the
// report was printed with exit 0, or, with more resamples than 10 s let it finish, the process
// was ended by the grace period ("still running 10s later").
func TestAgreeInterruptedInBootstrap(t *testing.T) {
	t.Cleanup(command.WaitComputed) // the resamples left running end before the next test
	var in strings.Builder
	for i := range 300 {
		fmt.Fprintf(&in, `{"schema":1,"id":"r%d","question":"q","answers":["x"],"judgments":{"a":{"score":%d},"b":{"score":%d}}}`+"\n", i, i%2, i%3%2)
	}
	ctx, finish := interrupt.WithFinish(context.Background())
	// Forty thousand resamples of 300 records take most of a second; the signal comes as they begin.
	stdin := clitest.ThenAtEOF(strings.NewReader(in.String()), func() { time.AfterFunc(50*time.Millisecond, func() { finish() }) })
	var stdout, stderr bytes.Buffer
	start := time.Now()
	err := Run(ctx, []string{"qa-judge", "agree", "--bootstrap", "40000"}, stdin, &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitInterrupted || stdout.Len() > 0 {
		t.Errorf("agree (interrupted in the bootstrap) exit = %d (%v) after %v, stdout %.80q; want %d and no report", code, err, time.Since(start), stdout.String(), command.ExitInterrupted)
	}
}
