package metric

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// manyRefs is n references, each word list distinct, then the same list again, reversed: every
// reference past the first n repeats one, most of them past maxRepeatScan, where repeatWalk
// keeps them in a map.
func manyRefs(n int) (distinct, repeated []string) {
	for i := range n {
		distinct = append(distinct, fmt.Sprintf("the cat sat on mat %d, (running) %d", i, i*7))
	}
	repeated = append(slices.Clone(distinct), distinct...)
	slices.Reverse(repeated[n:])
	return distinct, repeated
}

// TestRepeatsPastScan: a reference repeated past the references repeatWalk compares one by one
// is skipped as one among them is, so every metric that takes the best over references gives the
// same scores, exactly, with the repeats as without them.
func TestRepeatsPastScan(t *testing.T) {
	distinct, repeated := manyRefs(3 * maxRepeatScan)
	for _, pred := range []string{"the cat ran on the mat 150", "cat", "", distinct[len(distinct)-1]} {
		for _, c := range []struct {
			name  string
			score func(refs []string) any
		}{
			{"SquadAll", func(refs []string) any { return SquadAll(pred, refs) }},
			{"Squad2Scores", func(refs []string) any { e, f := Squad2Scores(pred, refs); return [2]float64{e, f} }},
			{"HotpotPR", func(refs []string) any { p, r := HotpotPR(pred, refs); return [2]float64{p, r} }},
			{"BLEU", func(refs []string) any { return BLEU(pred, refs) }},
			{"RougeBoth", func(refs []string) any { a, b := RougeBoth(pred, refs); return [2]RougeScores{a, b} }},
			{"Rouge", func(refs []string) any { return Rouge(pred, refs, true) }},
			{"METEORBoth", func(refs []string) any { a, b := METEORBoth(pred, refs); return [2]float64{a, b} }},
			{"METEOR", func(refs []string) any { return METEOR(pred, refs, false) }},
			{"CMRC", func(refs []string) any { return [2]float64{CMRCEM(pred, refs), CMRCF1(pred, refs)} }},
		} {
			if got, want := c.score(repeated), c.score(distinct); !reflect.DeepEqual(got, want) {
				t.Errorf("%s(%q) over %d references with repeats = %+v, over the %d distinct = %+v", c.name, pred, len(repeated), got, len(distinct), want)
			}
		}
	}
}

// TestRepeatWalk: which references repeat an earlier one, by comparing them among the first
// maxRepeatScan and by a map past them; a reference asked of twice is no repeat of itself, and
// one not asked of is not kept.
func TestRepeatWalk(t *testing.T) {
	refs := []string{"a", "b", "a", "c", "b"}
	w := repeatWalk{refs: refs}
	for k, want := range []bool{false, false, true, false, true} {
		if got := w.repeats(k); got != want {
			t.Errorf("repeats(%q, %d) = %v, want %v", refs, k, got, want)
		}
	}
	long := make([]string, 3*maxRepeatScan)
	for i := range long {
		long[i] = fmt.Sprint(i % (maxRepeatScan + 10)) // repeats from maxRepeatScan+10 on
	}
	long[maxRepeatScan+1] = "5" // a repeat of one among the first maxRepeatScan
	w = repeatWalk{refs: long}
	for k := range long {
		// The first "65" is at maxRepeatScan+1+maxRepeatScan+10, where the list comes round.
		want := k >= maxRepeatScan+10 && k != 2*maxRepeatScan+11 || k == maxRepeatScan+1
		if got := w.repeats(k); got != want {
			t.Errorf("repeats(long, %d) (%q) = %v, want %v", k, long[k], got, want)
		}
		if k == maxRepeatScan+3 && w.repeats(k) {
			t.Errorf("repeats(long, %d) asked again = true: no reference repeats itself", k)
		}
	}
	// A reference not asked of is not kept: its repeat is no repeat to the walk (it is scored,
	// to the same result).
	w = repeatWalk{refs: long}
	for k := range maxRepeatScan + 10 {
		if k != maxRepeatScan+2 {
			w.repeats(k)
		}
	}
	if w.repeats(2*maxRepeatScan + 12) {
		t.Errorf("repeats: a repeat of a reference never asked of is a repeat")
	}
}

// BenchmarkManyReferences scores one prediction against 50,000 distinct references, as a record
// of a dataset with thousands of acceptable answers has them, and against 50,000 copies of one
// answer: in time linear in their number, the copies skipped.
func BenchmarkManyReferences(b *testing.B) {
	distinct, _ := manyRefs(50000)
	copies := slices.Repeat([]string{distinct[0]}, 50000)
	for _, bc := range []struct {
		name string
		refs []string
	}{{"distinct", distinct}, {"copies", copies}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				SquadAll("the cat sat on the mat", bc.refs)
			}
		})
	}
}
