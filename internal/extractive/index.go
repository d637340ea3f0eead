package extractive

import (
	"cmp"
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
	size     int     // the bytes of text split reads, which the index's memory grows with
}

// posting is a sentence that holds a term, and how many times.
type posting struct{ sent, tf int32 }

// newIndex splits passages into sentences and indexes their terms.
func newIndex(passages []record.Passage) *index {
	ix := &index{passages: passages, sents: split(passages), postings: make(map[string][]posting)}
	for _, p := range passages {
		ix.size += len(p.Title) + len(p.Date) + len(p.Text)
		for _, s := range p.Sentences {
			ix.size += len(s)
		}
	}
	total := 0
	tf := make(map[string]int32) // a sentence's term counts
	for i, s := range ix.sents {
		total += len(s.tokens)
		clear(tf)
		for _, t := range s.tokens {
			tf[t]++
		}
		for _, t := range s.tokens {
			if n := tf[t]; n > 0 {
				ix.postings[t] = append(ix.postings[t], posting{int32(i), n})
				tf[t] = 0 // posted
			}
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
	seed   maphash.Seed // made by the first get, for the cache's life
	seeded bool
	recent []cached // most recently used first
	limit  int      // the bytes of text kept: cacheBytes when 0
}

type cached struct {
	sum uint64
	ix  *index
}

// cacheSize is how many contexts a Client keeps: the records of one conversation come one after
// another, a few at a time in flight. cacheBytes bounds the text of those it keeps, so that a
// run over records with contexts of megabytes each, none shared (LongMemEval's haystacks), does
// not keep eight of them alive: the oldest go first, and a context larger than it is not kept.
const (
	cacheSize  = 8
	cacheBytes = 16 << 20
)

// get returns the index of passages, built now or kept from an earlier call.
func (c *indexCache) get(passages []record.Passage) *index {
	c.mu.Lock()
	if !c.seeded {
		c.seed, c.seeded = maphash.MakeSeed(), true
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
	limit := cmp.Or(c.limit, cacheBytes)
	if ix.size > limit {
		return ix
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recent = slices.Insert(c.recent, 0, cached{sum, ix})
	kept, size := 0, 0
	for kept < len(c.recent) && kept < cacheSize && size+c.recent[kept].ix.size <= limit {
		size += c.recent[kept].ix.size
		kept++
	}
	clear(c.recent[kept:]) // no index is kept alive by the slice's spare room
	c.recent = c.recent[:kept]
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
