package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
)

// StoppedError is the error of a call a Transport did not make because every call of the run so
// far failed alike (see stopRule): the server was never reached (Status 0: the calls failed, after
// their retries, with an error that means nothing listens at the address), or it refused every
// call with the same status, 401, 402, 403 or 404 (a refused key, an account without credit, a
// forbidden project or region, a wrong model name), or a 400 or 429 that refuses the key or the
// account whatever the request (see refusesAll). A never-reached one unwraps to the first such
// failure.
type StoppedError struct {
	Base   string // scheme and host of the server, as the first failed request named them
	Status int    // the status every call got: 401, 402, 403, 404, 400 or 429; 0 when the server was never reached
	First  error  // never reached: the first call's final error
	Reply  string // refused: the server's words in the first reply, "" when it had none

	contentType string // refused: the first reply's Content-Type and body, for Hint
	body        []byte
}

func (e *StoppedError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s %s was never reached (first error: %v)", NotCalledServer, e.Base, e.First)
	}
	msg := fmt.Sprintf("%s %s refused every call so far with HTTP %d", NotCalledServer, e.Base, e.Status)
	if e.Reply != "" {
		msg += " (first reply: " + e.Reply + ")"
	}
	return msg
}

func (e *StoppedError) Unwrap() error { return e.First }

// NotMade reports whether err is that of a call that was not made, which asked the server
// nothing: the run's budget was spent (ErrBudget), the run was finishing
// (interrupt.ErrNotCalled), or the server was never reached or refused every call so far (a
// StoppedError), or the call was asked of the cache alone, which does not hold its reply
// (ErrNotStored).
func NotMade(err error) bool {
	_, stopped := errors.AsType[*StoppedError](err)
	return stopped || errors.Is(err, ErrBudget) || errors.Is(err, interrupt.ErrNotCalled) || errors.Is(err, ErrNotStored)
}

// NotCalledServer begins the message of a StoppedError, so that a record's error string says,
// without the error value, that its call was not made; NeverReached or RefusedEvery follows the
// server's URL, to say why.
const NotCalledServer = "not called: server"

// The words that follow a StoppedError's server, by its kind.
const (
	NeverReached = " was never reached"
	RefusedEvery = " refused every call so far with HTTP "
)

// stopRule decides when a Transport stops calling a server whose every call of the run so far
// failed alike. It counts the calls in a row that end, after all their retries, with the same
// outcome among:
//   - a connection-level error that means nothing is listening (connection refused, no such host,
//     network or host unreachable), until any attempt gets an HTTP response;
//   - the same status among 401, 402, 403 and 404, or a 400 that refuses the key or the account
//     (badKey, barredAccount), or a 429 for a quota that no wait restores (quotaSpent), until any
//     attempt gets a 2xx response.
//
// At limit of them, every later call fails at once with a StoppedError. Any other outcome (a
// success, another status or error, a timeout, a TLS error, the other kind) breaks the run of
// failures, and the first response (for a status, the first success) turns its rule off for good:
// a server that goes down mid-run, or a key revoked mid-run, is called as before.
//
// Note: the limit is max(8, 2×concurrency), so that the calls already in flight when the first
// failures come back cannot trip it alone, and a wrong port, key or model name costs seconds, not
// an hour of calls.
type stopRule struct {
	limit int

	mu        sync.Mutex
	reached   bool // an attempt got a response
	succeeded bool // an attempt got a 2xx response
	streak    int
	first     *StoppedError // the first failure of the streak, whose Status is its kind
	stopped   *StoppedError // set once the limit is hit
	skipped   int           // calls not made since
}

// stopLimit is the number of failed calls in a row after which a Transport stops calling.
func stopLimit(concurrency int) int { return max(8, 2*concurrency) }

// answered notes that an attempt got an HTTP response with status: the server is there, and with
// a 2xx status it takes the calls.
func (r *stopRule) answered(status int) {
	r.mu.Lock()
	r.reached = true
	r.succeeded = r.succeeded || status/100 == 2
	r.mu.Unlock()
}

// stop returns the error of a call not to make, or nil.
func (r *stopRule) stop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped == nil {
		return nil
	}
	return r.stopped
}

// refuse returns the error of a call not to make, counting it, or nil.
func (r *stopRule) refuse() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped == nil {
		return nil
	}
	r.skipped++
	return r.stopped
}

// ended notes how a call of req ended: resp, its final response, or err.
func (r *stopRule) ended(req *http.Request, resp *http.Response, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped != nil {
		return
	}
	kind := -1
	switch {
	case err != nil && !r.reached && isUnreached(err):
		kind = 0
	case err == nil && resp != nil && !r.succeeded && refusesAll(resp):
		kind = resp.StatusCode
	}
	if kind < 0 {
		r.streak, r.first = 0, nil
		return
	}
	if r.first == nil || r.first.Status != kind {
		r.streak, r.first = 0, &StoppedError{Base: (&url.URL{Scheme: req.URL.Scheme, Host: req.URL.Host}).String(), Status: kind}
		if kind == 0 {
			r.first.First = err
		} else {
			r.first.contentType = resp.Header.Get("Content-Type")
			r.first.body = peekBody(resp)
			r.first.Reply = replyWords(r.first.body, req)
		}
	}
	if r.streak++; r.streak >= r.limit {
		r.stopped = r.first
	}
}

// refusesAll reports whether resp, the final reply of a call, is one that every later call of a
// run most likely gets too: a refused key (401, or the Gemini API's 400 that refuses a key,
// badKey), an account that may not call (402; a 400 or a 429 that says so, barredAccount), a
// forbidden project or region, a wrong model name. Any other 400 says what was wrong with that
// request alone, and any other 429 asks for a wait.
func refusesAll(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusPaymentRequired, http.StatusForbidden, http.StatusNotFound:
		return true
	case http.StatusBadRequest:
		body := peekBody(resp)
		return badKey(body) || barredAccount(body) != ""
	case http.StatusTooManyRequests:
		return quotaSpent(peekBody(resp))
	}
	return false
}

// badKey reports whether body, a 400 reply's, is the Gemini API's refusal of the key the call
// carried ("API key not valid", an ErrorInfo of reason API_KEY_INVALID, with the status
// INVALID_ARGUMENT), alone or, as its OpenAI-compatible endpoint sends it, in a list: a refused
// key, which the API answers with a 400 where others answer 401.
func badKey(body []byte) bool {
	if !bytes.Contains(body, []byte("API_KEY_INVALID")) {
		return false // the common case, without decoding
	}
	for _, d := range googleDetails(body) {
		if d.Reason == "API_KEY_INVALID" {
			return true
		}
	}
	return false
}

// barredAccount returns what body, a 400 reply's, says keeps the account from calling the API
// whatever the request, "credit" or "region", or "" when it says no such thing: Anthropic's account out of credit (an invalid_request_error whose message
// begins "Your credit balance is too low", or a billing_error), or the Gemini API's
// FAILED_PRECONDITION (a region it does not serve, "User location is not supported for the API
// use."; a free tier it does not give there, "… Please enable billing …"), alone or, as its
// OpenAI-compatible endpoint sends it, in a list. The Gemini API words what is wrong with a
// request (too long, an image) as INVALID_ARGUMENT, and Anthropic in other invalid_request_errors.
func barredAccount(body []byte) string {
	if !bytes.Contains(body, []byte("credit balance")) && !bytes.Contains(body, []byte("billing_error")) &&
		!bytes.Contains(body, []byte("FAILED_PRECONDITION")) {
		return "" // the common case, without decoding
	}
	obj, _ := errorObject(body)
	var r struct {
		Error *struct {
			Type    string `json:"type"`    // Anthropic's
			Status  string `json:"status"`  // Google's
			Message string `json:"message"` // both
		} `json:"error"`
	}
	if json.Unmarshal(obj, &r) != nil || r.Error == nil {
		return ""
	}
	switch e := r.Error; {
	case e.Type == "billing_error", e.Type == "invalid_request_error" && strings.HasPrefix(e.Message, "Your credit balance is too low"):
		return "credit"
	case e.Status == "FAILED_PRECONDITION":
		return "region"
	}
	return ""
}

// isUnreached reports whether err means nothing is listening at the address: a refused
// connection, an unknown host, or an unreachable network or host. Not a timeout.
func isUnreached(err error) bool {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return dns.IsNotFound
	case errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ENETUNREACH),
		errors.Is(err, syscall.EHOSTUNREACH):
		return true
	}
	return false
}

// peekBody returns resp's body, which the Transport holds in memory, and leaves it to be read again.
func peekBody(resp *http.Response) []byte {
	if resp.Body == nil {
		return nil
	}
	data, _ := io.ReadAll(resp.Body) // a bytes.Reader's: no error
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return data
}

// maxReply bounds the server's words a StoppedError quotes.
const maxReply = 200

// replyWords returns the server's words in body, an error reply to req: the message of its JSON
// error (OpenAI's, Anthropic's and Gemini's error.message, Ollama's and TEI's error, vLLM's
// message), else its text on one line; without the API key req carried, and at most maxReply
// bytes.
func replyWords(body []byte, req *http.Request) string {
	msg := jsonErrorMessage(body)
	if msg == "" {
		msg = string(body)
	}
	msg = strings.Join(strings.Fields(strings.ToValidUTF8(msg, "\uFFFD")), " ")
	return english.Clip(string(redactSent([]byte(msg), req)), maxReply)
}

// redactSent returns data without the API keys req carried (see sentKeys).
func redactSent(data []byte, req *http.Request) []byte {
	for _, key := range sentKeys(req) {
		if len(key) >= 4 {
			data = bytes.ReplaceAll(data, []byte(key), []byte("[redacted]"))
		}
	}
	return data
}

// sentKeys returns the credentials req carries, as the providers send them: a bearer token,
// Anthropic's x-api-key, Gemini's x-goog-api-key or key parameter.
func sentKeys(req *http.Request) []string {
	keys := []string{req.Header.Get("x-api-key"), req.Header.Get("x-goog-api-key"), req.URL.Query().Get("key")}
	if a, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer "); ok {
		keys = append(keys, a)
	}
	return keys
}

// StopWarning returns the warning of a run whose calls t stopped making (see stopRule), or ""
// when it made them all; rerun says how to make them (the command's flag).
func (t *Transport) StopWarning(rerun string) string {
	if t == nil {
		return ""
	}
	r := &t.stops
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.stopped
	if e == nil {
		return ""
	}
	// The calls not made after the stop, if any: the last refused call may have been the run's
	// last, leaving none.
	notMade := func(code string) string {
		if r.skipped == 0 {
			return "no call was left to make"
		}
		return fmt.Sprintf("%s not made and %s the error %q", english.Count(r.skipped, "call was", "calls were"),
			english.Form(r.skipped, "its record carries", "their records carry"), code)
	}
	if e.Status == 0 {
		return fmt.Sprintf("warning: calls stopped: %s was never reached (the first %d calls failed, the first with: %v); %s (%s once the server is up, or check the base URL)",
			e.Base, r.limit, e.First, notMade(NotCalledServer+" …"+NeverReached), rerun)
	}
	reply := ""
	if e.Reply != "" {
		reply = " (the first reply: " + e.Reply + ")"
	}
	return fmt.Sprintf("warning: calls stopped: %s refused the first %d calls with HTTP %d%s; %s (%s once %s)",
		e.Base, r.limit, e.Status, reply, notMade(fmt.Sprintf("%s …%s%d", NotCalledServer, RefusedEvery, e.Status)), rerun, refusedFix(e.Status, e.body))
}

// refusedFix says what must be right before calls that every got status, the first with body,
// are made again.
func refusedFix(status int, body []byte) string {
	switch {
	case status == http.StatusUnauthorized, status == http.StatusBadRequest && badKey(body):
		return "the API key is right"
	case status == http.StatusPaymentRequired, status == http.StatusTooManyRequests,
		status == http.StatusBadRequest && barredAccount(body) == "credit":
		return "the account has credit or quota left, as its plan and billing say"
	case status == http.StatusBadRequest && barredAccount(body) == "region":
		return "the API takes calls from where they come: a region it serves, or billing on where its free tier is not given"
	case status == http.StatusForbidden:
		return "the key may use the project, region and model"
	}
	return "the model name and the base URL are right"
}
