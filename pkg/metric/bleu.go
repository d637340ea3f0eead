package metric

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// BLEUScores holds sentence BLEU with uniform weights over 1, 2 and 4 n-gram orders.
type BLEUScores struct{ B1, B2, B4 float64 }

// bleuWeights are the weights NLTK is called with: (1,0,0,0), (.5,.5,0,0) and (.25,.25,.25,.25).
var bleuWeights = [3][4]float64{{1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {0.25, 0.25, 0.25, 0.25}}

// BLEU is NLTK 3.8's sentence_bleu over Python-lowercased, whitespace-split tokens with
// SmoothingFunction().method1: n-gram counts clipped by their largest count in any one reference,
// the brevity penalty from the closest reference length (the shorter on ties), 0 when no unigram
// matches, and otherwise exp of the exactly rounded sum (math.fsum) of the weighted log precisions.
func BLEU(pred string, refs []string) BLEUScores {
	if len(refs) == 0 {
		return BLEUScores{}
	}
	s := getScratch()
	defer putScratch(s)
	return s.bleu(pred, refs)
}

// bleu is BLEU in the scratch s, for at least one reference.
func (s *scratch) bleu(pred string, refs []string) BLEUScores {
	hyp, closest, ok := s.bleuRead(pred, refs, true)
	if !ok { // two long tokens share a key
		hyp, closest, _ = s.bleuRead(pred, refs, false)
	}
	num := s.bleuClipped(hyp)
	if num[0] == 0 {
		return BLEUScores{}
	}
	return s.bleuScores(num, hyp, closest)
}

// bleuClipped returns the clipped counts of the orders 1 to 4 of the hypothesis s.words[:hyp]
// against the references that end at s.bounds, counted the way that suits their lengths. Their
// denominators, the n-gram counts of the hypothesis, are max(1, hyp-n+1) on every path.
func (s *scratch) bleuClipped(hyp int) [4]int {
	bounds := s.bounds
	refLen := 0
	if len(bounds) > 0 {
		refLen = bounds[len(bounds)-1] - hyp
	}
	var num, den [4]int
	switch {
	case hyp*(hyp+refLen) <= maxRunPairs:
		num, _ = clippedRuns(s.words, hyp, bounds)
	case hyp <= maxMaskHyp && refLen <= maxMaskRefs:
		num, _ = s.clippedMasks(hyp, bounds)
	case refLen <= maxFromRefs:
		num, _ = clippedFromRefs(s.words, hyp, bounds)
	default:
		s.wordIDs()
		s.clippedOrders(&num, &den, hyp, bounds)
	}
	return num
}

// bleuScores returns the scores of clipped numerators num for a hypothesis of hyp tokens and a
// closest reference length closest, memoised in the scratch (see bleuResult) when they are small.
func (s *scratch) bleuScores(num [4]int, hyp, closest int) BLEUScores {
	key, ok := bleuResultKey(num, hyp, closest)
	if !ok {
		return s.bleuCompute(num, hyp, closest)
	}
	if s.bleuResults == nil {
		s.bleuResults = new([1 << bleuResultBits]bleuResult)
	}
	e := &s.bleuResults[(key*0x9e3779b97f4a7c15)>>(64-bleuResultBits)]
	if e.key != key {
		*e = bleuResult{key, s.bleuCompute(num, hyp, closest)}
	}
	return e.val
}

// bleuResultKey packs num, hyp and closest, ten bits each, into a key with the top bit set, or
// reports false when one needs more than ten bits.
func bleuResultKey(num [4]int, hyp, closest int) (uint64, bool) {
	if hyp >= 1<<10 || closest >= 1<<10 { // num[n] ≤ hyp
		return 0, false
	}
	return 1<<63 | uint64(num[0]) | uint64(num[1])<<10 | uint64(num[2])<<20 | uint64(num[3])<<30 |
		uint64(hyp)<<40 | uint64(closest)<<50, true
}

// bleuResultBits sizes the direct-mapped cache of bleuScores.
const bleuResultBits = 10

// bleuResult is a cached result of bleuScores with its key; the zero key marks an empty entry.
type bleuResult struct {
	key uint64
	val BLEUScores
}

// bleuCompute is bleuScores without its cache.
func (s *scratch) bleuCompute(num [4]int, hyp, closest int) BLEUScores {
	var den [4]int
	for n := range den {
		den[n] = max(1, hyp-n)
	}
	bp := s.memo(1<<63|uint64(closest)<<32|uint64(hyp), func() float64 { return brevityPenalty(closest, hyp) })
	var logp [4]float64
	for i := range logp {
		n, d := num[i], den[i]
		logp[i] = s.memo(uint64(n)<<32|uint64(d), func() float64 {
			if n == 0 {
				return roundedLog((0 + 0.1) / float64(d))
			}
			return roundedLog(float64(n) / float64(d))
		})
	}
	// math.fsum of the weighted logarithms: with at most two non-zero terms, each exact (the
	// weights are 1 and 1/2), one IEEE addition is already the correctly rounded sum.
	var terms [4]float64
	for i := range terms {
		terms[i] = bleuWeights[2][i] * logp[i]
	}
	sums := [3]float64{logp[0], float64(0.5*logp[0]) + float64(0.5*logp[1]), fsum(terms[:])}
	var out [3]float64
	for k, sum := range sums {
		if sum == 0 {
			out[k] = bp
		} else {
			out[k] = bp * s.memoExp(sum)
		}
	}
	return BLEUScores{out[0], out[1], out[2]}
}

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

// bleuRead puts the tokens of pred and then refs in s.words, the ends of the references in
// s.bounds, and returns the hypothesis length and the closest reference length. Words are the
// tokens' keys, or unless byKey is set their ids interned by bytes; by key, it reports false if
// two different long tokens share a key.
func (s *scratch) bleuRead(pred string, refs []string, byKey bool) (hyp, closest int, ok bool) {
	read := s.bleuIDs
	if byKey {
		s.longs = s.longs[:0]
		read = s.bleuTokens
	}
	s.words = read(s.words[:0], pred)
	hyp = len(s.words)
	bounds := s.bounds[:0]
	closest = -1
	for k, r := range refs {
		switch {
		case slices.Contains(refs[:k], r):
			continue // a repeated reference changes neither the clipping counts nor the closest length
		case r == pred:
			s.words = append(s.words, s.words[:hyp]...)
		default:
			s.words = read(s.words, r)
		}
		n := len(s.words) - hyp
		if len(bounds) > 0 {
			n = len(s.words) - bounds[len(bounds)-1]
		}
		bounds = append(bounds, len(s.words))
		if closest < 0 || abs(n-hyp) < abs(closest-hyp) || abs(n-hyp) == abs(closest-hyp) && n < closest {
			closest = n
		}
	}
	s.bounds = bounds
	return hyp, closest, !byKey || s.bleuLongsDistinct()
}

// wordIDs sets s.ids to dense ids of s.words, in order of first appearance.
func (s *scratch) wordIDs() {
	s.tokIDs.reset(min(len(s.words)/2+1, 256)) // grown as needed
	s.ids = s.ids[:0]
	next := int32(0)
	for _, w := range s.words {
		if 2*(next+1) > int32(len(s.tokIDs.slots)) {
			s.tokIDs.grow()
		}
		id, isNew := s.tokIDs.insert(w, next)
		if isNew {
			next++
		}
		s.ids = append(s.ids, id)
	}
}

// memo returns f(), memoised under key (not 0) in the scratch: BLEU's logarithms and brevity
// penalties depend only on small integer pairs, which repeat from call to call.
func (s *scratch) memo(key uint64, f func() float64) float64 {
	e := &s.floats[(key*0x9e3779b97f4a7c15)>>(64-floatCacheBits)]
	if e.key != key {
		*e = floatEntry{key, f()}
	}
	return e.val
}

// memoExp is roundedExp(x) for x ≠ 0, memoised in the scratch by x's bits: the sums of weighted
// logarithms repeat as the integer pairs under them do.
func (s *scratch) memoExp(x float64) float64 {
	key := math.Float64bits(x)
	e := &s.exps[(key*0x9e3779b97f4a7c15)>>(64-floatCacheBits)]
	if e.key != key {
		*e = floatEntry{key, roundedExp(x)}
	}
	return e.val
}

// floatCacheBits sizes the direct-mapped caches of memo and memoExp.
const floatCacheBits = 9

// floatEntry is a cached value with its key; the zero key marks an empty entry.
type floatEntry struct {
	key uint64
	val float64
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func brevityPenalty(closest, hyp int) float64 {
	switch {
	case hyp > closest:
		return 1
	case hyp == 0:
		return 0
	}
	return roundedExp(1 - float64(closest)/float64(hyp))
}

// bleuIDs appends the ids of split(lower(str)) to dst, interned by bytes.
func (s *scratch) bleuIDs(dst []uint64, str string) []uint64 {
	start := len(s.buf)
	if isASCIIString(str) {
		for i := 0; i < len(str); i++ {
			c := str[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			s.buf = append(s.buf, c)
		}
	} else {
		s.buf = textnorm.AppendLower(s.buf, str)
	}
	tok := -1
	for i := start; i < len(s.buf); {
		c, n := rune(s.buf[i]), 1
		if c >= utf8.RuneSelf {
			c, n = utf8.DecodeRune(s.buf[i:])
		}
		if textnorm.IsSpace(c) {
			if tok >= 0 {
				dst = append(dst, uint64(s.id(s.buf[tok:i])))
				tok = -1
			}
		} else if tok < 0 {
			tok = i
		}
		i += n
	}
	if tok >= 0 {
		dst = append(dst, uint64(s.id(s.buf[tok:])))
	}
	s.buf = s.buf[:start]
	return dst
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// denseIDs renumbers s.ids to 0..U-1 when some id needs more than 16 bits, and reports whether
// every id now fits in 16 bits, so that an n-gram of up to four ids packs into a uint64.
func (s *scratch) denseIDs() bool {
	if len(s.ids) == 0 || slices.Max(s.ids) < 1<<16 {
		return true
	}
	u := append(s.row[:0], s.ids...)
	slices.Sort(u)
	u = slices.Compact(u)
	s.row = u
	if len(u) > 1<<16 {
		return false
	}
	for i, id := range s.ids {
		r, _ := slices.BinarySearch(u, id)
		s.ids[i] = int32(r)
	}
	return true
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
