package repeat

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIDs: Add reports an id seen before, and only such, counts them, and keeps where the first
// was; with Max, ids past the first Max are checked but not held.
func TestIDs(t *testing.T) {
	type add struct {
		id   string
		line int
		want bool
	}
	tests := []struct {
		name      string
		max       int
		adds      []add
		count     int
		wantFirst string // its Place, "" for none
	}{
		{"none", 0, []add{{"a", 1, false}, {"b", 2, false}}, 0, ""},
		{"one", 0, []add{{"a", 1, false}, {"b", 2, false}, {"a", 3, true}, {"b", 4, true}, {"a", 5, true}}, 3, `f.json:3 (id "a")`},
		{"line unknown", 0, []add{{"a", 0, false}, {"a", 0, true}}, 1, `f.json (id "a")`},
		{"empty id", 0, []add{{"", 1, false}, {"", 2, true}}, 1, `f.json:2`},
		// past Max, "c" is not held: its second coming is no repeat, while "a" still is one
		{"bounded", 2, []add{{"a", 1, false}, {"b", 2, false}, {"c", 3, false}, {"c", 4, false}, {"a", 5, true}}, 1, `f.json:5 (id "a")`},
		{"bounded repeats", 2, []add{{"a", 1, false}, {"a", 2, true}, {"b", 3, false}, {"c", 4, false}, {"b", 5, true}}, 2, `f.json:2 (id "a")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := IDs{Max: tc.max}
			for _, a := range tc.adds {
				if got := s.Add(a.id, "f.json", a.line); got != a.want {
					t.Errorf("Add(%q, line %d) = %v, want %v", a.id, a.line, got, a.want)
				}
			}
			if got := s.Count(); got != tc.count {
				t.Errorf("Count() = %d, want %d", got, tc.count)
			}
			got := ""
			if f := s.First(); f != nil {
				got = f.Place()
			}
			if got != tc.wantFirst {
				t.Errorf("First().Place() = %q, want %q", got, tc.wantFirst)
			}
		})
	}
}

// TestIDsBoundMemory: with Max, the slots stop growing once Max ids are held, however many
// more come.
func TestIDsBoundMemory(t *testing.T) {
	s := IDs{Max: 1000}
	for i := range 100_000 {
		s.Add(fmt.Sprint(i), "f", i+1)
	}
	if s.set.n != 1000 || len(s.set.slots) != 2048 {
		t.Errorf("%d ids held in %d slots, want 1000 in 2048", s.set.n, len(s.set.slots))
	}
	if s.Count() != 0 {
		t.Errorf("Count() = %d, want 0", s.Count())
	}
}

// TestSet: add reports a hash seen before, and only such, through the slice's doublings and for
// hashes that share low bits (one probe chain) or are 0 (kept as 1, as 1 itself is); has agrees
// with it and adds nothing.
func TestSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var hashes []uint64
	for range 5000 {
		hashes = append(hashes, rng.Uint64())
	}
	for i := 1; i <= 100; i++ {
		hashes = append(hashes, uint64(i)<<40) // the same low bits: one long probe chain
	}
	hashes = append(hashes, 0)
	var s set
	seen := map[uint64]bool{}
	for round := range 2 {
		for _, h := range hashes {
			want := seen[h] || h == 0 && seen[1] || h == 1 && seen[0]
			if got := s.has(h); got != want {
				t.Fatalf("round %d: has(%#x) = %v, want %v", round, h, got, want)
			}
			if got := s.add(h); got != want {
				t.Fatalf("round %d: add(%#x) = %v, want %v", round, h, got, want)
			}
			seen[h] = true
		}
	}
	if s.n != len(hashes) {
		t.Errorf("%d hashes in the set, want %d", s.n, len(hashes))
	}
	if s.n*4 > len(s.slots)*3 {
		t.Errorf("%d hashes in %d slots: more than three quarters full", s.n, len(s.slots))
	}
}
