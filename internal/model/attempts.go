package model

// This file counts a call's HTTP attempts and keeps what the latest one got (see transport.go).

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

type attemptsKey struct{}

// Attempts counts the HTTP attempts made on behalf of one call, and keeps the transport error of
// the latest one: langchaingo replaces every network error with "network error: failed to reach
// API server", which does not say whether the port was closed, the name unknown or TLS refused.
type Attempts struct {
	n           atomic.Int64
	mu          sync.Mutex
	last        error
	timedOut    time.Duration // the per-attempt timeout that ended the latest attempt, 0 if none did
	body        []byte        // of the latest response
	status      int           // its status code
	contentType string        // and its Content-Type
	billed      []byte        // the latest response's body, when its server billed it though it is no reply to keep
	earlier     [][]byte      // the bodies of the billed responses that are not the latest (Earlier)
}

// N returns the number of attempts counted.
func (a *Attempts) N() int { return int(a.n.Load()) }

// Err returns the transport error of the latest attempt, nil when it got a response.
func (a *Attempts) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// WithAttempts returns a context under which a Transport counts its attempts into the returned
// Attempts.
func WithAttempts(ctx context.Context) (context.Context, *Attempts) {
	a := &Attempts{}
	return context.WithValue(ctx, attemptsKey{}, a), a
}

// countAttempt counts an attempt under ctx: the latest response, when it was billed (noteBilled),
// is now one before it.
func countAttempt(ctx context.Context) {
	if a, ok := ctx.Value(attemptsKey{}).(*Attempts); ok {
		a.n.Add(1)
		a.mu.Lock()
		a.billedBefore()
		a.mu.Unlock()
	}
}

// billedBefore makes the latest response, when it was billed (noteBilled), one of Earlier: it is
// no longer the latest, another attempt having been made, or none made after it (noteError).
// a.mu is held.
func (a *Attempts) billedBefore() {
	if a.billed != nil {
		a.earlier, a.billed = append(a.earlier, a.billed), nil
	}
}

// noteBilled notes under ctx that body, the latest attempt's response, is one that its server
// billed though it is no reply to keep (a failed generation, see GenerationError): once another
// attempt is made, it is one of Earlier.
func noteBilled(ctx context.Context, body []byte) {
	if a, ok := ctx.Value(attemptsKey{}).(*Attempts); ok {
		a.mu.Lock()
		a.billed = body
		a.mu.Unlock()
	}
}

// Earlier returns the bodies of the responses before the latest attempt's that their server
// billed (a failed generation, retried, or whose retry was not made), in order: the call paid for
// them as well as for the latest one's.
func (a *Attempts) Earlier() [][]byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.earlier
}

// noteError keeps err, the outcome of the latest attempt under ctx (nil: a response came).
func noteError(ctx context.Context, err error) {
	if a, ok := ctx.Value(attemptsKey{}).(*Attempts); ok {
		a.mu.Lock()
		a.last, a.timedOut = err, 0
		if err != nil {
			// No response is the latest: a billed one before it (a failed generation whose
			// retry a finishing run did not make, at a limit's wait) was paid for all the same.
			a.body, a.status, a.contentType = nil, 0, ""
			a.billedBefore()
		}
		a.mu.Unlock()
	}
}

// noteResponse keeps the status, Content-Type and body of the latest attempt's response under ctx.
func noteResponse(ctx context.Context, resp *http.Response, body []byte) {
	if a, ok := ctx.Value(attemptsKey{}).(*Attempts); ok {
		a.mu.Lock()
		a.body, a.status, a.contentType = body, resp.StatusCode, resp.Header.Get("Content-Type")
		a.mu.Unlock()
	}
}

// noteTimedOut notes under ctx that the latest attempt, made under actx, ended at t's
// per-attempt timeout: actx's deadline passed, ctx's did not (an interrupt, or the caller's own
// deadline, is no attempt's timeout).
func (t *Transport) noteTimedOut(ctx, actx context.Context) {
	if t.timeout <= 0 || ctx.Err() != nil || !errors.Is(actx.Err(), context.DeadlineExceeded) {
		return
	}
	if a, ok := ctx.Value(attemptsKey{}).(*Attempts); ok {
		a.mu.Lock()
		a.timedOut = t.timeout
		a.mu.Unlock()
	}
}

// TimedOut returns the per-attempt timeout that ended the latest attempt, 0 when none did.
func (a *Attempts) TimedOut() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.timedOut
}

// Status returns the status code and Content-Type of the latest attempt's response, 0 and ""
// when it got none.
func (a *Attempts) Status() (int, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status, a.contentType
}

// Body returns the body of the latest attempt's response, nil when it got none.
func (a *Attempts) Body() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.body
}
