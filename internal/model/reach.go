package model

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"syscall"

	"github.com/qapipe/qapipe/internal/english"
)

// UnreachedError is the error of a call a Transport did not make because the server was never
// reached: the run's first calls all failed, after their retries, with an error that means nothing
// listens at the address (see reach). It unwraps to the first such failure.
type UnreachedError struct {
	Base  string // scheme and host of the server, as the first failed request named them
	First error  // the first call's final error
}

func (e *UnreachedError) Error() string {
	return fmt.Sprintf("%s %s was never reached (first error: %v)", NotCalledUnreached, e.Base, e.First)
}

func (e *UnreachedError) Unwrap() error { return e.First }

// NotCalledUnreached begins the message of an UnreachedError, so that a record's error string
// says, without the error value, that its call was not made.
const NotCalledUnreached = "not called: server"

// reach decides when a Transport stops calling a server it has never reached. Until any attempt
// gets an HTTP response, it counts the calls in a row that end, after all their retries, with a
// connection-level error that means nothing is listening (connection refused, no such host,
// network or host unreachable); at limit of them, every later call fails at once with an
// UnreachedError. Timeouts, TLS errors and HTTP statuses break the run of failures, and the
// first response turns the rule off for good: a server that goes down mid-run is retried as
// before.
//
// Note: the limit is max(8, 2×concurrency), so that the calls already in flight when the first
// failures come back cannot trip it alone, and a wrong port costs seconds, not an hour.
type reach struct {
	limit int

	mu      sync.Mutex
	reached bool
	streak  int
	first   *UnreachedError // the first failure of the streak
	stopped *UnreachedError // set once the limit is hit
	skipped int             // calls not made since
}

// reachLimit is the number of failed calls in a row after which a Transport stops calling.
func reachLimit(concurrency int) int { return max(8, 2*concurrency) }

// answered notes that an attempt got an HTTP response: the server is there.
func (r *reach) answered() {
	r.mu.Lock()
	r.reached = true
	r.streak, r.first = 0, nil
	r.mu.Unlock()
}

// stop returns the error of a call not to make, or nil.
func (r *reach) stop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped == nil {
		return nil
	}
	return r.stopped
}

// refuse returns the error of a call not to make, counting it, or nil.
func (r *reach) refuse() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped == nil {
		return nil
	}
	r.skipped++
	return r.stopped
}

// failed notes the final error of a call to u (nil: it ended otherwise than unreached).
func (r *reach) failed(u *url.URL, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reached || r.stopped != nil {
		return
	}
	if err == nil || !isUnreached(err) {
		r.streak, r.first = 0, nil
		return
	}
	if r.first == nil {
		r.first = &UnreachedError{Base: (&url.URL{Scheme: u.Scheme, Host: u.Host}).String(), First: err}
	}
	if r.streak++; r.streak >= r.limit {
		r.stopped = r.first
	}
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

// StopWarning returns the warning of a run whose calls t stopped making because the server was
// never reached, or "" when it made them all; rerun says how to make them (the command's flag).
func (t *Transport) StopWarning(rerun string) string {
	if t == nil {
		return ""
	}
	r := &t.reach
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped == nil {
		return ""
	}
	return fmt.Sprintf("warning: calls stopped: %s was never reached (the first %d calls failed, the first with: %v); %s not made and %s the error %q (%s once the server is up, or check the base URL)",
		r.stopped.Base, r.limit, r.stopped.First, english.Count(r.skipped, "call was", "calls were"), english.Form(r.skipped, "its record carries", "their records carry"),
		NotCalledUnreached+" … was never reached", rerun)
}
