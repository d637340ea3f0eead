package judge

import (
	"flag"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

var update = flag.Bool("update", false, "rewrite the txtar CLI tests' expected output")

// TestCLI runs every testdata/cli/*.txtar archive through Run in-process (see package clitest for
// the sections). No test here needs a network.
func TestCLI(t *testing.T) {
	clitest.Config{Prog: "qa-judge", Run: Run, Update: *update}.RunDir(t, "testdata/cli")
}
