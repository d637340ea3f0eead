package learncurve

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

var update = flag.Bool("update", false, "rewrite the expected output of the txtar CLI tests")

// TestCLI runs every testdata/cli/*.txtar archive through Run in-process (see package clitest for
// the sections); go test -update rewrites the expected sections. A case that writes --output
// $TMP/report.json must leave EvaLearn's JSON report there.
func TestCLI(t *testing.T) {
	check := func(t *testing.T, tmp string, _ map[string][]byte) {
		out := filepath.Join(tmp, "report.json")
		if _, err := os.Stat(out); err != nil {
			return
		}
		if b, err := os.ReadFile(out); err != nil || !bytes.HasPrefix(b, []byte("{\n  \"model_evaluation\"")) {
			t.Errorf("--output file = %.40q, %v; want the JSON report", b, err)
		}
	}
	clitest.Config{Prog: "qa-learncurve", Run: Run, Update: *update, Check: check}.RunDir(t, "testdata/cli")
}
