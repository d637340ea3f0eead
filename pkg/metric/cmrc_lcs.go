package metric

// longestCommonRun is the length find_lcs(a, b) returns: the longest run of equal consecutive
// tokens the two share.
//
// Note: instead of the script's full table, b's positions are chained by token in a small hash
// table and every run is measured once from its first pair, so the cost is that of the matching
// pairs rather than len(a)*len(b); answers that share little cost almost nothing.
func longestCommonRun(a, b []int32) int {
	var idx runIndex
	idx.build(b)
	return idx.longestRun(a, b)
}

// runIndex chains the positions of a token sequence b (at most 255 long) by token hash: head[h]
// and next[j] hold a position plus one, zero ending a chain. CMRCF1 builds it once for the
// prediction and reuses it for every reference.
type runIndex struct {
	head [64]uint8
	next [255]uint8
}

func (x *runIndex) build(b []int32) {
	if len(b) > len(x.next) {
		return // longestRun falls back to the table
	}
	for j := len(b) - 1; j >= 0; j-- {
		h := cmrcHash(b[j])
		x.next[j], x.head[h] = x.head[h], uint8(j+1)
	}
}

// longestRun is longestCommonRun(a, b) for the b the index was built from.
func (x *runIndex) longestRun(a, b []int32) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(b) > len(x.next) {
		return longestCommonRunTable(a, b)
	}
	best := 0
	for i, t := range a {
		for j1 := int(x.head[cmrcHash(t)]); j1 > 0; j1 = int(x.next[j1-1]) {
			j := j1 - 1
			if b[j] != t || i > 0 && j > 0 && a[i-1] == b[j-1] {
				continue // another token, or inside a run counted from its start
			}
			k := 1
			for i+k < len(a) && j+k < len(b) && a[i+k] == b[j+k] {
				k++
			}
			best = max(best, k)
		}
	}
	return best
}

// cmrcHash maps a token id to one of 64 buckets.
func cmrcHash(id int32) int { return int(uint32(id) * 2654435761 >> 26) }

// longestCommonRunTable is find_lcs's dynamic programme, one row at a time, for long b.
func longestCommonRunTable(a, b []int32) int {
	prev, cur := make([]int32, len(b)+1), make([]int32, len(b)+1)
	best := int32(0)
	for _, x := range a {
		for j, y := range b {
			v := int32(0)
			if x == y {
				v = prev[j] + 1
				best = max(best, v)
			}
			cur[j+1] = v
		}
		prev, cur = cur, prev
	}
	return int(best)
}
