package metric

import "slices"

// maxRepeatScan is how many references repeatWalk compares a reference with, one by one, before
// it keeps them in a map.
const maxRepeatScan = 64

// repeatWalk tells which of refs repeat an earlier reference, asked of each in turn (k rising),
// for the metrics to skip: a repeat changes no best over the references, nor BLEU's clipping
// counts or closest length, so skipping it saves its work and nothing else. The first
// maxRepeatScan references are compared with those before them, the fastest way for a handful;
// past them each reference's first index is kept in a map, so that a record of thousands of
// references costs time in proportion to their number, not its square. A reference not asked of
// is not kept: a later repeat of it is scored, to the same result.
//
// Note: every reference was compared with all before it: one record of 50,000 distinct references
// took 3-4 s a metric, all of it in the comparisons; and then, for a time, only the first 64 were,
// so that 50,000 copies of one answer were each scored again (4.5 s and 981 MB for three such
// records against 1.6 s and 515 MB).
type repeatWalk struct {
	refs  []string
	first map[string]int // past maxRepeatScan: each reference's first index
}

// repeats reports whether refs[k] repeats an earlier reference. The first reference, most often
// the only one, is told inline, the others by a call.
func (w *repeatWalk) repeats(k int) bool {
	return k > 0 && w.scan(k)
}

// scan is repeats of a reference after the first.
//
//go:noinline
func (w *repeatWalk) scan(k int) bool {
	if k < maxRepeatScan {
		return slices.Contains(w.refs[:k], w.refs[k])
	}
	r := w.refs[k]
	if w.first == nil {
		w.first = make(map[string]int)
		for j, s := range w.refs[:maxRepeatScan] {
			if _, ok := w.first[s]; !ok {
				w.first[s] = j
			}
		}
	}
	if j, ok := w.first[r]; ok {
		return j < k
	}
	w.first[r] = k
	return false
}
