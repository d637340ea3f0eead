package textnorm

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// treebankContraction is one of NLTK's CONTRACTIONS2/CONTRACTIONS3 rules, each replacing its two
// groups with " \1 \2 ". RE2 has no Unicode \b and no lookahead, so the pattern holds only the
// letters and the boundaries are checked by hand around each match.
type treebankContraction struct {
	re *regexp.Regexp
	// wordBefore: the rule starts with \b, so the rune before the match must not be a word
	// character (the match itself starts with one).
	wordBefore bool
	// spaceAfter: the rule ends with (?=\s) instead of \b.
	spaceAfter bool
	// lit is a piece of every match, in lower case and free of letters Python folds specially
	// (i, s, k), so text not containing it (ignoring ASCII case) is skipped without the regexp.
	lit string
}

// treebankI is Python's IGNORECASE i: sre also matches the dotless ı and, through its simple
// lowercase mapping, İ, which Go's case folding does not.
const treebankI = `[iIıİ]`

var treebankContractions = []treebankContraction{
	{regexp.MustCompile(`(?i)(can)(not)`), true, false, "cannot"},
	{regexp.MustCompile(`(?i)(d)('ye)`), true, false, "d'ye"},
	{regexp.MustCompile(`(?i)(g` + treebankI + `m)(me)`), true, false, "mme"},
	{regexp.MustCompile(`(?i)(gon)(na)`), true, false, "gonna"},
	{regexp.MustCompile(`(?i)(got)(ta)`), true, false, "gotta"},
	{regexp.MustCompile(`(?i)(lem)(me)`), true, false, "lemme"},
	{regexp.MustCompile(`(?i)(more)('n)`), true, false, "more'n"},
	{regexp.MustCompile(`(?i)(wan)(na)`), true, true, "wanna"},
	{regexp.MustCompile(`(?i) ('t)(` + treebankI + `s)`), false, false, " 't"},
	{regexp.MustCompile(`(?i) ('t)(was)`), false, false, " 'twa"},
}

// containsFoldASCII reports whether s contains lit (lower-case ASCII) ignoring ASCII case.
func containsFoldASCII(s, lit string) bool {
	for i := 0; i+len(lit) <= len(s); i++ {
		j := 0
		for j < len(lit) && s[i+j]|0x20 == lit[j]|0x20 {
			j++
		}
		if j == len(lit) {
			return true
		}
	}
	return false
}

// treebankContract applies every contraction rule in NLTK's order.
func treebankContract(s string) string {
	for _, c := range treebankContractions {
		s = c.apply(s)
	}
	return s
}

func (c treebankContraction) apply(s string) string {
	if !containsFoldASCII(s, c.lit) {
		return s
	}
	var b strings.Builder
	last, pos := 0, 0
	for pos < len(s) {
		m := c.re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		for i := range m {
			m[i] += pos
		}
		if !c.boundaries(s, m[0], m[1]) {
			_, n := utf8.DecodeRuneInString(s[m[0]:])
			pos = m[0] + n
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteByte(' ')
		b.WriteString(s[m[2]:m[3]])
		b.WriteByte(' ')
		b.WriteString(s[m[4]:m[5]])
		b.WriteByte(' ')
		last, pos = m[1], m[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// boundaries checks the \b (or (?=\s)) conditions around the match s[start:end].
func (c treebankContraction) boundaries(s string, start, end int) bool {
	if c.wordBefore && start > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:start]); isWord(r) {
			return false
		}
	}
	r, n := utf8.DecodeRuneInString(s[end:])
	if c.spaceAfter {
		return n > 0 && IsSpace(r)
	}
	return n == 0 || !isWord(r)
}
