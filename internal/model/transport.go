package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qapipe/qapipe/internal/interrupt"
)

// Transport is an http.RoundTripper that retries transient failures and rate-limits requests. It is
// handed to the langchaingo clients through their WithHTTPClient options, so every provider gets the
// same behaviour:
//
//   - transient failures (408, 409, 425, 429, every 5xx but 501 and 505, timeouts, connection resets,
//     truncated bodies, malformed JSON in a 200 reply or JSON of another shape than the reply's,
//     see withChatShape and WithEmbedShape, a chat completion whose generation failed, see
//     GenerationError) are retried with exponential backoff and
//     seeded jitter, up to MaxRetries times; the wait a transient status's reply asks for (its
//     Retry-After, or the Gemini API's retryDelay in the body) is taken instead, and for a 429
//     that asks for none, the time until its limit is whole again (see rateLimitReset);
//   - every other status (400, 401, 403, 404, 422, 501, 505, ...) is returned at once, and so is
//     a 429 for a quota that no wait within the run restores (see quotaSpent);
//   - a failed reply's X-Should-Retry header, "true" or "false", overrides both, as the OpenAI
//     and Anthropic SDKs obey it (a 429 for a spent quota stays final);
//   - each attempt runs under its own Timeout and waits for the RPM limiter and the adaptive gate,
//     which halves the number of requests in flight on every 429 and grows it back by one after a
//     window of successes.
//
// The response body is read completely inside the attempt, so a truncated body is an attempt failure
// rather than a decoding error later; a chat reply longer than maxReplyBody fails the call, not retried. Attempts are counted into the Attempts found in the request's
// context (see WithAttempts). A failure that outlasts the retries is the latest attempt's error,
// with no count of its own: the langchaingo clients quote it inside their words, and the caller
// counts the attempts once, at the end, as CallError does ("… (after 3 attempts)").
//
// Note: retrying at the HTTP layer rather than around langchaingo's Generate keeps retries blind to
// provider error strings, which differ per client and version; the status code is the one contract.
type Transport struct {
	base       http.RoundTripper
	maxRetries int
	timeout    time.Duration
	backoff    time.Duration
	maxBackoff time.Duration
	maxWait    time.Duration
	sleep      func(context.Context, time.Duration) error
	rpm        *Limiter
	gate       *gate
	stops      stopRule

	mu  sync.Mutex
	rnd *rand.Rand

	requests atomic.Int64
}

// TransportConfig configures a Transport. Zero values take the documented defaults.
type TransportConfig struct {
	Base        http.RoundTripper // default a clone of http.DefaultTransport keeping Concurrency idle connections
	MaxRetries  int               // retries after the first attempt; negative means none
	Timeout     time.Duration     // per attempt, including reading the body; 0 means none
	Backoff     time.Duration     // first backoff, default 500ms; doubled per retry; negative: none
	MaxBackoff  time.Duration     // cap on one backoff, default 30s
	MaxWait     time.Duration     // cap on one Retry-After wait, default 2m
	Concurrency int               // most requests in flight (adaptive ceiling); 0 means unlimited
	RPM         float64           // requests per minute; 0 means unlimited
	Seed        uint64            // seeds the jitter
	// Sleep waits for d or until ctx is done; tests inject a recorder. Default: a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// NewTransport returns a Transport configured by cfg.
func NewTransport(cfg TransportConfig) *Transport {
	t := &Transport{
		base:       cfg.Base,
		maxRetries: max(cfg.MaxRetries, 0),
		timeout:    cfg.Timeout,
		backoff:    cfg.Backoff,
		maxBackoff: cfg.MaxBackoff,
		maxWait:    cfg.MaxWait,
		sleep:      cfg.Sleep,
		rnd:        rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		stops:      stopRule{limit: stopLimit(cfg.Concurrency)},
	}
	if t.base == nil {
		// http.DefaultTransport keeps only 2 idle connections per host, so with more calls in
		// flight every request past the second would dial (and later drop) a new connection.
		base := http.DefaultTransport.(*http.Transport).Clone()
		base.MaxIdleConnsPerHost = max(cfg.Concurrency, 16)
		t.base = base
	}
	if t.backoff == 0 {
		t.backoff = 500 * time.Millisecond
	}
	if t.maxBackoff <= 0 {
		t.maxBackoff = 30 * time.Second
	}
	if t.maxWait <= 0 {
		t.maxWait = 2 * time.Minute
	}
	if t.sleep == nil {
		t.sleep = Sleep
	}
	if cfg.RPM > 0 {
		t.rpm = NewLimiter(cfg.RPM, t.sleep)
	}
	if cfg.Concurrency > 0 {
		t.gate = newGate(cfg.Concurrency)
	}
	return t
}

// Client returns an http.Client that sends through t.
func (t *Transport) Client() *http.Client { return &http.Client{Transport: t} }

// Requests returns how many HTTP attempts t has made.
func (t *Transport) Requests() int64 { return t.requests.Load() }

// Concurrency returns the adaptive limit on requests in flight now (0 when unlimited).
func (t *Transport) Concurrency() int {
	if t.gate == nil {
		return 0
	}
	return t.gate.current()
}

// Stopped returns the StoppedError of the calls t stopped making because the server was never
// reached or refused every call, or nil when it makes them all.
func (t *Transport) Stopped() error { return t.stops.stop() }

// RoundTrip sends req, retrying transient failures. Once the server has been found unreachable,
// or refusing every call (see stopRule), it fails at once with a StoppedError.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := t.stops.refuse(); err != nil {
		noteError(ctx, err)
		return nil, err
	}
	resp, err := t.roundTrip(withoutForeignKey(req))
	if ctx.Err() == nil && !errors.Is(err, interrupt.ErrNotCalled) {
		t.stops.ended(req, resp, err)
	}
	return resp, err
}

// withoutForeignKey returns req, a redirect (307, 308) to a host that is not the first
// request's nor one under it, without the API key in Anthropic's x-api-key or Gemini's
// x-goog-api-key header; else req itself. Go's client drops only the Authorization header on
// such a redirect: the others went to whatever host the server named.
func withoutForeignKey(req *http.Request) *http.Request {
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	if first == req || req.Header.Get("X-Api-Key") == "" && req.Header.Get("X-Goog-Api-Key") == "" {
		return req
	}
	home, host := strings.ToLower(first.URL.Hostname()), strings.ToLower(req.URL.Hostname())
	if host == home || !strings.Contains(host, ":") && strings.HasSuffix(host, "."+home) {
		return req
	}
	r := req.Clone(req.Context())
	r.Header.Del("X-Api-Key")
	r.Header.Del("X-Goog-Api-Key")
	return r
}

func (t *Transport) roundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	body, err := readRequestBody(req)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		resp, wait, err := t.attempt(ctx, req, body)
		if wait < 0 { // final: success or a permanent failure
			return resp, err
		}
		if ctx.Err() != nil {
			if resp != nil {
				return resp, nil
			}
			return nil, ctx.Err()
		}
		// A finishing run makes no retry (a new call to pay for): the last failure is final.
		if attempt >= t.maxRetries || interrupt.Asked(ctx) || !t.pause(ctx, wait, attempt) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if resp != nil {
				return resp, nil // let the client turn the status into its own error
			}
			return nil, err // the count is the caller's to word (see Transport)
		}
	}
}

// pause waits before the retry after attempt: wait, the server's Retry-After, or else the
// backoff. It reports false when the wait was cut short, by cancellation or because the run is
// finishing.
func (t *Transport) pause(ctx context.Context, wait time.Duration, attempt int) bool {
	if wait == 0 {
		wait = t.backoffFor(attempt)
	}
	wctx, cancel := interrupt.Waiting(ctx)
	defer cancel()
	return t.sleep(wctx, wait) == nil && !interrupt.Asked(ctx)
}

// attempt makes one try. wait < 0 means the result is final; otherwise the try failed transiently
// and wait is the server's Retry-After (0 when it gave none).
func (t *Transport) attempt(ctx context.Context, req *http.Request, body []byte) (*http.Response, time.Duration, error) {
	slots, acquired, err := t.admit(ctx)
	if err != nil {
		return nil, -1, err
	}
	throttled, ok := false, false
	defer func() {
		if acquired {
			t.gate.release(ok, throttled)
		}
	}()
	end, started := interrupt.Begin(ctx)
	if !started {
		for _, sl := range slots {
			sl.Settle(0) // the reservations are given back: no request goes out
		}
		noteError(ctx, interrupt.ErrNotCalled)
		return nil, -1, interrupt.ErrNotCalled
	}
	defer end()
	t.requests.Add(1)
	countAttempt(ctx)

	actx, cancel := ctx, context.CancelFunc(func() {})
	if t.timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, t.timeout)
	}
	defer cancel()
	r := req.Clone(actx)
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		err = withoutLocalAddr(err)
		noteError(ctx, err)
		t.noteTimedOut(ctx, actx)
		return nil, t.transientWait(ctx, err), err
	}
	t.stops.answered(resp.StatusCode)
	if rerr := redirected(r, resp); rerr != nil {
		noteError(ctx, rerr)
		return nil, -1, rerr // final: every attempt would be redirected alike
	}
	data, rerr := readReplyBody(resp.Body, resp.StatusCode, replyLimit(ctx))
	resp.Body.Close()
	if tl, ok := rerr.(*tooLargeError); ok {
		noteError(ctx, tl)
		return nil, -1, tl // final: the same server sends the same again
	}
	if rerr != nil {
		rerr = &bodyError{status: resp.StatusCode, err: withoutLocalAddr(rerr)}
		noteError(ctx, rerr)
		t.noteTimedOut(ctx, actx)
		return nil, t.transientWait(ctx, rerr), rerr
	}
	noteError(ctx, nil)
	noteResponse(ctx, resp, data)
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	wait, throttled, err := t.classify(ctx, r, resp, data)
	if err != nil {
		return nil, wait, err
	}
	ok = wait < 0 && resp.StatusCode < 400
	return resp, wait, nil
}

// classify reads a whole response to req as the retry loop needs it: the wait before the next
// attempt (-1: none, the response is final), whether the server throttled the call, and the error
// that stands for a reply answered 200 but unreadable or failed in its body.
func (t *Transport) classify(ctx context.Context, req *http.Request, resp *http.Response, data []byte) (time.Duration, bool, error) {
	// X-Should-Retry is the server's own word on a failure, which the OpenAI and Anthropic SDKs
	// obey before they look at the status.
	shouldRetry := ""
	if resp.StatusCode >= 400 {
		shouldRetry = resp.Header.Get("X-Should-Retry")
	}
	switch {
	case shouldRetry == "false":
		return -1, false, nil
	case resp.StatusCode == http.StatusTooManyRequests && quotaSpent(data):
		return -1, false, nil // final: the client words the status, with the server's message
	case resp.StatusCode == http.StatusTooManyRequests:
		wait := serverWait(resp.Header, data, time.Now(), t.maxWait)
		if wait == 0 && resp.Header.Get("Retry-After") == "" && resp.Header.Get("Retry-After-Ms") == "" {
			wait = rateLimitReset(resp.Header, t.maxWait)
		}
		return wait, true, nil
	case isTransientStatus(resp.StatusCode) || shouldRetry == "true":
		return serverWait(resp.Header, data, time.Now(), t.maxWait), false, nil
	case resp.StatusCode == http.StatusOK && emptyBody(ctx, data) && mediaType(resp.Header.Get("Content-Type")) != "text/event-stream":
		// (An empty stream, from a server that streams whatever the request says, keeps the
		// hint that says so: the client's reading fails with it.)
		noteError(ctx, errEmptyBody)
		return 0, false, errEmptyBody
	case resp.StatusCode == http.StatusOK && (isJSON(resp.Header.Get("Content-Type")) || meantAsJSON(ctx, data)) && !json.Valid(data):
		noteError(ctx, errMalformedBody) // the cause the call error names, not the client's generic words
		return 0, false, errMalformedBody
	case resp.StatusCode == http.StatusOK:
		if err := inBandError(data); err != nil {
			// A gateway that failed once the model had started (OpenRouter), or a Gemini stream
			// that failed once begun, answers 200 with the error in the body: it is retried, or
			// not, as its code would be as a status.
			noteError(ctx, err)
			if err.Code == http.StatusTooManyRequests || isTransientStatus(err.Code) {
				return 0, err.Code == http.StatusTooManyRequests, err
			}
			return -1, false, err
		}
		if e, usage := generationFault(ctx, data); e != nil {
			// A chat completion whose generation failed (finish_reason "error" or "abort"):
			// retried, or not, as its code would be as a status (failedRetry). The reply is no
			// transport failure: the last one goes to the client, and Generate reads the
			// failure and the usage it was paid from its body, and that of each one
			// before it from Attempts.Earlier; its tokens count under --tpm.
			noteBilled(ctx, data)
			tokensOf(ctx).billed(usage)
			if retry, throttled := e.failedRetry(); retry {
				return 0, throttled, nil
			}
			return -1, false, nil
		}
		if err := shapeFault(ctx, data); err != nil {
			// JSON of another shape (an array, a string, an object with none of the reply's
			// members): a reply as unreadable as malformed JSON, retried as it is. Its quote is
			// cut: the key is taken out first, as the message's redaction would miss a cut one.
			err.Body = firstWords(redactSent(bytes.TrimSpace(data), req))
			noteError(ctx, err)
			return 0, false, err
		}
	}
	return -1, false, nil
}

// admit waits for the adaptive gate, then for the RPM limiter and, for a call that claims
// tokens (withTokens), the TPM one, both reserved at the one start the request is sent at
// (waitAll); acquired says whether a gate token is held. The returned slots are the request's
// and its tokens' (nil where there is no limit). A finishing run stops waiting: the call it waits
// for is not made (interrupt.ErrNotCalled).
//
// Note: the RPM reservation was made first, before; a wait at the gate (lowered by a 429, for a
// call in flight) then sent the request long after the start it was counted at, and the minute
// after it could hold more than --rpm requests sent. The tokens were reserved before the call
// reached the Transport, once a call, with the same fault (waitAll).
func (t *Transport) admit(ctx context.Context) (slots []*Slot, acquired bool, err error) {
	wctx, cancel := interrupt.Waiting(ctx)
	defer cancel()
	if t.gate != nil {
		if err := t.gate.acquire(wctx); err != nil {
			return nil, false, notCalled(ctx, err)
		}
	}
	tokens := tokensOf(ctx)
	if slots, err = waitAll(wctx, claim{t.rpm, 1}, tokens.claim()); err != nil {
		if t.gate != nil {
			t.gate.release(false, false)
		}
		return nil, false, notCalled(ctx, err)
	}
	tokens.hold(slots[1])
	return slots, t.gate != nil, nil
}

// withoutLocalAddr returns err with the local address taken out of the network error in it
// ("read tcp 127.0.0.1:40808->10.0.0.5:8000: connection reset by peer" reads "read tcp
// 10.0.0.5:8000: …"): the port the system picked for a connection differs from run to run, and a
// record's error would differ between two runs of one input, which a diff of their outputs shows.
func withoutLocalAddr(err error) error {
	if op, ok := errors.AsType[*net.OpError](err); ok && op.Addr != nil {
		op.Source = nil
	}
	return err
}

// notCalled returns the error of a wait for a call cut short: ctx's own when it was cancelled,
// else (the run is finishing) interrupt.ErrNotCalled, noted as the call's cause.
func notCalled(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if interrupt.Asked(ctx) {
		noteError(ctx, interrupt.ErrNotCalled)
		return interrupt.ErrNotCalled
	}
	return err
}

// transientWait returns 0 (retry, no server hint) for a transient transport error and -1 otherwise.
func (t *Transport) transientWait(ctx context.Context, err error) time.Duration {
	if ctx.Err() != nil {
		return -1 // the caller gave up: not the server's fault, and not worth retrying
	}
	if isTransientError(err) {
		return 0
	}
	return -1
}

func (t *Transport) backoffFor(attempt int) time.Duration {
	if t.backoff < 0 { // none: retry at once
		return 0
	}
	d := t.backoff << min(attempt, 30)
	if d <= 0 || d > t.maxBackoff {
		d = t.maxBackoff
	}
	t.mu.Lock()
	j := t.rnd.Int64N(int64(d)/2 + 1)
	t.mu.Unlock()
	return d/2 + time.Duration(j)
}

func readRequestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

// Sleep waits for d or until ctx is done, returning ctx's error in that case.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
