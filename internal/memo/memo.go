// Package memo keeps what a stage made from the last few large inputs it met, for records that
// come grouped by one: the questions of a LoCoMo conversation each carry the whole conversation,
// and reading or indexing it once for all of them, rather than once for each, is most of the
// work saved. What is kept is bounded by its number and its size, so that memory does not grow
// with the input.
package memo

import (
	"cmp"
	"hash/maphash"
	"slices"
	"sync"
)

// Key is what a Cache looks its values up by. Hash writes what makes the key what it is, and
// Equal compares exactly that: two keys equal by Equal must write the same bytes.
type Key[K any] interface {
	Hash(*maphash.Hash)
	Equal(K) bool
}

// The bounds of a Cache whose own are 0. The records of one input mostly come one after
// another, a few at a time in flight; 16 also keeps every conversation of LoCoMo's ten when its
// records come shuffled (with 8, a shuffled LoCoMo's extractive run took nearly twice an ordered
// one's time). The bytes bound the inputs kept, so that a run over records with inputs of
// megabytes each, none shared (LongMemEval's haystacks), does not keep Count of them alive.
const (
	DefaultCount = 16
	DefaultBytes = 16 << 20
)

// Cache keeps the values made for the last keys asked for, most recently used first, at most
// Count of them and, of their sizes as given to Get, at most Bytes in all: the oldest go first,
// and a value larger than Bytes is not kept. A key is found by a hash of it and confirmed by
// Equal. The zero Cache is ready to use, with the default bounds, and is safe for concurrent use.
type Cache[K Key[K], V any] struct {
	Count int // the values kept at most; DefaultCount when 0
	Bytes int // their sizes' sum at most; DefaultBytes when 0

	mu     sync.Mutex
	seed   maphash.Seed // made by the first Get, for the cache's life
	seeded bool
	kept   []entry[K, V]
}

type entry[K, V any] struct {
	sum  uint64
	key  K
	val  V
	size int
}

// Get returns the value kept for a key equal to k, else the one build returns, which is kept
// when build succeeds and its size allows. build runs without the cache locked, so two callers
// that ask for the same new key at once may both build it; the value kept first is then the one
// both return, and kept once.
func (c *Cache[K, V]) Get(k K, build func() (v V, size int, err error)) (V, error) {
	c.mu.Lock()
	if !c.seeded {
		c.seed, c.seeded = maphash.MakeSeed(), true
	}
	seed := c.seed
	c.mu.Unlock()
	sum := Sum(seed, k)
	c.mu.Lock()
	if v, ok := c.find(sum, k); ok {
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	v, size, err := build()
	if err != nil {
		return v, err
	}
	limit := cmp.Or(c.Bytes, DefaultBytes)
	if size > limit {
		return v, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.find(sum, k); ok { // kept by another caller meanwhile
		return v, nil
	}
	c.kept = slices.Insert(c.kept, 0, entry[K, V]{sum, k, v, size})
	n, total := 0, 0
	for n < len(c.kept) && n < cmp.Or(c.Count, DefaultCount) && total+c.kept[n].size <= limit {
		total += c.kept[n].size
		n++
	}
	clear(c.kept[n:]) // nothing is kept alive by the slice's spare room
	c.kept = c.kept[:n]
	return v, nil
}

// find returns the value kept for k, whose hash is sum, and makes it the most recently used.
// c.mu is held.
func (c *Cache[K, V]) find(sum uint64, k K) (V, bool) {
	for i, e := range c.kept {
		if e.sum == sum && e.key.Equal(k) {
			copy(c.kept[1:i+1], c.kept[:i])
			c.kept[0] = e
			return e.val, true
		}
	}
	var zero V
	return zero, false
}

// Sizes returns the sizes of the values kept, most recently used first.
func (c *Cache[K, V]) Sizes() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	sizes := make([]int, len(c.kept))
	for i, e := range c.kept {
		sizes[i] = e.size
	}
	return sizes
}

// Sum is k's hash under seed, as a Cache finds it.
func Sum[K Key[K]](seed maphash.Seed, k K) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	k.Hash(&h)
	return h.Sum64()
}
