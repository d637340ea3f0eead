package metric

import "slices"

// maxRepeatScan is how many references repeats compares a reference with.
const maxRepeatScan = 64

// repeats reports whether refs[k] repeats an earlier reference, which the metrics skip: a repeat
// changes no best over the references, nor BLEU's clipping counts or closest length, so skipping
// it saves its work and nothing else. Only the first maxRepeatScan references are compared, so
// that a record of thousands of references costs time in proportion to their number, not its
// square; a repeat past them is scored again, to the same result.
//
// Note: every reference was compared with all before it: one record of 50,000 distinct references
// took 3-4 s a metric, all of it in the comparisons.
func repeats(refs []string, k int) bool {
	return k < maxRepeatScan && slices.Contains(refs[:k], refs[k])
}
