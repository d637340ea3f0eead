package model

import (
	"context"
	"sync"
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
// before it, which failed and is retried, is given back, as a failed call's is.
func (tc *tokenClaim) hold(s *Slot) {
	if tc == nil {
		return
	}
	tc.mu.Lock()
	prev := tc.slot
	tc.slot = s
	tc.mu.Unlock()
	prev.Settle(0)
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
