package learncurve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qapipe/qapipe/pkg/record"
)

func TestFirstCorrectAndLongestRun(t *testing.T) {
	tests := []struct {
		y          []int
		first, run int
	}{
		{[]int{0, 0, 0}, 4, 0},
		{[]int{1, 1, 1}, 1, 3},
		{[]int{0, 1, 1, 0, 1}, 2, 2},
		{[]int{1, 0, 1, 1, 1, 0, 1}, 1, 3},
		{[]int{}, 1, 0},
	}
	for _, tt := range tests {
		if got := firstCorrect(tt.y); got != tt.first {
			t.Errorf("firstCorrect(%v) = %d, want %d", tt.y, got, tt.first)
		}
		if got := longestRun(tt.y); got != tt.run {
			t.Errorf("longestRun(%v) = %d, want %d", tt.y, got, tt.run)
		}
	}
}

// TestComputeWeighting checks the mixed weighting on a case where micro and macro differ: three
// sequences of type A, one of type B.
func TestComputeWeighting(t *testing.T) {
	seqs := []Sequence{
		{ID: "1", Type: NamedType("A"), Y: []int{0, 0, 1, 1}},
		{ID: "2", Type: NamedType("A"), Y: []int{0, 0, 0, 0}},
		{ID: "3", Type: NamedType("B"), Y: []int{1, 1, 1, 1}},
		{ID: "4", Type: NamedType("A"), Y: []int{0, 1, 0, 1}},
	}
	rep := Compute(seqs, 4, 2)
	a := Metrics{
		Accuracy:     4.0 / 12,
		Position:     []float64{0, 1.0 / 3, 1.0 / 3, 2.0 / 3},
		FirstCorrect: (3 + 5 + 2) / 3.0,
		Consecutive:  (2 + 0 + 1) / 3.0,
		PostWarmup:   3.0 / 6,
		Slope:        0.2,
	}
	b := Metrics{Accuracy: 1, Position: []float64{1, 1, 1, 1}, FirstCorrect: 1, Consecutive: 1 * 4, PostWarmup: 1}
	overall := Metrics{
		Accuracy:     8.0 / 16,                                  // micro over problems
		PostWarmup:   5.0 / 8,                                   // micro over problems after K
		Position:     []float64{0.5, 2.0 / 3, 2.0 / 3, 5.0 / 6}, // macro over types
		FirstCorrect: ((3+5+2)/3.0 + 1) / 2,                     // macro over types
		Consecutive:  (1 + 4) / 2.0,                             // macro over types
		Slope:        0.1,
	}
	want := Report{Sequences: 4, Problems: 4, Warmup: 2, Overall: overall, Types: []TypeMetrics{
		{Type: NamedType("A"), Sequences: 3, Metrics: a}, {Type: NamedType("B"), Sequences: 1, Metrics: b},
	}}
	if diff := cmp.Diff(want, rep, cmpopts.EquateApprox(0, 1e-12), cmp.AllowUnexported(TaskType{})); diff != "" {
		t.Errorf("Compute mismatch (-want +got):\n%s", diff)
	}
}

func TestComputeWarmupAtLeastM(t *testing.T) {
	seqs := []Sequence{{ID: "1", Type: NamedType("A"), Y: []int{1, 1}}}
	for _, k := range []int{2, 5} {
		rep := Compute(seqs, 2, k)
		if rep.Overall.PostWarmup != 0 || rep.Types[0].PostWarmup != 0 {
			t.Errorf("Compute(K=%d ≥ M=2) post-warmup = %v, %v, want 0, 0", k, rep.Overall.PostWarmup, rep.Types[0].PostWarmup)
		}
		if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "must be less than M") {
			t.Errorf("Compute(K=%d ≥ M=2) warnings = %q, want one about K and M", k, rep.Warnings)
		}
	}
}

func TestComputeEmpty(t *testing.T) {
	rep := Compute(nil, 3, 1)
	want := Report{Problems: 3, Warmup: 1, Overall: Metrics{Position: []float64{0, 0, 0}}, Warnings: []string{"no sequences: every figure is 0"}}
	if diff := cmp.Diff(want, rep, cmp.AllowUnexported(TaskType{})); diff != "" {
		t.Errorf("Compute(nil) mismatch (-want +got):\n%s", diff)
	}
	if got := string(rep.JSON(nil)); !strings.Contains(got, `"type_metrics": {}`) {
		t.Errorf("empty report JSON = %s, want an empty type_metrics object", got)
	}
}

func TestGrouper(t *testing.T) {
	g := NewGrouper(3)
	for _, o := range []Observation{
		{Seq: "s1", Pos: "1", Correct: true}, // no type: the sequence is "unknown"
		{Seq: "s1", Type: NamedType("A"), Pos: "2", Correct: true},
		{Seq: "s2", Type: NamedType("B"), Pos: "3", Correct: true},
		{Seq: "s1", Type: NamedType("A"), Pos: "3", Correct: true},
		{Seq: "s1", Type: NamedType("A"), Pos: "2", Correct: false}, // later duplicate overwrites
		{Seq: "s1", Type: NamedType("A"), Pos: "4", Correct: true},  // beyond M: ignored
		{Seq: "s2", Type: NamedType("B"), Pos: `"1"`, Correct: true},
		{Seq: `"s2"`, Type: NamedType("C"), Pos: "1", Correct: true}, // a different key is a different sequence
	} {
		g.Add(o)
	}
	seqs, warns := g.Sequences()
	want := []Sequence{
		{ID: "s1", Type: NamedType(UnknownType), Y: []int{1, 0, 1}},
		{ID: "s2", Type: NamedType("B"), Y: []int{0, 0, 1}},
		{ID: `"s2"`, Type: NamedType("C"), Y: []int{1, 0, 0}},
	}
	if diff := cmp.Diff(want, seqs, cmp.AllowUnexported(TaskType{})); diff != "" {
		t.Errorf("Sequences mismatch (-want +got):\n%s", diff)
	}
	wantWarns := []string{
		"sequence s1 has 4 positions (1 not among 1-3, ignored), expected 3",
		"sequence s2 has 2 positions (1 not among 1-3, ignored), expected 3; missing positions 1,2 count as wrong",
		`sequence "s2" has 1 position, expected 3; missing positions 2,3 count as wrong`,
	}
	if diff := cmp.Diff(wantWarns, warns); diff != "" {
		t.Errorf("Sequences warnings mismatch (-want +got):\n%s", diff)
	}
}

// TestPositionWarningRuns: the missing positions of a sequence are written as runs, three or
// more in a row as first-last, so that a sequence of 7 read with --problems 1000000 gets a short
// warning, not a list of 999,993 numbers (7 MB a sequence, which ran qa-learncurve out of memory).
// A sequence with M positions that lacks one of 1..M, in place of which it has another (8, "2"),
// is warned about too, saying how many it has that are not read; so is one with another count of
// positions than M of which some are outside 1..M.
func TestPositionWarningRuns(t *testing.T) {
	for _, tc := range []struct {
		have []string // the positions the sequence has
		m    int
		want string
	}{
		{[]string{"1", "3"}, 3, "sequence s has 2 positions, expected 3; missing position 2 counts as wrong"},
		{[]string{"3"}, 3, "sequence s has 1 position, expected 3; missing positions 1,2 count as wrong"},
		{[]string{"1"}, 4, "sequence s has 1 position, expected 4; missing positions 2-4 count as wrong"},
		{[]string{"2", "6", "9"}, 12, "sequence s has 3 positions, expected 12; missing positions 1,3-5,7,8,10-12 count as wrong"},
		{[]string{"1", "2", "3", "4", "5", "6", "7"}, 1000000, "sequence s has 7 positions, expected 1000000; missing positions 8-1000000 count as wrong"},
		// As many positions as M, but not all of 1..M: EvaLearn, counting them, logs nothing.
		{[]string{"1", "2", "8"}, 3, "sequence s has 3 positions, 1 of them not among 1-3 (ignored); missing position 3 counts as wrong"},
		{[]string{"1", `"2"`, "0", "4"}, 4, "sequence s has 4 positions, 2 of them not among 1-4 (ignored); missing positions 2,3 count as wrong"},
		// Fewer or more positions than M, some outside 1..M: the count says which are not read.
		{[]string{"9"}, 7, "sequence s has 1 position (1 not among 1-7, ignored), expected 7; missing positions 1-7 count as wrong"},
		{[]string{"1", "2", "9"}, 2, "sequence s has 3 positions (1 not among 1-2, ignored), expected 2"},
		{[]string{"1", "0", "9"}, 4, "sequence s has 3 positions (2 not among 1-4, ignored), expected 4; missing positions 2-4 count as wrong"},
	} {
		g := NewGrouper(tc.m)
		for _, p := range tc.have {
			g.Add(Observation{Seq: "s", Type: NamedType("A"), Pos: p, Correct: true})
		}
		_, warns := g.Sequences()
		if len(warns) != 1 || warns[0] != tc.want {
			t.Errorf("positions %v of %d: warnings %q, want [%q]", tc.have, tc.m, warns, tc.want)
		}
	}
}

// TestGrouperNoted: Noted returns the notes of the observations counted, by kind and in input
// order across sequences, leaving out those a later observation of the same position replaced
// (and counting such a position once) and those at positions outside 1..M or keyed otherwise than
// 1..M are ("02"), which Ignored returns.
func TestGrouperNoted(t *testing.T) {
	note := func(k NoteKind, id string) *Note { return &Note{Kind: k, At: &record.Error{ID: id}} }
	g := NewGrouper(3)
	for _, o := range []Observation{
		{Seq: "b", Pos: "1", Note: note(Failed, "b1")},
		{Seq: "a", Pos: "1", Note: note(Failed, "a1")},
		{Seq: "a", Pos: "2", Note: note(Failed, "a2 replaced")},
		{Seq: "a", Pos: "3", Note: note(NoVerdict, "a3 replaced")},
		{Seq: "b", Pos: "2", Note: note(Unread, "b2")},
		{Seq: "a", Pos: "2", Correct: true},            // replaces a failed one
		{Seq: "a", Pos: "3", Note: note(Failed, "a3")}, // replaces one without verdict
		{Seq: "b", Pos: "3", Note: note(NoVerdict, "b3")},
		{Seq: "a", Pos: "8", Note: note(Failed, "a8")},
		{Seq: "b", Pos: `"2"`, Note: note(NoVerdict, `b"2"`)},
		{Seq: "b", Pos: "0", Note: note(Failed, "b0")},
		{Seq: "b", Pos: "02", Note: note(Failed, "b02")}, // not position 2's key, "2"
	} {
		g.Add(o)
	}
	places, counted := g.Noted()
	ids := func(places [noteKinds][]*record.Error, k NoteKind) []string {
		var s []string
		for _, at := range places[k] {
			s = append(s, at.ID)
		}
		return s
	}
	got := [][]string{ids(places, Failed), ids(places, NoVerdict), ids(places, Unread)}
	want := [][]string{{"b1", "a1", "a3"}, {"b3"}, {"b2"}}
	if diff := cmp.Diff(want, got); diff != "" || counted != 6 {
		t.Errorf("Noted() = %v, %d; want %v, 6 (-want +got):\n%s", got, counted, want, diff)
	}
	ignored := g.Ignored()
	got = [][]string{ids(ignored, Failed), ids(ignored, NoVerdict), ids(ignored, Unread)}
	want = [][]string{{"a8", "b0", "b02"}, {`b"2"`}, nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Ignored() = %v; want %v (-want +got):\n%s", got, want, diff)
	}
}

// TestComputeOneProblemManyTypes checks the macro position accuracy when M is 1 and there are 8
// types or more: numpy's mean over types of a column of one position is a pairwise sum, not a
// left-to-right one, and evaluate_metric.py reports 0.24583333333333335 here (not ...32).
func TestComputeOneProblemManyTypes(t *testing.T) {
	counts := []struct{ correct, seqs int }{{0, 7}, {3, 5}, {1, 5}, {1, 4}, {1, 3}, {2, 6}, {0, 3}, {1, 4}}
	var seqs []Sequence
	for i, c := range counts {
		for j := range c.seqs {
			y := 0
			if j < c.correct {
				y = 1
			}
			seqs = append(seqs, Sequence{ID: fmt.Sprint(len(seqs) + 1), Type: NamedType(fmt.Sprint("T", i)), Y: []int{y}})
		}
	}
	rep := Compute(seqs, 1, 0)
	if got, want := rep.Overall.Position[0], 0.24583333333333335; got != want {
		t.Errorf("Compute(M=1, 8 types) position accuracy = %v, want %v", got, want)
	}
}
