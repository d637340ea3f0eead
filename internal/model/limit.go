package model

import (
	"context"
	"sync"
	"time"
)

// Limiter is a token bucket refilled continuously at a rate per minute, with a burst of one
// minute's worth. Wait reserves tokens first and then sleeps off any deficit, so waiters are served
// in arrival order and a reservation larger than the bucket still goes through (after its wait).
type Limiter struct {
	mu     sync.Mutex
	perSec float64
	burst  float64
	tokens float64
	last   time.Time
	now    func() time.Time
	sleep  func(context.Context, time.Duration) error
}

// NewLimiter returns a Limiter allowing perMinute tokens a minute. sleep may be nil (a real timer).
func NewLimiter(perMinute float64, sleep func(context.Context, time.Duration) error) *Limiter {
	if sleep == nil {
		sleep = Sleep
	}
	return &Limiter{perSec: perMinute / 60, burst: perMinute, tokens: perMinute, now: time.Now, sleep: sleep}
}

// Wait takes n tokens, waiting until the bucket has paid for them or ctx is done.
func (l *Limiter) Wait(ctx context.Context, n float64) error {
	if l == nil || n <= 0 {
		return nil
	}
	l.mu.Lock()
	now := l.now()
	l.refill(now)
	l.tokens -= n
	var wait time.Duration
	if l.tokens < 0 {
		wait = time.Duration(-l.tokens / l.perSec * float64(time.Second))
	}
	l.mu.Unlock()
	if err := l.sleep(ctx, wait); err != nil {
		l.Adjust(-n) // give the reservation back
		return err
	}
	return nil
}

// Adjust charges delta more tokens (or refunds -delta), e.g. once a reply's real usage is known.
func (l *Limiter) Adjust(delta float64) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.refill(l.now())
	l.tokens = min(l.tokens-delta, l.burst)
	l.mu.Unlock()
}

func (l *Limiter) refill(now time.Time) {
	if !l.last.IsZero() {
		l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.perSec)
	}
	l.last = now
}

// gate bounds the requests in flight with an additive-increase, multiplicative-decrease limit:
// a 429 halves the limit, and every limit consecutive successes raise it by one, up to max.
// Tokens circulate through a channel; a lowered limit is applied by not returning (debt) tokens.
type gate struct {
	tokens chan struct{}
	mu     sync.Mutex
	limit  int
	max    int
	debt   int
	succ   int
}

func newGate(n int) *gate {
	g := &gate{tokens: make(chan struct{}, n), limit: n, max: n}
	for range n {
		g.tokens <- struct{}{}
	}
	return g
}

func (g *gate) acquire(ctx context.Context) error {
	select {
	case <-g.tokens:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) release(ok, throttled bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case throttled:
		g.succ = 0
		if n := max(1, g.limit/2); n < g.limit {
			g.debt += g.limit - n
			g.limit = n
		}
	case ok:
		g.succ++
		if g.succ >= g.limit && g.limit < g.max {
			g.succ = 0
			g.limit++
			g.give()
		}
	}
	g.give()
}

// give returns one token to circulation, or pays one of debt.
func (g *gate) give() {
	if g.debt > 0 {
		g.debt--
		return
	}
	g.tokens <- struct{}{}
}

func (g *gate) current() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.limit
}
