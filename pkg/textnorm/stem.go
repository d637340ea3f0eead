package textnorm

import "unicode/utf8"

// stemPool is NLTK's table of irregular forms, consulted before any rule runs.
var stemPool = map[string]string{
	"sky": "sky", "skies": "sky",
	"dying": "die", "lying": "lie", "tying": "tie",
	"news":    "news",
	"innings": "inning", "inning": "inning",
	"outings": "outing", "outing": "outing",
	"cannings": "canning", "canning": "canning",
	"howe":    "howe",
	"proceed": "proceed", "exceed": "exceed", "succeed": "succeed",
}

// Stem returns the Porter stem of word exactly as NLTK 3.8's PorterStemmer().stem(word) does in
// its default NLTK_EXTENSIONS mode: the word is lowercased with Python's rules, the irregular-form
// pool is consulted, words of at most two code points are returned lowercased, and otherwise
// steps 1a to 5b run over code points (any non-ASCII letter counts as a consonant).
//
// Note: the rules are written once, generically over bytes and runes, so ASCII words (the
// common case) are stemmed in a stack buffer without converting to []rune.
func Stem(word string) string {
	if s, ok := stemPool[word]; ok {
		return s
	}
	low := Lower(word)
	if utf8.RuneCountInString(word) <= 2 {
		return low
	}
	if isASCII(low) {
		var buf [48]byte
		w := append(buf[:0], low...)
		w = stemWord(w)
		if len(w) == len(low) && string(w) == low {
			return low
		}
		return string(w)
	}
	var buf [48]rune
	w := buf[:0]
	for _, r := range low {
		w = append(w, r)
	}
	return string(stemWord(w))
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
// vowel.
func isCons[T char](w []T, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !isCons(w, i-1)
	}
	return true
}

// measure counts "vc" transitions in the consonant/vowel pattern of w.
func measure[T char](w []T) int {
	m := 0
	prevVowel := false
	for i := range w {
		c := isCons(w, i)
		if c && prevVowel {
			m++
		}
		prevVowel = !c
	}
	return m
}

func containsVowel[T char](w []T) bool {
	for i := range w {
		if !isCons(w, i) {
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

// applyRules applies the first rule whose suffix matches, if its condition holds; a matching
// suffix whose condition fails stops the search, as in NLTK's _apply_rule_list.
func applyRules[T char](w []T, rules []rule) []T {
	for _, r := range rules {
		if hasSuffix(w, r.suffix) {
			stem := w[:len(w)-len(r.suffix)]
			if r.minM == 0 || measure(stem) >= r.minM {
				return replace(w, len(r.suffix), r.repl)
			}
			return w
		}
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

var step2Rules = []rule{
	{"ational", "ate", 1}, {"tional", "tion", 1}, {"enci", "ence", 1}, {"anci", "ance", 1},
	{"izer", "ize", 1}, {"bli", "ble", 1}, {"alli", "al", 1}, {"entli", "ent", 1},
	{"eli", "e", 1}, {"ousli", "ous", 1}, {"ization", "ize", 1}, {"ation", "ate", 1},
	{"ator", "ate", 1}, {"alism", "al", 1}, {"iveness", "ive", 1}, {"fulness", "ful", 1},
	{"ousness", "ous", 1}, {"aliti", "al", 1}, {"iviti", "ive", 1}, {"biliti", "ble", 1},
	{"fulli", "ful", 1},
}

func step2[T char](w []T) []T {
	if hasSuffix(w, "alli") && measure(w[:len(w)-4]) > 0 {
		return step2(replace(w, 4, "al"))
	}
	for _, r := range step2Rules {
		if hasSuffix(w, r.suffix) {
			if measure(w[:len(w)-len(r.suffix)]) > 0 {
				return replace(w, len(r.suffix), r.repl)
			}
			return w
		}
	}
	// logi -> log, with the condition tested on the word minus "ogi" (NLTK keeps the l).
	if hasSuffix(w, "logi") && measure(w[:len(w)-3]) > 0 {
		return w[:len(w)-1]
	}
	return w
}

var step3Rules = []rule{
	{"icate", "ic", 1}, {"ative", "", 1}, {"alize", "al", 1}, {"iciti", "ic", 1},
	{"ical", "ic", 1}, {"ful", "", 1}, {"ness", "", 1},
}

func step3[T char](w []T) []T { return applyRules(w, step3Rules) }

var step4Rules = []rule{
	{"al", "", 2}, {"ance", "", 2}, {"ence", "", 2}, {"er", "", 2}, {"ic", "", 2},
	{"able", "", 2}, {"ible", "", 2}, {"ant", "", 2}, {"ement", "", 2}, {"ment", "", 2},
	{"ent", "", 2},
}

var step4Tail = []rule{
	{"ou", "", 2}, {"ism", "", 2}, {"ate", "", 2}, {"iti", "", 2}, {"ous", "", 2},
	{"ive", "", 2}, {"ize", "", 2},
}

func step4[T char](w []T) []T {
	for _, r := range step4Rules {
		if hasSuffix(w, r.suffix) {
			if measure(w[:len(w)-len(r.suffix)]) > 1 {
				return w[:len(w)-len(r.suffix)]
			}
			return w
		}
	}
	if hasSuffix(w, "ion") {
		stem := w[:len(w)-3]
		if measure(stem) > 1 && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't') {
			return stem
		}
		return w
	}
	return applyRules(w, step4Tail)
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
