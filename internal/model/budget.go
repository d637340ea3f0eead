package model

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/record"
)

// ErrBudget marks a call that was not made because the run's --max-cost was spent.
var ErrBudget = errors.New("budget spent")

// Budget meters what a run's replies cost and stops new calls once MaxUSD is spent. One Budget
// may wrap several clients (qa-predict's model and its EvaLearn judge), which then share it.
// Calls already in flight when the limit is reached finish, so a run can end above MaxUSD by
// what those cost.
type Budget struct {
	MaxUSD float64
	Prices Prices

	mu        sync.Mutex
	spent     Dollars
	refused   int
	unmetered bool // a reply came without token usage
}

// Refused returns how many calls were not made because the budget was spent.
func (b *Budget) Refused() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refused
}

// Warning returns the line a command prints when calls were refused, or "".
func (b *Budget) Warning() string {
	if b == nil || b.Refused() == 0 {
		return ""
	}
	b.mu.Lock()
	unmetered := b.unmetered
	b.mu.Unlock()
	n := b.Refused()
	records := english.Form(n, "its record carries", "their records carry")
	if unmetered {
		return fmt.Sprintf("warning: --max-cost $%s cannot be kept: the server reported no token usage for a reply, so %s not made, %s the error (rerun without --max-cost)",
			english.USD(b.MaxUSD), english.Count(n, "call was", "calls were"), records)
	}
	return fmt.Sprintf("warning: --max-cost $%s reached ($%s spent): %s not made, %s the error (rerun with --retry-errors and a larger --max-cost)",
		english.USD(b.MaxUSD), english.USD(b.Spent()), english.Count(n, "call", "calls"), records)
}

// Spent returns what the replies have cost so far (their exact sum, nearest a float64).
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent.Float64()
}

// Priced reports whether a reply of model can be metered (its price is known).
func (b *Budget) Priced(model string) bool {
	return b.Prices.Cost(model, record.Usage{}) != nil
}

// Wrap returns next metered by b. Put it inside a cache: replies the cache serves cost nothing
// and are never refused.
func (b *Budget) Wrap(next Client) Client { return budgetClient{b, next} }

type budgetClient struct {
	b    *Budget
	next Client
}

func (c budgetClient) Generate(ctx context.Context, req Request) (Response, error) {
	c.b.mu.Lock()
	unmetered, reached := c.b.unmetered, c.b.spent.AtLeast(c.b.MaxUSD)
	var spent float64 // for the refusal's words only
	if reached || unmetered {
		c.b.refused++
		spent = c.b.spent.Float64()
	}
	c.b.mu.Unlock()
	switch {
	case unmetered:
		return Response{}, fmt.Errorf("%w: the server reported no token usage for a reply, so what the run spends cannot be counted against --max-cost $%s, and this call was not made", ErrBudget, english.USD(c.b.MaxUSD))
	case reached:
		return Response{}, fmt.Errorf("%w: $%s of --max-cost $%s, so this call was not made", ErrBudget, english.USD(spent), english.USD(c.b.MaxUSD))
	}
	resp, err := c.next.Generate(ctx, req)
	if resp.Cached || resp.Usage.IsZero() && !resp.NoUsage {
		return resp, err // served from the cache, or no reply (a failed call): nothing to pay
	}
	if resp.NoUsage {
		// The server says nothing of what the reply cost: from now on the limit cannot be kept.
		c.b.mu.Lock()
		c.b.unmetered = true
		c.b.mu.Unlock()
		return resp, err
	}
	// A reply is paid for even when it is no answer (an empty reply is an error), and so is each
	// failed one before it that the server billed, priced as its own (Response.Billed).
	cost := c.b.Prices.CostOf(cmp.Or(resp.Model, req.Model), resp.Billed()...)
	if cost == nil {
		cost = c.b.Prices.CostOf(req.Model, resp.Billed()...)
	}
	if cost != nil {
		c.b.mu.Lock()
		c.b.spent.Add(*cost)
		c.b.mu.Unlock()
	}
	return resp, err
}

// NoPriceNote is what a dry run's summary line says in place of the input's price for a model
// the price table does not have, as a run warns of the cost_usd it leaves empty.
const NoPriceNote = "no price (add it with --prices)"

// DryRunWarning returns the warning a dry run prints when its requests' input alone, priced at
// inputUSD, exceeds a --max-cost of maxUSD (0: none), or "".
func DryRunWarning(inputUSD, maxUSD float64) string {
	if maxUSD <= 0 || inputUSD <= maxUSD {
		return ""
	}
	return fmt.Sprintf("warning: the requests' input alone costs $%s, more than --max-cost $%s: the run would stop part way", english.USD(inputUSD), english.USD(maxUSD))
}
