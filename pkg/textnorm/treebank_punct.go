package textnorm

import (
	"strings"
	"unicode/utf8"
)

// treebankPunct runs PUNCTUATION, PARENS_BRACKETS and DOUBLE_DASHES in NLTK's order on s, whose
// characters are among those t records.
func treebankPunct(s string, t *treebankChars) string {
	if t.has('.') {
		s = treebankFinalPeriod(s, "])}>\"'»”’ ", true)
	}
	if t.has(':') || t.has(',') {
		s = treebankColon(s)
		if n := len(s); n > 0 && (s[n-1] == ':' || s[n-1] == ',') {
			s = s[:n-1] + " " + s[n-1:] + " " // ([:,])$
		}
	}
	if t.has('.') {
		s = treebankEllipsis(s)
	}
	if t.hasAny(padSemicolon) {
		s = treebankPad(s, &padSemicolon)
	}
	if t.has('.') {
		s = treebankFinalPeriod(s, "])}>\"'", false)
	}
	if t.hasAny(padQuestion) {
		s = treebankPad(s, &padQuestion)
	}
	if t.has('\'') {
		s = treebankPrime(s)
	}
	if t.has('*') {
		s = treebankPad(s, &padStar)
	}
	if t.hasAny(padBrackets) {
		s = treebankPad(s, &padBrackets)
	}
	if t.has('-') && strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", " -- ")
	}
	return s
}

// The sets of characters PUNCTUATION and PARENS_BRACKETS pad with spaces.
var (
	padSemicolon = newASCIISet(";@#$%&")
	padQuestion  = newASCIISet("?!")
	padStar      = newASCIISet("*")
	padBrackets  = newASCIISet("][(){}<>")
)

// treebankPad is the rule [set] → " \g<0> " for a set of ASCII characters.
func treebankPad(s string, set *asciiSet) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if !set.contains(s[i]) {
			continue
		}
		if last == 0 {
			b.Grow(len(s) + len(s)/2 + 2)
		}
		b.WriteString(s[last:i])
		b.WriteByte(' ')
		b.WriteByte(s[i])
		b.WriteByte(' ')
		last = i + 1
	}
	return finish(&b, s, last)
}

// treebankPadRunes is the rule ([set]) → " \1 " for a set of non-ASCII characters.
func treebankPadRunes(s, set string) string {
	if !strings.ContainsAny(s, set) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError && strings.ContainsRune(set, r) {
			b.WriteByte(' ')
			b.WriteString(s[i : i+n])
			b.WriteByte(' ')
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// treebankEllipsis is the rule \.{2,} → " \g<0> ": a run of two or more periods is padded.
func treebankEllipsis(s string) string {
	if !strings.Contains(s, "..") {
		return s
	}
	return padMatches(s, func(rest string) int {
		if n := punktRun(rest, '.'); n >= 2 {
			return n
		}
		return 0
	})
}

// treebankPrime is the rule ([^'])' → "\1 ' ": an apostrophe followed by a space is split from
// the character before it, unless that is an apostrophe too or ends the previous match.
func treebankPrime(s string) string {
	if !strings.Contains(s, "' ") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 1; i+1 < len(s); i++ {
		if s[i] != '\'' || s[i+1] != ' ' {
			continue
		}
		if r, n := utf8.DecodeLastRuneInString(s[:i]); r == '\'' || i-n < last {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(" ' ")
		i++
		last = i + 1
	}
	return finish(&b, s, last)
}

// treebankColon is the rule ([:,])([^\d]) → " \1 \2": a colon or comma not followed by a
// decimal digit is padded; the character after it is consumed with it.
func treebankColon(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != ':' && c != ',' {
			b.WriteByte(c)
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i+1:])
		if n == 0 || isDecimal(r) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte(' ')
		b.WriteByte(c)
		b.WriteByte(' ')
		b.WriteString(s[i+1 : i+1+n])
		i += n
	}
	return b.String()
}

// treebankFinalPeriod is the final-period rule ([^\.])(\.)([closers]*)\s*$, replaced by
// "\1 \2 \3 " (spaced) or "\1 \2\3 ". Only the last period can match, since what follows it
// may hold only closers and whitespace; greedy closers then leave whitespace alone.
func treebankFinalPeriod(s, closers string, spaced bool) string {
	p := strings.LastIndexByte(s, '.')
	if p <= 0 || s[p-1] == '.' {
		return s
	}
	rest := s[p+1:]
	k := 0
	for k < len(rest) {
		r, n := utf8.DecodeRuneInString(rest[k:])
		if !strings.ContainsRune(closers, r) {
			break
		}
		k += n
	}
	if strings.TrimLeftFunc(rest[k:], IsSpace) != "" {
		return s
	}
	if spaced {
		return s[:p] + " . " + rest[:k] + " "
	}
	return s[:p] + " ." + rest[:k] + " "
}
