package learncurve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

const judged = `{"schema":1,"id":"r1","question":"q","answers":[],"type":"T","sequence":{"id":"1","position":1},"judgments":{"evalearn":{"score":1}}}
{"schema":1,"id":"r2","question":"q","answers":[],"type":"T","sequence":{"id":"1","position":2},"judgments":{"evalearn":{"score":0}}}
`

// TestRunInterrupted checks that a signal stops qa-learncurve with exit 130 and no report, whether
// it came before a record was read or during the last read: the README says qa-learncurve stops at
// the first signal, and it read on and printed its report with exit 0.
func TestRunInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stdin func(cancel context.CancelFunc) io.Reader
	}{
		{"before", func(cancel context.CancelFunc) io.Reader { cancel(); return strings.NewReader(judged) }},
		{"last read", func(cancel context.CancelFunc) io.Reader {
			return clitest.ThenAtEOF(strings.NewReader(judged), cancel)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stdout, stderr bytes.Buffer
			err := Run(ctx, []string{"qa-learncurve"}, tc.stdin(cancel), &stdout, &stderr)
			if code := command.ExitCode(err); code != command.ExitInterrupted || stdout.Len() > 0 {
				t.Errorf("Run(interrupted) exit = %d (%v), stdout %.80q; want %d and no report", code, err, stdout.String(), command.ExitInterrupted)
			}
		})
	}
}

// TestRunInterruptedInBootstrap: a signal while the intervals are computed, every record read,
// stops the run there (exit 130, no report, no plot), as at a record: the resampling went on to
// its end, the report and plot were written and the exit code was 0, or, with more resamples than
// 10 s let it finish, the process was ended by the grace period ("still running 10s later").
func TestRunInterruptedInBootstrap(t *testing.T) {
	t.Cleanup(command.WaitComputed) // the resamples left running end before the next test
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	plot := filepath.Join(t.TempDir(), "curve.svg")
	var stdout, stderr bytes.Buffer
	// The resampling of 400,000 replicates takes most of a second; the signal comes as it begins.
	stdin := clitest.ThenAtEOF(strings.NewReader(judged), func() { time.AfterFunc(50*time.Millisecond, cancel) })
	start := time.Now()
	err := Run(ctx, []string{"qa-learncurve", "--bootstrap", "400000", "--plot", plot}, stdin, &stdout, &stderr)
	took := time.Since(start)
	if code := command.ExitCode(err); code != command.ExitInterrupted || stdout.Len() > 0 {
		t.Errorf("Run(interrupted in the bootstrap) exit = %d (%v) after %v, stdout %.80q; want %d and no report", code, err, took, stdout.String(), command.ExitInterrupted)
	}
	if _, err := os.Stat(plot); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("--plot %s: %v; want no file", plot, err)
	}
}
