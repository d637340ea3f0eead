package model

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
)

// TestResetErrorHasNoLocalPort: a connection the server resets fails the call with an error that
// names the server's address, not the local port the system picked, which differs from run to
// run: two runs of one input write the same error on the record.
func TestResetErrorHasNoLocalPort(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		conn.(*net.TCPConn).SetLinger(0) // close with a reset
		conn.Close()
	}))
	defer srv.Close()
	_, err := retryingOpenAI(t, srv.URL, 0).Generate(context.Background(), testRequest("openai", "m"))
	if err == nil {
		t.Fatal("a reset connection: no error")
	}
	host := srv.Listener.Addr().String()
	if regexp.MustCompile(`127\.0\.0\.1:\d+->`).MatchString(err.Error()) || !regexp.MustCompile(regexp.QuoteMeta(host)).MatchString(err.Error()) {
		t.Errorf("error %q: want the server's address %s alone, no local port", err, host)
	}
}
