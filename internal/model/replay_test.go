package model

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// replayServer is a loopback server that answers its n-th request with replies[n-1] as JSON (the
// last reply again once they run out), under status[n-1] when status has one (200 otherwise), and
// counts the requests that reached it. It is closed when the test ends.
func replayServer(t *testing.T, replies []string, status []int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	calls := new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if n <= len(status) {
			w.WriteHeader(status[n-1])
		}
		io.WriteString(w, replies[min(n, len(replies))-1])
	}))
	t.Cleanup(srv.Close)
	return srv, calls
}
