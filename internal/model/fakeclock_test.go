package model

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeClock is the time of the rate-limit tests: it stands still, and a wait moves it on at once.
// It logs the times requests reach a test server, since its start.
type fakeClock struct {
	mu   sync.Mutex
	t0   time.Time
	now  time.Time
	sent []time.Duration
}

func newFakeClock() *fakeClock {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	return &fakeClock{t0: t0, now: t0}
}

// Now is the clock's time (a Limiter's now).
func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Sleep moves the clock on by d (a Limiter's and a Transport's sleep).
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

// Set puts the clock at d after its start.
func (c *fakeClock) Set(d time.Duration) { c.mu.Lock(); c.now = c.t0.Add(d); c.mu.Unlock() }

// Send logs a request sent now, and returns how many were sent before it.
func (c *fakeClock) Send() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, c.now.Sub(c.t0))
	return len(c.sent) - 1
}

// requests is the number of requests sent.
func (c *fakeClock) requests() int { c.mu.Lock(); defer c.mu.Unlock(); return len(c.sent) }

// checkMinutes fails t when any minute of the requests sent holds more than limit of them.
func (c *fakeClock) checkMinutes(t *testing.T, limit int, what string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, at := range c.sent {
		n := 0
		for _, b := range c.sent {
			if b >= at && b < at+time.Minute {
				n++
			}
		}
		if n > limit {
			t.Fatalf("requests sent at %v: %d in the minute from %v, want at most %d (%s)", c.sent, n, at, limit, what)
		}
	}
}

// tpmClient is an OpenAI client of the server at url, retrying once, under a limit of 1,000
// tokens a minute, both waiting on clock: the client and its limiter.
func tpmClient(t *testing.T, url string, clock *fakeClock) (Client, *Limiter) {
	t.Helper()
	tpm := NewLimiter(1000, clock.Sleep)
	tpm.now = clock.Now
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: url, APIKey: testKey,
		HTTPClient: NewTransport(TransportConfig{MaxRetries: 1, Seed: 1, Sleep: clock.Sleep}).Client(), TPM: tpm})
	if err != nil {
		t.Fatal(err)
	}
	return c, tpm
}
