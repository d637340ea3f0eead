package memo

import (
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"testing"
)

// text is a key: a string, as a Cache of contexts keys them.
type text string

func (t text) Hash(h *maphash.Hash) { h.WriteString(string(t)) }
func (t text) Equal(u text) bool    { return t == u }

// made counts the calls of make, per key.
type made struct {
	mu sync.Mutex
	n  map[text]int
}

func (m *made) get(c *Cache[text, string], k text) string {
	v, err := c.Get(k, func() (string, int, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.n == nil {
			m.n = map[text]int{}
		}
		m.n[k]++
		return strings.ToUpper(string(k)), len(k), nil
	})
	if err != nil {
		panic(err)
	}
	return v
}

func TestCacheKeepsByCount(t *testing.T) {
	var c Cache[text, string]
	var m made
	for i := range DefaultCount + 2 {
		k := text(fmt.Sprintf("k%d", i))
		if got, want := m.get(&c, k), strings.ToUpper(string(k)); got != want {
			t.Fatalf("Get(%q) = %q, want %q", k, got, want)
		}
	}
	if n := len(c.Sizes()); n != DefaultCount {
		t.Errorf("the cache keeps %d values, want %d", n, DefaultCount)
	}
	// The newest DefaultCount are kept; k0 and k1 are made again.
	for i := DefaultCount + 1; i >= 0; i-- {
		m.get(&c, text(fmt.Sprintf("k%d", i)))
	}
	for i := range DefaultCount + 2 {
		want := 1
		if i < 2 {
			want = 2
		}
		if got := m.n[text(fmt.Sprintf("k%d", i))]; got != want {
			t.Errorf("k%d made %d times, want %d", i, got, want)
		}
	}
	// A key in a new string, equal to one kept, finds it; using it makes it the newest.
	m.get(&c, text(string([]byte("k5"))))
	if m.n["k5"] != 1 {
		t.Errorf("an equal key in a new string made its value again")
	}
	c.Count = 2
	m.get(&c, "k3")
	m.get(&c, "new")
	m.get(&c, "k3")
	if m.n["k3"] != 1 {
		t.Errorf("k3, used last but one, was made again")
	}
	if n := len(c.Sizes()); n != 2 {
		t.Errorf("with Count 2 the cache keeps %d values", n)
	}
}

func TestCacheKeepsByBytes(t *testing.T) {
	c := Cache[text, string]{Bytes: 6000}
	var m made
	big := func(n int, w string) text { return text(strings.Repeat(w, n/len(w))) }
	for _, tc := range []struct {
		key  text
		want []int // the sizes kept after it, newest first
	}{
		{big(2000, "ab"), []int{2000}},
		{big(2000, "cd"), []int{2000, 2000}},
		{big(2000, "ef"), []int{2000, 2000, 2000}},
		{big(3000, "gh"), []int{3000, 2000}},       // the oldest two go
		{big(6002, "ij"), []int{3000, 2000}},       // larger than Bytes: not kept
		{big(1000, "kl"), []int{1000, 3000, 2000}}, // exactly Bytes in all
		{big(2000, "ef"), []int{2000, 1000, 3000}}, // found, and now the newest
		{big(6000, "mn"), []int{6000}},             // exactly Bytes alone: kept, the others go
	} {
		m.get(&c, tc.key)
		if got := c.Sizes(); !slices.Equal(got, tc.want) {
			t.Errorf("after a value of %d bytes the cache keeps %v, want %v", len(tc.key), got, tc.want)
		}
	}
	if n := m.n[big(6002, "ij")]; n != 1 {
		t.Errorf("the value larger than Bytes was made %d times, want 1", n)
	}
}

func TestCacheErrorNotKept(t *testing.T) {
	var c Cache[text, string]
	calls := 0
	fail := func() (string, int, error) { calls++; return "", 1, errors.New("unreadable") }
	for range 2 {
		if _, err := c.Get("x", fail); err == nil || err.Error() != "unreadable" {
			t.Errorf("Get = %v, want make's error", err)
		}
	}
	if calls != 2 || len(c.Sizes()) != 0 {
		t.Errorf("after two failures make ran %d times and %d values are kept, want 2 and 0", calls, len(c.Sizes()))
	}
}

// TestCacheSum: keys equal by Equal hash alike, and the keys of a Cache are found by their sum.
func TestCacheSum(t *testing.T) {
	seed := maphash.MakeSeed()
	if Sum(seed, text("abc")) != Sum(seed, text(string([]byte("abc")))) {
		t.Error("equal keys hash apart")
	}
	if Sum(seed, text("abc")) == Sum(seed, text("abd")) {
		t.Error("two keys hash alike")
	}
}

// TestCacheConcurrent: many goroutines over few keys (run with -race) get each key's value.
func TestCacheConcurrent(t *testing.T) {
	c := Cache[text, string]{Count: 3}
	var m made
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				k := text(fmt.Sprintf("k%d", (i+w)%5))
				if got := m.get(&c, k); got != strings.ToUpper(string(k)) {
					t.Errorf("Get(%q) = %q", k, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := len(c.Sizes()); n != 3 {
		t.Errorf("the cache keeps %d values, want 3", n)
	}
}

// TestCacheBuiltTwice: when two callers build the same new key at once, the one that finishes
// second gets the value kept by the first, and the key is kept once.
func TestCacheBuiltTwice(t *testing.T) {
	var c Cache[text, string]
	started, finish := make(chan struct{}), make(chan struct{})
	got := make(chan string)
	go func() {
		v, _ := c.Get("k", func() (string, int, error) {
			close(started)
			<-finish
			return "second", 1, nil
		})
		got <- v
	}()
	<-started
	first, _ := c.Get("k", func() (string, int, error) { return "first", 1, nil })
	close(finish)
	if second := <-got; first != "first" || second != "first" {
		t.Errorf("the two callers got %q and %q, want the value kept first for both", first, second)
	}
	if n := len(c.Sizes()); n != 1 {
		t.Errorf("the key is kept %d times", n)
	}
}
