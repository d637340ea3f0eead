package model

import (
	"context"
	"sync"
	"time"
)

// Limiter admits at most a limit of units (requests, or tokens) in any one window, a minute
// (see NewLimiter for limits below 1): it keeps the reservations of the last window, and gives
// each new one the earliest start, no earlier than the one before it, at which the window up to
// that start holds no more than the limit. A run
// may so spend the whole limit at once, and then goes at the pace the window slides. Waiters are
// served in arrival order; a reservation larger than the limit goes alone.
//
// Note: a token bucket with a minute's burst, used before, let twice the limit through in the
// first minute.
type Limiter struct {
	mu     sync.Mutex
	limit  float64
	window time.Duration
	slots  []*Slot // the reservations that start within the last window or later, in start order
	now    func() time.Time
	sleep  func(context.Context, time.Duration) error
}

// Slot is one reservation of a Limiter.
type Slot struct {
	l  *Limiter
	at time.Time
	n  float64
}

// NewLimiter returns a Limiter allowing perMinute units a minute. sleep may be nil (a real timer).
// A limit below 1 a minute (--rpm 0.5) allows 1 unit in 1/perMinute minutes (one in two): a
// request of 1, larger than the limit, would otherwise go alone once a minute, twice the rate.
func NewLimiter(perMinute float64, sleep func(context.Context, time.Duration) error) *Limiter {
	if sleep == nil {
		sleep = Sleep
	}
	limit, window := perMinute, time.Minute
	if perMinute > 0 && perMinute < 1 {
		limit, window = 1, time.Duration(float64(time.Minute)/perMinute)
	}
	return &Limiter{limit: limit, window: window, now: time.Now, sleep: sleep}
}

// Wait reserves n units and waits until their start, or until ctx is done (the reservation is
// then given back). A nil Limiter admits everything at once.
func (l *Limiter) Wait(ctx context.Context, n float64) (*Slot, error) {
	slots, err := waitAll(ctx, claim{l, n})
	if err != nil {
		return nil, err
	}
	return slots[0], nil
}

// claim is n units of a Limiter's, for waitAll.
type claim struct {
	l *Limiter
	n float64
}

// waitAll reserves every claim's units at one start, the earliest at which each of their limiters
// admits them, and waits until then, or until ctx is done (the reservations are then given back).
// The Slots are the claims', in their order; a claim of a nil Limiter, or of no units, is admitted
// at once with a nil Slot. The limiters are locked in the order given, which every caller keeps
// (the Transport's: requests, then tokens), and the first one's clock and sleep are used.
//
// Note: a request waited for its --tpm reservation and then for its --rpm one, each placed when
// its wait began; the request, sent at the later time, had been counted by the first limiter at
// the earlier, and a minute of requests sent could hold more tokens than --tpm.
func waitAll(ctx context.Context, claims ...claim) ([]*Slot, error) {
	slots := make([]*Slot, len(claims))
	var live []int
	for i, c := range claims {
		if c.l != nil && c.n > 0 {
			live = append(live, i)
		}
	}
	if len(live) == 0 {
		return slots, nil
	}
	first := claims[live[0]].l
	now := first.now()
	for _, i := range live {
		claims[i].l.mu.Lock()
		claims[i].l.prune(now)
	}
	start := now
	for moved := true; moved; {
		moved = false
		for _, i := range live {
			if s := claims[i].l.earliest(start, claims[i].n); s.After(start) {
				start, moved = s, true
			}
		}
	}
	for _, i := range live {
		l := claims[i].l
		slots[i] = &Slot{l: l, at: start, n: claims[i].n}
		l.slots = append(l.slots, slots[i])
	}
	for k := len(live) - 1; k >= 0; k-- {
		claims[live[k]].l.mu.Unlock()
	}
	if err := first.sleep(ctx, start.Sub(now)); err != nil {
		for _, sl := range slots {
			sl.Settle(0) // give the reservation back
		}
		return nil, err
	}
	return slots, nil
}

// prune drops the reservations whose window has passed by now. l.mu is held.
func (l *Limiter) prune(now time.Time) {
	drop := 0
	for drop < len(l.slots) && !l.slots[drop].at.Add(l.window).After(now) {
		drop++
	}
	l.slots = append(l.slots[:0], l.slots[drop:]...)
}

// earliest is the earliest start, no earlier than start nor than the last reservation's, at
// which the window up to it holds n more units within the limit (a reservation larger than the
// limit goes alone). Every later start admits them too. l.mu is held.
func (l *Limiter) earliest(start time.Time, n float64) time.Time {
	if k := len(l.slots); k > 0 && l.slots[k-1].at.After(start) {
		start = l.slots[k-1].at
	}
	// The window before start holds the slots after start-window; move start past the oldest
	// of them until the rest and n fit.
	held := 0.0
	first := len(l.slots)
	for i, sl := range l.slots {
		if sl.at.After(start.Add(-l.window)) {
			if first == len(l.slots) {
				first = i
			}
			held += sl.n
		}
	}
	for i := first; i < len(l.slots) && held+n > l.limit; i++ {
		held -= l.slots[i].n
		start = l.slots[i].at.Add(l.window)
	}
	return start
}

// Settle sets the units the reservation really took, e.g. a reply's real token usage in place of
// its estimate; later reservations are placed by it. A nil Slot is ignored.
func (s *Slot) Settle(n float64) {
	if s == nil {
		return
	}
	s.l.mu.Lock()
	s.n = n
	s.l.mu.Unlock()
}

// held returns the units reserved in the minute up to t (for tests).
func (l *Limiter) held(t time.Time) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	sum := 0.0
	for _, sl := range l.slots {
		if sl.at.After(t.Add(-l.window)) && !sl.at.After(t) {
			sum += sl.n
		}
	}
	return sum
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
