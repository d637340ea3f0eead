package predict

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// TestUnreachedServerStopsCalls: against a closed port, only about max(8, 2×concurrency) calls are
// attempted; the other records are written with an error saying they were not called, and the run
// exits 3.
func TestUnreachedServerStopsCalls(t *testing.T) {
	const n, par = 50, 4
	closed := clitest.ClosedURL(t)
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, `{"schema":1,"id":"q%d","question":"Q%d","answers":["A%d"]}`+"\n", i, i, i)
	}
	recs, stderr, err := run(t, context.Background(), in.String(), "--provider", "openai", "--model", "gpt-4o-mini",
		"--base-url", closed, "--max-retries", "0", "--concurrency", fmt.Sprint(par))
	if code := command.ExitCode(err); code != command.ExitBadRecords || len(recs) != n {
		t.Fatalf("exit %d with %d records, want %d with %d; stderr:\n%s", code, len(recs), command.ExitBadRecords, n, stderr)
	}
	attempted, notCalled := 0, 0
	for _, r := range recs {
		p := r.Prediction
		switch {
		case p == nil || p.Error == "":
			t.Fatalf("record %s has no error: %+v", r.ID, p)
		case p.Attempts > 0:
			attempted++
		case command.Stopped(p.Error) != "":
			notCalled++
		default:
			t.Errorf("record %s: error %q, want a failed call or one not made", r.ID, p.Error)
		}
	}
	// The limit, 8, and at most the par-1 calls in flight when it was hit.
	if limit := 2 * par; attempted < limit || attempted > limit+par-1 || attempted+notCalled != n {
		t.Errorf("attempted %d calls and %d not made, want %d to %d attempted and the rest not made", attempted, notCalled, limit, limit+par-1)
	}
	if got := strings.Count(stderr, "calls stopped:"); got != 1 {
		t.Errorf("stderr says %d times that calls stopped, want once:\n%s", got, stderr)
	}
}
