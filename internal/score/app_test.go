package score

import (
	"bytes"
	"flag"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

var update = flag.Bool("update", false, "rewrite the txtar CLI tests' expected output")

// TestCLI runs every testdata/cli/*.txtar archive through Run in-process (see package clitest for
// the sections; "out NAME" checks a file the run wrote). $OPENAI_URL and $TEI_URL in args are
// loopback embedding servers, and $FLAKY_URL, $SLOW_URL and $KEY_URL fresh ones for each case
// (see embed_server_test.go); QA_EMBED_API_KEY and its file's variable are cleared so that no
// real key is used, and no output may contain the test key.
func TestCLI(t *testing.T) {
	t.Setenv("QA_EMBED_API_KEY", "")
	t.Setenv("QA_EMBED_API_KEY_FILE", "")
	t.Setenv("OPENAI_API_KEY", "")
	vars := map[string]string{"$OPENAI_URL": newOpenAIServer(t, nil).URL + "/v1", "$TEI_URL": newTEIServer(t).URL}
	check := func(t *testing.T, _ string, got map[string][]byte) {
		for name, out := range got {
			if bytes.Contains(out, []byte(embedKey)) {
				t.Errorf("%s leaks the embedding API key:\n%s", name, out)
			}
		}
	}
	clitest.Config{Prog: "qa-score", Run: Run, Update: *update, Vars: vars, Setup: callServers, Check: check}.RunDir(t, "testdata/cli")
}

// TestTallyErr: the last line of a run with bad lines, failed records, metric errors or records
// without the --judge judgment names each kind it had, counted in the singular when there is one.
func TestTallyErr(t *testing.T) {
	for _, tc := range []struct {
		tally tally
		want  string
	}{
		{tally{}, ""},
		{tally{bad: 1}, "1 bad input line skipped"},
		{tally{bad: 2}, "2 bad input lines skipped"},
		{tally{failed: 1}, "1 record with a prediction or judge error not scored"},
		{tally{failed: 3}, "3 records with prediction or judge errors not scored"},
		{tally{failed: 1, zeroed: 1}, "1 record with a prediction or judge error not scored (counted as 0 in the summary: --errors-as-zero)"},
		{tally{failed: 2, zeroed: 2}, "2 records with prediction or judge errors not scored (counted as 0 in the summary: --errors-as-zero)"},
		{tally{failed: 1, firstFailed: `a.jsonl:4 (id "q")`}, `1 record with a prediction or judge error not scored (a.jsonl:4 (id "q"))`},
		{tally{failed: 2, firstFailed: `a.jsonl:4 (id "q")`, zeroed: 1}, `2 records with prediction or judge errors not scored (the first: a.jsonl:4 (id "q")) (1 counted as 0 in the summary: --errors-as-zero)`},
		{tally{failed: 3, zeroed: 1}, "3 records with prediction or judge errors not scored (1 counted as 0 in the summary: --errors-as-zero)"},
		{tally{bad: 1, failed: 1}, "1 bad input line skipped, and 1 record with a prediction or judge error not scored"},
		{tally{bad: 2, failed: 2}, "2 bad input lines skipped, and 2 records with prediction or judge errors not scored"},
		{tally{metricErrors: 1}, "1 record with metric errors (see the messages above) not fully scored"},
		{tally{bad: 1, metricErrors: 2}, "1 bad input line skipped, and 2 records with metric errors (see the messages above) not fully scored"},
		{tally{bad: 1, failed: 3, metricErrors: 2}, "1 bad input line skipped, 2 records with metric errors (see the messages above) not fully scored, and 3 records with prediction or judge errors not scored"},
		{tally{misnamed: 1, judge: "rules"}, `1 record with judgments has none named "rules" (--judge): judge_score not scored`},
		{tally{bad: 2, misnamed: 3, judge: "rules"}, `2 bad input lines skipped, and 3 records with judgments have none named "rules" (--judge): judge_score not scored`},
		{tally{bad: 1, failed: 1, misnamed: 1, judge: "j"}, `1 bad input line skipped, 1 record with a prediction or judge error not scored, and 1 record with judgments has none named "j" (--judge): judge_score not scored`},
	} {
		got := ""
		if err := tc.tally.err(); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v.err() = %q, want %q", tc.tally, got, tc.want)
		}
	}
}
