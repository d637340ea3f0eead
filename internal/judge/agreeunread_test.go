package judge

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestAgreeUnreadFirstIsSteady: the warning of EvaLearn replies with no score names the same
// first reply on every run when one record holds several: its judgments in order of name, not
// in the random order of a Go map, which named a, b or c run by run.
func TestAgreeUnreadFirstIsSteady(t *testing.T) {
	in := `{"schema":1,"id":"e1","dataset":"evalearn","judgments":{"c":{"raw":"no score c"},"a":{},"b":{"raw":"no score b"}}}` + "\n"
	const want = `the first is stdin:1 (id "e1"): empty reply`
	for range 40 {
		var stdout, stderr bytes.Buffer
		_ = Run(context.Background(), []string{"qa-judge", "agree", "--bootstrap", "0"}, strings.NewReader(in), &stdout, &stderr)
		if !strings.Contains(stderr.String(), want) {
			t.Fatalf("stderr %q\nwant the warning to name a's reply first: %s", stderr.String(), want)
		}
	}
}
