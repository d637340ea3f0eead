package model

// This file tells a transient failure, to retry, from a final one (see transport.go).

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// bodyError is the error of a response whose body could not be read to its end: the connection
// closed, or the attempt timed out, partway through. The server was reached and replied.
type bodyError struct {
	status int
	err    error
}

func (e *bodyError) Error() string {
	return fmt.Sprintf("the server replied (status %d) but its body broke off: %v", e.status, e.err)
}

func (e *bodyError) Unwrap() error { return e.err }

// maxReplyBody is the most of a reply's body that is read, held in memory whole (see
// Transport.attempt). No model's reply comes near it: a million tokens streamed by Ollama's native
// API, a line of some 200 bytes each, are less. A body longer than that is a server or proxy that
// sends without end, which would otherwise grow the run's memory until --timeout (gigabytes a
// second on loopback), or without limit under --timeout 0. A variable for the tests.
var maxReplyBody int64 = 256 << 20

// tooLargeError is the error of a reply whose body is longer than maxReplyBody. It is final: the
// same server sends the same again.
type tooLargeError struct {
	status int
	limit  int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("the server's reply (status %d) is larger than %d MiB, more than any model's reply: a server or proxy that sends without end", e.status, e.limit>>20)
}

// replyLimit is the most of a reply's body that is read under ctx: maxReplyBody for a chat call
// (withChatShape), 0, none, for any other: an embedding call's reply grows with the texts and
// the model sent, and may pass it (text-embeddings-inference's /embed_all, a vector per token: 32
// texts of 300 tokens at 4,096 dimensions are some 400 MB).
func replyLimit(ctx context.Context) int64 {
	if s, ok := ctx.Value(shapeKey{}).(*shape); ok && s.chat {
		return maxReplyBody
	}
	return 0
}

// readReplyBody reads body to its end, at most limit bytes (0: no limit): a longer one is a
// tooLargeError.
func readReplyBody(body io.Reader, status int, limit int64) ([]byte, error) {
	if limit <= 0 {
		return io.ReadAll(body)
	}
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err == nil && int64(len(data)) > limit {
		return nil, &tooLargeError{status: status, limit: limit}
	}
	return data, err
}

// redirectError is the error of a call the server redirected with a status that a client follows
// as a GET without the request's body (301, 302, 303): an http:// base URL that a proxy sends on to
// https://, say. Followed, it would reach the API as a GET, which no endpoint of a model call
// answers (a 404 that blames the model name), so it is not followed. 307 and 308, which keep the
// method and body, are followed.
type redirectError struct {
	status   int
	location string
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("the server redirected the call (HTTP %d) to %s, which would ask it again as a GET without its request: give the base URL of that address", e.status, cmp.Or(e.location, "no address"))
}

// redirected returns the redirectError of resp, req's response, or nil when it is none: a POST
// answered 301, 302 or 303. Its body is closed.
func redirected(req *http.Request, resp *http.Response) error {
	s := resp.StatusCode
	if req.Method != http.MethodPost || s != http.StatusMovedPermanently && s != http.StatusFound && s != http.StatusSeeOther {
		return nil
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // so the connection can be used again
	resp.Body.Close()
	location := ""
	if u, err := resp.Location(); err == nil { // resolved against the request's URL, its password too
		location = shownURL(u.String())
	}
	return &redirectError{status: resp.StatusCode, location: location}
}

// errMalformedBody is the error of a 200 reply whose JSON body does not parse; one that parses
// but is of another shape than the reply's is a ShapeError.
var errMalformedBody = errors.New("malformed JSON in response body")

// errEmptyBody is the error of a 200 reply whose body is empty (or white space alone) where the
// reply is one JSON value (see emptyBody): a proxy's, or a server's that failed as it answered.
var errEmptyBody = errors.New("the server replied (status 200) with an empty body")

// InBandError is an error a server gave in the body of a 200 reply, {"error": {"code": …,
// "message": …}}, as OpenRouter does for a model that fails after it started, and the Gemini API
// at the end of a stream that fails once begun, or {"error": "…"}, Ollama's shape of an error.
type InBandError struct {
	Code    int // the error's code, an HTTP status; 0 when it gives none that is a number
	Message string
	// Type is the type of Anthropic's error object, which names no code: Code is then the
	// status its API gives that type (anthropicErrorStatus), none the reply holds.
	Type string
}

func (e *InBandError) Error() string {
	if e.Type != "" && e.Code != 0 {
		return fmt.Sprintf("reply with status 200 holds an error of type %s (status %d at its API): %s", e.Type, e.Code, e.Message)
	}
	if e.Code != 0 {
		return fmt.Sprintf("reply with status 200 holds error %d: %s", e.Code, e.Message)
	}
	return "reply with status 200 holds an error: " + e.Message
}

// inBandError returns the error a 200 reply's body holds, or nil: the body is an object whose
// "error" member is an object with a message, or a string, and that holds no answer (no choice);
// or it is a JSON array that holds such an object, as the Gemini API ends a stream
// (streamGenerateContent) that fails once it has begun, after the responses it sent, which genai
// drops unread: the text streamed before it would be taken for the whole answer.
func inBandError(data []byte) *InBandError {
	if !bytes.Contains(data, []byte(`"error"`)) {
		return nil // the common case, without decoding
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		var rs []json.RawMessage
		if json.Unmarshal(t, &rs) != nil {
			return nil
		}
		for _, r := range rs {
			if e := inBandObject(r); e != nil {
				return e
			}
		}
		return nil
	}
	return inBandObject(data)
}

// inBandObject returns the error data, one JSON object, holds in its "error" member, or nil: an
// object with a message, or a string (Ollama's error, which it may send with status 200; a
// server's that words its errors as Ollama does), which names no code; an object that holds an
// answer (a choice in "choices") holds none. A string read as no error would make an OpenAI-compatible reply
// the empty reply "no choices", and an Ollama one a reply paid for without a usage.
func inBandObject(data []byte) *InBandError {
	var r struct {
		Type    string          `json:"type"` // "error" in Anthropic's error object
		Choices json.RawMessage `json:"choices"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &r) != nil || answers(r.Choices) {
		return nil
	}
	if s, ok := jsonString(r.Error); ok {
		if s = strings.TrimSpace(s); s == "" {
			return nil
		}
		return &InBandError{Message: s}
	}
	var o struct {
		Code    json.RawMessage `json:"code"`
		Type    string          `json:"type"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(r.Error, &o) != nil || o.Message == "" {
		return nil
	}
	e := &InBandError{Message: o.Message}
	json.Unmarshal(o.Code, &e.Code) //nolint:errcheck // a code that is no number is none
	if e.Code == 0 && r.Type == "error" {
		if code, ok := anthropicErrorStatus[o.Type]; ok {
			e.Code, e.Type = code, o.Type
		}
	}
	return e
}

// answers reports whether choices, a reply's "choices" member, holds a choice: one left out,
// null or an empty list holds no answer, and the error beside it is the reply's.
func answers(choices json.RawMessage) bool {
	var cs []json.RawMessage
	return len(choices) > 0 && (json.Unmarshal(choices, &cs) != nil || len(cs) > 0)
}

// anthropicErrorStatus is the status of each type of Anthropic's error object ({"type": "error",
// "error": {"type": …, "message": …}}), which names no code: its API answers each with that
// status, and a gateway that relays one in a 200 reply (or a stream's error event) is retried, or
// not, as the status would be: an overloaded_error as a 529.
var anthropicErrorStatus = map[string]int{
	"invalid_request_error": 400,
	"authentication_error":  401,
	"billing_error":         402,
	"permission_error":      403,
	"not_found_error":       404,
	"conflict_error":        409,
	"request_too_large":     413,
	"rate_limit_error":      429,
	"api_error":             500,
	"timeout_error":         504,
	"overloaded_error":      529,
}

// isTransientStatus reports whether a reply with status code is retried: 408, 409, 425 and every
// 5xx but 501 and 505, as the OpenAI and Anthropic SDKs retry 408, 409 and every status from 500
// (Cloudflare's 520 to 524 in front of an OpenAI-compatible server, 529 when Anthropic is
// overloaded). 429 is the caller's to tell apart (see quotaSpent).
//
// Note: the SDKs also retry 501 (Not Implemented) and 505 (HTTP Version Not Supported); they are
// left out, as they say that the server will never serve the request, and retrying each record
// 5 times only delays its error.
func isTransientStatus(code int) bool {
	switch {
	case code == 408, code == 409, code == 425:
		return true
	case code == http.StatusNotImplemented, code == http.StatusHTTPVersionNotSupported:
		return false
	}
	return code >= 500 && code < 600
}

func isTransientError(err error) bool {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE),
		errors.As(err, &ne) && ne.Timeout():
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) || closedIdle(err)
}

// serverClosedIdle is the text of net/http's errServerClosedIdle, which it does not export: the
// error of a request sent on a kept-alive connection the server closed as the client took it
// (a load balancer's idle timeout), before any reply. net/http retries such a request itself only
// when it takes it for idempotent, never a POST, so the transport retries it, counted, as it
// retries a reset connection.
const serverClosedIdle = "http: server closed idle connection"

// closedIdle reports whether err, or an error it wraps, is net/http's errServerClosedIdle.
func closedIdle(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == serverClosedIdle {
			return true
		}
	}
	return false
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// retryAfter parses a Retry-After header (seconds or an HTTP date) into a wait, capped at limit.
func retryAfter(h string, now time.Time, limit time.Duration) time.Duration {
	if h == "" {
		return 0
	}
	var d time.Duration
	if s, err := strconv.ParseFloat(h, 64); err == nil {
		switch {
		case !(s > 0): // also NaN
			return 0
		case s >= limit.Seconds():
			return limit
		}
		d = time.Duration(s * float64(time.Second))
	} else if at, err := http.ParseTime(h); err == nil {
		d = at.Sub(now)
	}
	if d <= 0 {
		return 0
	}
	return min(d, limit)
}
