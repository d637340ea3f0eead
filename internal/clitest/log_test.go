package clitest

import (
	"slices"
	"sync"
	"testing"
)

// TestLog: adds from many goroutines all arrive, and All is a copy that later adds leave alone.
func TestLog(t *testing.T) {
	var l Log[int]
	if got := l.All(); len(got) != 0 {
		t.Fatalf("empty Log.All() = %v", got)
	}
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() { defer wg.Done(); l.Add(i) }()
	}
	wg.Wait()
	got := l.All()
	slices.Sort(got)
	if len(got) != 100 || got[0] != 0 || got[99] != 99 {
		t.Fatalf("All() after 100 adds = %v", got)
	}
	snap := l.All()
	l.Add(100)
	if len(snap) != 100 || len(l.All()) != 101 {
		t.Errorf("snapshot %d items, log %d; want 100 and 101", len(snap), len(l.All()))
	}
}
