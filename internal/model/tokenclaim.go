package model

import (
	"context"
	"sync"

	"github.com/qapipe/qapipe/pkg/record"
)

// tokenClaim is a call's --tpm reservation: the tokens it is estimated to take, reserved by the
// Transport as each attempt is sent, at the start its --rpm reservation gets (waitAll), so that
// both limits count the request when it goes out. The chat layer settles the latest attempt's
// reservation by the reply's usage.
type tokenClaim struct {
	l *Limiter
	n float64

	mu   sync.Mutex
	slot *Slot // the latest attempt's
	kept bool  // slot is settled by its reply's usage, though the call goes on (billed)
}

type tokenClaimKey struct{}

// withTokens returns a context under which a Transport reserves n tokens of l for each attempt it
// sends, and the claim that holds the latest reservation; a nil l claims none (ctx, nil).
func withTokens(ctx context.Context, l *Limiter, n float64) (context.Context, *tokenClaim) {
	if l == nil {
		return ctx, nil
	}
	tc := &tokenClaim{l: l, n: n}
	return context.WithValue(ctx, tokenClaimKey{}, tc), tc
}

// tokensOf returns the claim of the call under ctx, or nil.
func tokensOf(ctx context.Context) *tokenClaim {
	tc, _ := ctx.Value(tokenClaimKey{}).(*tokenClaim)
	return tc
}

// claim is tc's units of its limiter, none for a nil tc.
func (tc *tokenClaim) claim() claim {
	if tc == nil {
		return claim{}
	}
	return claim{tc.l, tc.n}
}

// hold keeps s, a new attempt's reservation, as the one to settle. The reservation of an attempt
// before it, which failed and is retried, is given back, as a failed call's is, unless its reply
// was billed (billed).
func (tc *tokenClaim) hold(s *Slot) {
	if tc == nil {
		return
	}
	tc.mu.Lock()
	prev, kept := tc.slot, tc.kept
	tc.slot, tc.kept = s, false
	tc.mu.Unlock()
	if !kept {
		prev.Settle(0)
	}
}

// billed settles the latest attempt's reservation by u, the usage its reply reports, a reply that
// its server processed and billed though the call may retry it (a failed generation): the
// provider's token limit counted it, so a retry does not give it back. A usage unknown leaves it
// to be given back, as a failed call's reply without usage is (chat.generationFailed).
func (tc *tokenClaim) billed(u record.Usage) {
	if tc == nil {
		return
	}
	u, unknown := knownUsage(u, false)
	if unknown {
		return
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.slot.Settle(float64(u.InputTokens + u.OutputTokens))
	tc.kept = true
}

// Slot returns the latest attempt's reservation: nil for a nil tc, or when no attempt was sent.
func (tc *tokenClaim) Slot() *Slot {
	if tc == nil {
		return nil
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.slot
}
