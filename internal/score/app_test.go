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

// TestFinalError: the last line of a run with bad lines, failed records or metric errors counts
// each in the singular when there is one.
func TestFinalError(t *testing.T) {
	for _, tc := range []struct {
		bad, failed, metricErrors int
		want                      string
	}{
		{0, 0, 0, ""},
		{1, 0, 0, "1 bad input line skipped"},
		{2, 0, 0, "2 bad input lines skipped"},
		{0, 1, 0, "1 record with a prediction or judge error not scored"},
		{0, 3, 0, "3 records with prediction or judge errors not scored"},
		{1, 1, 0, "1 bad input line skipped, and 1 record with a prediction or judge error not scored"},
		{2, 2, 0, "2 bad input lines skipped, and 2 records with prediction or judge errors not scored"},
		{0, 0, 1, "1 record with metric errors (see the messages above) not fully scored"},
		{1, 0, 2, "2 records with metric errors (see the messages above) not fully scored, 1 bad input line skipped, 0 records with prediction or judge errors not scored"},
	} {
		got := ""
		if err := finalError(tc.bad, tc.failed, tc.metricErrors); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("finalError(%d, %d, %d) = %q, want %q", tc.bad, tc.failed, tc.metricErrors, got, tc.want)
		}
	}
}
