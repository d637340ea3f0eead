package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestBudgetWarning: the warning counts the calls not made, in the singular when there is one.
func TestBudgetWarning(t *testing.T) {
	for _, tc := range []struct {
		refused   int
		unmetered bool
		want      string
	}{
		{0, false, ""},
		{1, false, "warning: --max-cost $1.000000 reached ($0.500000 spent): 1 call not made, its record carries the error (rerun with --retry-errors and a larger --max-cost)"},
		{2, false, "warning: --max-cost $1.000000 reached ($0.500000 spent): 2 calls not made, their records carry the error (rerun with --retry-errors and a larger --max-cost)"},
		{1, true, "warning: --max-cost $1.000000 cannot be kept: the server reported no token usage for a reply, so 1 call was not made, its record carries the error (rerun without --max-cost)"},
		{3, true, "warning: --max-cost $1.000000 cannot be kept: the server reported no token usage for a reply, so 3 calls were not made, their records carry the error (rerun without --max-cost)"},
	} {
		b := &Budget{MaxUSD: 1, refused: tc.refused, unmetered: tc.unmetered}
		b.spent.Add(0.5)
		if got := b.Warning(); got != tc.want {
			t.Errorf("Budget{refused: %d, unmetered: %v}.Warning() = %q, want %q", tc.refused, tc.unmetered, got, tc.want)
		}
	}
}

// TestBudgetExactSum: the budget adds its replies' costs as the decimals they are. Replies of
// $0.10 and $0.70 have spent a --max-cost of $0.80, where their float sum, 0.7999999999999999,
// falls short of it and would let a third call through.
func TestBudgetExactSum(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		prompt := []int{1, 7, 1}[min(calls.Add(1), 3)-1] // tokens: $0.10, then $0.70, then $0.10
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":1,"total_tokens":%d}}`, prompt, prompt+1)
	}))
	defer srv.Close()
	next, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	b := &Budget{MaxUSD: 0.8, Prices: Prices{"m": {Input: 100_000}}} // $0.10 a prompt token, output free
	c := b.Wrap(next)
	for i, want := range []error{nil, nil, ErrBudget} {
		_, err := c.Generate(context.Background(), testRequest("openai", "m"))
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Fatalf("call %d: error %v, want %v", i+1, err, want)
		}
	}
	if got := calls.Load(); got != 2 {
		t.Errorf("%d calls reached the server, want 2", got)
	}
	if got := b.Spent(); got != 0.8 {
		t.Errorf("Spent() = %v, want 0.8", got)
	}
}

// stubClient answers every call with its reply.
type stubClient struct{ resp Response }

func (c stubClient) Generate(context.Context, Request) (Response, error) { return c.resp, nil }

// TestBudgetCharges: a reply is charged at the price of its Response.Model, else at the requested
// model's when that name has none; a reply served from a cache costs nothing. (The chat client
// sets Response.Model to the requested model, so the first rule matters only to a Client that
// names another: the stub here.)
func TestBudgetCharges(t *testing.T) {
	prices := Prices{"m": {Input: 1_000_000}, "n": {Input: 2_000_000}} // $1 and $2 a prompt token
	usage := record.Usage{InputTokens: 1, OutputTokens: 1}
	for _, tc := range []struct {
		name string
		resp Response
		want float64
	}{
		{"the server's model", Response{Model: "n", Usage: usage}, 2},
		{"no model named", Response{Usage: usage}, 1},
		{"a model of no price", Response{Model: "my-deployment", Usage: usage}, 1},
		{"from a cache", Response{Model: "m", Usage: usage, Cached: true}, 0},
	} {
		b := &Budget{MaxUSD: 100, Prices: prices}
		if _, err := b.Wrap(stubClient{tc.resp}).Generate(context.Background(), Request{Model: "m"}); err != nil {
			t.Fatal(err)
		}
		if got := b.Spent(); got != tc.want {
			t.Errorf("%s: Spent() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestDryRunWarning: a dry run warns when the input alone costs more than --max-cost; as much
// as it, or no --max-cost, is no warning.
func TestDryRunWarning(t *testing.T) {
	for _, tc := range []struct {
		input, max float64
		warns      bool
	}{
		{2, 1, true},
		{1, 1, false},
		{0.5, 1, false},
		{2, 0, false},
	} {
		if got := DryRunWarning(tc.input, tc.max); (got != "") != tc.warns {
			t.Errorf("DryRunWarning(%v, %v) = %q, want a warning: %v", tc.input, tc.max, got, tc.warns)
		}
	}
}

// TestBudgetFreeCachedRate: a --prices file that gives a cached rate of 0 makes the prompt tokens
// the provider served from its cache free, as an input rate of 0 makes the input, where a cached
// rate left out prices them at the input rate.
func TestBudgetFreeCachedRate(t *testing.T) {
	// 2006 prompt tokens, 1920 of them from OpenAI's prompt cache.
	reply := `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2006,"completion_tokens":3,"total_tokens":2009,"prompt_tokens_details":{"cached_tokens":1920}}}`
	for _, tc := range []struct {
		file string
		want float64
	}{
		{"m: {input: 1000000, output: 0, cached: 0}", 86},
		{"m: {input: 1000000, output: 0}", 2006},
		{"m: {input: 1000000, output: 0, cached: 500000}", 1046},
	} {
		prices, err := ParsePrices([]byte(tc.file))
		if err != nil {
			t.Fatal(err)
		}
		srv, _ := replayServer(t, []string{reply}, nil)
		b := &Budget{MaxUSD: 1e6, Prices: prices}
		if _, err := b.Wrap(retryingOpenAI(t, srv.URL, 0)).Generate(context.Background(), testRequest("openai", "m")); err != nil {
			t.Fatal(err)
		}
		if got := b.Spent(); got != tc.want {
			t.Errorf("--prices %q: Spent() = %v, want %v", tc.file, got, tc.want)
		}
	}
}
