package predict

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestEmptyReplyKeptCached: under --empty-reply keep with --cache, an empty reply that stopped of
// itself, kept as the answer "", is stored, so that a rerun with the cache makes no call and
// answers every record as the first run did: a plain reply, one with nothing after its thinking
// (--think strip), and an EvaLearn position, whose history every later position of its sequence
// is asked with. A run under the default --empty-reply error reads such an entry as the error
// "empty reply" it is without keep, with no call (exit 3, as the first run's would be), and takes
// it out of the cache, so that --retry-errors asks for another, as it asks for any empty reply
// that mode does not keep.
func TestEmptyReplyKeptCached(t *testing.T) {
	var calls atomic.Int64
	var studentCalls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		req, ok := clitest.ReadChat(w, r)
		if !ok {
			return
		}
		content := ""
		switch req.Model {
		case "think-model":
			content = "<think>Hmm.</think>\n"
		case "fake-judge":
			content = "[Grade]: 0 points\n{\"answer_score\": 0}"
		case "fake-client":
			// The first student call gets nothing, every later one an answer: asked again, the
			// first position would get another answer, and the second another history.
			if studentCalls.Add(1) > 1 {
				content = "The answer is 2."
			}
		}
		b, _ := json.Marshal(content)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"`+req.Model+`","choices":[{"index":0,"message":{"role":"assistant","content":`+string(b)+`},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`)
	}))
	t.Cleanup(srv.Close)
	locomo := goldenLoCoMo(t)[:3]
	const sequence = `{"schema":1,"id":"evalearn:s:1","dataset":"evalearn","type":"Logical Reasoning","question":"Q1","turns":["Q1"],"answers":[],"rubric":"R1","sequence":{"id":"s","position":1}}
{"schema":1,"id":"evalearn:s:2","dataset":"evalearn","type":"Logical Reasoning","question":"Q2","turns":["Q2"],"answers":[],"rubric":"R2","sequence":{"id":"s","position":2}}
`
	plain := []string{"--provider", "openai", "--base-url", srv.URL + "/v1", "--api-key-file", keyFile(t), "--concurrency", "1"}
	tests := []struct {
		name  string
		in    string
		args  []string
		first int // the first run's calls
		kept  int // the empty replies kept
	}{
		{"plain", jsonl(t, locomo...), append(plain, "--model", "gpt-4-turbo"), 3, 3},
		{"nothing after the thinking", jsonl(t, locomo...), append(plain, "--model", "think-model"), 3, 3},
		{"evalearn", sequence, seqArgs(t, srv.URL+"/v1", "--concurrency", "1"), 4, 1}, // 2 answers, 2 verdicts
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "c.sqlite")
			args := append(tt.args, "--cache", cache)
			predict := func(mode string) ([]*record.Record, string, int64, error) {
				calls.Store(0)
				recs, stderr, err := run(t, context.Background(), tt.in, append(args, "--empty-reply", mode)...)
				return recs, stderr, calls.Load(), err
			}
			studentCalls.Store(0)
			first, stderr, n, err := predict("keep")
			if err != nil || n != int64(tt.first) {
				t.Fatalf("first run: %v, %d calls; want none, %d\n%s", err, n, tt.first, stderr)
			}
			again, stderr, n, err := predict("keep")
			if err != nil || n != 0 {
				t.Fatalf("rerun under keep: %v, %d calls; want none, 0\n%s", err, n, stderr)
			}
			for i, rec := range again {
				p, was := rec.Prediction, first[i].Prediction
				if p.Error != "" || p.Text != was.Text || !p.HasText() || !p.Cached {
					t.Errorf("%s: rerun's prediction %+v, want the first run's text %q, from the cache", rec.ID, p, was.Text)
				}
			}
			warn := "qa-predict: warning: 1 reply was empty, kept as"
			if tt.kept > 1 {
				warn = "qa-predict: warning: 3 replies were empty, kept as"
			}
			if !strings.Contains(stderr, warn) {
				t.Errorf("rerun's stderr lacks %q:\n%s", warn, stderr)
			}
			if tt.name == "evalearn" {
				return // by default an empty answer breaks its sequence: see TestSequentialEmptyReplyKept
			}
			recs, stderr, n, err := predict("error")
			if command.ExitCode(err) != command.ExitBadRecords || n != 0 {
				t.Fatalf("rerun under error: exit %d, %d calls; want %d, 0\n%s", command.ExitCode(err), n, command.ExitBadRecords, stderr)
			}
			for _, rec := range recs {
				if p := rec.Prediction; !strings.Contains(p.Error, "empty reply") || p.HasText() {
					t.Errorf("%s: prediction %+v under error, want the error empty reply", rec.ID, p)
				}
			}
			if strings.Contains(stderr, "kept as") {
				t.Errorf("stderr under error warns of kept replies:\n%s", stderr)
			}
			if _, _, n, _ := predict("error"); n != int64(tt.first) {
				t.Errorf("second rerun under error: %d calls, want %d: the empty replies asked again", n, tt.first)
			}
		})
	}
}
