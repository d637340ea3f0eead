package invariants

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/judge"
	"github.com/qapipe/qapipe/internal/learncurve"
	"github.com/qapipe/qapipe/internal/load"
	"github.com/qapipe/qapipe/internal/predict"
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
	rec := func(prog string, i int) string {
		seq := "" // qa-learncurve's records are positions of a sequence, which qa-predict would ask a judge for
		if prog == "qa-learncurve" {
			seq = fmt.Sprintf(`,"sequence":{"id":"1","position":%d}`, i+1)
		}
		return fmt.Sprintf(`{"schema":1,"id":"q%d","question":"q","answers":["Paris"],"context":[{"text":"Paris is a city."}],`+
			`"prediction":{"text":"Paris"},"judgments":{"a":{"score":1},"b":{"score":%d},"evalearn":{"score":1}}%s}`, i, i%2, seq) + "\n"
	}
	const want = "write /dev/stdout: no space left on device"
	for _, st := range []struct {
		prog string
		run  func(context.Context, []string, io.Reader, io.Writer, io.Writer) error
		args []string
	}{
		{"qa-load", load.Run, []string{"--format", "records"}},
		{"qa-predict", predict.Run, []string{"--provider", "extractive", "--force"}},
		{"qa-judge", judge.Run, []string{"--mode", "rules", "--force"}},
		{"qa-judge agree", judge.Run, []string{"--names", "a,b"}},
		{"qa-score", score.Run, []string{"--metrics", "em"}},
		{"qa-score", score.Run, []string{"--metrics", "em", "--summary", "-"}},
		{"qa-learncurve", learncurve.Run, []string{"--problems", "1", "--judge", "evalearn"}},
	} {
		for _, n := range []int{1, 5000} {
			var in strings.Builder
			for i := range n {
				in.WriteString(rec(st.prog, i))
			}
			args := st.args
			if st.prog == "qa-learncurve" {
				args = []string{"--problems", fmt.Sprint(n), "--judge", "evalearn"}
			}
			var stderr strings.Builder
			err := st.run(context.Background(), append(strings.Fields(st.prog), args...), strings.NewReader(in.String()), fullStdout{}, &stderr)
			if code := command.ExitCode(err); code != command.ExitFailure || err == nil || err.Error() != want {
				t.Errorf("%s %s, %d records, stdout on a full disk: exit %d, %v; want exit 1, %q (stderr %q)",
					st.prog, strings.Join(args, " "), n, code, err, want, stderr.String())
			}
		}
	}
}
