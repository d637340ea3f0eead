package metric

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Token keys.
//
// Every token cut from a normalised text carries a 64-bit key: a token of at most seven bytes is
// its bytes packed little-endian with its length in the top byte, so equal keys mean equal tokens;
// a longer token's key is a hash with the top bit set, so equal keys are confirmed on the bytes.
// Comparing keys replaces comparing bytes in the multiset matching of token F1.

const longKey = 1 << 63

// tokenKey returns the key of tok.
func tokenKey(tok []byte) uint64 {
	if len(tok) <= 7 {
		var k uint64
		for i := len(tok) - 1; i >= 0; i-- {
			k = k<<8 | uint64(tok[i])
		}
		return k | uint64(len(tok))<<56
	}
	return hashBytes(tok) | longKey
}

// hashBytes is a fast 64-bit hash for tokens of eight bytes or more.
func hashBytes(b []byte) uint64 {
	const m = 0x9e3779b97f4a7c15
	h := uint64(len(b)) * m
	for len(b) >= 8 {
		h = bits.RotateLeft64((h^binary.LittleEndian.Uint64(b))*m, 29)
		b = b[8:]
	}
	if len(b) > 0 {
		var t uint64
		for i := len(b) - 1; i >= 0; i-- {
			t = t<<8 | uint64(b[i])
		}
		h = bits.RotateLeft64((h^t)*m, 29)
	}
	h ^= h >> 32
	h *= m
	return h ^ h>>29
}

// sameTok reports whether tokens i and j are equal.
func (s *scratch) sameTok(i, j int32) bool {
	a, b := s.toks[i], s.toks[j]
	return a.key == b.key && (a.key&longKey == 0 || string(s.buf[a.start:a.end]) == string(s.buf[b.start:b.end]))
}

// squad appends SQuAD-normalised str and its tokens to the scratch. Their keys are left 0, to
// be worked out by keyText when they are needed: exact match compares the bytes.
func (s *scratch) squad(str string) text {
	start := len(s.buf)
	s.buf, s.ends = textnorm.AppendSquadTokens(s.buf, s.ends[:0], str)
	t := text{bstart: int32(start), bend: int32(len(s.buf)), lo: int32(len(s.toks))}
	s.toks = slices.Grow(s.toks, len(s.ends))
	b := int32(start)
	for _, e := range s.ends {
		s.toks = append(s.toks, span{b, e, 0})
		b = e + 1
	}
	t.hi = int32(len(s.toks))
	return t
}

// keyText sets the keys of the tokens of t, unless they are set (no key is 0).
func (s *scratch) keyText(t text) {
	if t.lo == t.hi || s.toks[t.lo].key != 0 {
		return
	}
	buf := s.buf[:cap(s.buf)]
	for i := t.lo; i < t.hi; i++ {
		tk := &s.toks[i]
		b, e := tk.start, tk.end
		switch n := e - b; {
		case n > 7:
			tk.key = hashBytes(buf[b:e]) | longKey
		case int(b)+8 <= len(buf):
			tk.key = binary.LittleEndian.Uint64(buf[b:])&(1<<(8*n)-1) | uint64(n)<<56
		default:
			tk.key = tokenKey(buf[b:e])
		}
	}
}

// overlap returns the size of the multiset intersection of the tokens of a and b.
func (s *scratch) overlap(a, b text) int {
	s.keyText(a)
	s.keyText(b)
	na, nb := int(a.hi-a.lo), int(b.hi-b.lo)
	if nb <= 64 && na*nb <= 4096 {
		return s.overlapSmall(a, b)
	}
	if na <= 64 && na*nb <= 4096 {
		return s.overlapSmall(b, a) // the intersection's size does not depend on the order
	}
	if same, ok := s.overlapKeys(a, b); ok {
		return same
	}
	return s.overlapIDs(a, b)
}

// overlapSmall is overlap for at most 64 tokens in b: each token of a takes the first unused
// token of b with its key, found by scanning b's tokens. overlap calls it with either text as b,
// the shorter when the other is over 64 tokens, so that a short prediction against a long
// reference scans a few keys per reference token instead of counting the reference in a table.
func (s *scratch) overlapSmall(a, b text) int {
	bs := s.toks[b.lo:b.hi]
	var used uint64
	same := 0
	for i := a.lo; i < a.hi; i++ {
		k := s.toks[i].key
		for j := range bs {
			if bs[j].key == k && used&(1<<j) == 0 && (k&longKey == 0 || s.sameTok(i, b.lo+int32(j))) {
				used |= 1 << j
				same++
				break
			}
		}
	}
	return same
}

// overlapKeys counts the gold tokens by key in a hash table, then takes the prediction's from the
// counts. It reports false if two different long tokens share a key.
func (s *scratch) overlapKeys(a, b text) (int, bool) {
	s.grams.reset(int(b.hi - b.lo))
	s.counts = s.counts[:0]
	s.row = s.row[:0] // a token of each distinct key
	for j := b.lo; j < b.hi; j++ {
		d, isNew := s.grams.insert(s.toks[j].key, int32(len(s.counts)))
		if isNew {
			s.counts = append(s.counts, 1)
			s.row = append(s.row, j)
			continue
		}
		if !s.sameTok(s.row[d], j) {
			return 0, false
		}
		s.counts[d]++
	}
	same := 0
	for i := a.lo; i < a.hi; i++ {
		d := s.grams.find(s.toks[i].key)
		if d < 0 {
			continue
		}
		if !s.sameTok(s.row[d], i) {
			return 0, false
		}
		if s.counts[d] > 0 {
			s.counts[d]--
			same++
		}
	}
	return same, true
}

// overlapIDs is overlap by interning the tokens' bytes: the exact path when keys collide.
func (s *scratch) overlapIDs(a, b text) int {
	s.counts = s.counts[:0]
	for j := b.lo; j < b.hi; j++ {
		id := s.id(s.tok(j))
		s.counts = growTo(s.counts, int(id)+1)
		s.counts[id]++
	}
	same := 0
	for i := a.lo; i < a.hi; i++ {
		if id := s.id(s.tok(i)); int(id) < len(s.counts) && s.counts[id] > 0 {
			s.counts[id]--
			same++
		}
	}
	return same
}
