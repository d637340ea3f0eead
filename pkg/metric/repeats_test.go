package metric

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// manyRefs is n references, each word list distinct, then the same list again, reversed: every
// reference past the first n repeats one, most of them past maxRepeatScan, where repeats no
// longer looks for them.
func manyRefs(n int) (distinct, repeated []string) {
	for i := range n {
		distinct = append(distinct, fmt.Sprintf("the cat sat on mat %d, (running) %d", i, i*7))
	}
	repeated = append(slices.Clone(distinct), distinct...)
	slices.Reverse(repeated[n:])
	return distinct, repeated
}

// TestRepeatsPastScan: a reference repeated past the references repeats compares scores as its
// first occurrence did, so every metric that takes the best over references gives the same
// scores, exactly, with the repeats as without them.
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

func TestRepeats(t *testing.T) {
	refs := []string{"a", "b", "a", "c", "b"}
	for k, want := range []bool{false, false, true, false, true} {
		if got := repeats(refs, k); got != want {
			t.Errorf("repeats(%q, %d) = %v, want %v", refs, k, got, want)
		}
	}
	long := make([]string, maxRepeatScan+2)
	if repeats(long, maxRepeatScan-1) != true || repeats(long, maxRepeatScan) != false {
		t.Errorf("repeats compares the first %d references only", maxRepeatScan)
	}
}

// BenchmarkManyReferences scores one prediction against 50,000 distinct references, as a record
// of a dataset with thousands of acceptable answers has them: in time linear in their number.
func BenchmarkManyReferences(b *testing.B) {
	distinct, _ := manyRefs(50000)
	b.ReportAllocs()
	for b.Loop() {
		SquadAll("the cat sat on the mat", distinct)
	}
}
