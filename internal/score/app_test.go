package score

import (
	"flag"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

var update = flag.Bool("update", false, "rewrite the txtar CLI tests' expected output")

// TestCLI runs every testdata/cli/*.txtar archive through Run in-process (see package clitest for
// the sections; "out NAME" checks a file the run wrote). $OPENAI_URL and $TEI_URL in args are
// loopback embedding servers (see embed_server_test.go); QA_EMBED_API_KEY is cleared so that no
// real key is used.
func TestCLI(t *testing.T) {
	t.Setenv("QA_EMBED_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	vars := map[string]string{"$OPENAI_URL": newOpenAIServer(t, nil).URL + "/v1", "$TEI_URL": newTEIServer(t).URL}
	clitest.Config{Prog: "qa-score", Run: Run, Update: *update, Vars: vars}.RunDir(t, "testdata/cli")
}
