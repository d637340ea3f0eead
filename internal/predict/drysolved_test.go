package predict

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// graderServer answers EvaLearn's student (model "fake-client") with a text of the prompt's
// length, so that another history asks another answer, and its judge (any other model) with a
// verdict that parses, or, for the judge calls in unparsable (counted from 1), one that does not.
// From the call numbered failFrom on (0: none), every call fails.
type graderServer struct {
	*httptest.Server
	mu         sync.Mutex
	calls      int
	judged     int
	unparsable map[int]bool
	failFrom   int
}

func newGraderServer(t *testing.T) *graderServer {
	s := &graderServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *graderServer) serve(w http.ResponseWriter, r *http.Request) {
	req, ok := clitest.ReadChat(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	s.calls++
	if s.failFrom > 0 && s.calls >= s.failFrom {
		s.mu.Unlock()
		http.Error(w, `{"error":{"message":"upstream trouble"}}`, 500)
		return
	}
	raw := fmt.Sprintf("answer %d", len(req.Prompt))
	if req.Model != "fake-client" {
		s.judged++
		raw = "[Grade]: 1 point\n[JSON]: ```json\n{\"answer_score\": 1}\n```\n"
		if s.unparsable[s.judged] {
			raw = "[Grade]: 1 point, no JSON"
		}
	}
	s.mu.Unlock()
	reply, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": raw}, "finish_reason": "stop"}},
		"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
	w.Header().Set("Content-Type", "application/json")
	w.Write(reply)
}

// reset forgets the calls counted and makes every call succeed, every verdict parse.
func (s *graderServer) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls, s.judged, s.unparsable, s.failFrom = 0, 0, nil, 0
}

// TestDryRunSolvedAgainAfterCachedVerdict: a position the run solves again, its answer and verdict
// both read from --cache, gives the positions after it another history, so the run solves them
// again too, those passed through from an earlier run included; the dry run shows them asked, as
// the run asks them, where it said they passed through, priced none of their calls, and counted
// them already predicted. The case: --retry-errors over a run whose first verdict was unparsable,
// after a --retry-errors run that stopped once it had that verdict again, and parsed.
func TestDryRunSolvedAgainAfterCachedVerdict(t *testing.T) {
	srv := newGraderServer(t)
	srv.unparsable = map[int]bool{1: true}
	pos := func(n int) *record.Record {
		q := fmt.Sprintf("Q%d: what is %d?", n, n)
		return &record.Record{Schema: 1, ID: fmt.Sprintf("evalearn:9:%d", n), Dataset: "evalearn", Type: "Extraction", Question: q,
			Turns: []string{q}, Rubric: "rubric of " + q, Sequence: &record.Sequence{ID: "9", Position: n}}
	}
	args := seqArgs(t, srv.URL, "--cache", filepath.Join(t.TempDir(), "run.sqlite"), "--judge-parse-retries", "0")
	first, stderr, err := seqRun(t, jsonl(t, pos(1), pos(2), pos(3)), args...)
	if command.ExitCode(err) != 3 || len(first) != 3 || first[0].Judgments["evalearn"].Error == "" || first[1].Judgments["evalearn"].Error != "" {
		t.Fatalf("first run: %v, %d records; want exit 3, position 1's verdict unparsable, position 2's not\n%s", err, len(first), stderr)
	}
	in := jsonl(t, first...)
	args = append(args, "--retry-errors")
	srv.reset()
	srv.failFrom = 2 // position 1's answer from the cache, its verdict asked again; then the run stops
	if _, stderr, err := seqRun(t, in, args...); command.ExitCode(err) != 3 {
		t.Fatalf("stopped run: %v, want exit 3\n%s", err, stderr)
	}
	srv.reset()
	dry, stderr, code := dryRunLines(t, in, args...)
	if code != 0 || len(dry) != 3 {
		t.Fatalf("dry run: exit %d, %d lines; want exit 0, 3; stderr %s", code, len(dry), stderr)
	}
	if d := dry[0]; len(d.Requests) != 2 || !d.Requests[0].Cached || !d.Requests[1].Cached || d.Requests[1].Error != "" {
		t.Fatalf("position 1: %+v; want its answer and verdict from the cache", d)
	}
	named := 0 // the calls the dry run prices or names
	for _, d := range dry[1:] {
		switch {
		case d.AlreadyPredicted:
			t.Errorf("%s: already predicted; want it asked again, after position 1's new verdict", d.ID)
		case len(d.Requests) == 1 && !d.Requests[0].Cached && d.Requests[0].Stage == "student":
			named += 2 // its answer, and the judge's call on it
		case d.Then != "" && len(d.Requests) == 0:
			named += 2
		default:
			t.Errorf("%s: %+v; want its student call priced, or named as waiting", d.ID, d)
		}
	}
	recs, rerr, err := seqRun(t, in, args...)
	if err != nil || len(recs) != 3 || srv.calls != named {
		t.Errorf("rerun: %v, %d records, %d calls; want exit 0, 3 records and the %d calls the dry run gives\ndry run: %s\nrerun: %s", err, len(recs), srv.calls, named, stderr, rerr)
	}
}
