package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestRetriedFailedGenerationsArePaid: a failed generation (finish_reason "error") that the
// Transport retries was billed by its server, as its usage says: the call's usage is the sum of
// every reply it paid for, each kept apart (Billed) so that each is priced as its own call, and
// --max-cost counts them all. A reply of them without usage makes the call's usage unknown, as a
// last reply without usage does, and --max-cost can be kept no longer.
func TestRetriedFailedGenerationsArePaid(t *testing.T) {
	failed := openAIFailed(`"Par"`, "error", `,"error":{"code":502,"message":"Upstream error"}`) // 12 in, 1 out
	noUsage := failed[:strings.Index(failed, `,"usage"`)] + "}"
	ok := wires[0].reply // 12 in, 3 out
	gone := `{"error":{"message":"bad gateway","type":"server_error"}}`
	// $1 a prompt token, output free; a prompt of more than 20 tokens at $2 a token: the
	// replies' prompts together pass it, none alone does.
	prices := Prices{"m": {Input: 1_000_000, Long: LongPrice{Above: 20, Input: 2_000_000}}}
	fail, answer := record.Usage{InputTokens: 12, OutputTokens: 1}, record.Usage{InputTokens: 12, OutputTokens: 3}
	for _, tc := range []struct {
		name    string
		replies []string // in order; the last repeats
		status  []int    // the status of each reply, 200 past the list
		genFail bool     // the call fails with the GenerationError
		noUsage bool
		billed  []record.Usage
		spent   float64
	}{
		{name: "two failures, then an answer", replies: []string{failed, failed, ok},
			billed: []record.Usage{fail, fail, answer}, spent: 36},
		{name: "a failure, then an answer", replies: []string{failed, ok},
			billed: []record.Usage{fail, answer}, spent: 24},
		{name: "a failure throughout", replies: []string{failed}, genFail: true,
			billed: []record.Usage{fail, fail, fail}, spent: 36},
		{name: "a failure, then a status that fails", replies: []string{failed, gone}, status: []int{200, 502, 502},
			billed: []record.Usage{fail}, spent: 12},
		{name: "a failure without usage, then an answer", replies: []string{noUsage, ok}, noUsage: true},
		{name: "a failure, then one without usage", replies: []string{failed, noUsage}, genFail: true, noUsage: true},
		{name: "a failure, then an answer without usage", replies: []string{failed, ok[:strings.Index(ok, `,"usage"`)] + "}"}, noUsage: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := replayServer(t, tc.replies, tc.status)
			b := &Budget{MaxUSD: 1000, Prices: prices}
			c := b.Wrap(retryingOpenAI(t, srv.URL, 2))
			resp, err := c.Generate(context.Background(), testRequest("openai", "m"))
			if ge := (*GenerationError)(nil); errors.As(err, &ge) != tc.genFail {
				t.Errorf("error %v; want a failed generation's: %v", err, tc.genFail)
			}
			if fails := tc.genFail || len(tc.status) > 0; (err != nil) != fails {
				t.Errorf("error %v; want one: %v", err, fails)
			}
			if tc.noUsage {
				if !resp.NoUsage || !resp.Usage.IsZero() || resp.Billed() != nil && !reflect.DeepEqual(resp.Billed(), []record.Usage{{}}) {
					t.Errorf("usage %+v (unknown %v, billed %+v), want unknown", resp.Usage, resp.NoUsage, resp.Billed())
				}
				if _, err := c.Generate(context.Background(), testRequest("openai", "m")); !errors.Is(err, ErrBudget) {
					t.Errorf("the call after one of unknown usage: %v, want it refused (%v)", err, ErrBudget)
				}
				return
			}
			var sum record.Usage
			for _, u := range tc.billed {
				sum.InputTokens += u.InputTokens
				sum.OutputTokens += u.OutputTokens
			}
			if resp.NoUsage || !reflect.DeepEqual(resp.Usage, sum) || !reflect.DeepEqual(resp.Billed(), tc.billed) {
				t.Errorf("usage %+v (unknown %v), billed %+v; want %+v, billed %+v", resp.Usage, resp.NoUsage, resp.Billed(), sum, tc.billed)
			}
			if got := b.Spent(); got != tc.spent {
				t.Errorf("--max-cost counted $%v, want $%v (each reply priced as its own)", got, tc.spent)
			}
			if c := prices.CostOf("m", resp.Billed()...); c == nil || *c != tc.spent {
				t.Errorf("the replies' cost is %v, want $%v", fmtCost(c), tc.spent)
			}
		})
	}
}

// fmtCost is c as a test's message gives it: "unknown" for nil.
func fmtCost(c *float64) string {
	if c == nil {
		return "unknown"
	}
	return fmt.Sprintf("$%v", *c)
}

// TestTPMCountsBilledRetries: a failed generation that is retried was processed, and billed, by
// its server, whose token limit counts it: its reservation under --tpm is settled by its usage,
// not given back as a failed attempt's is; one without usage is given back, as a failed call's
// reply without usage is.
func TestTPMCountsBilledRetries(t *testing.T) {
	req := testRequest("openai", "m")
	est := EstimateTokens(req) + req.MaxTokens
	failed := openAIFailed(`"Par"`, "error", `,"error":{"code":502,"message":"Upstream error"}`) // 12 in, 1 out
	noUsage := failed[:strings.Index(failed, `,"usage"`)] + "}"
	for _, tc := range []struct {
		name  string
		first string
		want  int // the tokens the minute holds
	}{
		{"a failure with usage", failed, 13 + est},
		{"a failure without usage", noUsage, est},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			srv, calls := replayServer(t, []string{tc.first, parisOf(est)}, nil)
			c, tpm := tpmClient(t, srv.URL, clock)
			if _, err := c.Generate(context.Background(), req); err != nil || calls.Load() != 2 {
				t.Fatalf("Generate: %v after %d requests, want an answer after 2", err, calls.Load())
			}
			if got := tpm.held(clock.Now()); got != float64(tc.want) {
				t.Errorf("the minute holds %v tokens, want %d", got, tc.want)
			}
		})
	}
}

// TestBilledRetryNotMade: a failed generation whose retry a finishing run does not make (it
// waited for the rate limit) was billed all the same: the call, not called in the end, keeps its
// usage, and --max-cost counts it, as it counts one whose retry failed.
func TestBilledRetryNotMade(t *testing.T) {
	failed := openAIFailed(`"Par"`, "error", `,"error":{"code":502,"message":"Upstream error"}`) // 12 in, 1 out
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, failed)
	}))
	defer srv.Close()
	ctx, finish := interrupt.WithFinish(context.Background())
	sleep := func(ctx context.Context, d time.Duration) error {
		if d > 0 {
			finish() // asked while the retry waits for --rpm
			<-ctx.Done()
		}
		return ctx.Err()
	}
	tr := NewTransport(TransportConfig{MaxRetries: 2, Backoff: -1, RPM: 1, Seed: 1, Sleep: sleep})
	next, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
	if err != nil {
		t.Fatal(err)
	}
	b := &Budget{MaxUSD: 1000, Prices: Prices{"m": {Input: 1_000_000}}}
	resp, err := b.Wrap(next).Generate(ctx, testRequest("openai", "m"))
	if !errors.Is(err, interrupt.ErrNotCalled) || calls.Load() != 1 {
		t.Fatalf("Generate: %v after %d requests; want the retry not called after 1", err, calls.Load())
	}
	want := record.Usage{InputTokens: 12, OutputTokens: 1}
	if resp.NoUsage || !reflect.DeepEqual(resp.Usage, want) || !reflect.DeepEqual(resp.Billed(), []record.Usage{want}) {
		t.Errorf("usage %+v (unknown %v), billed %+v; want the failed generation's, %+v", resp.Usage, resp.NoUsage, resp.Billed(), want)
	}
	if got := b.Spent(); got != 12 {
		t.Errorf("--max-cost counted $%v, want $12", got)
	}
}
