package clitest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Reply is a canned answer of a loopback server: a status, a Content-Type and a body.
type Reply struct {
	Status      int
	ContentType string
	Body        string
}

// ReplyServer starts a loopback server that answers every request with r, after reading its
// body, until the test ends, and returns its URL.
func ReplyServer(t *testing.T, r Reply) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", r.ContentType)
		w.WriteHeader(r.Status)
		io.WriteString(w, r.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// ClosedURL returns the URL of a loopback server that has been closed: nothing listens at its
// port, as at a wrong one, so a call there is refused.
func ClosedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}
