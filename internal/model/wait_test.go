package model

import (
	"net/http"
	"testing"
	"time"
)

// TestQuotaSpent: a 429 is final when its body says that a quota ran out which no wait within
// the run restores: OpenAI's insufficient_quota, in the error's type or its code (older replies
// give it in the type with a null code), or a Gemini quota per day. The words in a message alone,
// or a Gemini quota per minute, are no spent quota.
func TestQuotaSpent(t *testing.T) {
	gemini := func(quotaID string) string {
		return `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"` + quotaID + `"}]}]}}`
	}
	for _, tc := range []struct {
		name string
		body string
		want bool
	}{
		{"type and code", `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, true},
		{"type only", `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":null}}`, true},
		{"code only", `{"error":{"message":"You exceeded your current quota","type":"requests","code":"insufficient_quota"}}`, true},
		{"in the message only", `{"error":{"message":"not insufficient_quota but a rate limit","type":"requests","code":"rate_limit_exceeded"}}`, false},
		{"rate limit", `{"error":{"message":"Rate limit reached","type":"tokens","code":"rate_limit_exceeded"}}`, false},
		{"gemini per day", gemini("GenerateRequestsPerDayPerProjectPerModel-FreeTier"), true},
		{"gemini per day, streamed", "[" + gemini("GenerateRequestsPerDayPerProjectPerModel-FreeTier") + "]", true},
		{"gemini per minute", gemini("GenerateRequestsPerMinutePerProjectPerModel-FreeTier"), false},
		{"no body", ``, false},
	} {
		if got := quotaSpent([]byte(tc.body)); got != tc.want {
			t.Errorf("quotaSpent(%s: %s) = %v, want %v", tc.name, tc.body, got, tc.want)
		}
	}
}

// TestServerWaitRetryDelay: a Gemini RetryInfo's retryDelay is the wait, at most the limit; one
// of no time or less is no wait (0, the backoff), never a negative wait, which the retry loop
// takes for a final reply.
func TestServerWaitRetryDelay(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		delay string
		want  time.Duration
	}{
		{"45.5s", 45500 * time.Millisecond},
		{"300s", time.Minute},
		{"0s", 0},
		{"-3s", 0},
		{"soon", 0},
		{"1m", 0}, // no protobuf duration, which is in seconds: not read as one
	} {
		body := `{"error":{"code":429,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + tc.delay + `"}]}}`
		if got := serverWait(http.Header{}, []byte(body), now, time.Minute); got != tc.want {
			t.Errorf("serverWait(retryDelay %q) = %v, want %v", tc.delay, got, tc.want)
		}
	}
}

// TestGate: a 429 halves the requests in flight, but never below one, which would admit none;
// and every limit successes in a row raise the limit by one, up to its start.
func TestGate(t *testing.T) {
	g := newGate(1)
	<-g.tokens
	g.release(false, true)
	if got := g.current(); got != 1 {
		t.Errorf("limit of a gate of 1 after a 429 = %d, want 1", got)
	}
	if len(g.tokens) != 1 {
		t.Errorf("gate of 1 after a 429 holds %d tokens, want 1", len(g.tokens))
	}

	g = newGate(8)
	<-g.tokens
	g.release(false, true) // 8 → 4
	for i, want := range []int{4, 4, 4, 5} {
		<-g.tokens
		g.release(true, false)
		if got := g.current(); got != want {
			t.Errorf("limit after %d successes from 4 = %d, want %d", i+1, got, want)
		}
	}
}

// TestInBandErrorBody: a 200 reply holds an error when its "error" member has a message (or is
// one) and it holds no answer; "choices": null is none. An error without a message is no error
// of the reply's (see shapeFault), and neither is one beside an answer.
func TestInBandErrorBody(t *testing.T) {
	for _, tc := range []struct {
		body string
		want *InBandError
	}{
		{`{"error":{"code":502,"message":"Provider returned error"}}`, &InBandError{Code: 502, Message: "Provider returned error"}},
		{`{"choices":null,"error":{"code":403,"message":"flagged"}}`, &InBandError{Code: 403, Message: "flagged"}},
		{`[{"candidates":[]},{"error":{"code":503,"message":"overloaded"}}]`, &InBandError{Code: 503, Message: "overloaded"}},
		{`{"error":{"code":"server_error","message":"oops"}}`, &InBandError{Message: "oops"}},
		{`{"error":{"code":502}}`, nil},
		{`{"error":{"code":502,"message":""}}`, nil},
		{`{"choices":[{"index":0}],"error":{"code":502,"message":"late"}}`, nil},
		{`{"error":null}`, nil},
		// An error that is a string (Ollama's) names no code.
		{`{"error":"model runner has unexpectedly stopped"}`, &InBandError{Message: "model runner has unexpectedly stopped"}},
		{`{"error":" out of memory \n","error_type":"x"}`, &InBandError{Message: "out of memory"}},
		{`[{"error":"stream failed"}]`, &InBandError{Message: "stream failed"}},
		{`{"error":""}`, nil},
		{`{"error":"  "}`, nil},
		{`{"choices":[{"index":0}],"error":"late"}`, nil},
		// No choice is no answer: the error beside an empty list is the reply's.
		{`{"choices":[],"error":{"code":502,"message":"late"}}`, &InBandError{Code: 502, Message: "late"}},
		{`{"choices":[ ],"error":"gone"}`, &InBandError{Message: "gone"}},
		// Anthropic's error object, which names a type and no code: the type's status.
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, &InBandError{Code: 529, Type: "overloaded_error", Message: "Overloaded"}},
		{`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, &InBandError{Code: 429, Type: "rate_limit_error", Message: "slow down"}},
		{`{"type":"error","error":{"type":"api_error","message":"internal"}}`, &InBandError{Code: 500, Type: "api_error", Message: "internal"}},
		{`{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}`, &InBandError{Code: 400, Type: "invalid_request_error", Message: "bad"}},
		{`{"type":"error","error":{"type":"something_new","message":"?"}}`, &InBandError{Message: "?"}},
		{`{"error":{"type":"overloaded_error","code":503,"message":"busy"}}`, &InBandError{Code: 503, Message: "busy"}},
		// OpenAI's error object names a type too, but is no Anthropic one: its code is its own.
		{`{"error":{"type":"invalid_request_error","code":"some_code","message":"bad"}}`, &InBandError{Message: "bad"}},
	} {
		got := inBandError([]byte(tc.body))
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("inBandError(%s) = %+v, want %+v", tc.body, got, tc.want)
		}
	}
}

// TestInBandErrorWords: a code taken from an Anthropic error's type is said to be its API's
// status for the type, not a code the reply held.
func TestInBandErrorWords(t *testing.T) {
	for _, tc := range []struct {
		e    InBandError
		want string
	}{
		{InBandError{Code: 529, Type: "overloaded_error", Message: "Overloaded"}, "reply with status 200 holds an error of type overloaded_error (status 529 at its API): Overloaded"},
		{InBandError{Code: 502, Message: "Provider returned error"}, "reply with status 200 holds error 502: Provider returned error"},
		{InBandError{Message: "bad"}, "reply with status 200 holds an error: bad"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}
