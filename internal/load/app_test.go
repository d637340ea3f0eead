package load

import (
	"flag"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

var update = flag.Bool("update", false, "rewrite the expected output of the txtar CLI tests")

// TestCLI runs every testdata/cli/*.txtar archive through Run in-process (see package clitest for
// the sections); go test -update rewrites the expected sections.
func TestCLI(t *testing.T) {
	clitest.Config{Prog: "qa-load", Run: Run, Update: *update}.RunDir(t, "testdata/cli")
}
