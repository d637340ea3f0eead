package metric

import (
	"math"
	"math/bits"
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
	hyp, closest, ok := s.bleuRead(pred, refs, true)
	if !ok { // two tokens share a key
		hyp, closest, _ = s.bleuRead(pred, refs, false)
	}
	bounds := s.bounds
	var num, den [4]int
	refLen := 0
	if len(bounds) > 0 {
		refLen = bounds[len(bounds)-1] - hyp
	}
	if hyp <= maxRunHyp && hyp*refLen <= 4096 {
		num, den = s.clippedRuns(hyp, bounds)
	} else {
		s.clippedOrders(&num, &den, hyp, bounds)
	}
	if num[0] == 0 {
		return BLEUScores{}
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
	sums := [3]float64{logp[0], 0.5*logp[0] + 0.5*logp[1], fsum(terms[:])}
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
		num[n-1], den[n-1] = s.clippedIDs(n, hyp, bounds, small)
	}
}

// maxRunHyp is the longest hypothesis clippedRuns takes.
const maxRunHyp = 64

// clippedRuns returns clipped's numerators and denominators for the orders 1 to 4 at once, for a
// hypothesis of at most maxRunHyp tokens: the n-gram at hypothesis position i occurs at reference
// position j when the common run of tokens from i and j is at least n long. A distinct n-gram
// is counted at its first position, with its count in the hypothesis and its largest count in a
// reference.
func (s *scratch) clippedRuns(hyp int, bounds []int) (num, den [4]int) {
	h := s.ids[:hyp]
	var best [4][maxRunHyp]int32 // largest count in one reference, by order and position
	start := hyp
	for _, end := range bounds {
		r := s.ids[start:end]
		var c [4][maxRunHyp]int32
		for i, x := range h {
			for j, y := range r {
				if x != y {
					continue
				}
				c[0][i]++
				for n := 1; n < 4 && i+n < len(h) && j+n < len(r) && h[i+n] == r[j+n]; n++ {
					c[n][i]++
				}
			}
		}
		for n := range c {
			for i := range h {
				best[n][i] = max(best[n][i], c[n][i])
			}
		}
		start = end
	}
	for i, x := range h {
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
		for n := 0; n < 4 && i+n < len(h); n++ {
			if first[n] {
				num[n] += int(min(self[n], best[n][i]))
			}
		}
	}
	for n := range den {
		den[n] = max(1, hyp-n)
	}
	return num, den
}

// bleuRead puts the ids of the tokens of pred and then refs in s.ids, the ends of the references
// in s.bounds, and returns the hypothesis length and the closest reference length. Tokens are
// interned by key, or by their bytes unless byKey is set; by key, it reports false if two tokens
// share a key.
func (s *scratch) bleuRead(pred string, refs []string, byKey bool) (hyp, closest int, ok bool) {
	read := func(dst []int32, str string) ([]int32, bool) { return s.bleuIDs(dst, str), true }
	if byKey {
		n := len(pred)
		for _, r := range refs {
			n += len(r)
		}
		s.bleuInternStart(n)
		read = s.bleuTokens
	}
	s.ids, ok = read(s.ids[:0], pred)
	hyp = len(s.ids)
	bounds := s.bounds[:0]
	closest = -1
	for _, r := range refs {
		if !ok {
			return 0, 0, false
		}
		s.ids, ok = read(s.ids, r)
		n := len(s.ids) - hyp
		if len(bounds) > 0 {
			n = len(s.ids) - bounds[len(bounds)-1]
		}
		bounds = append(bounds, len(s.ids))
		if closest < 0 || abs(n-hyp) < abs(closest-hyp) || abs(n-hyp) == abs(closest-hyp) && n < closest {
			closest = n
		}
	}
	s.bounds = bounds
	return hyp, closest, ok
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

// bleuIDs appends the ids of split(lower(str)) to dst.
func (s *scratch) bleuIDs(dst []int32, str string) []int32 {
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
				dst = append(dst, s.id(s.buf[tok:i]))
				tok = -1
			}
		} else if tok < 0 {
			tok = i
		}
		i += n
	}
	if tok >= 0 {
		dst = append(dst, s.id(s.buf[tok:]))
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
		for i := start; i+n <= end; i++ {
			if d := s.grams.find(packNgram(s.ids[i : i+n])); d >= 0 {
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

// keyTable maps uint64 keys to int32 values for one use: open addressing, generation-stamped
// slots so that reset costs nothing.
type keyTable struct {
	slots []keySlot // a power of two long
	gen   uint32
	spare []keySlot // entries moving in grow
}

type keySlot struct {
	key uint64
	val int32
	gen uint32
}

// reset empties the table and makes room for n keys.
//
// A table that grew for a long text is resliced down for short ones, so that their slots stay
// in the first-level cache; slots past the length hold older generations.
func (t *keyTable) reset(n int) {
	size := 1 << bits.Len(uint(max(64, 2*n)-1))
	if c := cap(t.slots); c < size || c > 1<<16 && c > 4*size {
		t.slots = make([]keySlot, size)
		t.gen = 0
	}
	t.slots = t.slots[:size]
	t.gen++
	if t.gen == 0 {
		clear(t.slots[:cap(t.slots)])
		t.gen = 1
	}
}

func (t *keyTable) home(key uint64) uint64 {
	return (key * 0x9e3779b97f4a7c15) >> (64 - bits.Len(uint(len(t.slots)-1)))
}

// insert adds key with val unless present, and returns the value stored and whether it is new.
func (t *keyTable) insert(key uint64, val int32) (int32, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := t.home(key); ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.gen != t.gen {
			*sl = keySlot{key, val, t.gen}
			return val, true
		}
		if sl.key == key {
			return sl.val, false
		}
	}
}

// find returns key's value, or -1.
func (t *keyTable) find(key uint64) int32 {
	mask := uint64(len(t.slots) - 1)
	for i := t.home(key); ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.gen != t.gen {
			return -1
		}
		if sl.key == key {
			return sl.val
		}
	}
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

// ngrams writes the packed n-grams of ids into s.keys[off:] and returns them.
func (s *scratch) ngrams(ids []int32, n, off int) []uint64 {
	s.keys = s.keys[:off]
	for i := 0; i+n <= len(ids); i++ {
		s.keys = append(s.keys, packNgram(ids[i:i+n]))
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

// fsum returns the correctly rounded sum of xs, as Python's math.fsum does for finite values:
// Shewchuk's exact partial sums, then the half-even correction across the top partials.
func fsum(xs []float64) float64 {
	var buf [8]float64
	partials := buf[:0]
	special := 0.0
	for _, x := range xs {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			special += x
			continue
		}
		i := 0
		for _, y := range partials {
			if math.Abs(x) < math.Abs(y) {
				x, y = y, x
			}
			hi := x + y
			lo := y - (hi - x)
			if lo != 0 {
				partials[i] = lo
				i++
			}
			x = hi
		}
		partials = append(partials[:i], x)
	}
	if special != 0 || math.IsNaN(special) {
		return special
	}
	n := len(partials)
	if n == 0 {
		return 0
	}
	n--
	hi := partials[n]
	lo := 0.0
	for n > 0 {
		x := hi
		n--
		y := partials[n]
		hi = x + y
		yr := hi - x
		lo = y - yr
		if lo != 0 {
			break
		}
	}
	if n > 0 && (lo < 0 && partials[n-1] < 0 || lo > 0 && partials[n-1] > 0) {
		y := lo * 2
		x := hi + y
		if yr := x - hi; y == yr {
			hi = x
		}
	}
	return hi
}

// Correctly rounded exp and log.
//
// Note: Go's math.Exp and math.Log are within one ulp, while CPython calls the C library, whose
// exp and log (glibc 2.28 and later) are correctly rounded in practice; BLEU differs in the last
// bit on about one pair in six with the Go functions. So BLEU evaluates both in double-double
// arithmetic (about 95 good bits) and rounds once. A table-free Taylor series keeps the code short
// at the cost of some speed.

// dd is an unevaluated sum hi + lo with |lo| ≤ ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s = quickTwoSum(s.hi, s.lo+t.hi)
	return quickTwoSum(s.hi, s.lo+t.lo)
}

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	e += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p, e)
}

// ln2DD is ln 2 as a double-double.
var ln2DD = dd{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56}

// expTable holds 2^(j/64) for j = 0..63 as double-doubles, computed once at start-up.
var expTable = func() (t [64]dd) {
	for j := range t {
		t[j] = ddExpTaylor(ddMul(ln2DD, dd{float64(j) / 64, 0}))
	}
	return t
}()

// ddExpTaylor returns e^r for |r| < 1 as a double-double: the Taylor series of e^(r/256) to
// degree 10, squared eight times. It is slow and only builds expTable.
func ddExpTaylor(r dd) dd {
	r = dd{math.Ldexp(r.hi, -8), math.Ldexp(r.lo, -8)}
	sum := dd{1, 0}
	for n := 10; n >= 1; n-- {
		sum = ddMul(ddMul(sum, r), recipDD(float64(n)))
		sum = ddAdd(sum, dd{1, 0})
	}
	for range 8 {
		sum = ddMul(sum, sum)
	}
	return sum
}

// recipDD returns 1/n as a double-double.
func recipDD(n float64) dd {
	q := 1 / n
	return dd{q, math.FMA(-q, n, 1) / n}
}

var (
	sixth        = recipDD(6)
	twentyFourth = recipDD(24)
)

// ddExp returns e^x as a double-double (about 95 good bits) for |x| < 700:
// x = (64n + j)·ln2/64 + r with |r| ≤ ln2/128, e^x = 2^n · 2^(j/64) · e^r, and e^r - 1 as
// r(1 + r(1/2 + r(1/6 + r(1/24 + r·D)))), where D, the series from r^5/5! on, is small enough for
// plain float64.
func ddExp(x float64) dd {
	k := math.Round(x * (64 / ln2DD.hi))
	ln2by64 := dd{ln2DD.hi / 64, ln2DD.lo / 64}
	p := k * ln2by64.hi
	r := twoSum(x, -p)
	r.lo -= math.FMA(k, ln2by64.hi, -p)
	r = ddAdd(quickTwoSum(r.hi, r.lo), dd{-k * ln2by64.lo, -math.FMA(k, ln2by64.lo, -k*ln2by64.lo)})
	h := r.hi
	d := 1.0 / 39916800
	for _, c := range [...]float64{1.0 / 3628800, 1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120} {
		d = d*h + c
	}
	e := ddAdd(ddMul(r, dd{d, 0}), twentyFourth)
	e = ddAdd(ddMul(r, e), sixth)
	e = ddAdd(ddMul(r, e), dd{0.5, 0})
	e = ddAdd(ddMul(r, e), dd{1, 0})
	e = ddMul(r, e) // e^r - 1
	ki := int(k)
	t := expTable[ki&63]
	v := ddAdd(t, ddMul(t, e))
	n := ki >> 6
	return dd{math.Ldexp(v.hi, n), math.Ldexp(v.lo, n)}
}

// roundedExp is e^x correctly rounded (in all but astronomically rare cases).
func roundedExp(x float64) float64 {
	if math.IsNaN(x) || x > 700 || x < -700 {
		return math.Exp(x)
	}
	e := ddExp(x)
	return e.hi + e.lo
}

// roundedLog is ln x correctly rounded: one Newton step y + (x·e^-y - 1) from Go's log, in
// double-double.
func roundedLog(x float64) float64 {
	y := math.Log(x)
	if math.IsNaN(y) || math.IsInf(y, 0) || x < 0x1p-1000 || x > 0x1p1000 {
		return y
	}
	e := ddExp(-y)
	// t = x·e - 1
	p := x * e.hi
	t := dd{p, math.FMA(x, e.hi, -p) + x*e.lo}
	t = ddAdd(t, dd{-1, 0})
	// log(1+t) ≈ t - t²/2 is exact enough: |t| is about 2^-52.
	t = ddAdd(t, dd{-t.hi * t.hi / 2, 0})
	r := ddAdd(dd{y, 0}, t)
	return r.hi + r.lo
}
