package model

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/gemini"
)

// generateAll makes n calls through c, at most par at a time, and returns their errors.
func generateAll(c Client, n, par int) []error {
	return generateEach(c, testRequest("openai", "gpt-4o-mini"), n, par)
}

// generateEach makes n calls of req through c, at most par at a time, and returns their errors.
func generateEach(c Client, req Request, n, par int) []error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				_, errs[i] = c.Generate(context.Background(), req)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

func TestTransportStopsCallingUnreachedServer(t *testing.T) {
	const calls, par, retries = 50, 4, 2
	var s sleeps
	tr := NewTransport(TransportConfig{MaxRetries: retries, Backoff: time.Millisecond, Seed: 1, Sleep: s.sleep, Concurrency: par})
	base := clitest.ClosedURL(t)
	c, err := Setup{Provider: "openai", BaseURL: base + "/v1", APIKey: testKey, Transport: tr}.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	errs := generateAll(c, calls, par)
	limit := stopLimit(par)
	// The calls in flight when the limit is hit finish too: at most par-1 more than it.
	if got, lo, hi := tr.Requests(), int64(limit*(retries+1)), int64((limit+par-1)*(retries+1)); got < lo || got > hi {
		t.Errorf("attempts = %d, want between %d and %d (%d calls in a row of %d attempts, and those in flight)", got, lo, hi, limit, retries+1)
	}
	unreached := 0
	for i, err := range errs {
		var ue *StoppedError
		switch {
		case err == nil:
			t.Fatalf("call %d succeeded against a closed port", i)
		case errors.As(err, &ue):
			unreached++
			if want := "openai gpt-4o-mini: not called: server " + base + " was never reached (first error: dial tcp "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("call %d: error = %q, want it to begin %q", i, err, want)
			}
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("call %d: error %q does not unwrap to ECONNREFUSED", i, err)
			}
		}
	}
	if lo := calls - (limit + par - 1); unreached < lo || unreached > calls-limit {
		t.Errorf("calls not made = %d, want between %d and %d", unreached, lo, calls-limit)
	}
	if tr.Stopped() == nil {
		t.Errorf("Stopped() = nil after the server was never reached")
	}
}

func TestTransportKeepsCallingServerThatAnswered(t *testing.T) {
	const calls, retries = 30, 2
	var s sleeps
	tr := NewTransport(TransportConfig{MaxRetries: retries, Backoff: time.Millisecond, Seed: 1, Sleep: s.sleep, Concurrency: 1})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`)
	}))
	c, err := Setup{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey, Transport: tr}.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), testRequest("openai", "gpt-4o-mini")); err != nil {
		t.Fatalf("first call: %v", err)
	}
	srv.Close()
	for i, err := range generateAll(c, calls, 1) {
		var ue *StoppedError
		if err == nil || errors.As(err, &ue) {
			t.Fatalf("call %d after the server went away: error = %v, want a failed call", i, err)
		}
	}
	if got, want := tr.Requests(), int64(1+calls*(retries+1)); got != want {
		t.Errorf("attempts = %d, want %d (every call retried)", got, want)
	}
	if err := tr.Stopped(); err != nil {
		t.Errorf("Stopped() = %v, want nil once the server has answered", err)
	}
}

func TestIsUnreached(t *testing.T) {
	op := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"refused", op(syscall.ECONNREFUSED), true},
		{"network unreachable", op(syscall.ENETUNREACH), true},
		{"host unreachable", op(syscall.EHOSTUNREACH), true},
		{"no such host", op(&net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}), true},
		{"dns timeout", op(&net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true}), false},
		{"deadline", context.DeadlineExceeded, false},
		{"reset", op(syscall.ECONNRESET), false},
		{"tls", errors.New("tls: failed to verify certificate"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isUnreached(tt.err); got != tt.want {
				t.Errorf("isUnreached(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// TestStoppedErrorMarker: a record keeps only an error's text, so the commands know a call not
// made by the words NotCalledServer begins, and why by those after the URL; every StoppedError,
// as a CallError, holds them.
func TestStoppedErrorMarker(t *testing.T) {
	for _, tt := range []struct {
		err   *StoppedError
		words string
	}{
		{&StoppedError{Base: "http://127.0.0.1:1", First: syscall.ECONNREFUSED}, NeverReached},
		{&StoppedError{Base: "http://127.0.0.1:1", Status: 401, Reply: "bad key"}, RefusedEvery + "401"},
	} {
		err := &CallError{Err: fmt.Errorf("openai m: %w", tt.err)}
		if want := ": " + NotCalledServer + " http://127.0.0.1:1" + tt.words; !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not hold %q", err, want)
		}
	}
}

// refusingServer answers every request with status and body (JSON), but for the first ok ones,
// which get an OpenAI reply; it counts the requests that reach it.
func refusingServer(t *testing.T, ok int, status func(n int) int, body string) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1))
		w.Header().Set("Content-Type", "application/json")
		if i <= ok {
			fmt.Fprint(w, `{"id":"c","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`)
			return
		}
		w.WriteHeader(status(i))
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func always(status int) func(int) int { return func(int) int { return status } }

// TestTransportStopsCallingRefusingServer: a server that refuses every call with the same 401,
// 403 or 404 gets max(8, 2×concurrency) calls (and those in flight), no more; the others fail at
// once with a StoppedError that names the status and the server's words, and the advice the
// first refusal had.
func TestTransportStopsCallingRefusingServer(t *testing.T) {
	const calls, par = 40, 3
	tests := []struct {
		name, provider, model string
		status                int
		body                  string
		reply, hint           string
	}{
		{"openai key", "openai", "gpt-4o-mini", 401,
			`{"error":{"message":"Incorrect API key provided: ` + testKey + `.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			"Incorrect API key provided: [redacted].", "the API key was refused: check OPENAI_API_KEY, or the file --api-key-file names"},
		{"openai model", "openai", "gpt-5-nope", 404,
			`{"error":{"message":"The model ` + "`gpt-5-nope`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","code":"model_not_found"}}`,
			"The model `gpt-5-nope` does not exist or you do not have access to it.", "no such model or endpoint: check the model name"},
		{"openai forbidden", "openai", "gpt-4o-mini", 403,
			`{"error":{"message":"Project proj_x does not have access to model gpt-4o-mini","type":"invalid_request_error","code":"model_not_found"}}`,
			"Project proj_x does not have access to model gpt-4o-mini", ""},
		{"ollama model", "ollama", "llama9", 404, `{"error":"model 'llama9' not found"}`,
			"model 'llama9' not found", "no such model or endpoint: check the model name"},
		{"anthropic key", "anthropic", "claude-3-5-haiku-20241022", 401,
			`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_1"}`,
			"invalid x-api-key", "the API key was refused: check ANTHROPIC_API_KEY, or the file --api-key-file names"},
		// The Gemini API refuses a key with a 400 (INVALID_ARGUMENT, reason API_KEY_INVALID), not a 401.
		{"gemini key", "googleai", "gemini-2.0-flash", 400, geminiBadKey,
			"API key not valid. Please pass a valid API key.", "the API key was refused: check GOOGLE_API_KEY or GEMINI_API_KEY, or the file --api-key-file names"},
		// An account that may not call: Anthropic's out of credit (a 400, or billing_error's 402),
		// OpenAI's insufficient_quota (a 429 that no wait restores), the Gemini API's
		// FAILED_PRECONDITION (a region it does not serve, a free tier that needs billing), alone
		// or, through its OpenAI-compatible endpoint, in a list.
		{"anthropic credit", "anthropic", "claude-3-5-haiku-20241022", 400, anthropicNoCredit,
			"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.", ""},
		{"anthropic billing error", "anthropic", "claude-3-5-haiku-20241022", 402,
			`{"type":"error","error":{"type":"billing_error","message":"Billing error"},"request_id":"req_1"}`, "Billing error", ""},
		{"openai quota", "openai", "gpt-4o-mini", 429,
			`{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			"You exceeded your current quota, please check your plan and billing details.", ""},
		{"gemini location", "googleai", "gemini-2.0-flash", 400, geminiLocation,
			"User location is not supported for the API use.", ""},
		{"gemini free tier", "googleai", "gemini-2.0-flash", 400,
			`{"error":{"code":400,"message":"Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio.","status":"FAILED_PRECONDITION"}}`,
			"Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio.", ""},
		{"gemini location, openai endpoint", "openai", "gemini-2.0-flash", 400, "[" + geminiLocation + "]",
			"User location is not supported for the API use.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, served := refusingServer(t, 0, always(tt.status), tt.body)
			tr := NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond, Seed: 1, Concurrency: par})
			base := srv.URL
			if tt.provider == "openai" || tt.provider == "anthropic" {
				base += "/v1"
			}
			c, err := Setup{Gemini: gemini.New, Provider: tt.provider, BaseURL: base, APIKey: testKey, Transport: tr}.Client(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			errs := generateEach(c, testRequest(tt.provider, tt.model), calls, par)
			limit := stopLimit(par)
			// No retries of a 401, 403 or 404: one request a call.
			if got := int(served.Load()); got < limit || got > limit+par-1 {
				t.Errorf("the server got %d requests, want %d to %d (the limit and the calls in flight)", got, limit, limit+par-1)
			}
			stopped := 0
			want := fmt.Sprintf("%s %s: not called: server %s refused every call so far with HTTP %d (first reply: %s)", tt.provider, tt.model, srv.URL, tt.status, tt.reply)
			for i, err := range errs {
				se, ok := errors.AsType[*StoppedError](err)
				switch {
				case err == nil:
					t.Fatalf("call %d succeeded against a server that refuses every call", i)
				case !ok:
					if strings.Contains(err.Error(), "not called") {
						t.Errorf("call %d: error %q says not called but is no StoppedError", i, err)
					}
					continue
				}
				stopped++
				if se.Status != tt.status {
					t.Errorf("call %d: Status = %d, want %d", i, se.Status, tt.status)
				}
				got := err.Error()
				if msg, _, _ := strings.Cut(got, "; "); msg != want {
					t.Errorf("call %d: error = %q, want it to begin %q", i, got, want)
				}
				if tt.hint != "" && !strings.Contains(got, "; "+tt.hint) {
					t.Errorf("call %d: error = %q, want the hint %q", i, got, tt.hint)
				}
				if strings.Contains(got, testKey) {
					t.Errorf("call %d: error %q shows the API key", i, got)
				}
			}
			if got := int(served.Load()) + stopped; got != calls {
				t.Errorf("%d requests served and %d calls stopped, want %d in all", served.Load(), stopped, calls)
			}
			w := tr.StopWarning("rerun X")
			if wantW := fmt.Sprintf("warning: calls stopped: %s refused the first %d calls with HTTP %d (the first reply: %s); %d calls were not made and their records carry the error \"not called: server … refused every call so far with HTTP %d\" (rerun X once ",
				srv.URL, limit, tt.status, tt.reply, stopped, tt.status); !strings.HasPrefix(w, wantW) {
				t.Errorf("StopWarning = %q, want it to begin %q", w, wantW)
			}
			if fix := "once " + refusedFix(tt.status, []byte(tt.body)) + ")"; !strings.HasSuffix(w, fix) {
				t.Errorf("StopWarning = %q, want it to end %q", w, fix)
			}
			if tt.hint != "" && strings.Contains(tt.hint, "API key") && !strings.HasSuffix(w, "once the API key is right)") {
				t.Errorf("StopWarning = %q, want it to end with the key to check", w)
			}
		})
	}
}

// anthropicNoCredit is Anthropic's reply to a call of an account out of credit.
const anthropicNoCredit = `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},"request_id":"req_011CZ47RMLnx1JoJXRrzzSde"}`

// geminiLocation is the Gemini API's reply to a call from a region it does not serve.
const geminiLocation = `{"error":{"code":400,"message":"User location is not supported for the API use.","status":"FAILED_PRECONDITION"}}`

// TestRefusesAll: a reply refuses every call of the run by its status (401, 402, 403, 404) or,
// for a 400 or a 429, by what its body says of the key or the account; a 400 that says what was
// wrong with the request (too long, an image, content, a parameter), or a 429 of a rate, is that
// call's alone.
func TestRefusesAll(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
		want   bool
	}{
		{"401", 401, `{"error":{"message":"bad key"}}`, true},
		{"402", 402, `{"type":"error","error":{"type":"billing_error","message":"Billing error"}}`, true},
		{"gemini key", 400, geminiBadKey, true},
		{"anthropic credit", 400, anthropicNoCredit, true},
		{"anthropic credit, openai endpoint", 400, `{"error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}`, true},
		{"anthropic billing_error in a 400", 400, `{"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low."}}`, true},
		{"gemini location", 400, geminiLocation, true},
		{"gemini location, no billing", 400, `{"error":{"code":400,"message":"User location is not supported for the API use without a billing account linked.","status":"FAILED_PRECONDITION"}}`, true},
		{"gemini location in a list", 400, "[" + geminiLocation + "]", true},
		{"anthropic billing_error in a 400, other words", 400, `{"type":"error","error":{"type":"billing_error","message":"Billing error"}}`, true},
		{"openai insufficient_quota", 429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, true},

		{"anthropic too long", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, false},
		{"anthropic image", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes"}}`, false},
		{"anthropic quotes the words", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content: Your credit balance is too low to access the Anthropic API is not a valid role"}}`, false},
		{"openai context length", 400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, false},
		{"openai content policy", 400, `{"error":{"message":"Invalid prompt: your prompt was flagged as potentially violating our usage policy.","type":"invalid_request_error","param":null,"code":"invalid_prompt"}}`, false},
		{"gemini too long", 400, `{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`, false},
		{"gemini image", 400, `[{"error":{"code":400,"message":"Provided image is not valid.","status":"INVALID_ARGUMENT"}}]`, false},
		{"gemini words in the message", 400, `{"error":{"code":400,"message":"Invalid value FAILED_PRECONDITION","status":"INVALID_ARGUMENT"}}`, false},
		{"no JSON", 400, `400 Bad Request: FAILED_PRECONDITION credit balance is too low`, false},
		{"429 rate", 429, `{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","code":"rate_limit_exceeded"}}`, false},
		{"500", 500, `{"error":{"message":"billing_error"}}`, false},
		{"credit words in another type", 400, `{"type":"error","error":{"type":"api_error","message":"Your credit balance is too low to access the Anthropic API."}}`, false},
	} {
		resp := &http.Response{StatusCode: tt.status, Body: io.NopCloser(strings.NewReader(tt.body))}
		if got := refusesAll(resp); got != tt.want {
			t.Errorf("%s: refusesAll(%d %s) = %v, want %v", tt.name, tt.status, tt.body, got, tt.want)
		}
	}
}

// TestRefusedFix: the stop warning says what must be right before the calls are made again, by
// the status and what its reply says of the key or the account.
func TestRefusedFix(t *testing.T) {
	const (
		key     = "the API key is right"
		credit  = "the account has credit or quota left, as its plan and billing say"
		region  = "the API takes calls from where they come: a region it serves, or billing on where its free tier is not given"
		project = "the key may use the project, region and model"
		model   = "the model name and the base URL are right"
	)
	for _, tt := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"401", 401, `{"error":{"message":"bad key"}}`, key},
		{"gemini key", 400, geminiBadKey, key},
		{"402", 402, `{"type":"error","error":{"type":"billing_error","message":"Billing error"}}`, credit},
		{"openai insufficient_quota", 429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`, credit},
		{"anthropic credit", 400, anthropicNoCredit, credit},
		{"gemini location", 400, geminiLocation, region},
		{"gemini location in a list", 400, "[" + geminiLocation + "]", region},
		{"403", 403, `{"error":{"message":"forbidden"}}`, project},
		{"404", 404, `{"error":{"message":"no such model"}}`, model},
	} {
		if got := refusedFix(tt.status, []byte(tt.body)); got != tt.want {
			t.Errorf("%s: refusedFix(%d) = %q, want %q", tt.name, tt.status, got, tt.want)
		}
	}
}

// geminiBadKey is the Gemini API's reply to a call with a key it does not know.
const geminiBadKey = `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}},{"@type":"type.googleapis.com/google.rpc.LocalizedMessage","locale":"en-US","message":"API key not valid. Please pass a valid API key."}]}}`

// TestBadKey: a 400 refuses the key only by an ErrorInfo of reason API_KEY_INVALID; the words
// elsewhere (a message that quotes them, a reply that is no JSON) are another 400, of that
// request alone, which must not stop the run.
func TestBadKey(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       bool
	}{
		{"gemini refused key", geminiBadKey, true},
		{"reason among others", `{"error":{"code":400,"details":[{"reason":"OTHER"},{"reason":"API_KEY_INVALID"}]}}`, true},
		{"words in the message, another reason", `{"error":{"code":400,"message":"Invalid value: 'API_KEY_INVALID'","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INVALID_PARAMETER"}]}}`, false},
		{"words in the message, no details", `{"error":{"code":400,"message":"unknown name API_KEY_INVALID"}}`, false},
		{"no JSON", `400 Bad Request: API_KEY_INVALID`, false},
		{"another 400", `{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}`, false},
		{"empty", ``, false},
		// Gemini's OpenAI-compatible endpoint sends its error in a list.
		{"gemini refused key in a list", "[" + geminiBadKey + "]", true},
		{"a list of another 400", `[{"error":{"code":400,"message":"API_KEY_INVALID","status":"INVALID_ARGUMENT"}}]`, false},
	} {
		if got := badKey([]byte(tt.body)); got != tt.want {
			t.Errorf("%s: badKey(%s) = %v, want %v", tt.name, tt.body, got, tt.want)
		}
	}
}

// TestTransportKeepsCallingServerThatRefusedAfterSuccess: the rule is for a run none of whose
// calls succeeded; a key that stops working, or a mix of refusals, is not it: every call is made.
func TestTransportKeepsCallingServerThatRefusedAfterSuccess(t *testing.T) {
	const calls = 30
	tests := []struct {
		name   string
		ok     int
		status func(int) int
		body   string // "" for {"error":{"message":"no"}}
	}{
		{"200 then 401s", 1, always(401), ""},
		{"401 and 404 in turn", 0, func(n int) int { return 401 + 3*(n%2) }, ""},
		{"401s broken by a 400", 0, func(n int) int { return map[bool]int{true: 400, false: 401}[n%5 == 0] }, ""},
		// A 400 says what was wrong with that request: only one that refuses the key stops the calls.
		{"400s", 0, always(400), ""},
		{"anthropic prompts too long", 0, always(400), `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`},
		{"gemini images refused, openai endpoint", 0, always(400), `[{"error":{"code":400,"message":"Provided image is not valid.","status":"INVALID_ARGUMENT"}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, served := refusingServer(t, tt.ok, tt.status, cmp.Or(tt.body, `{"error":{"message":"no"}}`))
			tr := NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond, Seed: 1, Concurrency: 1})
			c, err := Setup{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey, Transport: tr}.Client(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for i, err := range generateEach(c, testRequest("openai", "gpt-4o-mini"), calls, 1) {
				if _, stopped := errors.AsType[*StoppedError](err); stopped {
					t.Fatalf("call %d: error = %v, want a call made", i, err)
				}
			}
			if got := served.Load(); got != calls {
				t.Errorf("the server got %d requests, want %d (every call made)", got, calls)
			}
			if err := tr.Stopped(); err != nil {
				t.Errorf("Stopped() = %v, want nil", err)
			}
			if w := tr.StopWarning("rerun"); w != "" {
				t.Errorf("StopWarning = %q, want none", w)
			}
		})
	}
}

// TestStopWarningNoCallLeft: a run whose last call is the one that reached the limit stops with
// no call left to make; the warning says so, where it said "0 calls were not made and their
// records carry the error …", an error no record carries.
func TestStopWarningNoCallLeft(t *testing.T) {
	limit := stopLimit(1)
	srv, _ := refusingServer(t, 0, always(401), `{"error":{"message":"bad key"}}`)
	tr := NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond, Seed: 1, Concurrency: 1})
	c, err := Setup{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey, Transport: tr}.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range generateEach(c, testRequest("openai", "gpt-4o-mini"), limit, 1) {
		if _, stopped := errors.AsType[*StoppedError](err); err == nil || stopped {
			t.Fatalf("call %d: error = %v, want a call made and refused", i, err)
		}
	}
	w := tr.StopWarning("rerun X")
	want := fmt.Sprintf("warning: calls stopped: %s refused the first %d calls with HTTP 401 (the first reply: bad key); no call was left to make (rerun X once the API key is right)", srv.URL, limit)
	if w != want {
		t.Errorf("StopWarning = %q, want %q", w, want)
	}
}

// TestReplyWordsRedacts: the server's words lose the API key the call carried, in whichever
// header or parameter it went, from four characters up; a shorter one, which would blank
// common words, is left.
func TestReplyWordsRedacts(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*http.Request, string)
		key  string
		want string
	}{
		{"bearer", func(r *http.Request, k string) { r.Header.Set("Authorization", "Bearer "+k) }, "abcd", "Incorrect API key provided: [redacted]."},
		{"x-api-key", func(r *http.Request, k string) { r.Header.Set("x-api-key", k) }, "sk-ant-1", "Incorrect API key provided: [redacted]."},
		{"x-goog-api-key", func(r *http.Request, k string) { r.Header.Set("x-goog-api-key", k) }, "AIza1", "Incorrect API key provided: [redacted]."},
		{"key parameter", func(r *http.Request, k string) { r.URL.RawQuery = "key=" + k }, "AIza2", "Incorrect API key provided: [redacted]."},
		{"too short", func(r *http.Request, k string) { r.Header.Set("Authorization", "Bearer "+k) }, "abc", "Incorrect API key provided: abc."},
	} {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/v1/chat/completions", nil)
		tc.set(req, tc.key)
		body := `{"error":{"message":"Incorrect API key provided: ` + tc.key + `."}}`
		if got := replyWords([]byte(body), req); got != tc.want {
			t.Errorf("%s: replyWords = %q, want %q", tc.name, got, tc.want)
		}
	}
}
