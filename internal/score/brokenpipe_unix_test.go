//go:build unix

package score

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestClosedStdoutKeepsEmbeddings: qa-score --metrics sbert --cache whose stdout's reader has gone
// (| head -1) ends by SIGPIPE, silently, as cat does, leaving no --summary file, and the
// embeddings it was paid for are in the cache: a rerun scores every record without a request.
// The records are written after their group's calls have ended (they wait for their embeddings),
// so no call is in flight when the write fails, and the process ends at once.
func TestClosedStdoutKeepsEmbeddings(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	var requests atomic.Int64
	srv := newOpenAIServer(t, func(*http.Request) { requests.Add(1) })
	dir := t.TempDir()
	db, summary := filepath.Join(dir, "cache.db"), filepath.Join(dir, "summary.json")
	args := []string{"--metrics", "sbert", "--embed-provider", "openai", "--embed-model", "m",
		"--embed-base-url", srv.URL + "/v1", "--cache", db, "--embed-batch", "1"}
	in := `{"schema":1,"id":"a","answers":["Paris"],"prediction":{"text":"the capital is Paris"}}` + "\n" +
		`{"schema":1,"id":"b","answers":["London"],"prediction":{"text":"London"}}` + "\n" +
		`{"schema":1,"id":"c","answers":["Berlin"],"prediction":{"text":"Paris"}}` + "\n"
	p := clitest.StartReaderGone(t, "TestMainChild", append(args, "--summary", summary), in)
	if stderr := p.WaitSIGPIPE(t); len(stderr) > 0 {
		t.Errorf("stdout's reader gone: stderr %q, want nothing", stderr)
	}
	if _, err := os.Lstat(summary); !os.IsNotExist(err) {
		t.Errorf("--summary %s after stdout's reader went away: %v, want no file", summary, err)
	}
	// the four distinct texts, one request each (--embed-batch 1)
	if got := requests.Load(); got != 4 {
		t.Fatalf("the server got %d requests, want 4", got)
	}
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), append([]string{"qa-score"}, args...), strings.NewReader(in), &stdout, &stderr); err != nil {
		t.Fatalf("rerun: %v\n%s", err, stderr.String())
	}
	if got := requests.Load(); got != 4 {
		t.Errorf("the rerun made %d requests, want none: the replies were stored before the process ended", got-4)
	}
	// a: cos((3, 4), (1, 0)) = 3/5; b: 1; c: cos((1, 0), (1, 1)) = 1/√2
	for _, want := range []string{`"id":"a"`, `"sbert":0.6`, `"sbert":1`, `"sbert":0.7071067811865475`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("rerun wrote %s, want it to hold %s", stdout.String(), want)
		}
	}
}
