package predict

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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

// TestRefusedKeyStopsCalls: a server that refuses every call with 401 gets only max(8,
// 2×concurrency) of them (and those in flight); the other records are written with an error
// saying they were not called and why, counted apart in the summary, stderr says so once, the run
// exits 3, and --retry-errors over the output, once the key is right, makes every call.
func TestRefusedKeyStopsCalls(t *testing.T) {
	const n, par = 40, 3
	s := &server{attempts: make(map[string]int)}
	var refusing atomic.Bool
	var refused atomic.Int64
	refusing.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refusing.Load() {
			refused.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: sk-te****5f3a.","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		s.serve(w, r)
	}))
	t.Cleanup(srv.Close)
	args := []string{"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--api-key-file", keyFile(t), "--concurrency", fmt.Sprint(par)}
	recs, stderr, err := run(t, context.Background(), input(n, nil), args...)
	if code := command.ExitCode(err); code != command.ExitBadRecords || len(recs) != n {
		t.Fatalf("exit %d with %d records, want %d with %d; stderr:\n%s", code, len(recs), command.ExitBadRecords, n, stderr)
	}
	limit := max(8, 2*par)
	if got := int(refused.Load()); got < limit || got > limit+par-1 {
		t.Errorf("the server got %d calls, want %d to %d", got, limit, limit+par-1)
	}
	want := "openai gpt-4o-mini: not called: server " + srv.URL + " refused every call so far with HTTP 401 (first reply: Incorrect API key provided: sk-te****5f3a.); the API key was refused: check OPENAI_API_KEY, or the file --api-key-file names"
	made, notCalled := 0, 0
	for _, r := range recs {
		p := r.Prediction
		switch {
		case p == nil || p.Error == "":
			t.Fatalf("record %s has no error: %+v", r.ID, p)
		case p.Attempts > 0:
			made++
			if !strings.Contains(p.Error, "401") || command.Stopped(p.Error) != "" {
				t.Errorf("record %s: error %q, want the refused call's", r.ID, p.Error)
			}
		case p.Error == want:
			notCalled++
		default:
			t.Errorf("record %s: error %q, want %q", r.ID, p.Error, want)
		}
	}
	if made != int(refused.Load()) || made+notCalled != n {
		t.Errorf("%d calls made and %d not, want %d made (as the server counted) and the rest not", made, notCalled, refused.Load())
	}
	if got := strings.Count(stderr, "calls stopped:"); got != 1 {
		t.Errorf("stderr says %d times that calls stopped, want once:\n%s", got, stderr)
	}
	for _, w := range []string{
		fmt.Sprintf("qa-predict: warning: calls stopped: %s refused the first %d calls with HTTP 401 (the first reply: Incorrect API key provided: sk-te****5f3a.); %d calls were not made and their records carry the error \"not called: server … refused every call so far with HTTP 401\" (rerun on the output with --retry-errors once the API key is right)\n", srv.URL, limit, notCalled),
		fmt.Sprintf(", %d errors (%d of them not called: refused by the server);", n, notCalled),
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}

	refusing.Store(false) // the key is right now
	var saved strings.Builder
	for _, r := range recs {
		b, _ := r.MarshalJSON()
		saved.Write(append(b, '\n'))
	}
	recs, stderr, err = run(t, context.Background(), saved.String(), append(args, "--retry-errors")...)
	if err != nil || len(recs) != n || s.calls.Load() != n {
		t.Fatalf("rerun: %v, %d records, %d calls; stderr:\n%s", err, len(recs), s.calls.Load(), stderr)
	}
	for _, r := range recs {
		if r.Prediction.Error != "" || r.Prediction.Text != "A"+r.ID[1:] {
			t.Errorf("rerun: %s: prediction %+v, want answered", r.ID, r.Prediction)
		}
	}
}
