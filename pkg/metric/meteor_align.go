package metric

import "slices"

// align runs NLTK's three matching stages for sc.ref, fills sc.match and returns the number of
// matches.
func (sc *meteorScratch) align() int {
	if sc.alignEqual() {
		return len(sc.hyp)
	}
	return sc.alignStages(true)
}

// alignEqual aligns equal token lists and reports whether they were. Equal lists align position
// by position: walking from the end, the last remaining reference item with hypothesis item i's
// word is item i itself.
func (sc *meteorScratch) alignEqual() bool {
	if !slices.Equal(sc.hyp, sc.ref) {
		return false
	}
	for i := range sc.match {
		sc.match[i] = int32(i)
	}
	return true
}

// alignStages is align without the shortcut for equal token lists. With synonyms false it stops
// before the synonym stage, leaving the stems of the items not matched in sc.hKey and sc.rKey.
func (sc *meteorScratch) alignStages(synonyms bool) int {
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
	sc.hKey = resize(sc.hKey, n)
	sc.rKey = resize(sc.rKey, m)
	for _, h := range sc.hRem {
		sc.hKey[h] = sc.stem(sc.hyp[h])
	}
	for _, r := range sc.rRem {
		sc.rKey[r] = sc.stem(sc.ref[r])
	}
	count += sc.matchEqual(sc.hKey, sc.rKey)
	if !synonyms || sc.wn == nil || len(sc.hRem) == 0 || len(sc.rRem) == 0 {
		return count
	}
	return count + sc.matchSynonyms()
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
	sc.compactHyp()
	k := 0
	for _, r := range sc.rRem {
		if !sc.rUsed[r] {
			sc.rRem[k] = r
			k++
		}
	}
	sc.rRem = sc.rRem[:k]
}

// compactHyp drops the matched positions from sc.hRem.
func (sc *meteorScratch) compactHyp() {
	k := 0
	for _, h := range sc.hRem {
		if sc.match[h] < 0 {
			sc.hRem[k] = h
			k++
		}
	}
	sc.hRem = sc.hRem[:k]
}

// matchEqual is NLTK's _match_enums over the remaining positions, with hk and rk the word ids
// (tokens or stems) by position: for each hypothesis item from the last, the last remaining
// reference item with the same word is matched, and both leave the remaining lists. It
// returns the number of matches.
func (sc *meteorScratch) matchEqual(hk, rk []int32) int {
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
	if count > 0 {
		sc.compactHyp() // matched reference positions already left sc.rRem
	}
	return count
}

// matchEqualGrouped gives matchEqual's result in O(n+m): the remaining reference positions are
// pushed in ascending order on one stack per word id, so a stack's top is the last remaining
// item with that word, which is the item the nested loops pick.
func (sc *meteorScratch) matchEqualGrouped(hk, rk []int32) int {
	sc.head = resize(sc.head, len(sc.words))
	sc.next = resize(sc.next, len(sc.ref))
	for _, h := range sc.hRem {
		sc.head[hk[h]] = -1
	}
	for _, r := range sc.rRem {
		sc.head[rk[r]] = -1
	}
	for _, r := range sc.rRem {
		sc.next[r] = sc.head[rk[r]]
		sc.head[rk[r]] = r
	}
	count := 0
	for i := len(sc.hRem) - 1; i >= 0; i-- {
		h := sc.hRem[i]
		if r := sc.head[hk[h]]; r >= 0 {
			sc.head[hk[h]] = sc.next[r]
			sc.pair(h, r)
			count++
		}
	}
	if count > 0 {
		sc.compact()
	}
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
	named := 0
	for _, r := range sc.rRem {
		if sc.name(sc.wn, sc.rKey[r]) >= 0 {
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
		syn := sc.synonyms(sc.wn, sc.hKey[h], &sc.morph)
		for j := len(sc.rRem) - 1; j >= 0 && len(syn) > 0; j-- {
			r := sc.rRem[j]
			if id := sc.words[sc.rKey[r]].name; id >= 0 && slices.Contains(syn, uint32(id)) {
				sc.pair(h, r)
				sc.rRem = append(sc.rRem[:j], sc.rRem[j+1:]...)
				count++
				break
			}
		}
	}
	if count > 0 {
		sc.compactHyp() // matched reference positions already left sc.rRem
	}
	return count
}

// matchSynonymsGrouped gives matchSynonyms' result for long inputs: named reference items are
// stacked by name id as in matchEqualGrouped, and each hypothesis item takes the highest top
// among the stacks of its synonyms.
func (sc *meteorScratch) matchSynonymsGrouped(named int) int {
	t := &sc.stacks
	t.reset(named, len(sc.ref))
	for _, r := range sc.rRem {
		if id := sc.words[sc.rKey[r]].name; id >= 0 {
			h := idHash(id)
			t.push(t.find(h, func(rep int32) bool { return sc.words[sc.rKey[rep]].name == id }, true), h, r)
		}
	}
	count := 0
	for i := len(sc.hRem) - 1; i >= 0; i-- {
		h := sc.hRem[i]
		best, bestTop := -1, int32(-1)
		for _, id := range sc.synonyms(sc.wn, sc.hKey[h], &sc.morph) {
			id := int32(id)
			s := t.find(idHash(id), func(rep int32) bool { return sc.words[sc.rKey[rep]].name == id }, false)
			if s >= 0 && t.top(s) > bestTop {
				best, bestTop = s, t.top(s)
			}
		}
		if best >= 0 {
			sc.pair(h, t.pop(best))
			count++
		}
	}
	if count > 0 {
		sc.compact()
	}
	return count
}
