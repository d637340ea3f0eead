package score

import (
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestMismatchesDevStdoutWithSummary: with --summary -, which prints no records, --mismatches
// /dev/stdout is allowed (without it the two would mix line among line, a usage error): the
// mismatches come first on the real stdout, then the summary.
func TestMismatchesDevStdoutWithSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	in := `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y"}}` + "\n"
	p := clitest.StartMain(t, "TestMainChild", []string{"--metrics", "f1", "--bootstrap", "0", "--summary", "-", "--format", "csv", "--mismatches", "/dev/stdout"}, in)
	code, stdout, stderr := p.Wait(t)
	want := `{"id":"a","question":"q","gold":["x"],"prediction":"y","metric":"f1","score":0}` + "\n" +
		"group,metric,count,mean,ci_lo,ci_hi\noverall,f1,1,0,,\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, want, stderr)
	}
	if strings.Contains(stderr, "would mix") {
		t.Errorf("refused: %s", stderr)
	}
}
