package repeat

// set is a set of id hashes (maphash values, uniformly spread): open addressing with linear
// probing over a slice that doubles when it is three quarters full, so a hash takes 11 to 21
// bytes, 32 for a moment while the slice doubles.
//
// Note: a map[uint64]struct{} took about 40 bytes a hash, and half as much again in the garbage
// collector's headroom: 43 MB more at the peak of a 500,000-record qa-score summary than the
// slice of hashes sorted at the end, which knew how many ids repeat but not which came first.
type set struct {
	slots []uint64 // 0 is an empty slot: the hash 0 is kept as 1
	n     int
}

// add puts h in the set and reports whether it was there already.
func (s *set) add(h uint64) bool {
	if h == 0 {
		h = 1
	}
	if (s.n+1)*4 > len(s.slots)*3 {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			s.n++
			return false
		case h:
			return true
		}
	}
}

// has reports whether h is in the set.
func (s *set) has(h uint64) bool {
	if h == 0 {
		h = 1
	}
	if len(s.slots) == 0 {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			return false
		case h:
			return true
		}
	}
}

// grow doubles the slots (1024 at first) and puts the hashes back.
func (s *set) grow() {
	old := s.slots
	s.slots, s.n = make([]uint64, max(2*len(old), 1024)), 0
	for _, h := range old {
		if h != 0 {
			s.add(h)
		}
	}
}
