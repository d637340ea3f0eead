//go:build unix

package clitest

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// TestClosedURL: a call to a ClosedURL is refused, and its port cannot be listened on while the
// test runs, so no other server is given it.
func TestClosedURL(t *testing.T) {
	url := ClosedURL(t)
	if l, err := net.Listen("tcp", strings.TrimPrefix(url, "http://")); err == nil {
		l.Close()
		t.Errorf("listening at the port of ClosedURL %s succeeded, want it held", url)
	}
	if _, err := http.Get(url); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("GET %s = %v, want the connection refused", url, err)
	}
}
