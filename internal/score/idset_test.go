package score

import (
	"math/rand/v2"
	"testing"
)

// TestIDSet: add reports a hash seen before, and only such, through the slice's doublings and for
// hashes that share low bits (one probe chain) or are 0 (kept as 1, as 1 itself is).
func TestIDSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var hashes []uint64
	for range 5000 {
		hashes = append(hashes, rng.Uint64())
	}
	for i := 1; i <= 100; i++ {
		hashes = append(hashes, uint64(i)<<40) // the same low bits: one long probe chain
	}
	hashes = append(hashes, 0)
	var s idSet
	seen := map[uint64]bool{}
	for round := range 2 {
		for _, h := range hashes {
			want := seen[h] || h == 0 && seen[1] || h == 1 && seen[0]
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
