package judge

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// TestWrongModelStopsCalls: an Ollama server that has no such model answers every judge call
// 404; after max(8, 2×concurrency) of them no more reach it, the other records fail with an error
// saying they were not called and why, which the summary counts apart and stderr explains once;
// the run exits 3, and --retry-errors over the output, once the model is there, judges them all.
func TestWrongModelStopsCalls(t *testing.T) {
	const n, par = 20, 2
	var missing atomic.Bool
	var refused, answered atomic.Int64
	missing.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if missing.Load() {
			refused.Add(1)
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"model 'llama9' not found"}`)
			return
		}
		answered.Add(1)
		io.WriteString(w, `{"model":"llama9","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":"{\"label\": \"CORRECT\"}"},"done":true,"prompt_eval_count":20,"eval_count":5}`)
	}))
	t.Cleanup(srv.Close)
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, `{"schema":1,"id":"q%d","question":"Q%d","answers":["A%d"],"prediction":{"text":"A%d"}}`+"\n", i, i, i, i)
	}
	args := []string{"--mode", "mem0", "--provider", "ollama", "--model", "llama9", "--base-url", srv.URL, "--concurrency", fmt.Sprint(par)}
	out, stderr, code := runJudge(t, args, in.String())
	recs := decodeAll(t, out)
	if code != command.ExitBadRecords || len(recs) != n {
		t.Fatalf("exit %d with %d records, want %d with %d; stderr:\n%s", code, len(recs), command.ExitBadRecords, n, stderr)
	}
	limit := max(8, 2*par)
	if got := int(refused.Load()); got < limit || got > limit+par-1 {
		t.Errorf("the server got %d calls, want %d to %d", got, limit, limit+par-1)
	}
	want := "judge call: ollama llama9: not called: server " + srv.URL + " refused every call so far with HTTP 404 (first reply: model 'llama9' not found); no such model or endpoint: check the model name, and that " + srv.URL + " is the API's base URL (Ollama's own API is at the server's root, without /v1; its /v1 is --provider openai's)"
	made, notCalled := 0, 0
	for _, r := range recs {
		jg := r.Judgments["mem0/llama9"]
		switch {
		case jg == nil || jg.Error == "":
			t.Fatalf("record %s: judgment %+v, want a failed one", r.ID, jg)
		case jg.Attempts > 0:
			made++
		case jg.Error == want:
			notCalled++
		default:
			t.Errorf("record %s: error %q, want %q", r.ID, jg.Error, want)
		}
	}
	if made != int(refused.Load()) || made+notCalled != n {
		t.Errorf("%d calls made and %d not, want %d made (as the server counted) and the rest not", made, notCalled, refused.Load())
	}
	for _, w := range []string{
		fmt.Sprintf("qa-judge: warning: calls stopped: %s refused the first %d calls with HTTP 404 (the first reply: model 'llama9' not found); %d calls were not made and their records carry the error \"not called: server … refused every call so far with HTTP 404\" (rerun on the output with --retry-errors once the model name and the base URL are right)\n", srv.URL, limit, notCalled),
		fmt.Sprintf(", %d failed (%d of them not called: refused by the server)\n", n, notCalled),
	} {
		if strings.Count(stderr, w) != 1 {
			t.Errorf("stderr does not say once %q:\n%s", w, stderr)
		}
	}

	missing.Store(false) // the model is pulled now
	out, stderr, code = runJudge(t, append(args, "--retry-errors"), out)
	recs = decodeAll(t, out)
	if code != 0 || len(recs) != n || answered.Load() != n {
		t.Fatalf("rerun: exit %d, %d records, %d calls answered; stderr:\n%s", code, len(recs), answered.Load(), stderr)
	}
	for _, r := range recs {
		if jg := r.Judgments["mem0/llama9"]; jg == nil || jg.Error != "" || jg.Label != "CORRECT" {
			t.Errorf("rerun: record %s: judgment %+v, want CORRECT", r.ID, jg)
		}
	}
}
