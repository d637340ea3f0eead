package judge

import (
	"flag"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

var update = flag.Bool("update", false, "rewrite the txtar CLI tests' expected output")

// TestCLI runs every testdata/cli/*.txtar archive through Run in-process (see package clitest for
// the sections). No test here needs a network: $URL is a loopback reasoning judge (thinkingJudge),
// $CLOSED a loopback address where nothing listens (a wrong port), $ADDR_CLOSED its host and port.
func TestCLI(t *testing.T) {
	setup := func(t *testing.T) map[string]string {
		t.Setenv("OPENAI_API_KEY", "")
		closed := clitest.ClosedURL(t)
		judge, _ := thinkingJudge(t)
		return map[string]string{"$URL": judge.URL, "$CLOSED": closed, "$ADDR_CLOSED": strings.TrimPrefix(closed, "http://")}
	}
	clitest.Config{Prog: "qa-judge", Run: Run, Update: *update, Setup: setup}.RunDir(t, "testdata/cli")
}
