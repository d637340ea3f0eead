package metric

// This file counts BLEU's clipped n-gram matches, by the way that suits the texts (see bleu.go).

import (
	"slices"
)

// clippedOrders sets num and den to clipped's for the orders 1 to 4.
func (s *scratch) clippedOrders(num, den *[4]int, hyp int, bounds []int) {
	small := s.denseIDs()
	for n := 1; n <= 4; n++ {
		if n > 1 && num[n-2] == 0 {
			// No (n-1)-gram matches, so no n-gram can.
			num[n-1], den[n-1] = 0, max(1, hyp-n+1)
			continue
		}
		if n == 1 && small {
			num[0], den[0] = s.clippedUnigrams(hyp, bounds)
			continue
		}
		num[n-1], den[n-1] = s.clippedIDs(n, hyp, bounds, small)
	}
}

// clippedUnigrams is clipped for order 1 over 16-bit ids, counting in arrays indexed by id
// instead of a hash table. u is one more than the hypothesis' largest id, so a reference token of
// id u or more is absent from it and passed over; with wordIDs's ids (dense, in order of first
// appearance, the hypothesis first) those are all the reference's other tokens.
func (s *scratch) clippedUnigrams(hyp int, bounds []int) (num, den int) {
	u := int32(0)
	for _, id := range s.ids[:hyp] {
		u = max(u, id+1)
	}
	counts := growTo(s.counts[:0], int(3*u))
	clear(counts)
	self, best, cur := counts[:u], counts[u:2*u], counts[2*u:]
	for _, id := range s.ids[:hyp] {
		self[id]++
	}
	start := hyp
	for _, end := range bounds {
		touched := s.row[:0]
		for _, id := range s.ids[start:end] {
			if id < u {
				if cur[id]++; cur[id] == 1 {
					touched = append(touched, id)
				}
			}
		}
		for _, id := range touched {
			best[id] = max(best[id], cur[id])
			cur[id] = 0
		}
		s.row = touched
		start = end
	}
	for id, c := range self {
		num += int(min(c, best[id]))
	}
	s.counts = counts
	return num, max(1, hyp)
}

// maxFromRefs is the most reference tokens, the references together, that clippedFromRefs takes.
const maxFromRefs = 24

// refGram is a distinct n-gram of the references for clippedFromRefs: its order, the position in
// words of one of its occurrences, its largest count in one reference, and its count in the
// reference being read and in the hypothesis.
type refGram struct {
	at             int32
	n              int32
	best, cur, hyp int32
}

// clippedFromRefs returns clipped's numerators and denominators for the orders 1 to 4 at once when
// the references hold at most maxFromRefs tokens, whatever the hypothesis' length (a long answer
// to a short gold). Only an n-gram that some reference has is clipped above 0, so the distinct
// n-grams of the references are listed and counted in the hypothesis, in one pass over it that
// passes over, by a 64-bit filter of the references' tokens, the positions no n-gram can start at.
func clippedFromRefs(words []uint64, hyp int, bounds []int) (num, den [4]int) {
	var store [4 * maxFromRefs]refGram
	grams := store[:0]
	var filter uint64
	start := hyp
	for _, end := range bounds {
		for j := start; j < end; j++ {
			filter |= 1 << (words[j] * 0x9E3779B97F4A7C15 >> 58)
			for n := 1; n <= 4 && j+n <= end; n++ {
				g := len(grams)
				for k := range grams {
					if int(grams[k].n) == n && slices.Equal(words[grams[k].at:int(grams[k].at)+n], words[j:j+n]) {
						g = k
						break
					}
				}
				if g == len(grams) {
					grams = append(grams, refGram{at: int32(j), n: int32(n)})
				}
				grams[g].cur++
			}
		}
		for k := range grams {
			grams[k].best = max(grams[k].best, grams[k].cur)
			grams[k].cur = 0
		}
		start = end
	}
	h := words[:hyp]
	for i, x := range h {
		if filter&(1<<(x*0x9E3779B97F4A7C15>>58)) == 0 {
			continue
		}
		for k := range grams {
			g := &grams[k]
			if n := int(g.n); words[g.at] == x && i+n <= hyp && slices.Equal(h[i+1:i+n], words[g.at+1:int(g.at)+n]) {
				g.hyp++
			}
		}
	}
	for _, g := range grams {
		num[g.n-1] += int(min(g.hyp, g.best))
	}
	for n := range den {
		den[n] = max(1, hyp-n)
	}
	return num, den
}

// maxRunPairs is the most pairs of a hypothesis token and a token of the hypothesis or the
// references that bleuClipped compares with clippedRuns rather than count with clippedMasks, whose
// setup (a hash table and masks) costs more than so few comparisons; past it, clippedRuns's
// branches on token equality mispredict more than clippedMasks's.
const maxRunPairs = 32

// clippedRuns returns clipped's numerators and denominators for the orders 1 to 4 at once, for a
// hypothesis words[:hyp] and references ending at the offsets in bounds; equal words are equal
// tokens. It compares every pair of a hypothesis token and a token of the hypothesis or the
// references, so it suits short texts. The n-gram at hypothesis position i occurs at reference
// position j when the common run of tokens from i and j is at least n long. A distinct n-gram
// is counted at its first position, with its count in the hypothesis and its largest count in a
// reference.
func clippedRuns(words []uint64, hyp int, bounds []int) (num, den [4]int) {
	h := words[:hyp]
	for i, x := range h {
		// The counts in the hypothesis of the n-grams at i, and whether i is their first position.
		var self [4]int32
		first := [4]bool{true, true, true, true}
		for k, y := range h {
			if x != y {
				continue
			}
			self[0]++
			first[0] = first[0] && k >= i
			for n := 1; n < 4 && i+n < len(h) && k+n < len(h) && h[i+n] == h[k+n]; n++ {
				self[n]++
				first[n] = first[n] && k >= i
			}
		}
		if first == [4]bool{} {
			continue
		}
		// Their largest counts in one reference.
		var best [4]int32
		start := hyp
		for _, end := range bounds {
			r := words[start:end]
			var c [4]int32
			for j, y := range r {
				if x != y {
					continue
				}
				c[0]++
				for n := 1; n < 4 && i+n < len(h) && j+n < len(r) && h[i+n] == r[j+n]; n++ {
					c[n]++
				}
			}
			for n := range c {
				best[n] = max(best[n], c[n])
			}
			start = end
		}
		for n := 0; n < 4 && i+n < len(h); n++ {
			if first[n] {
				num[n] += int(min(self[n], best[n]))
			}
		}
	}
	for n := range den {
		den[n] = max(1, hyp-n)
	}
	return num, den
}

// ngramCount is a distinct hypothesis n-gram with its count and its largest count in any one
// reference.
type ngramCount struct {
	key       uint64
	n, maxRef int
}

// clipped returns NLTK's modified precision numerator and denominator for order n: s.ids[:hyp] is
// the hypothesis and the references end at the offsets in bounds. When every id fits in 16 bits
// (denseIDs arranges that), n-grams are packed into uint64 keys and counted by merging sorted key
// lists; otherwise maps count them.
func (s *scratch) clipped(n, hyp int, bounds []int) (num, den int) {
	if hyp < n {
		return 0, 1
	}
	end := hyp
	if len(bounds) > 0 {
		end = bounds[len(bounds)-1]
	}
	return s.clippedIDs(n, hyp, bounds, slices.Max(s.ids[:end]) < 1<<16)
}

// clippedIDs is clipped when it is known whether every id fits in 16 bits (small).
func (s *scratch) clippedIDs(n, hyp int, bounds []int, small bool) (num, den int) {
	if hyp < n {
		return 0, 1
	}
	end := hyp
	if len(bounds) > 0 {
		end = bounds[len(bounds)-1]
	}
	if !small {
		return s.clippedMap(n, hyp, bounds)
	}
	if (hyp-n+1)*(end-n+1) <= 1024 {
		return s.clippedShort(n, hyp, bounds)
	}
	// Long texts: distinct hypothesis n-grams in a hash table, reference n-grams looked up in it.
	hk := s.ngrams(s.ids[:hyp], n, 0)
	s.grams.reset(len(hk))
	distinct := s.distinct[:0]
	for _, k := range hk {
		if i, isNew := s.grams.insert(k, int32(len(distinct))); isNew {
			distinct = append(distinct, ngramCount{key: k, n: 1})
		} else {
			distinct[i].n++
		}
	}
	cur := growTo(s.counts[:0], len(distinct))
	start := hyp
	for _, end := range bounds {
		touched := s.row[:0]
		for _, k := range s.ngrams(s.ids[start:end], n, len(hk)) {
			if d := s.grams.find(k); d >= 0 {
				if cur[d]++; cur[d] == 1 {
					touched = append(touched, d)
				}
			}
		}
		for _, d := range touched {
			distinct[d].maxRef = max(distinct[d].maxRef, int(cur[d]))
			cur[d] = 0
		}
		s.row = touched
		start = end
	}
	for _, d := range distinct {
		num += min(d.n, d.maxRef)
	}
	s.distinct, s.counts = distinct, cur
	return num, max(1, len(hk))
}

// packNgram packs up to four 16-bit ids into a uint64.
func packNgram(ids []int32) uint64 {
	var k uint64
	for _, id := range ids {
		k = k<<16 | uint64(id)
	}
	return k
}

// clippedShort is clipped for short texts: distinct n-grams and their counts by pairwise
// comparison, which beats sorting when there are few.
func (s *scratch) clippedShort(n, hyp int, bounds []int) (num, den int) {
	hk := s.ngrams(s.ids[:hyp], n, 0)
	distinct := s.distinct[:0]
next:
	for _, k := range hk {
		for i := range distinct {
			if distinct[i].key == k {
				distinct[i].n++
				continue next
			}
		}
		distinct = append(distinct, ngramCount{key: k, n: 1})
	}
	start := hyp
	for _, end := range bounds {
		rk := s.ngrams(s.ids[start:end], n, len(hk))
		for i := range distinct {
			m := 0
			for _, k := range rk {
				if k == distinct[i].key {
					m++
				}
			}
			distinct[i].maxRef = max(distinct[i].maxRef, m)
		}
		start = end
	}
	for _, d := range distinct {
		num += min(d.n, d.maxRef)
	}
	s.distinct = distinct
	return num, max(1, len(hk))
}

// ngrams writes the packed n-grams of ids into s.keys[off:] and returns them. Each is the one
// before it shifted by one id, with the next id added.
func (s *scratch) ngrams(ids []int32, n, off int) []uint64 {
	s.keys = s.keys[:off]
	if len(ids) < n {
		return s.keys[off:]
	}
	mask := uint64(1)<<(16*n) - 1 // n ≤ 4: for n = 4, 1<<64 is 0 and mask all ones
	k := packNgram(ids[:n-1])
	for _, id := range ids[n-1:] {
		k = (k<<16 | uint64(id)) & mask
		s.keys = append(s.keys, k)
	}
	return s.keys[off:]
}

// clippedMap is clipped for texts with more than 65,536 distinct tokens, counting with maps.
func (s *scratch) clippedMap(n, hyp int, bounds []int) (num, den int) {
	if hyp < n {
		return 0, 1
	}
	count := func(ids []int32) map[[4]int32]int {
		c := make(map[[4]int32]int)
		for i := 0; i+n <= len(ids); i++ {
			var k [4]int32
			copy(k[:], ids[i:i+n])
			c[k]++
		}
		return c
	}
	hc := count(s.ids[:hyp])
	maxRef := make(map[[4]int32]int)
	start := hyp
	for _, end := range bounds {
		for k, c := range count(s.ids[start:end]) {
			if _, ok := hc[k]; ok {
				maxRef[k] = max(maxRef[k], c)
			}
		}
		start = end
	}
	for k, c := range hc {
		num += min(c, maxRef[k])
	}
	return num, max(1, hyp-n+1)
}
