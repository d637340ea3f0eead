//go:build unix

package judge

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/clitest"
)

// TestClosedStdoutStoresVerdicts: qa-judge --cache whose stdout's reader has gone (| head -1)
// while three judge calls are in flight (records 1-3 of 4, at --concurrency 4) stores the three
// verdicts once they come, says so in one line while it waits, and ends by SIGPIPE; a rerun
// judges every record from the cache, asking nothing. The reader is gone before the first write,
// which comes when record 0 is judged, once the three calls are in flight.
func TestClosedStdoutStoresVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	var in strings.Builder
	for i := range 4 {
		q := fmt.Sprintf("Q%d?", i)
		if i > 0 {
			q += " HOLD"
		}
		in.WriteString(rec(fmt.Sprintf("q%d", i), "longmemeval", "single-session-user", q, "A", "A", ""))
	}
	asked0, answer0 := make(chan struct{}), make(chan struct{})
	var first, answered sync.Once
	srv := clitest.NewHoldServer(t, "HOLD", func(prompt string) string {
		if strings.Contains(prompt, "Q0?") {
			first.Do(func() {
				close(asked0)
				<-answer0
			})
		}
		return "Yes."
	})
	answer := func() { answered.Do(func() { close(answer0) }) }
	t.Cleanup(answer) // a failed test lets record 0's call end, and the server close
	db := filepath.Join(t.TempDir(), "cache.db")
	args := []string{"--mode", "longmemeval", "--model", "j", "--base-url", srv.URL, "--cache", db,
		"--concurrency", "4", "--timeout", "1h", "--max-retries", "0"}
	p := clitest.StartReaderGone(t, "TestMainChild", args, in.String())
	clitest.Receive(t, asked0, "record 0's call")
	for range 3 {
		clitest.Receive(t, srv.Held, "a held call")
	}
	answer() // its record is written, to no reader
	want := "qa-judge: stdout's reader went away: storing the replies of 3 calls in flight (--cache), for at most 2m0s; interrupt to abandon them"
	if got := clitest.Receive(t, p.Stderr, "the line saying what is waited for"); got != want {
		t.Fatalf("stderr %q, want %q", got, want)
	}
	srv.Release()
	if rest := p.WaitSIGPIPE(t); len(rest) > 0 {
		t.Errorf("stderr after the wait: %q, want nothing more", rest)
	}
	cc, err := cache.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cc.Len(context.Background())
	cc.Close()
	if err != nil || got != 4 {
		t.Errorf("cache holds %d replies (%v), want 4", got, err)
	}
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), append([]string{"qa-judge"}, args...), strings.NewReader(in.String()), &stdout, &stderr); err != nil {
		t.Fatalf("rerun: %v\n%s", err, stderr.String())
	}
	if summary := "longmemeval/j: 4 judged (0 by rule, 4 from cache)"; !strings.Contains(stderr.String(), summary) {
		t.Errorf("rerun: stderr lacks %q:\n%s", summary, stderr.String())
	}
	if got := len(srv.Prompts()); got != 4 {
		t.Errorf("the server was asked %d times in all, want 4 (none after the reader went away, none by the rerun)", got)
	}
}
