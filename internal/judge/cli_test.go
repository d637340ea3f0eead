package judge

import (
	"flag"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

var update = flag.Bool("update", false, "rewrite the txtar CLI tests' expected output")

// TestCLI runs every testdata/cli/*.txtar archive through Run in-process (see package clitest for
// the sections). No test here needs a network; $CLOSED is a loopback address where nothing
// listens (a wrong port), $ADDR_CLOSED its host and port.
func TestCLI(t *testing.T) {
	setup := func(t *testing.T) map[string]string {
		t.Setenv("OPENAI_API_KEY", "")
		closed := httptest.NewServer(http.NotFoundHandler())
		closed.Close()
		return map[string]string{"$CLOSED": closed.URL, "$ADDR_CLOSED": closed.Listener.Addr().String()}
	}
	clitest.Config{Prog: "qa-judge", Run: Run, Update: *update, Setup: setup}.RunDir(t, "testdata/cli")
}
