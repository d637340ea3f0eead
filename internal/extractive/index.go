package extractive

import (
	"hash/maphash"
	"slices"
	"sync"

	"github.com/qapipe/qapipe/pkg/record"
)

// index is a context read for BM25: its sentences, and for each term the sentences that hold it.
// It is not changed once built, so that the questions of one context share it.
type index struct {
	passages []record.Passage // what it was built from, to tell a hash's collision
	sents    []sentence
	postings map[string][]posting
	avg      float64 // the sentences' mean length in tokens
}

// posting is a sentence that holds a term, and how many times.
type posting struct{ sent, tf int32 }

// newIndex splits passages into sentences and indexes their terms.
func newIndex(passages []record.Passage) *index {
	ix := &index{passages: passages, sents: split(passages), postings: make(map[string][]posting)}
	total := 0
	for i, s := range ix.sents {
		total += len(s.tokens)
		for j, t := range s.tokens {
			if slices.Contains(s.tokens[:j], t) {
				continue // counted at its first place
			}
			tf := 1
			for _, u := range s.tokens[j+1:] {
				if u == t {
					tf++
				}
			}
			ix.postings[t] = append(ix.postings[t], posting{int32(i), int32(tf)})
		}
	}
	if len(ix.sents) > 0 {
		ix.avg = float64(total) / float64(len(ix.sents))
	}
	return ix
}

// indexCache keeps the indexes of the last few contexts a Client read. A context is found by a
// hash of what split reads of it, and confirmed by comparing that.
type indexCache struct {
	mu     sync.Mutex
	seed   maphash.Seed
	recent []cached // most recently used first
}

type cached struct {
	sum uint64
	ix  *index
}

// cacheSize is how many contexts a Client keeps: the records of one conversation come one after
// another, a few at a time in flight.
const cacheSize = 8

// get returns the index of passages, built now or kept from an earlier call.
func (c *indexCache) get(passages []record.Passage) *index {
	c.mu.Lock()
	if c.recent == nil {
		c.seed = maphash.MakeSeed()
	}
	seed := c.seed
	c.mu.Unlock()
	sum := contextSum(seed, passages)
	c.mu.Lock()
	for i, e := range c.recent {
		if e.sum == sum && sameContext(e.ix.passages, passages) {
			copy(c.recent[1:i+1], c.recent[:i])
			c.recent[0] = e
			c.mu.Unlock()
			return e.ix
		}
	}
	c.mu.Unlock()
	ix := newIndex(passages)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.recent) < cacheSize {
		c.recent = append(c.recent, cached{})
	}
	copy(c.recent[1:], c.recent[:len(c.recent)-1])
	c.recent[0] = cached{sum, ix}
	return ix
}

// contextSum hashes what split reads of passages.
func contextSum(seed maphash.Seed, passages []record.Passage) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, p := range passages {
		for _, s := range [...]string{p.Title, p.Date, p.Text} {
			h.WriteString(s)
			h.WriteByte(0)
		}
		for _, s := range p.Sentences {
			h.WriteString(s)
			h.WriteByte(1)
		}
		h.WriteByte(2)
	}
	return h.Sum64()
}

// sameContext reports whether a and b are the same context as split reads it.
func sameContext(a, b []record.Passage) bool {
	return slices.EqualFunc(a, b, func(p, q record.Passage) bool {
		return p.Title == q.Title && p.Date == q.Date && p.Text == q.Text && slices.Equal(p.Sentences, q.Sentences)
	})
}
