package predict

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestStalledCallKeepsOthersInFlight: a call the server holds (a slow generation, a server that
// hangs until --timeout) holds the output back but not the calls after it: at --concurrency 2
// the server answers record 1's call only once it has answered 6 later records' calls, more than
// the one other call in flight, so the run passes only if new calls keep starting while record
// 1's is held. Never more than 2 calls reach the server at once, and the records come out
// answered and in input order. (--timeout is only there so that a failure does not hang.)
func TestStalledCallKeepsOthersInFlight(t *testing.T) {
	const (
		n     = 12
		conc  = 2
		later = 6 // later calls answered while record 1's is held
	)
	var (
		mu                 sync.Mutex
		answered, inflight int
		peak               int
		heldSaw            atomic.Int64 // later calls answered when record 1's was let go
		enough             = make(chan struct{})
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := clitest.ReadChat(w, r)
		if !ok {
			return
		}
		mu.Lock()
		inflight++
		peak = max(peak, inflight)
		mu.Unlock()
		defer func() {
			mu.Lock()
			inflight--
			mu.Unlock()
		}()
		id := idRe.FindStringSubmatch(req.Prompt)[1]
		if strings.Contains(req.Prompt, "STALL") {
			select {
			case <-enough:
			case <-r.Context().Done(): // the client gave up: --timeout passed
				mu.Lock()
				heldSaw.Store(int64(answered))
				mu.Unlock()
				return
			}
			mu.Lock()
			heldSaw.Store(int64(answered))
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, fmt.Sprintf(`{"id":"c%s","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"A%s"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":2,"total_tokens":102}}`,
			id, req.Model, id))
		if !strings.Contains(req.Prompt, "STALL") {
			mu.Lock()
			answered++
			if answered == later {
				close(enough)
			}
			mu.Unlock()
		}
	}))
	defer srv.Close()
	recs, stderr, err := run(t, context.Background(), input(n, map[int]string{1: "STALL"}),
		"--provider", "openai", "--model", "m", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--concurrency", fmt.Sprint(conc), "--timeout", "30s", "--max-retries", "0")
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, stderr)
	}
	if got := heldSaw.Load(); got < later {
		t.Errorf("%d later calls answered while record 1's was held, want %d (more than the %d other call in flight)", got, later, conc-1)
	}
	if peak > conc {
		t.Errorf("%d calls reached the server at once, want at most --concurrency %d", peak, conc)
	}
	if len(recs) != n {
		t.Fatalf("%d records written, want %d", len(recs), n)
	}
	for i, r := range recs {
		if p := r.Prediction; r.ID != fmt.Sprintf("r%d", i) || p == nil || p.Text != fmt.Sprintf("A%d", i) || p.Error != "" {
			t.Errorf("record %d: %s %+v, want r%d answered A%d", i, r.ID, p, i, i)
		}
	}
}
