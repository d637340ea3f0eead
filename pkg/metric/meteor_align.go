package metric

import (
	"slices"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// align runs NLTK's three matching stages for sc.ref, fills sc.match and returns the number of
// matches.
func (sc *meteorScratch) align() int {
	n, m := len(sc.hyp), len(sc.ref)
	for i := range sc.match {
		sc.match[i] = -1
	}
	sc.rUsed = resize(sc.rUsed, m)
	clear(sc.rUsed)
	sc.hRem = iota32(sc.hRem, n)
	sc.rRem = iota32(sc.rRem, m)
	count := sc.matchEqual(sc.hyp, sc.ref)
	if len(sc.hRem) == 0 || len(sc.rRem) == 0 {
		return count
	}
	sc.rStem = resize(sc.rStem, m)
	for _, r := range sc.rRem {
		sc.rStem[r] = stem(sc.ref[r])
	}
	for _, h := range sc.hRem {
		if !sc.hHas[h] {
			sc.hStem[h] = stem(sc.hyp[h])
			sc.hHas[h] = true
		}
	}
	count += sc.matchEqual(sc.hStem, sc.rStem)
	if sc.wn == nil || len(sc.hRem) == 0 || len(sc.rRem) == 0 {
		return count
	}
	return count + sc.matchSynonyms()
}

// stem is textnorm.Stem for a lowercased token. A token ending in a non-ASCII character is its
// own stem: every Porter rule (and NLTK's irregular-form pool) needs an ASCII suffix.
func stem(tok string) string {
	if tok[len(tok)-1] >= utf8.RuneSelf {
		return tok
	}
	return textnorm.Stem(tok)
}

func iota32(s []int32, n int) []int32 {
	s = resize(s, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

// pair matches hypothesis position h with reference position r.
func (sc *meteorScratch) pair(h, r int32) {
	sc.match[h] = r
	sc.rUsed[r] = true
}

// compact drops the matched positions from sc.hRem and sc.rRem.
func (sc *meteorScratch) compact() {
	sc.hRem = slices.DeleteFunc(sc.hRem, func(h int32) bool { return sc.match[h] >= 0 })
	sc.rRem = slices.DeleteFunc(sc.rRem, func(r int32) bool { return sc.rUsed[r] })
}

// matchEqual is NLTK's _match_enums over the remaining positions: for each hypothesis item
// from the last, the last remaining reference item with the same key is matched, and both
// leave the remaining lists. It returns the number of matches.
func (sc *meteorScratch) matchEqual(hk, rk []string) int {
	if len(sc.hRem)*len(sc.rRem) > sc.groupAbove {
		return sc.matchEqualGrouped(hk, rk)
	}
	count := 0
	for i := len(sc.hRem) - 1; i >= 0; i-- {
		h := sc.hRem[i]
		for j := len(sc.rRem) - 1; j >= 0; j-- {
			if r := sc.rRem[j]; hk[h] == rk[r] {
				sc.pair(h, r)
				sc.rRem = append(sc.rRem[:j], sc.rRem[j+1:]...)
				count++
				break
			}
		}
	}
	sc.compact()
	return count
}

// matchEqualGrouped gives matchEqual's result for long inputs: the remaining reference items
// are grouped by key in stacks whose top is the last remaining item with that key, which is the
// item the nested loops pick.
func (sc *meteorScratch) matchEqualGrouped(hk, rk []string) int {
	t := &sc.stacks
	t.reset(len(sc.rRem), len(sc.ref))
	for _, r := range sc.rRem {
		h := strHash(rk[r])
		t.push(t.find(h, func(rep int32) bool { return rk[rep] == rk[r] }, true), h, r)
	}
	count := 0
	for i := len(sc.hRem) - 1; i >= 0; i-- {
		h := sc.hRem[i]
		w := hk[h]
		s := t.find(strHash(w), func(rep int32) bool { return rk[rep] == w }, false)
		if s >= 0 && t.top(s) >= 0 {
			sc.pair(h, t.pop(s))
			count++
		}
	}
	sc.compact()
	return count
}

// matchSynonyms is NLTK's _enum_wordnetsyn_match on the remaining stems: for each hypothesis
// item from the last, the last remaining reference stem that is a lemma name (without '_') of
// a synset of the hypothesis stem is matched.
//
// Note: NLTK also puts the hypothesis stem itself in the set. After the stem stage no remaining
// reference stem equals a remaining hypothesis stem (a hypothesis item is left only when no
// equal reference item remained, and references only get removed), so that never matches.
func (sc *meteorScratch) matchSynonyms() int {
	sc.rName = resize(sc.rName, len(sc.ref))
	named := 0
	for _, r := range sc.rRem {
		sc.rName[r] = -1
		if id, ok := sc.wn.names[sc.rStem[r]]; ok {
			sc.rName[r] = int32(id)
			named++
		}
	}
	if named == 0 {
		return 0
	}
	if len(sc.hRem)*named > sc.groupAbove {
		return sc.matchSynonymsGrouped(named)
	}
	count := 0
	for i := len(sc.hRem) - 1; i >= 0; i-- {
		h := sc.hRem[i]
		syn := sc.synonymsOf(h)
		for j := len(sc.rRem) - 1; j >= 0 && len(syn) > 0; j-- {
			r := sc.rRem[j]
			if id := sc.rName[r]; id >= 0 && slices.Contains(syn, uint32(id)) {
				sc.pair(h, r)
				sc.rRem = append(sc.rRem[:j], sc.rRem[j+1:]...)
				count++
				break
			}
		}
	}
	sc.compact()
	return count
}

// matchSynonymsGrouped gives matchSynonyms' result for long inputs: named reference items are
// grouped by name id as in matchEqualGrouped, and each hypothesis item takes the highest top
// among the groups of its synonyms.
func (sc *meteorScratch) matchSynonymsGrouped(named int) int {
	t := &sc.stacks
	t.reset(named, len(sc.ref))
	name := sc.rName
	for _, r := range sc.rRem {
		if id := name[r]; id >= 0 {
			h := idHash(id)
			t.push(t.find(h, func(rep int32) bool { return name[rep] == id }, true), h, r)
		}
	}
	count := 0
	for i := len(sc.hRem) - 1; i >= 0; i-- {
		h := sc.hRem[i]
		best, bestTop := -1, int32(-1)
		for _, id := range sc.synonymsOf(h) {
			id := int32(id)
			s := t.find(idHash(id), func(rep int32) bool { return name[rep] == id }, false)
			if s >= 0 && t.top(s) > bestTop {
				best, bestTop = s, t.top(s)
			}
		}
		if best >= 0 {
			sc.pair(h, t.pop(best))
			count++
		}
	}
	sc.compact()
	return count
}

// synonymsOf returns the synonym name ids of hypothesis item h, computed once per call.
func (sc *meteorScratch) synonymsOf(h int32) []uint32 {
	if sc.hSynOff[2*h] < 0 {
		start := len(sc.hSyn)
		sc.hSyn = sc.wn.synonyms(sc.hSyn, sc.hStem[h], &sc.morph)
		sc.hSynOff[2*h], sc.hSynOff[2*h+1] = int32(start), int32(len(sc.hSyn))
	}
	return sc.hSyn[sc.hSynOff[2*h]:sc.hSynOff[2*h+1]]
}
