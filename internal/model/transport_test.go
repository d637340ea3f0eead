package model

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/gemini"
)

const okReply = `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`

// faultServer answers the i-th request with faults[i] and then with okReply.
func faultServer(t *testing.T, faults ...string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(calls.Add(1)) - 1
		io.Copy(io.Discard, r.Body)
		fault := "ok"
		if i < len(faults) {
			fault = faults[i]
		}
		serveFault(w, r, fault)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func serveFault(w http.ResponseWriter, r *http.Request, fault string) {
	w.Header().Set("Content-Type", "application/json")
	switch fault {
	case "ok":
		io.WriteString(w, okReply)
	case "429":
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"message":"rate limited"}}`)
	case "429-retry-after":
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"message":"rate limited"}}`)
	case "429-quota":
		// OpenAI's answer for an account with no credit left.
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`)
	case "408", "409", "425", "500", "501", "502", "503", "504", "505", "507", "520", "521", "522", "523", "524", "529", "599":
		code, _ := strconv.Atoi(fault)
		w.WriteHeader(code)
		io.WriteString(w, `{"error":{"message":"server error"}}`)
	case "503-should-not-retry":
		w.Header().Set("X-Should-Retry", "false")
		w.WriteHeader(503)
		io.WriteString(w, `{"error":{"message":"server error"}}`)
	case "400-should-retry":
		w.Header().Set("X-Should-Retry", "true")
		w.WriteHeader(400)
		io.WriteString(w, `{"error":{"message":"try again"}}`)
	case "429-quota-should-retry":
		w.Header().Set("X-Should-Retry", "true")
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`)
	case "400":
		w.WriteHeader(400)
		io.WriteString(w, `{"error":{"message":"This model's maximum context length is 8192 tokens"}}`)
	case "401":
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+testKey+`"}}`)
	case "hang":
		<-r.Context().Done()
	case "truncated":
		w.Header().Set("Content-Length", "400")
		io.WriteString(w, okReply[:40])
	case "malformed":
		io.WriteString(w, `{"id":"c","choices":[{"index":0,"message":{"role":"assist`+"\x00"+`}`)
	}
}

// sleeps records the waits a Transport asks for without sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

// testTransport returns a Transport that records its waits in s, with timeout per attempt (0:
// none). Only a test of a hanging server needs one: any other attempt could reach it on a loaded
// machine, and be retried where the test counts the attempts.
func testTransport(s *sleeps, timeout time.Duration) *Transport {
	return NewTransport(TransportConfig{MaxRetries: 3, Timeout: timeout, Backoff: time.Second, Seed: 1, Sleep: s.sleep, Concurrency: 8})
}

func TestTransportFaults(t *testing.T) {
	tests := []struct {
		name     string
		faults   []string
		attempts int
		wantErr  string // "" means success
	}{
		{"ok", nil, 1, ""},
		{"429 then ok", []string{"429"}, 2, ""},
		{"429 retry-after then ok", []string{"429-retry-after"}, 2, ""},
		{"5xx then ok", []string{"500", "502", "503"}, 4, ""},
		// The transient statuses the --help and README list, besides 429 and those above.
		{"408 409 425 then ok", []string{"408", "409", "425"}, 4, ""},
		{"504 529 then ok", []string{"504", "529"}, 3, ""},
		// Cloudflare's, in front of an OpenAI-compatible server, and the other 5xx the SDKs retry.
		{"520 521 522 then ok", []string{"520", "521", "522"}, 4, ""},
		{"523 524 then ok", []string{"523", "524"}, 3, ""},
		{"507 599 then ok", []string{"507", "599"}, 3, ""},
		// X-Should-Retry is the server's word, obeyed before the status, as the SDKs obey it.
		{"400 with X-Should-Retry true then ok", []string{"400-should-retry"}, 2, ""},
		{"503 with X-Should-Retry false not retried", []string{"503-should-not-retry"}, 1, "503"},
		{"429 insufficient_quota with X-Should-Retry true not retried", []string{"429-quota-should-retry"}, 1, "You exceeded your current quota"},
		{"hang then ok", []string{"hang"}, 2, ""},
		{"truncated then ok", []string{"truncated"}, 2, ""},
		{"malformed then ok", []string{"malformed"}, 2, ""},
		{"503 forever", []string{"503", "503", "503", "503", "503"}, 4, "503"},
		{"400 not retried", []string{"400"}, 1, "400"},
		{"401 not retried", []string{"401"}, 1, "401"},
		// A 429 for an account out of credit is no rate limit: no wait cures it.
		{"429 insufficient_quota not retried", []string{"429-quota"}, 1, "You exceeded your current quota"},
		// Not every 5xx is transient: a server that does not implement the call will not later.
		{"501 not retried", []string{"501"}, 1, "501"},
		{"505 not retried", []string{"505"}, 1, "505"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, calls := faultServer(t, tt.faults...)
			var s sleeps
			// The hanging attempt waits out the timeout, which the one after it must not reach, even
			// on a machine loaded by other tests (1 s was once reached there, and the call retried).
			var timeout time.Duration
			if slices.Contains(tt.faults, "hang") {
				timeout = 3 * time.Second
			}
			tr := testTransport(&s, timeout)
			c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Generate(context.Background(), testRequest("openai", "m"))
			attempts := resp.Attempts
			if ce, ok := err.(*CallError); ok {
				attempts = ce.Attempts
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Generate: %v", err)
			case tt.wantErr == "" && resp.Text != "ok":
				t.Errorf("Generate text = %q, want ok", resp.Text)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Generate error = %v, want one mentioning %s", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), testKey) {
				t.Errorf("error %q leaks the API key", err)
			}
			if attempts != tt.attempts || int(calls.Load()) != tt.attempts {
				t.Errorf("attempts = %d, server calls = %d, want %d", attempts, calls.Load(), tt.attempts)
			}
			if got := len(s.d); got != tt.attempts-1 {
				t.Errorf("waits = %v, want %d", s.d, tt.attempts-1)
			}
			if tt.name == "429 retry-after then ok" && s.d[0] != 7*time.Second {
				t.Errorf("wait after Retry-After: 7 = %v, want 7s", s.d[0])
			}
			for i, d := range s.d {
				if tt.name == "429 retry-after then ok" {
					break
				}
				lo, hi := time.Second<<i/2, time.Second<<i
				if d < lo || d > hi {
					t.Errorf("backoff %d = %v, want in [%v, %v]", i, d, lo, hi)
				}
			}
		})
	}
}

// TestTransportUnreachable: a server that cannot be reached fails every attempt, and the error
// is the latest attempt's own, with no count: the attempts are counted into the request's
// Attempts, for the caller to word (CallError's "(after 3 attempts)", see TestCallErrorCountsOnce).
func TestTransportUnreachable(t *testing.T) {
	url := clitest.ClosedURL(t)
	for _, retries := range []int{0, 2} {
		var s sleeps
		tr := NewTransport(TransportConfig{MaxRetries: retries, Timeout: time.Second, Backoff: time.Millisecond, Seed: 1, Sleep: s.sleep})
		ctx, attempts := WithAttempts(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader("{}"))
		_, err := tr.RoundTrip(req)
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "attempt") {
			t.Errorf("RoundTrip with %d retries = %v, want the refused connection, without a count of attempts", retries, err)
		}
		if got := attempts.N(); got != retries+1 {
			t.Errorf("RoundTrip with %d retries counted %d attempts, want %d", retries, got, retries+1)
		}
	}
}

func TestTransportLowersConcurrencyOn429(t *testing.T) {
	srv, _ := faultServer(t, "429", "429")
	var s sleeps
	tr := testTransport(&s, 0)
	c, _ := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
	if _, err := c.Generate(context.Background(), testRequest("openai", "m")); err != nil {
		t.Fatal(err)
	}
	if got := tr.Concurrency(); got != 2 {
		t.Errorf("Concurrency after two 429s = %d, want 8/2/2 = 2", got)
	}
	for range 10 {
		c.Generate(context.Background(), testRequest("openai", "m"))
	}
	if got := tr.Concurrency(); got <= 2 {
		t.Errorf("Concurrency after 10 successes = %d, want it to have grown past 2", got)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		h    string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{"-1", 0},
		{"9999", time.Minute},
		{now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second},
		{"soon", 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.h, now, time.Minute); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

// TestServerWaitHeaders: a transient failure's Retry-After-Ms (milliseconds, read first, as the
// OpenAI and Anthropic SDKs read it) or else its Retry-After is the wait before the retry, at
// most the limit; a Retry-After-Ms that is no positive number is none.
func TestServerWaitHeaders(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		ms, ra string
		want   time.Duration
	}{
		{"250", "", 250 * time.Millisecond},
		{"1500", "2", 1500 * time.Millisecond},
		{"0.5", "", 500 * time.Microsecond},
		{"999999999", "", time.Minute},
		{"1e400", "", time.Minute},
		{"NaN", "3", 3 * time.Second},
		{"-5", "3", 3 * time.Second},
		{"0", "3", 3 * time.Second},
		{"soon", "", 0},
		{"", "3", 3 * time.Second},
	} {
		h := http.Header{}
		if tt.ms != "" {
			h.Set("retry-after-ms", tt.ms)
		}
		if tt.ra != "" {
			h.Set("Retry-After", tt.ra)
		}
		if got := serverWait(h, nil, now, time.Minute); got != tt.want {
			t.Errorf("serverWait(Retry-After-Ms %q, Retry-After %q) = %v, want %v", tt.ms, tt.ra, got, tt.want)
		}
	}
}

// TestTransportRetryDelay: the Gemini API says how long to wait after a 429 not in a Retry-After
// header, which it never sends, but in the body, as a google.rpc.RetryInfo's retryDelay (a
// protobuf duration); the retry waits that long (at most MaxWait, 2 minutes by default), not the
// backoff, which would spend the retries within the minute of the quota. The streamed endpoint
// wraps the error in an array. A body without one falls back to the backoff. A quota per day
// still comes with a retryDelay of seconds, but no wait within the run restores it: it is final.
func TestTransportRetryDelay(t *testing.T) {
	quota := func(quotaID, delay string) string {
		return `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[` +
			`{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"` + quotaID + `"}]},` +
			`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + delay + `"}]}}`
	}
	const minute, day = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
	tests := []struct {
		name, body string
		lo, hi     time.Duration
		final      bool
	}{
		{"whole seconds", quota(minute, "36s"), 36 * time.Second, 36 * time.Second, false},
		{"fraction", quota(minute, "45.837906927s"), 45837906927, 45837906927, false},
		{"streamed", "[" + quota(minute, "7s") + "]", 7 * time.Second, 7 * time.Second, false},
		{"longer than MaxWait", quota(minute, "3600s"), 2 * time.Minute, 2 * time.Minute, false},
		{"none", `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`, time.Second / 2, time.Second, false},
		{"quota per day", quota(day, "36s"), 0, 0, true},
		{"quota per day, streamed", "[" + quota(day, "36s") + "]", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				if calls.Add(1) == 1 {
					w.WriteHeader(http.StatusTooManyRequests)
					io.WriteString(w, tt.body)
					return
				}
				io.WriteString(w, "["+wires[3].reply+"]")
			}))
			defer srv.Close()
			var s sleeps
			tr := NewTransport(TransportConfig{MaxRetries: 3, Backoff: time.Second, Seed: 1, Sleep: s.sleep})
			c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: "googleai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Generate(context.Background(), testRequest("googleai", "gemini-2.0-flash"))
			if tt.final {
				if err == nil || !strings.Contains(err.Error(), "You exceeded your current quota") || calls.Load() != 1 || len(s.d) != 0 {
					t.Errorf("Generate error = %v after %d calls and waits %v; want the quota error after 1 call and no wait", err, calls.Load(), s.d)
				}
				return
			}
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if len(s.d) != 1 || s.d[0] < tt.lo || s.d[0] > tt.hi {
				t.Errorf("waits = %v, want one in [%v, %v]", s.d, tt.lo, tt.hi)
			}
		})
	}
}

// TestLimiter: 60 a minute go at once, the next ones wait until the minute after the first has
// passed, in arrival order, and no window of a minute ever holds more than 60; a reservation
// given back (a cancelled wait) makes room.
func TestLimiter(t *testing.T) {
	var s sleeps
	l := NewLimiter(60, s.sleep)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	l.now = func() time.Time { return now }
	for range 60 {
		l.Wait(context.Background(), 1)
	}
	now = t0.Add(30 * time.Second)
	l.Wait(context.Background(), 1)
	l.Wait(context.Background(), 1)
	want := []time.Duration{0, 0, 30 * time.Second, 30 * time.Second}
	if got := s.d[58:]; !slices.Equal(got, want) {
		t.Fatalf("waits = %v, want %v", got, want)
	}
	for _, at := range []time.Duration{0, 30 * time.Second, 59 * time.Second, 60 * time.Second, 89 * time.Second} {
		if got := l.held(t0.Add(at)); got > 60 {
			t.Errorf("the minute up to t0+%v holds %v, more than 60", at, got)
		}
	}
	// 30 tokens at once, then one larger than the whole limit: it goes alone, a minute later.
	tl := NewLimiter(100, s.sleep)
	tl.now = func() time.Time { return t0 }
	tl.Wait(context.Background(), 30)
	tl.Wait(context.Background(), 250)
	if d := s.d[len(s.d)-1]; d != time.Minute {
		t.Errorf("oversize reservation waits %v, want 1m", d)
	}
	// Half a request a minute: one every two minutes, not one a minute.
	hl := NewLimiter(0.5, s.sleep)
	hl.now = func() time.Time { return t0 }
	for range 3 {
		hl.Wait(context.Background(), 1)
	}
	if got, want := s.d[len(s.d)-3:], []time.Duration{0, 2 * time.Minute, 4 * time.Minute}; !slices.Equal(got, want) {
		t.Errorf("waits at 0.5 a minute = %v, want %v", got, want)
	}
	// A wait cut short gives its reservation back: the next one need not wait for it.
	cl := NewLimiter(1, s.sleep)
	cl.now = func() time.Time { return t0 }
	cl.Wait(context.Background(), 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := cl.Wait(ctx, 1); err == nil {
		t.Errorf("Wait under a cancelled context = nil error, want it")
	}
	if got := cl.held(t0.Add(time.Minute)); got != 0 {
		t.Errorf("the minute after a cancelled wait holds %v, want 0 (given back)", got)
	}
	// A reservation settled at less makes room for the next.
	sl := NewLimiter(100, s.sleep)
	sl.now = func() time.Time { return t0 }
	slot, _ := sl.Wait(context.Background(), 90)
	slot.Settle(10)
	sl.Wait(context.Background(), 80)
	if d := s.d[len(s.d)-1]; d != 0 {
		t.Errorf("wait after a reservation settled at 10 of 100 = %v, want 0", d)
	}
}

func FuzzRetryAfter(f *testing.F) {
	f.Add("3")
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add("-0.5")
	f.Add("1e308")
	f.Add("NaN")
	f.Fuzz(func(t *testing.T, h string) {
		d := retryAfter(h, time.Date(2015, 10, 21, 7, 0, 0, 0, time.UTC), time.Minute)
		if d < 0 || d > time.Minute {
			t.Errorf("retryAfter(%q) = %v, want within [0, 1m]", h, d)
		}
	})
}

// TestBackoffNone: --backoff 0 retries at once, as --timeout 0 means no timeout; it took the
// TransportConfig's default of 500ms before. A Setup passes the flag's value on, 0 included.
func TestBackoffNone(t *testing.T) {
	tests := []struct {
		name   string
		tr     *Transport
		lo, hi time.Duration // of the first wait
	}{
		{"config negative", NewTransport(TransportConfig{Backoff: -1}), 0, 0},
		{"config default", NewTransport(TransportConfig{}), 250 * time.Millisecond, 500 * time.Millisecond},
		{"setup 0", Setup{Backoff: 0}.NewTransport(), 0, 0},
		{"setup 1s", Setup{Backoff: time.Second}.NewTransport(), 500 * time.Millisecond, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range 5 { // below MaxBackoff's 30s
				d := tt.tr.backoffFor(i)
				if lo, hi := tt.lo<<i, tt.hi<<i; d < lo || d > hi {
					t.Errorf("backoffFor(%d) = %v, want in [%v, %v]", i, d, lo, hi)
				}
			}
		})
	}
}

// TestTransportRateLimitReset: OpenAI answers a 429 without Retry-After, but with the time until
// each of its limits is whole again (x-ratelimit-reset-requests, x-ratelimit-reset-tokens) and
// what is left of each (x-ratelimit-remaining-requests, -tokens); the retry waits for the limit
// that ran out (the tokens when requests are left, the requests when none are, both when neither
// is left), or the longer of the two when the reply does not say what is left, at most MaxWait
// (2 minutes by default), where the backoff's retries would all fall within the limit's minute. Retry-After, when given, is taken instead,
// even when it asks for none (0: the backoff); a 429 with neither header falls back to the backoff, and so does
// another status that carries the headers (OpenAI sends them on every reply).
// TestIsTransientStatus: the statuses retried are 408, 409, 425 and the 5xx but 501 and 505; a
// 429 is told apart elsewhere, and no status outside 5xx (600 and on) is a server's failure.
func TestIsTransientStatus(t *testing.T) {
	for code, want := range map[int]bool{400: false, 404: false, 408: true, 409: true, 425: true, 429: false,
		499: false, 500: true, 501: false, 502: true, 503: true, 505: false, 520: true, 529: true, 599: true, 600: false} {
		if got := isTransientStatus(code); got != want {
			t.Errorf("isTransientStatus(%d) = %v, want %v", code, got, want)
		}
	}
}

func TestTransportRateLimitReset(t *testing.T) {
	const rateLimited = `{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-x on tokens per min (TPM): Limit 200000, Used 199980, Requested 83. Please try again in 18ms.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`
	tests := []struct {
		name       string
		status     int
		requests   string // x-ratelimit-reset-requests; "" leaves it out
		tokens     string // x-ratelimit-reset-tokens
		retryAfter string
		lo, hi     time.Duration
		left       [2]string // x-ratelimit-remaining-requests and -tokens; "" leaves one out
	}{
		{"tokens longer", 429, "20ms", "17.5s", "", 17500 * time.Millisecond, 17500 * time.Millisecond, [2]string{}},
		{"requests longer", 429, "1m30s", "6ms", "", 90 * time.Second, 90 * time.Second, [2]string{}},
		{"longer than MaxWait", 429, "6m0s", "1s", "", 2 * time.Minute, 2 * time.Minute, [2]string{}},
		{"requests only", 429, "20ms", "", "", 20 * time.Millisecond, 20 * time.Millisecond, [2]string{}},
		{"Retry-After first", 429, "20s", "30s", "3", 3 * time.Second, 3 * time.Second, [2]string{}},
		{"Retry-After 0: the backoff", 429, "20s", "30s", "0", time.Second / 2, time.Second, [2]string{}},
		{"unreadable: the backoff", 429, "soon", "-5s", "", time.Second / 2, time.Second, [2]string{}},
		{"none: the backoff", 429, "", "", "", time.Second / 2, time.Second, [2]string{}},
		{"a 503's: the backoff", 503, "20s", "30s", "", time.Second / 2, time.Second, [2]string{}},
		{"tokens ran out, requests left", 429, "1m30s", "6ms", "", 6 * time.Millisecond, 6 * time.Millisecond, [2]string{"499", "20"}},
		{"tokens ran out, one request left", 429, "1m30s", "6ms", "", 6 * time.Millisecond, 6 * time.Millisecond, [2]string{"1", "20"}},
		{"tokens ran out, requests left, with no tokens reset: the backoff", 429, "1m30s", "", "", time.Second / 2, time.Second, [2]string{"499", "0"}},
		{"requests ran out, tokens left", 429, "20ms", "17.5s", "", 20 * time.Millisecond, 20 * time.Millisecond, [2]string{"0", "150000"}},
		{"requests ran out, tokens not said", 429, "20ms", "17.5s", "", 20 * time.Millisecond, 20 * time.Millisecond, [2]string{"0", ""}},
		{"both ran out", 429, "20ms", "17.5s", "", 17500 * time.Millisecond, 17500 * time.Millisecond, [2]string{"0", "0"}},
		{"tokens left only said", 429, "20ms", "17.5s", "", 17500 * time.Millisecond, 17500 * time.Millisecond, [2]string{"", "150000"}},
		{"what is left unreadable", 429, "1m30s", "6ms", "", 90 * time.Second, 90 * time.Second, [2]string{"many", "-1"}},
		{"requests left negative: unreadable", 429, "20ms", "17.5s", "", 17500 * time.Millisecond, 17500 * time.Millisecond, [2]string{"-1", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("X-Ratelimit-Limit-Requests", "500")
				w.Header().Set("X-Ratelimit-Limit-Tokens", "200000")
				if tt.requests != "" {
					w.Header().Set("X-Ratelimit-Reset-Requests", tt.requests)
				}
				if tt.tokens != "" {
					w.Header().Set("X-Ratelimit-Reset-Tokens", tt.tokens)
				}
				for i, name := range []string{"X-Ratelimit-Remaining-Requests", "X-Ratelimit-Remaining-Tokens"} {
					if tt.left[i] != "" {
						w.Header().Set(name, tt.left[i])
					}
				}
				if calls.Add(1) > 1 {
					io.WriteString(w, okReply)
					return
				}
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, rateLimited)
			}))
			defer srv.Close()
			var s sleeps
			tr := NewTransport(TransportConfig{MaxRetries: 3, Backoff: time.Second, Seed: 1, Sleep: s.sleep})
			c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Generate(context.Background(), testRequest("openai", "m")); err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if len(s.d) != 1 || s.d[0] < tt.lo || s.d[0] > tt.hi || calls.Load() != 2 {
				t.Errorf("waits = %v after %d calls, want one in [%v, %v] after 2", s.d, calls.Load(), tt.lo, tt.hi)
			}
		})
	}
}

// TestTransportLowersConcurrencyOnInBand429: a 429 a gateway gives in the body of a 200 reply
// (OpenRouter's) throttles the calls as a 429 status does.
func TestTransportLowersConcurrencyOnInBand429(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if calls.Add(1) <= 2 {
			io.WriteString(w, `{"error":{"code":429,"message":"Rate limit exceeded"}}`)
			return
		}
		io.WriteString(w, okReply)
	}))
	defer srv.Close()
	var s sleeps
	tr := testTransport(&s, 0)
	c, _ := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
	if _, err := c.Generate(context.Background(), testRequest("openai", "m")); err != nil {
		t.Fatal(err)
	}
	if got := tr.Concurrency(); got != 2 || calls.Load() != 3 {
		t.Errorf("Concurrency after two in-band 429s = %d after %d calls, want 8/2/2 = 2 after 3", got, calls.Load())
	}
}

// TestBackoffJitter: a retry waits between half the backoff and the whole of it, the jitter
// spread over all of that range.
func TestBackoffJitter(t *testing.T) {
	tr := NewTransport(TransportConfig{Backoff: time.Second, MaxBackoff: 30 * time.Second, Seed: 1})
	lo, hi := time.Second, time.Duration(0)
	for range 200 {
		d := tr.backoffFor(0)
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < time.Second/2 || lo > 550*time.Millisecond || hi > time.Second || hi < 950*time.Millisecond {
		t.Errorf("backoffFor(0) of a 1s backoff ranged over [%v, %v], want about [500ms, 1s]", lo, hi)
	}
}

// TestTransportGateGrowsOnSuccess: the adaptive limit grows back after a 429 on answers only; a
// final failure (a 400) is no sign that the server has room for more calls.
func TestTransportGateGrowsOnSuccess(t *testing.T) {
	srv, _ := faultServer(t, "429", "400", "400", "400", "400")
	var s sleeps
	tr := testTransport(&s, 0)
	c, _ := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
	for range 4 {
		if _, err := c.Generate(context.Background(), testRequest("openai", "m")); err == nil {
			t.Fatal("Generate answered 400 = nil error, want one")
		}
	}
	if got := tr.Concurrency(); got != 4 {
		t.Errorf("Concurrency after a 429 and four 400s = %d, want 8/2 = 4", got)
	}
}

// TestTransportShouldRetryOnAnswer: X-Should-Retry is read on a failure only; an answer that
// carries it is the answer.
func TestTransportShouldRetryOnAnswer(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Should-Retry", "true")
		io.WriteString(w, okReply)
	}))
	defer srv.Close()
	var s sleeps
	c, _ := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: testTransport(&s, 0).Client()})
	resp, err := c.Generate(context.Background(), testRequest("openai", "m"))
	if err != nil || resp.Text != "ok" {
		t.Fatalf("Generate = %q, %v; want ok", resp.Text, err)
	}
	if got := calls.Load(); got != 1 {
		t.Errorf("%d requests reached the server, want 1", got)
	}
}

// rateLimitedOnce is an OpenAI server whose first reply is a 429 with Retry-After-Ms retryMs and,
// unless "", X-Ratelimit-Reset-Requests reset, and whose later replies answer; it closes with t.
func rateLimitedOnce(t *testing.T, retryMs, reset string) *httptest.Server {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if calls.Add(1) > 1 {
			io.WriteString(w, okReply)
			return
		}
		w.Header().Set("Retry-After-Ms", retryMs)
		if reset != "" {
			w.Header().Set("X-Ratelimit-Reset-Requests", reset)
		}
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"message":"rate limited"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestTransportRetryAfterMsZero: a 429 whose Retry-After-Ms asks for no wait takes the backoff,
// as one whose Retry-After does, not the wait of its rate-limit headers.
func TestTransportRetryAfterMsZero(t *testing.T) {
	srv := rateLimitedOnce(t, "0", "20s")
	var s sleeps
	c, _ := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: testTransport(&s, 0).Client()})
	if _, err := c.Generate(context.Background(), testRequest("openai", "m")); err != nil {
		t.Fatal(err)
	}
	if len(s.d) != 1 || s.d[0] < time.Second/2 || s.d[0] > time.Second {
		t.Errorf("waits = %v, want one backoff in [500ms, 1s]", s.d)
	}
}

// TestBackoffCapped: the doubled backoff stops at MaxBackoff (with its jitter, half to all of it),
// also after as many retries as would shift it past 64 bits, where it could wrap round to a
// short wait (8.589934593s << 31 is 2^31ns).
func TestBackoffCapped(t *testing.T) {
	for _, tc := range []struct{ backoff, max time.Duration }{
		{time.Second, 4 * time.Second},
		{1<<33 + 1, 30 * time.Second},
	} {
		tr := NewTransport(TransportConfig{Backoff: tc.backoff, MaxBackoff: tc.max, Seed: 1})
		for i := 2; i < 70; i++ {
			if d := tr.backoffFor(i); d < tc.max/2 || d > tc.max {
				t.Errorf("backoff %v: backoffFor(%d) = %v, want in [%v, %v]", tc.backoff, i, d, tc.max/2, tc.max)
			}
		}
	}
}

// TestTransportRetryAfterMsCapped: a Retry-After-Ms past MaxWait waits MaxWait, as a Retry-After
// past it does: Azure OpenAI's 429 may ask for minutes, and the run waits no longer than its cap.
func TestTransportRetryAfterMsCapped(t *testing.T) {
	srv := rateLimitedOnce(t, "90000", "")
	var s sleeps
	tr := NewTransport(TransportConfig{MaxRetries: 1, MaxWait: time.Minute, Seed: 1, Sleep: s.sleep})
	c, _ := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
	if _, err := c.Generate(context.Background(), testRequest("openai", "m")); err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{time.Minute}; !slices.Equal(s.d, want) {
		t.Errorf("waits = %v, want %v (Retry-After-Ms 90000 capped at MaxWait)", s.d, want)
	}
}
