package score

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestAbandonEmbeddingInFlight: a run asked to finish and then abandoned (a second signal) while
// the embedding call of record b is in flight writes record a, scored before, and nothing after:
// b's call was cut, so b is unfinished, and so is c behind it. They were written with score_errors
// "embedding call failed: … context canceled" (c's "cache …: get: context canceled"), a failure
// no server gave, where the README promises the records completed before the first unfinished one.
func TestAbandonEmbeddingInFlight(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	var n atomic.Int64
	srv := newOpenAIServer(t, func(*http.Request) {
		if n.Add(1) == 2 { // record b's request (--embed-batch 1)
			close(arrived)
			<-release
		}
	})
	t.Cleanup(func() { close(release) })
	ctx, abandon := context.WithCancel(context.Background())
	defer abandon()
	ctx, finish := interrupt.WithFinish(ctx)
	go func() {
		select {
		case <-arrived:
			finish()
			abandon()
		case <-ctx.Done():
		}
	}()
	args := []string{"qa-score", "--metrics", "sbert", "--embed-provider", "openai", "--embed-model", "m",
		"--embed-base-url", srv.URL + "/v1", "--cache", filepath.Join(t.TempDir(), "cache.db"), "--embed-batch", "1"}
	in := `{"schema":1,"id":"a","answers":["Paris"],"prediction":{"text":"Paris"}}` + "\n" +
		`{"schema":1,"id":"b","answers":["London"],"prediction":{"text":"London"}}` + "\n" +
		`{"schema":1,"id":"c","answers":["Berlin"],"prediction":{"text":"Berlin"}}` + "\n"
	var stdout, stderr bytes.Buffer
	err := Run(ctx, args, strings.NewReader(in), &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitInterrupted {
		t.Errorf("exit code %d (%v), want %d; stderr:\n%s", code, err, command.ExitInterrupted, stderr.String())
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if l == "" {
			continue
		}
		var r record.Record
		if err := record.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		got = append(got, r.ID)
		if _, ok := r.Scores["sbert"]; !ok || len(r.ScoreErrors) > 0 {
			t.Errorf("record %s written with scores %v, score_errors %v; want its sbert score alone", r.ID, r.Scores, r.ScoreErrors)
		}
	}
	if strings.Join(got, " ") != "a" {
		t.Errorf("records written %q, want %q (those before the abandoned call)", strings.Join(got, " "), "a")
	}
	if strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("stderr reports the abandoned calls as failures:\n%s", stderr.String())
	}
}
