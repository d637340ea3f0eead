package metric

import (
	"math/bits"
	"slices"
)

// maxMaskHyp is the longest hypothesis clippedMasks takes: one bit per position in a uint64.
const maxMaskHyp = 64

// maxMaskRefs is the most reference tokens, the references together, clippedMasks takes: a count
// in one reference must fit the 15 bits of a lane (see laneGE).
const maxMaskRefs = 1<<15 - 1

// maskStride is how far apart clippedMasks's windows of 64 tokens over a long reference start: an
// n-gram (n ≤ 4) that starts in the first 61 positions of a window ends inside it, and one that
// starts later is counted in the next window.
const maskStride = maxMaskHyp - 3

// maskWindows returns the number of windows clippedMasks reads a reference of n tokens in.
func maskWindows(n int) int {
	if n <= maxMaskHyp {
		return 1
	}
	return 1 + (n-maxMaskHyp+maskStride-1)/maskStride
}

// clippedMasks returns clipped's numerators and denominators for the orders 1 to 4 at once, for a
// hypothesis of at most maxMaskHyp tokens, s.words[:hyp], and references ending at the offsets in
// bounds; equal words are equal tokens.
//
// Each distinct hypothesis token gets a mask of its positions in the hypothesis and one of its
// positions in each reference, 64 at a time. The positions where the n-gram at hypothesis
// position i occurs are the AND of the masks of its tokens, each shifted back by its place in the
// n-gram: their popcount is its count, and the lowest one its first position, where it is counted
// with min(count in the hypothesis, largest count in one reference).
//
// Note: this replaced comparing every hypothesis token with every token of the hypothesis and
// the references (clippedRuns, which bleuClipped kept up to 1024 pairs and now keeps up to
// maxRunPairs): those data-dependent branches mispredicted about 60,000 times a pass over the
// golden pairs. Here the only branches on the data are the hash-table probes and the test for a
// position that starts no new n-gram. Counts per order and position in arrays were tried first
// and rejected: zeroing the arrays cost more than the counting for short texts; the four orders'
// counts now travel in the 16-bit lanes of one word.
func (s *scratch) clippedMasks(hyp int, bounds []int) (num, den [4]int) {
	for n := range den {
		den[n] = max(1, hyp-n)
	}
	if hyp == 0 {
		return num, den
	}
	// class[i] is the index of the token at hypothesis position i; the three positions past the
	// end get the index none, whose masks stay empty. Reference tokens absent from the
	// hypothesis are put in the masks of the index absent, which no class names.
	words, t := s.words, &s.tokIDs
	t.reset(hyp)
	var class [maxMaskHyp + 3]uint32
	distinct := int32(0)
	for i, x := range words[:hyp] {
		c, isNew := t.insert(x, distinct)
		if isNew {
			distinct++
		}
		class[i] = uint32(c)
	}
	none, absent := uint32(distinct), uint32(distinct+1)
	class[hyp], class[hyp+1], class[hyp+2] = none, none, none
	stride := int(distinct + 2)

	// The masks, stride by stride: the hypothesis', then each window's of each reference.
	segs := 1
	for k, end := range bounds {
		segs += maskWindows(end - refStart(hyp, bounds, k))
	}
	masks := slices.Grow(s.bleuMasks[:0], segs*stride)[:segs*stride]
	clear(masks)
	for i := range hyp {
		masks[class[i]] |= 1 << i
	}
	m := masks[stride:]
	for k, end := range bounds {
		r := words[refStart(hyp, bounds, k):end]
		for w := 0; ; w += maskStride {
			e := min(w+maxMaskHyp, len(r))
			for j, y := range r[w:e] {
				m[min(uint32(t.find(y)), absent)] |= 1 << j
			}
			m = m[stride:]
			if e == len(r) {
				break
			}
		}
	}
	s.bleuMasks = masks

	single := segs == 1+len(bounds) // every reference in one window
	var sum uint64                  // num in lanes
	for i := range hyp {
		c := (*[4]uint32)(class[i : i+4])
		// The positions of the n-grams at i in the hypothesis: their counts, and which n-grams
		// occur there first.
		g0 := masks[c[0]]
		g1 := g0 & (masks[c[1]] >> 1)
		g2 := g1 & (masks[c[2]] >> 2)
		g3 := g2 & (masks[c[3]] >> 3)
		before := uint64(1)<<i - 1
		first := laneFlags(g0&before == 0, g1&before == 0, g2&before == 0, g3&before == 0)
		if first == 0 {
			continue
		}
		self := lanes(g0, g1, g2, g3)
		// Their largest counts in one reference.
		var best uint64
		seg := masks[stride:]
		if single {
			for range bounds {
				best = laneMax(best, laneCounts(seg, c, ^uint64(0)))
				seg = seg[stride:]
			}
		} else {
			for k, end := range bounds {
				windows := maskWindows(end - refStart(hyp, bounds, k))
				var cur uint64
				for w := range windows {
					own := ^uint64(0)
					if w < windows-1 {
						own = 1<<maskStride - 1
					}
					cur += laneCounts(seg, c, own)
					seg = seg[stride:]
				}
				best = laneMax(best, cur)
			}
		}
		sum += laneMin(self, best) & first
	}
	for n := range num {
		num[n] = int(sum >> (16 * n) & 0xffff)
	}
	return num, den
}

// Four counts below 2^15 in the 16-bit lanes of a uint64, the count of order n in lane n-1.
const (
	laneLow = 0x0001_0001_0001_0001
	laneTop = 0x8000_8000_8000_8000
)

// lanes returns the popcounts of g0 to g3 in lanes.
func lanes(g0, g1, g2, g3 uint64) uint64 {
	return uint64(bits.OnesCount64(g0)) | uint64(bits.OnesCount64(g1))<<16 |
		uint64(bits.OnesCount64(g2))<<32 | uint64(bits.OnesCount64(g3))<<48
}

// laneFlags returns 0xffff in the lanes whose flag is set.
func laneFlags(f0, f1, f2, f3 bool) uint64 {
	return (b2u(f0) | b2u(f1)<<16 | b2u(f2)<<32 | b2u(f3)<<48) * 0xffff
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// laneCounts returns in lanes the number of positions in own where the n-grams of the tokens with
// classes c[:n] occur, by the position masks m.
func laneCounts(m []uint64, c *[4]uint32, own uint64) uint64 {
	g0 := m[c[0]] & own
	g1 := g0 & (m[c[1]] >> 1)
	g2 := g1 & (m[c[2]] >> 2)
	g3 := g2 & (m[c[3]] >> 3)
	return lanes(g0, g1, g2, g3)
}

// laneGE returns 0xffff in the lanes where a ≥ b, and 0 in the others: a lane of a with its top
// bit set, minus the lane of b, keeps the top bit exactly when a ≥ b, and borrows from no other
// lane.
func laneGE(a, b uint64) uint64 {
	top := ((a | laneTop) - b) & laneTop
	return (top >> 15) * 0xffff
}

// laneMax returns the lane-wise maximum of a and b.
func laneMax(a, b uint64) uint64 {
	ge := laneGE(a, b)
	return a&ge | b&^ge
}

// laneMin returns the lane-wise minimum of a and b.
func laneMin(a, b uint64) uint64 {
	ge := laneGE(a, b)
	return b&ge | a&^ge
}

// refStart returns where reference k starts in the words after a hypothesis of hyp.
func refStart(hyp int, bounds []int, k int) int {
	if k == 0 {
		return hyp
	}
	return bounds[k-1]
}
