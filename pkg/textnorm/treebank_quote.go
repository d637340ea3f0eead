package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds NLTKWordTokenizer's STARTING_QUOTES and ENDING_QUOTES rules. Each is a scan
// that finds the leftmost match, replaces it and goes on after it, as re.sub does, and returns
// its input unchanged when nothing matched.

// treebankStartQuote is the rule ([«“‘„]|`+) → " \1 ": an opening quote, or a run of backticks,
// is padded.
func treebankStartQuote(s string) string {
	return padMatches(s, func(rest string) int {
		switch c := rest[0]; {
		case c == '`':
			return punktRun(rest, '`')
		case c == 0xc2 && strings.HasPrefix(rest, "«"):
			return len("«")
		case c == 0xe2 && (strings.HasPrefix(rest, "“") || strings.HasPrefix(rest, "‘") ||
			strings.HasPrefix(rest, "„")):
			return len("“")
		}
		return 0
	})
}

// padMatches puts a space on each side of every match in s, found left to right as re.sub finds
// them: match returns the length of the match at the start of rest, or 0 for none there. It
// returns s itself when nothing matched.
func padMatches(s string, match func(rest string) int) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		n := match(s[i:])
		if n == 0 {
			i++
			continue
		}
		b.WriteString(s[last:i])
		b.WriteByte(' ')
		b.WriteString(s[i : i+n])
		b.WriteByte(' ')
		i += n
		last = i
	}
	return finish(&b, s, last)
}

// finish appends the text after the last match to b and returns the result, or s itself when
// nothing matched.
func finish(b *strings.Builder, s string, last int) string {
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// treebankQuotePair is the rule ([ \(\[{<])(\"|\'{2}), replaced by the opener and a spaced pair
// of backticks: a double quote or two apostrophes after a space or an opening bracket open a
// quotation.
func treebankQuotePair(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+1 < len(s); i++ {
		if strings.IndexByte(" ([{<", s[i]) < 0 {
			continue
		}
		n := 0
		switch {
		case s[i+1] == '"':
			n = 1
		case strings.HasPrefix(s[i+1:], "''"):
			n = 2
		}
		if n == 0 {
			continue
		}
		b.WriteString(s[last : i+1])
		b.WriteString(" `` ")
		i += n
		last = i + 1
	}
	return finish(&b, s, last)
}

// treebankQuote is the rule (?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b → "\1 \2": an apostrophe
// followed by a lone word character that does not start a clitic gets a space after it. The
// two-letter alternatives can never hold when a single word character is followed by \b.
func treebankQuote(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '\'' {
			continue
		}
		c, n := utf8.DecodeRuneInString(s[i+1:])
		if n == 0 || !isWord(c) || cliticInitial(c) {
			continue
		}
		if next, _ := utf8.DecodeRuneInString(s[i+1+n:]); i+1+n < len(s) && isWord(next) {
			continue
		}
		b.WriteString(s[last : i+1])
		b.WriteByte(' ')
		last = i + 1
		i += n
	}
	return finish(&b, s, last)
}

// cliticInitial reports whether c matches one of m, t, s, d, n under Python's IGNORECASE, which
// also folds U+017F (long s) to s.
func cliticInitial(c rune) bool {
	switch unicode.ToLower(c) {
	case 'm', 't', 's', 'd', 'n', 'ſ':
		return true
	}
	return false
}

// treebankClitic runs the two ENDING_QUOTES clitic rules,
//
//	([^' ])('[sS]|'[mM]|'[dD]|') → "\1 \2 "
//	([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) → "\1 \2 "
//
// on text padded with a space on each side: a clitic, or a lone apostrophe, that ends a word and
// is followed by a space is split from the character before it.
func treebankClitic(s string) string {
	s = treebankCliticRule(s, cliticShort)
	return treebankCliticRule(s, cliticLong)
}

// cliticShort returns the length of '[sS]|'[mM]|'[dD]|' followed by a space at s[q:], with the
// space, or 0.
func cliticShort(s string, q int) int {
	if s[q] != '\'' || q+1 >= len(s) {
		return 0
	}
	if s[q+1] == ' ' {
		return 2
	}
	if strings.IndexByte("sSmMdD", s[q+1]) >= 0 && q+2 < len(s) && s[q+2] == ' ' {
		return 3
	}
	return 0
}

// cliticLong returns the length of 'll|'LL|'re|'RE|'ve|'VE|n't|N'T followed by a space at s[q:],
// with the space, or 0.
func cliticLong(s string, q int) int {
	if q+4 > len(s) || s[q+3] != ' ' {
		return 0
	}
	switch s[q : q+3] {
	case "'ll", "'LL", "'re", "'RE", "'ve", "'VE", "n't", "N'T":
		return 4
	}
	return 0
}

// treebankCliticRule is ([^' ])(CLITIC) → "\1 \2 " for a clitic pattern whose length at a
// position clitic returns (including the space after it). Every such pattern holds an
// apostrophe as its first or second character.
func treebankCliticRule(s string, clitic func(string, int) int) string {
	var b strings.Builder
	last := 0
	for j := 0; j < len(s); j++ {
		if s[j] != '\'' {
			continue
		}
		for _, q := range [2]int{j - 1, j} {
			if q <= last {
				continue // the character before the clitic must follow the last match
			}
			n := clitic(s, q)
			if n == 0 {
				continue
			}
			r, k := utf8.DecodeLastRuneInString(s[:q])
			if q-k < last || r == '\'' || r == ' ' {
				continue
			}
			b.WriteString(s[last:q])
			b.WriteByte(' ')
			b.WriteString(s[q : q+n-1])
			b.WriteByte(' ')
			last = q + n
			j = last - 1
			break
		}
	}
	return finish(&b, s, last)
}
