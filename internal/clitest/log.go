package clitest

import "sync"

// Log collects what a loopback server's handlers saw (requests, budgets), safe for the handlers'
// goroutines and the test's at once. Its zero value is empty and ready.
type Log[T any] struct {
	mu    sync.Mutex
	items []T
}

// Add appends v.
func (l *Log[T]) Add(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, v)
}

// All returns a copy of what was added, in order.
func (l *Log[T]) All() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]T(nil), l.items...)
}
