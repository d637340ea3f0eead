package metric

import (
	"math/bits"
	"strings"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// substitutions are NLTK's MORPHOLOGICAL_SUBSTITUTIONS, in its order, per part of speech.
var substitutions = [numPOS][]struct{ old, new string }{
	posNoun: {{"s", ""}, {"ses", "s"}, {"ves", "f"}, {"xes", "x"}, {"zes", "z"},
		{"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	posVerb: {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""},
		{"ing", "e"}, {"ing", ""}},
	posAdj: {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
	posAdv: nil,
}

// rulesEndingIn has, per part of speech and byte c, bit k set when substitution k's old
// suffix ends in c: only those rules can apply to a form that ends in c.
var rulesEndingIn = func() (m [numPOS][256]uint16) {
	for p, rules := range substitutions {
		for k, r := range rules {
			m[p][r.old[len(r.old)-1]] |= 1 << k
		}
	}
	return m
}()

// form is a candidate base form pre+suf. pre is a prefix of the looked-up word, so building a
// form allocates nothing.
type form struct{ pre, suf string }

func (f form) len() int { return len(f.pre) + len(f.suf) }

// last returns the last byte of the form, 0 if it is empty (no rule's suffix ends in 0).
func (f form) last() byte {
	switch {
	case f.suf != "":
		return f.suf[len(f.suf)-1]
	case f.pre != "":
		return f.pre[len(f.pre)-1]
	}
	return 0
}

// hasSuffix reports whether pre+suf ends with s.
func (f form) hasSuffix(s string) bool {
	if len(s) <= len(f.suf) {
		return strings.HasSuffix(f.suf, s)
	}
	k := len(s) - len(f.suf)
	return s[k:] == f.suf && strings.HasSuffix(f.pre, s[:k])
}

// replaceSuffix returns the form with old (a suffix of it) replaced by new.
func (f form) replaceSuffix(old, new string) form {
	if len(old) <= len(f.suf) {
		return form{f.pre, f.suf[:len(f.suf)-len(old)] + new}
	}
	return form{f.pre[:len(f.pre)-(len(old)-len(f.suf))], new}
}

// equal reports whether two forms spell the same string. Forms derived from one word share its
// bytes, so the prefix comparison is a pointer check and the test is O(1) even for huge words.
func (f form) equal(g form) bool {
	if f.len() != g.len() {
		return false
	}
	if len(f.pre) > len(g.pre) {
		f, g = g, f
	}
	k := len(g.pre) - len(f.pre) // g.pre's bytes that f spells in its suffix
	return f.pre == g.pre[:len(f.pre)] && f.suf[:k] == g.pre[len(f.pre):] && f.suf[k:] == g.suf
}

// morphScratch holds the buffers one lookup reuses.
type morphScratch struct {
	cur, next []form
	key       []byte
	entries   []uint32
	seen      []seenForm // index lookups done for the current word
}

// seenForm memoises one index lookup: the same forms come up for several parts of speech.
type seenForm struct {
	f     form
	entry int32 // -1: not an index lemma
}

// lookup returns the index entry of pre+suf if it is a lemma with part of speech p.
func (wn *wordNet) lookup(f form, p int, sc *morphScratch) (uint32, bool) {
	if f.len() > wn.maxLen {
		return 0, false // also keeps morphy linear on huge tokens, which it strips letter by letter
	}
	e := int32(-1)
	found := false
	for _, s := range sc.seen {
		if s.f.equal(f) {
			e, found = s.entry, true
			break
		}
	}
	if !found {
		sc.key = append(append(sc.key[:0], f.pre...), f.suf...)
		if k := find(&wn.dict, sc.key, bytesHash(sc.key)); k != nil {
			e = k.entry
		}
		sc.seen = append(sc.seen, seenForm{f, e})
	}
	if e < 0 || !wn.hasPOS(uint32(e), p) {
		return 0, false
	}
	return uint32(e), true
}

// keep appends the entry of f to sc.entries[start:] if it is a lemma of pos p not yet there,
// like NLTK's filter_forms.
func (wn *wordNet) keep(f form, p int, start int, sc *morphScratch) {
	if e, ok := wn.lookup(f, p, sc); ok {
		keepEntry(e, start, sc)
	}
}

// keepEntry appends entry e to sc.entries[start:] if not yet there.
func keepEntry(e uint32, start int, sc *morphScratch) {
	for _, have := range sc.entries[start:] {
		if have == e {
			return
		}
	}
	sc.entries = append(sc.entries, e)
}

// applyRules sets sc.next to the substitutions of pos p applied to every form of sc.cur, in
// NLTK's order, with repeated forms dropped (they cannot change which forms are found first).
func applyRules(p int, sc *morphScratch) {
	sc.next = sc.next[:0]
	for _, f := range sc.cur {
		for m := rulesEndingIn[p][f.last()]; m != 0; m &= m - 1 {
			r := substitutions[p][bits.TrailingZeros16(m)] // in NLTK's order
			if !f.hasSuffix(r.old) {
				continue
			}
			g := f.replaceSuffix(r.old, r.new)
			dup := false
			for _, h := range sc.next {
				if h.equal(g) {
					dup = true
					break
				}
			}
			if !dup {
				sc.next = append(sc.next, g)
			}
		}
	}
	sc.cur, sc.next = sc.next, sc.cur
}

// morphy appends to sc.entries the index entries NLTK's _morphy(word, pos) returns: the exception
// list if word is in it, else the forms found by the first round of suffix rules that yields any
// lemma (the word itself counts in the first round).
func (wn *wordNet) morphy(word string, p int, exc *wnException, sc *morphScratch) {
	start := len(sc.entries)
	if exc != nil && exc.has&(1<<p) != 0 {
		wn.keep(form{pre: word}, p, start, sc)
		for _, e := range wn.excBasesOf(exc, p) {
			if wn.hasPOS(e, p) {
				keepEntry(e, start, sc)
			}
		}
		return
	}
	sc.cur = append(sc.cur[:0], form{pre: word})
	applyRules(p, sc)
	wn.keep(form{pre: word}, p, start, sc)
	for _, f := range sc.cur {
		wn.keep(f, p, start, sc)
	}
	for len(sc.entries) == start && len(sc.cur) > 0 {
		applyRules(p, sc)
		for _, f := range sc.cur {
			wn.keep(f, p, start, sc)
		}
	}
}

// synonyms appends to dst the ids of the lemma names without '_' of every synset NLTK's
// wordnet.synsets(word) returns: word lowercased, then every part of speech through morphy.
func (wn *wordNet) synonyms(dst []uint32, word string, sc *morphScratch) []uint32 {
	return wn.synonymsHashed(dst, word, strHash(word), sc)
}

// synonymsHashed is synonyms for a word with hash h, strHash(word). The one lookup of the word
// finds its exception lists and whether it is itself a lemma.
func (wn *wordNet) synonymsHashed(dst []uint32, word string, h uint64, sc *morphScratch) []uint32 {
	if low := textnorm.Lower(word); low != word {
		word, h = low, strHash(low)
	}
	var exc *wnException
	self := int32(-1)
	if k := find(&wn.dict, word, h); k != nil {
		self = k.entry
		if k.exc >= 0 {
			exc = &wn.exc[k.exc]
		}
	}
	sc.seen = append(sc.seen[:0], seenForm{form{pre: word}, self})
	for p := range numPOS {
		sc.entries = sc.entries[:0]
		wn.morphy(word, p, exc, sc)
		for _, e := range sc.entries {
			dst = append(dst, wn.entryNamesOf(e, p)...)
		}
	}
	return dst
}
