package textnorm

import "unicode/utf8"

// irregular returns NLTK's stem for the words of its pool of irregular forms, consulted before
// any rule runs.
//
// Note: a switch, which compiles to a search over lengths and then bytes, rather than a map:
// most words miss, and a miss then costs no hashing.
func irregular(word string) (string, bool) {
	switch word {
	case "sky", "skies":
		return "sky", true
	case "dying":
		return "die", true
	case "lying":
		return "lie", true
	case "tying":
		return "tie", true
	case "news":
		return "news", true
	case "innings", "inning":
		return "inning", true
	case "outings", "outing":
		return "outing", true
	case "cannings", "canning":
		return "canning", true
	case "howe":
		return "howe", true
	case "proceed":
		return "proceed", true
	case "exceed":
		return "exceed", true
	case "succeed":
		return "succeed", true
	}
	return "", false
}

// Stem returns the Porter stem of word exactly as NLTK 3.8's PorterStemmer().stem(word) does in
// its default NLTK_EXTENSIONS mode: the word is lowercased with Python's rules, the irregular-form
// pool is consulted, words of at most two code points are returned lowercased, and otherwise
// steps 1a to 5b run over code points (any non-ASCII letter counts as a consonant). Stem takes
// time linear in the word's length. For a word with a run of about a thousand y's NLTK raises
// RecursionError, since it classifies a y by recursing over the letters before it; Stem returns
// the stem the rules define, as NLTK does for shorter runs (checked up to 991 y's).
//
// Note: the rules are written once, generically over bytes and runes, so ASCII words (the
// common case) are stemmed in a stack buffer without converting to []rune.
func Stem(word string) string {
	if s, ok := irregular(word); ok {
		return s
	}
	if isASCII(word) {
		return stemASCII(lowerASCII(word))
	}
	low := Lower(word)
	if utf8.RuneCountInString(word) <= 2 {
		return low
	}
	if isASCII(low) {
		return stemASCII(low) // a non-ASCII letter such as the Kelvin sign lowered to ASCII
	}
	var buf [48]rune
	w := buf[:0]
	for _, r := range low {
		w = append(w, r)
	}
	return string(stemWord(w))
}

// stemASCII returns the stem of the lowercased ASCII word low, not in the irregular pool; it
// allocates only when the stem differs from low.
func stemASCII(low string) string {
	if len(low) <= 2 {
		return low
	}
	var buf [48]byte
	w := stemWord(append(buf[:0], low...))
	if string(w) == low {
		return low
	}
	return string(w)
}

// AppendStem appends Stem(word) to dst and returns the extended slice. An ASCII word is
// lowercased and stemmed in place in dst, so with room in dst it allocates nothing.
func AppendStem(dst []byte, word string) []byte {
	if s, ok := irregular(word); ok {
		return append(dst, s...)
	}
	if !isASCII(word) {
		return append(dst, Stem(word)...)
	}
	start := len(dst)
	dst = append(dst, word...)
	w := dst[start:]
	for i, c := range w {
		if 'A' <= c && c <= 'Z' {
			w[i] = c + 'a' - 'A'
		}
	}
	if len(w) <= 2 {
		return dst
	}
	return append(dst[:start], stemWord(w)...) // stemWord's result starts at dst[start]
}

// isASCII reports whether s has only bytes below 0x80, testing eight bytes at a time.
func isASCII(s string) bool {
	for len(s) >= 8 {
		v := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		if v&0x8080808080808080 != 0 {
			return false
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// char is a code unit the stemmer works on: a byte of an ASCII word or a rune of any other.
type char interface{ byte | rune }

func stemWord[T char](w []T) []T {
	w = step1a(w)
	w = step1b(w)
	w = step1c(w)
	w = step2(w)
	w = step3(w)
	w = step4(w)
	w = step5a(w)
	return step5b(w)
}

// isCons reports whether w[i] is a consonant: not a vowel, and a y only at the start or after a
// vowel. NLTK's _is_consonant asks the same of w[i-1] for a y, recursively; the loop walks
// back over the run of y's instead, each flipping the answer, so a run costs its length once
// and no stack.
func isCons[T char](w []T, i int) bool {
	flip := false
	for ; w[i] == 'y'; i-- {
		if i == 0 {
			return !flip
		}
		flip = !flip
	}
	return !isVowel(w[i]) != flip
}

func isVowel[T char](c T) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'
}

// nextCons returns whether w[i] is a consonant given prev, whether w[i-1] is (ignored when i
// is 0): the step of a left-to-right walk, O(1) where isCons may walk back.
func nextCons[T char](w []T, i int, prev bool) bool {
	if w[i] == 'y' {
		return i == 0 || !prev
	}
	return !isVowel(w[i])
}

// measure counts "vc" transitions in the consonant/vowel pattern of w.
//
// Note: measure and containsVowel walk w once, carrying the previous letter's class. Asking
// isCons of every position, as NLTK does, made a run of n y's cost n*n/2 steps: "yyy…ying"
// took 0.4 s to stem at 16,000 bytes and 7 s at 64,000, so a megabyte-long one would have taken
// half an hour.
func measure[T char](w []T) int {
	m := 0
	c := false
	for i := range w {
		prev := c
		c = nextCons(w, i, prev)
		if c && i > 0 && !prev {
			m++
		}
	}
	return m
}

func containsVowel[T char](w []T) bool {
	c := false
	for i := range w {
		if c = nextCons(w, i, c); !c {
			return true
		}
	}
	return false
}

func endsDoubleCons[T char](w []T) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && isCons(w, n-1)
}

func endsCVC[T char](w []T) bool {
	n := len(w)
	if n >= 3 && isCons(w, n-3) && !isCons(w, n-2) && isCons(w, n-1) &&
		w[n-1] != 'w' && w[n-1] != 'x' && w[n-1] != 'y' {
		return true
	}
	return n == 2 && !isCons(w, 0) && isCons(w, 1)
}

func hasSuffix[T char](w []T, suf string) bool {
	if len(w) < len(suf) {
		return false
	}
	off := len(w) - len(suf)
	for i := 0; i < len(suf); i++ {
		if w[off+i] != T(suf[i]) {
			return false
		}
	}
	return true
}

// replace drops n code units from the end of w and appends repl.
func replace[T char](w []T, n int, repl string) []T {
	w = w[:len(w)-n]
	for i := 0; i < len(repl); i++ {
		w = append(w, T(repl[i]))
	}
	return w
}

// rule is one suffix rule of a step: suffix, replacement and the condition on the stem.
type rule struct {
	suffix, repl string
	minM         int // the stem's measure must exceed minM - 1; 0 means unconditional
}

// ruleList is a step's rules in NLTK's order, grouped by the last letter of their suffix. A
// rule can match a word only if that letter ends the word, so the first rule of the word's
// group that matches is the first of the whole list that does.
//
// Note: the lists used to be walked whole, testing every suffix; stemming a new word spent
// a quarter of its time there. Grouping by the last two letters (groups of one or two rules
// instead of up to seven) saved only another 0.7% of the instructions of a first METEOR pass
// over the golden pairs, not worth a second table.
type ruleList struct {
	rules  []rule // in order
	byLast ['z' - 'a' + 1][]rule
}

func newRuleList(rules ...rule) *ruleList {
	l := &ruleList{rules: rules}
	for _, r := range rules {
		c := r.suffix[len(r.suffix)-1]
		if c < 'a' || c > 'z' {
			panic("textnorm: stem rule suffix " + r.suffix + " does not end in a-z")
		}
		l.byLast[c-'a'] = append(l.byLast[c-'a'], r)
	}
	return l
}

// firstRule returns the first rule of l whose suffix ends w.
func firstRule[T char](w []T, l *ruleList) (rule, bool) {
	if len(w) == 0 {
		return rule{}, false
	}
	c := w[len(w)-1]
	if c < 'a' || c > 'z' {
		return rule{}, false
	}
	for _, r := range l.byLast[c-'a'] {
		if hasSuffix(w, r.suffix) {
			return r, true
		}
	}
	return rule{}, false
}

// applyRules applies the first rule whose suffix matches, if its condition holds; a matching
// suffix whose condition fails stops the search, as in NLTK's _apply_rule_list.
func applyRules[T char](w []T, rules *ruleList) []T {
	r, ok := firstRule(w, rules)
	if !ok {
		return w
	}
	if r.minM == 0 || measure(w[:len(w)-len(r.suffix)]) >= r.minM {
		return replace(w, len(r.suffix), r.repl)
	}
	return w
}

func step1a[T char](w []T) []T {
	if len(w) == 4 && hasSuffix(w, "ies") {
		return replace(w, 3, "ie")
	}
	switch {
	case hasSuffix(w, "sses"):
		return replace(w, 4, "ss")
	case hasSuffix(w, "ies"):
		return replace(w, 3, "i")
	case hasSuffix(w, "ss"):
		return w
	case hasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}

func step1b[T char](w []T) []T {
	if hasSuffix(w, "ied") {
		if len(w) == 4 {
			return replace(w, 3, "ie")
		}
		return replace(w, 3, "i")
	}
	if hasSuffix(w, "eed") {
		if measure(w[:len(w)-3]) > 0 {
			return w[:len(w)-1]
		}
		return w
	}
	var stem []T
	switch {
	case hasSuffix(w, "ed") && containsVowel(w[:len(w)-2]):
		stem = w[:len(w)-2]
	case hasSuffix(w, "ing") && containsVowel(w[:len(w)-3]):
		stem = w[:len(w)-3]
	default:
		return w
	}
	switch {
	case hasSuffix(stem, "at"), hasSuffix(stem, "bl"), hasSuffix(stem, "iz"):
		return append(stem, 'e')
	case endsDoubleCons(stem):
		if last := stem[len(stem)-1]; last != 'l' && last != 's' && last != 'z' {
			return stem[:len(stem)-1]
		}
		return stem
	case hasSuffix(stem, "*d"):
		// NLTK spells the double-consonant rule as the suffix "*d", so a stem that really
		// ends in "*d" loses the asterisk.
		return append(stem[:len(stem)-2], 'd')
	case measure(stem) == 1 && endsCVC(stem):
		return append(stem, 'e')
	}
	return stem
}

func step1c[T char](w []T) []T {
	n := len(w)
	if n > 2 && w[n-1] == 'y' && isCons(w, n-2) {
		w[n-1] = 'i'
	}
	return w
}

var step2Rules = newRuleList(
	rule{"ational", "ate", 1}, rule{"tional", "tion", 1}, rule{"enci", "ence", 1},
	rule{"anci", "ance", 1}, rule{"izer", "ize", 1}, rule{"bli", "ble", 1}, rule{"alli", "al", 1},
	rule{"entli", "ent", 1}, rule{"eli", "e", 1}, rule{"ousli", "ous", 1},
	rule{"ization", "ize", 1}, rule{"ation", "ate", 1}, rule{"ator", "ate", 1},
	rule{"alism", "al", 1}, rule{"iveness", "ive", 1}, rule{"fulness", "ful", 1},
	rule{"ousness", "ous", 1}, rule{"aliti", "al", 1}, rule{"iviti", "ive", 1},
	rule{"biliti", "ble", 1}, rule{"fulli", "ful", 1},
)

func step2[T char](w []T) []T {
	if hasSuffix(w, "alli") && measure(w[:len(w)-4]) > 0 {
		return step2(replace(w, 4, "al"))
	}
	if r, ok := firstRule(w, step2Rules); ok {
		if measure(w[:len(w)-len(r.suffix)]) >= r.minM {
			return replace(w, len(r.suffix), r.repl)
		}
		return w
	}
	// logi -> log, with the condition tested on the word minus "ogi" (NLTK keeps the l).
	if hasSuffix(w, "logi") && measure(w[:len(w)-3]) > 0 {
		return w[:len(w)-1]
	}
	return w
}

var step3Rules = newRuleList(
	rule{"icate", "ic", 1}, rule{"ative", "", 1}, rule{"alize", "al", 1}, rule{"iciti", "ic", 1},
	rule{"ical", "ic", 1}, rule{"ful", "", 1}, rule{"ness", "", 1},
)

func step3[T char](w []T) []T { return applyRules(w, step3Rules) }

// step4Rules are NLTK's step 4 rules in order; all remove the suffix when the stem's measure
// exceeds 1, and "ion" also needs the stem to end in s or t (step4 tests that).
var step4Rules = newRuleList(
	rule{"al", "", 2}, rule{"ance", "", 2}, rule{"ence", "", 2}, rule{"er", "", 2},
	rule{"ic", "", 2}, rule{"able", "", 2}, rule{"ible", "", 2}, rule{"ant", "", 2},
	rule{"ement", "", 2}, rule{"ment", "", 2}, rule{"ent", "", 2}, rule{"ion", "", 2},
	rule{"ou", "", 2}, rule{"ism", "", 2}, rule{"ate", "", 2}, rule{"iti", "", 2},
	rule{"ous", "", 2}, rule{"ive", "", 2}, rule{"ize", "", 2},
)

func step4[T char](w []T) []T {
	r, ok := firstRule(w, step4Rules)
	if !ok {
		return w
	}
	stem := w[:len(w)-len(r.suffix)]
	if measure(stem) < r.minM {
		return w
	}
	if r.suffix == "ion" && stem[len(stem)-1] != 's' && stem[len(stem)-1] != 't' {
		return w
	}
	return stem
}

func step5a[T char](w []T) []T {
	if !hasSuffix(w, "e") {
		return w
	}
	stem := w[:len(w)-1]
	m := measure(stem)
	if m > 1 || m == 1 && !endsCVC(stem) {
		return stem
	}
	return w
}

func step5b[T char](w []T) []T {
	if hasSuffix(w, "ll") && measure(w[:len(w)-1]) > 1 {
		return w[:len(w)-1]
	}
	return w
}
