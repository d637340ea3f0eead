package clitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
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
	url, _ := CountedReplyServer(t, r)
	return url
}

// CountedReplyServer is ReplyServer that also counts the requests it has answered, or begun to.
func CountedReplyServer(t *testing.T, r Reply) (url string, calls *atomic.Int64) {
	t.Helper()
	calls = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", r.ContentType)
		w.WriteHeader(r.Status)
		io.WriteString(w, r.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, calls
}

// ClosedURL returns the URL of a loopback port where nothing listens, as at a wrong one, so a
// call there is refused. The port is held, bound but not listening, until the test ends: the
// port of a server closed at once could be given to another test's server, of this package or
// of another that go test runs at the same time, which would then answer.
func ClosedURL(t *testing.T) string {
	t.Helper()
	if port, ok := boundPort(t); ok {
		return "http://127.0.0.1:" + strconv.Itoa(port)
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}

// WebPage is a chat UI's front page, the reply of a base URL that names a web page where the API
// should be.
func WebPage() Reply {
	return Reply{Status: 200, ContentType: "text/html; charset=utf-8", Body: "<!doctype html>\n<html><head><title>Open WebUI</title></head></html>\n"}
}

// ReplyURL returns the URL of a ReplyServer answering r or, for the zero Reply, closed (a
// ClosedURL), where a call is refused: a table of failed calls names each call's server so.
func ReplyURL(t *testing.T, r Reply, closed string) string {
	t.Helper()
	if r.Status == 0 {
		return closed
	}
	return ReplyServer(t, r)
}

// FailedCallWant returns want, a failed call's message as a table of them writes it, with $URL
// replaced by base, the URL called, and $HOST by the host and port of closed (a ClosedURL).
func FailedCallWant(want, base, closed string) string {
	return strings.NewReplacer("$URL", base, "$HOST", strings.TrimPrefix(closed, "http://")).Replace(want)
}

// Chat is what a loopback server's handler reads of an OpenAI chat request: its model and its
// last message's content.
type Chat struct {
	Model  string
	Prompt string
}

// ReadChat reads req's body as an OpenAI chat request; one that is not (or has no message) is
// answered 400, as a server would answer it, and ok is false.
func ReadChat(w http.ResponseWriter, req *http.Request) (c Chat, ok bool) {
	var body struct {
		Model    string                     `json:"model"`
		Messages []struct{ Content string } `json:"messages"`
	}
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return Chat{}, false
	}
	return Chat{Model: body.Model, Prompt: body.Messages[len(body.Messages)-1].Content}, true
}
