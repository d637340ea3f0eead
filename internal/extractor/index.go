package extractor

import (
	"hash/maphash"
	"slices"

	"github.com/qapipe/qapipe/pkg/record"
)

// index is a context read for BM25: its sentences, and for each term the sentences that hold it.
// It is not changed once built, so that the questions of one context share it.
type index struct {
	sents    []sentence
	postings map[string][]posting
	avg      float64 // the sentences' mean length in tokens
	size     int     // the bytes the index and its passages keep, estimated (see newIndex)
}

// posting is a sentence that holds a term, and how many times.
type posting struct{ sent, tf int32 }

// newIndex splits passages into sentences and indexes their terms.
func newIndex(passages []record.Passage) *index {
	ix := &index{sents: split(passages), postings: make(map[string][]posting)}
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
	// The memory kept, estimated from the Go structures' sizes on 64 bits: each sentence's
	// copy of its text and its struct, its tokens' string headers (appended, so up to twice
	// their number) and bytes (those lower-cased are copies); each term's map entry and
	// posting list's slack; each posting. It comes to about 9 times the text: what a cache
	// bounded by bytes must count, not the text alone.
	for _, s := range ix.sents {
		ix.size += len(s.text)*3/2 + 64 + 24*len(s.tokens)
	}
	for _, ps := range ix.postings {
		ix.size += 56 + 12*len(ps)
	}
	return ix
}

// contextKey is a context as split reads it: what an index is kept by in a Client's cache.
type contextKey []record.Passage

// Hash writes what split reads of the passages.
func (k contextKey) Hash(h *maphash.Hash) {
	for _, p := range k {
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
}

// Equal reports whether k and o are the same context as split reads it.
func (k contextKey) Equal(o contextKey) bool {
	return slices.EqualFunc(k, o, func(p, q record.Passage) bool {
		return p.Title == q.Title && p.Date == q.Date && p.Text == q.Text && slices.Equal(p.Sentences, q.Sentences)
	})
}
