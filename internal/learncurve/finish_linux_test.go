package learncurve

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// TestUnfinishedPlotLeavesOutput: a gzip --plot whose last block a full disk refuses (here a
// limit on the size of a file) fails the run and leaves --output as it was, or none: --output
// was put in place before the plot was finished, so the failed run left a new report.
func TestUnfinishedPlotLeavesOutput(t *testing.T) {
	recs := caseRecords(t)
	const limit = 2048 // the most bytes a file may hold: the gzip report's
	// 1039 fit, the plot's 4702 do not
	for _, before := range []string{"", "old\n"} {
		dir := t.TempDir()
		output, plot := filepath.Join(dir, "report.json.gz"), filepath.Join(dir, "curve.svg.gz")
		if before != "" {
			for _, f := range []string{output, plot} {
				if err := os.WriteFile(f, []byte(before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		var stdout, stderr bytes.Buffer
		var err error
		clitest.FileSizeLimited(t, limit, func() {
			err = Run(context.Background(), []string{"qa-learncurve", "--output", output, "--plot", plot}, bytes.NewReader(recs), &stdout, &stderr)
		})
		if code := command.ExitCode(err); code != command.ExitFailure || !strings.HasPrefix(err.Error(), "--plot: ") || !strings.Contains(err.Error(), "file too large") {
			t.Errorf("exit %d, %v; want exit 1, a --plot error that says the file is too large", code, err)
		}
		for _, f := range []string{output, plot} {
			b, err := os.ReadFile(f)
			switch {
			case before == "" && err == nil:
				t.Errorf("the run failed, but left %s (%d bytes), want none", f, len(b))
			case before != "" && string(b) != before:
				t.Errorf("the run failed, but replaced %s (%d bytes), want it as it was", f, len(b))
			}
		}
	}
}
