package model

// This file reads what a failed reply says about trying again: how long to wait, or that no wait
// within a run will do.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// serverWait is the wait before retrying that a transient failure's reply asks for, at most
// limit: its Retry-After-Ms header (milliseconds, which the OpenAI and Anthropic SDKs read before
// Retry-After, and Azure OpenAI sends), else its Retry-After header, else the retryDelay of a
// google.rpc.RetryInfo in its body, which is how the Gemini API says it (it sends no
// Retry-After); 0 when it asks for none.
func serverWait(h http.Header, body []byte, now time.Time, limit time.Duration) time.Duration {
	// ParseFloat gives 0 for what is no number, and ±Inf past float64's range.
	if ms, _ := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); ms > 0 {
		if ms >= float64(limit.Milliseconds()) {
			return limit
		}
		return time.Duration(ms * float64(time.Millisecond))
	}
	if ra := h.Get("Retry-After"); ra != "" {
		return retryAfter(ra, now, limit)
	}
	for _, d := range googleDetails(body) {
		if !strings.HasSuffix(d.Type, "google.rpc.RetryInfo") || !strings.HasSuffix(d.RetryDelay, "s") {
			continue
		}
		// A protobuf duration in JSON: decimal seconds with an "s", such as "45.837906927s".
		if w, err := time.ParseDuration(d.RetryDelay); err == nil && w > 0 {
			return min(w, limit)
		}
	}
	return 0
}

// rateLimitReset is the wait before retrying a 429 that asks for none (see serverWait) that its
// OpenAI rate-limit headers give, at most limit: the time until the limit that ran out is whole
// again (durations such as "1s", "6m0s" or "20ms"), so that the retries are not all spent within
// the window the limit is counted over; 0 when the reply says none. The limit that ran out is
// told by x-ratelimit-remaining-requests: with requests left, the tokens ran out
// (x-ratelimit-reset-tokens: a request may need more tokens than are left, which is more than
// none); with none left, the requests did (x-ratelimit-reset-requests), and the tokens too when
// x-ratelimit-remaining-tokens is 0 (the longer of the two resets). A reply that does not say
// how many requests are left waits the longer of the two.
//
// Note: the time until the limit is whole again can be longer than the time until the call fits
// (which the headers do not say); the wait is the one that no call of the run that was within the
// limit fails after, where the backoff's retries (about 15s in all) can all fall within a minute.
// Waiting for the limit that did not run out (a tokens reset of minutes after the requests of a
// minute ran out) was waiting for nothing.
func rateLimitReset(h http.Header, limit time.Duration) time.Duration {
	reset := func(name string) time.Duration {
		if d, err := time.ParseDuration(strings.TrimSpace(h.Get(name))); err == nil && d > 0 {
			return d
		}
		return 0
	}
	left := func(name string) (int64, bool) {
		n, err := strconv.ParseInt(strings.TrimSpace(h.Get(name)), 10, 64)
		return n, err == nil && n >= 0
	}
	requests, tokens := reset("X-Ratelimit-Reset-Requests"), reset("X-Ratelimit-Reset-Tokens")
	wait := max(requests, tokens)
	if r, ok := left("X-Ratelimit-Remaining-Requests"); ok {
		switch t, ok := left("X-Ratelimit-Remaining-Tokens"); {
		case r > 0:
			wait = tokens
		case !ok || t > 0:
			wait = requests
		}
	}
	return min(wait, limit)
}

// quotaSpent reports whether a 429 reply's body says that a quota ran out which no wait within
// the run restores, so that retrying only spends time: OpenAI's insufficient_quota (an account out
// of credit, or over its monthly limit) and a Gemini quota per day (a QuotaFailure whose quotaId
// says PerDay), although the Gemini API still gives a retryDelay of seconds for it.
func quotaSpent(body []byte) bool {
	if bytes.Contains(body, []byte("insufficient_quota")) {
		var r struct {
			Error *struct {
				Code any    `json:"code"`
				Type string `json:"type"`
			} `json:"error"`
		}
		if json.Unmarshal(body, &r) == nil && r.Error != nil && (r.Error.Code == "insufficient_quota" || r.Error.Type == "insufficient_quota") {
			return true
		}
	}
	for _, d := range googleDetails(body) {
		for _, v := range d.Violations {
			if strings.HasSuffix(d.Type, "google.rpc.QuotaFailure") && strings.Contains(v.QuotaID, "PerDay") {
				return true
			}
		}
	}
	return false
}

// googleDetail is one of the details of a Google API error.
type googleDetail struct {
	Type       string `json:"@type"`
	RetryDelay string `json:"retryDelay"` // google.rpc.RetryInfo
	Reason     string `json:"reason"`     // google.rpc.ErrorInfo
	Violations []struct {
		QuotaID string `json:"quotaId"`
	} `json:"violations"` // google.rpc.QuotaFailure
}

// googleDetails returns the details of a Google API error body: {"error": {"details": […]}}, or
// the array of one such object that the streamed endpoint answers; none for another body.
func googleDetails(body []byte) []googleDetail {
	if !bytes.Contains(body, []byte(`"details"`)) {
		return nil // the common case, without decoding
	}
	type googleError struct {
		Error *struct {
			Details []googleDetail `json:"details"`
		} `json:"error"`
	}
	var errs []googleError
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		if json.Unmarshal(t, &errs) != nil {
			return nil
		}
	} else {
		var e googleError
		if json.Unmarshal(t, &e) != nil {
			return nil
		}
		errs = []googleError{e}
	}
	var ds []googleDetail
	for _, e := range errs {
		if e.Error != nil {
			ds = append(ds, e.Error.Details...)
		}
	}
	return ds
}
