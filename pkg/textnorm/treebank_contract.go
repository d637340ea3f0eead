package textnorm

import (
	"strings"
	"unicode/utf8"
)

// treebankContraction is one of NLTK's CONTRACTIONS2/CONTRACTIONS3 rules, such as
// (?i)\b(can)(not)\b, each replacing its two groups with " \1 \2 ". The rules are literal words
// under IGNORECASE, so each is matched by hand: a letter matches itself in either case, and i and
// s also match what Python's IGNORECASE folds to them (ı, İ and ſ); of the other letters in the
// rules none has a non-ASCII case partner in Python's re.
type treebankContraction struct {
	// lead: the rule starts with a space outside its groups (CONTRACTIONS3, " ('t)(is)\b").
	lead bool
	// g1, g2: the two groups, in lower case.
	g1, g2 string
	// wordBefore: the rule starts with \b, so the rune before the match must not be a word
	// character (the match itself starts with one).
	wordBefore bool
	// spaceAfter: the rule ends with (?=\s) instead of \b.
	spaceAfter bool
}

var treebankContractions = []treebankContraction{
	{false, "can", "not", true, false},
	{false, "d", "'ye", true, false},
	{false, "gim", "me", true, false},
	{false, "gon", "na", true, false},
	{false, "got", "ta", true, false},
	{false, "lem", "me", true, false},
	{false, "more", "'n", true, false},
	{false, "wan", "na", true, true},
	{true, "'t", "is", false, false},
	{true, "'t", "was", false, false},
}

// treebankContract applies every contraction rule in NLTK's order to s, whose characters are
// among those chars records.
func treebankContract(s string, chars *treebankChars) string {
	for i := range treebankContractions {
		if c := &treebankContractions[i]; c.possible(chars) {
			s = c.apply(s)
		}
	}
	return s
}

// first returns the byte every match starts with, in lower case: a space or an ASCII letter
// whose only case partner is ASCII.
func (c *treebankContraction) first() byte {
	if c.lead {
		return ' '
	}
	return c.g1[0]
}

// possible reports whether text holding the characters chars records can match the rule: it
// holds the rule's first letter, or an apostrophe and a t for the rules starting with " 't".
func (c *treebankContraction) possible(chars *treebankChars) bool {
	if c.lead {
		return chars.has('\'') && (chars.has('t') || chars.has('T'))
	}
	f := c.g1[0]
	return chars.has(f) || chars.has(f-'a'+'A')
}

func (c *treebankContraction) apply(s string) string {
	var b strings.Builder
	first := c.first()
	last := 0
	for p := 0; p < len(s); p++ {
		if first == ' ' && s[p] != ' ' || first != ' ' && s[p]|0x20 != first {
			continue
		}
		mid, end, ok := c.match(s, p)
		if !ok || !c.boundaries(s, p, end) {
			continue
		}
		start := p
		if c.lead {
			start++
		}
		b.WriteString(s[last:p])
		b.WriteByte(' ')
		b.WriteString(s[start:mid])
		b.WriteByte(' ')
		b.WriteString(s[mid:end])
		b.WriteByte(' ')
		last = end
		p = end - 1
	}
	return finish(&b, s, last)
}

// match matches the rule's groups at s[p:], returning where the second group starts and ends.
func (c *treebankContraction) match(s string, p int) (mid, end int, ok bool) {
	if c.lead {
		p++ // s[p] is the space
	}
	if mid, ok = matchFold(s, p, c.g1); !ok {
		return 0, 0, false
	}
	end, ok = matchFold(s, mid, c.g2)
	return mid, end, ok
}

// matchFold matches lit, lower-case ASCII, at s[i:] under Python's IGNORECASE and returns where
// the match ends.
func matchFold(s string, i int, lit string) (int, bool) {
	for k := 0; k < len(lit); k++ {
		if i >= len(s) {
			return 0, false
		}
		c := lit[k]
		switch {
		case s[i] == c, 'a' <= c && c <= 'z' && s[i] == c-'a'+'A':
			i++
		case c == 'i' && (strings.HasPrefix(s[i:], "ı") || strings.HasPrefix(s[i:], "İ")),
			c == 's' && strings.HasPrefix(s[i:], "ſ"):
			i += 2
		default:
			return 0, false
		}
	}
	return i, true
}

// boundaries checks the \b (or (?=\s)) conditions around the match s[start:end].
func (c *treebankContraction) boundaries(s string, start, end int) bool {
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
