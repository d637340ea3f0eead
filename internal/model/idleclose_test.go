package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
	"time"
)

// closingConn is a client connection whose server can be made to close it while it is idle:
// hangUp makes the read the client's connection keeps waiting on end with io.EOF, as the
// server's FIN would, and waits until the client has closed it.
type closingConn struct {
	net.Conn
	mu     sync.Mutex
	hung   bool
	closed chan struct{}
	once   sync.Once
}

func (c *closingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hung {
		return 0, io.EOF
	}
	return n, err
}

func (c *closingConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

func (c *closingConn) hangUp() {
	c.mu.Lock()
	c.hung = true
	c.mu.Unlock()
	c.Conn.SetReadDeadline(time.Now()) // wakes the waiting read
	<-c.closed
}

// TestTransportRetriesServerClosedIdle: a server that closes a kept-alive connection just as the
// client takes it from its pool for a POST (a load balancer's idle timeout) fails that request
// with net/http's "server closed idle connection", which net/http itself retries only for
// requests it takes for idempotent. Nothing was answered, so the transport retries it as it
// retries a reset connection: the call succeeds on a new connection, its attempts counted.
func TestTransportRetriesServerClosedIdle(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	var mu sync.Mutex
	var conns []*closingConn
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cc := &closingConn{Conn: c, closed: make(chan struct{})}
		mu.Lock()
		conns = append(conns, cc)
		mu.Unlock()
		return cc, nil
	}
	tr := NewTransport(TransportConfig{Base: base, MaxRetries: 2, Backoff: -1})
	post := func(ctx context.Context) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{"q":1}`))
		if err != nil {
			t.Fatal(err)
		}
		return tr.RoundTrip(req)
	}
	resp, err := post(context.Background())
	if err != nil {
		t.Fatalf("first call: %v", err)
	}
	resp.Body.Close()
	hungUp := false
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if info.Reused && !hungUp {
			hungUp = true
			info.Conn.(*closingConn).hangUp()
		}
	}})
	resp, err = post(ctx)
	if !hungUp {
		t.Fatal("the second call did not reuse the first one's connection")
	}
	if err != nil {
		t.Fatalf("call on a connection the server closed: %v, want it retried on a new one", err)
	}
	resp.Body.Close()
	if got := tr.Requests(); got != 3 {
		t.Errorf("attempts = %d, want 3 (one call, then one failed on the closed connection and its retry)", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(conns) != 2 {
		t.Errorf("connections dialled = %d, want 2", len(conns))
	}
}

func TestClosedIdle(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{errors.New(serverClosedIdle), true},
		{fmt.Errorf("post: %w", errors.New(serverClosedIdle)), true},
		{errors.New("http: server closed idle connection (said twice)"), false},
		{errors.New("some other failure"), false},
		{nil, false},
	} {
		if got := closedIdle(tt.err); got != tt.want {
			t.Errorf("closedIdle(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
