package invariants

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/score"
)

// fullStdout is a stdout on a full disk: every write fails as a write to a file there does.
type fullStdout struct{}

func (fullStdout) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
}

// TestFullStdoutEveryStage: output lost to a full disk fails every command with exit 1 and the
// one error the write gave, whether the write that fails is made as records are written (many
// records) or when the last ones are flushed at the end (one record). qa-load and qa-predict said
// "write: write /dev/stdout: …", and qa-judge and qa-score "write records: write /dev/stdout: …",
// at the end only.
func TestFullStdoutEveryStage(t *testing.T) {
	const want = "write /dev/stdout: no space left on device"
	stages := slices.Concat(everyStage, []stage{{"qa-score", score.Run, []string{"--metrics", "em", "--summary", "-"}}})
	for _, st := range stages {
		for _, n := range []int{1, 5000} {
			var args []string
			if st.prog == "qa-learncurve" {
				args = []string{"--problems", fmt.Sprint(n)}
			}
			var stderr strings.Builder
			err := st.run(context.Background(), st.line(args...), strings.NewReader(stageRecords(st.prog, n)), fullStdout{}, &stderr)
			if code := command.ExitCode(err); code != command.ExitFailure || err == nil || err.Error() != want {
				t.Errorf("%s, %d records, stdout on a full disk: exit %d, %v; want exit 1, %q (stderr %q)",
					strings.Join(st.line(args...), " "), n, code, err, want, stderr.String())
			}
		}
	}
}
