package metric

// This file reads BLEU's hypothesis and references into token ids (see bleu.go).

import (
	"slices"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// bleuRead puts the tokens of pred and then refs in s.words, the ends of the references in
// s.bounds, and returns the hypothesis length and the closest reference length. Words are the
// tokens' keys, or unless byKey is set their ids interned by bytes; by key, it reports false if
// two different long tokens share a key.
func (s *scratch) bleuRead(pred string, refs []string, byKey bool) (hyp, closest int, ok bool) {
	read := s.bleuIDs
	if byKey {
		s.longs = s.longs[:0]
		read = s.bleuTokens
	}
	s.words = read(s.words[:0], pred)
	hyp = len(s.words)
	bounds := s.bounds[:0]
	closest = -1
	w := repeatWalk{refs: refs}
	for k, r := range refs {
		switch {
		case w.repeats(k):
			continue // a repeated reference changes neither the clipping counts nor the closest length
		case r == pred:
			s.words = append(s.words, s.words[:hyp]...)
		default:
			s.words = read(s.words, r)
		}
		n := len(s.words) - hyp
		if len(bounds) > 0 {
			n = len(s.words) - bounds[len(bounds)-1]
		}
		bounds = append(bounds, len(s.words))
		if closest < 0 || abs(n-hyp) < abs(closest-hyp) || abs(n-hyp) == abs(closest-hyp) && n < closest {
			closest = n
		}
	}
	s.bounds = bounds
	return hyp, closest, !byKey || s.bleuLongsDistinct()
}

// wordIDs sets s.ids to dense ids of s.words, in order of first appearance.
func (s *scratch) wordIDs() {
	s.tokIDs.reset(min(len(s.words)/2+1, 256)) // grown as needed
	s.ids = s.ids[:0]
	next := int32(0)
	for _, w := range s.words {
		if 2*(next+1) > int32(len(s.tokIDs.slots)) {
			s.tokIDs.grow()
		}
		id, isNew := s.tokIDs.insert(w, next)
		if isNew {
			next++
		}
		s.ids = append(s.ids, id)
	}
}

// bleuIDs appends the ids of split(lower(str)) to dst, interned by bytes.
func (s *scratch) bleuIDs(dst []uint64, str string) []uint64 {
	start := len(s.buf)
	if isASCIIString(str) {
		for i := 0; i < len(str); i++ {
			c := str[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			s.buf = append(s.buf, c)
		}
	} else {
		s.buf = textnorm.AppendLower(s.buf, str)
	}
	tok := -1
	for i := start; i < len(s.buf); {
		c, n := rune(s.buf[i]), 1
		if c >= utf8.RuneSelf {
			c, n = utf8.DecodeRune(s.buf[i:])
		}
		if textnorm.IsSpace(c) {
			if tok >= 0 {
				dst = append(dst, uint64(s.id(s.buf[tok:i])))
				tok = -1
			}
		} else if tok < 0 {
			tok = i
		}
		i += n
	}
	if tok >= 0 {
		dst = append(dst, uint64(s.id(s.buf[tok:])))
	}
	s.buf = s.buf[:start]
	return dst
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// denseIDs renumbers s.ids to 0..U-1 when some id needs more than 16 bits, and reports whether
// every id now fits in 16 bits, so that an n-gram of up to four ids packs into a uint64.
func (s *scratch) denseIDs() bool {
	if len(s.ids) == 0 || slices.Max(s.ids) < 1<<16 {
		return true
	}
	u := append(s.row[:0], s.ids...)
	slices.Sort(u)
	u = slices.Compact(u)
	s.row = u
	if len(u) > 1<<16 {
		return false
	}
	for i, id := range s.ids {
		r, _ := slices.BinarySearch(u, id)
		s.ids[i] = int32(r)
	}
	return true
}
