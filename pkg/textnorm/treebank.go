package textnorm

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WordTokenize splits s into words exactly as NLTK 3.8's nltk.word_tokenize(s) does with its
// defaults (language "english", preserve_line=False): SentTokenize cuts s into sentences with the
// english Punkt model, and each sentence goes through NLTKWordTokenizer, the improved Penn
// Treebank tokenizer: an opening double quote becomes two backticks and a closing one two
// apostrophes; punctuation, brackets and double dashes are padded; a sentence-final period is
// split off; contractions such as n't, 's, can|not and gon|na are split; parentheses are kept.
//
// Note: Python's regexes use lookahead and a Unicode \b, \s and \d that Go's RE2 lacks, so the
// rules needing them are hand-written scans (treebankQuote, treebankContract, treebankPunct) and
// the rest are RE2 patterns run only when their text can match. Text that none of the rules can
// touch (no quote, bracket or punctuation character and no contraction word), the common case
// inside CMRC answers, is split at whitespace directly, and Punkt is skipped when no '.', '?' or
// '!' could end a sentence.
func WordTokenize(s string) []string {
	return AppendWordTokens(nil, s)
}

// AppendWordTokens appends the tokens WordTokenize(s) returns to dst and returns the extended
// slice, so callers tokenizing many short strings can reuse one buffer.
func AppendWordTokens(dst []string, s string) []string {
	if plainWords(s) {
		return appendSplit(dst, s)
	}
	if !strings.ContainsAny(s, ".?!") || !punktHasCandidate(s) {
		// No sentence-break candidate: Punkt returns s without trailing whitespace, if anything.
		if s = strings.TrimRightFunc(s, IsSpace); s == "" {
			return dst
		}
		return treebankTokenize(dst, s)
	}
	punktEnglish().eachSpan(s, func(start, end int) {
		dst = treebankTokenize(dst, s[start:end])
	})
	return dst
}

// plainWords reports whether every NLTKWordTokenizer rule leaves s alone, so its tokens are its
// whitespace-separated fields: s has none of the characters the rules look for (quotes,
// brackets, punctuation) and no doubled n, m or t between ASCII letters, which every
// contraction the rules split (cannot, gimme, gonna, gotta, lemme, wanna) contains.
func plainWords(s string) bool {
	var prev byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			c |= 0x20
			if c == prev && (c == 'n' || c == 'm' || c == 't') {
				return false
			}
		case c >= utf8.RuneSelf:
			// The rules' non-ASCII characters: « » (C2 AB, C2 BB) and ‘ ’ “ ” „ (E2 80 98–9E).
			if c == 0xc2 && i+1 < len(s) && (s[i+1] == 0xab || s[i+1] == 0xbb) ||
				c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && 0x98 <= s[i+2] && s[i+2] <= 0x9e {
				return false
			}
			c = 0
		case strings.IndexByte("\"'`()[]{}<>.:,;@#$%&?!*-", c) >= 0:
			return false
		}
		prev = c
	}
	return true
}

// treebankRule is one regex substitution of NLTKWordTokenizer, run only when need reports that
// the text may hold a match (nil means always).
type treebankRule struct {
	re   *regexp.Regexp
	repl string
	need func(string) bool
}

func (r treebankRule) apply(s string) string {
	if r.need != nil && !r.need(s) {
		return s
	}
	return r.re.ReplaceAllString(s, r.repl)
}

// anyOf returns a need function for text containing one of the characters in set.
func anyOf(set string) func(string) bool {
	return func(s string) bool { return strings.ContainsAny(s, set) }
}

// has returns a need function for text containing sub.
func has(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// clitic reports whether some apostrophe follows a character other than a space or an
// apostrophe, as every ENDING_QUOTES clitic match needs.
func clitic(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] == '\'' && s[i-1] != '\'' && s[i-1] != ' ' {
			return true
		}
	}
	return false
}

var (
	// STARTING_QUOTES, except ^" → `` and the rules in treebankQuotePair and treebankQuote.
	tbStartQuote = treebankRule{regexp.MustCompile("([«“‘„]|`+)"), " ${1} ", anyOf("«“‘„`")}

	// PUNCTUATION rules that need RE2 (the others are hand-written in treebankPunct).
	tbEllipsis = treebankRule{regexp.MustCompile(`\.{2,}`), " ${0} ", has("..")}
	tbPrime    = treebankRule{regexp.MustCompile(`([^'])' `), "${1} ' ", has("' ")}

	// ENDING_QUOTES clitic rules, run after the text is padded with a space on each side.
	tbEndQuote = []treebankRule{
		{regexp.MustCompile(`([^' ])('[sS]|'[mM]|'[dD]|') `), "${1} ${2} ", clitic},
		{regexp.MustCompile(`([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) `), "${1} ${2} ", clitic},
	}
)

// treebankTokenize appends NLTKWordTokenizer.tokenize(s), with convert_parentheses=False, to dst.
func treebankTokenize(dst []string, s string) []string {
	s = tbStartQuote.apply(s)
	if strings.HasPrefix(s, `"`) {
		s = "``" + s[1:]
	}
	if strings.Contains(s, "``") {
		s = strings.ReplaceAll(s, "``", " `` ")
	}
	s = treebankQuotePair(s)
	s = treebankQuote(s)
	s = treebankPunct(s)
	s = " " + s + " "
	s = treebankPadRunes(s, "»”’")
	if strings.Contains(s, "''") {
		s = strings.ReplaceAll(s, "''", " '' ")
	}
	if strings.Contains(s, `"`) {
		s = strings.ReplaceAll(s, `"`, " '' ")
	}
	for _, r := range tbEndQuote {
		s = r.apply(s)
	}
	s = treebankContract(s)
	return appendSplit(dst, s)
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

// treebankPunct runs PUNCTUATION, PARENS_BRACKETS and DOUBLE_DASHES in NLTK's order.
func treebankPunct(s string) string {
	s = treebankFinalPeriod(s, "])}>\"'»”’ ", true)
	s = treebankColon(s)
	if n := len(s); n > 0 && (s[n-1] == ':' || s[n-1] == ',') {
		s = s[:n-1] + " " + s[n-1:] + " " // ([:,])$
	}
	s = tbEllipsis.apply(s)
	s = treebankPad(s, ";@#$%&")
	s = treebankFinalPeriod(s, "])}>\"'", false)
	s = treebankPad(s, "?!")
	s = tbPrime.apply(s)
	s = treebankPad(s, "*")
	s = treebankPad(s, "][(){}<>")
	if strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", " -- ")
	}
	return s
}

// treebankPad is the rule [set] → " \g<0> " for a set of ASCII characters.
func treebankPad(s, set string) string {
	if !strings.ContainsAny(s, set) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) >= 0 {
			b.WriteByte(' ')
			b.WriteByte(s[i])
			b.WriteByte(' ')
		} else {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// treebankColon is the rule ([:,])([^\d]) → " \1 \2": a colon or comma not followed by a
// decimal digit is padded; the character after it is consumed with it.
func treebankColon(s string) string {
	if !strings.ContainsAny(s, ":,") {
		return s
	}
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

// treebankQuotePair is the rule ([ \(\[{<])(\"|\'{2}), replaced by the opener and a spaced pair
// of backticks: a double quote or two apostrophes after a space or an opening bracket open a
// quotation.
func treebankQuotePair(s string) string {
	if !strings.Contains(s, `"`) && !strings.Contains(s, "''") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if strings.IndexByte(" ([{<", s[i]) < 0 || i+1 == len(s) {
			continue
		}
		switch {
		case s[i+1] == '"':
			b.WriteString(" `` ")
			i++
		case strings.HasPrefix(s[i+1:], "''"):
			b.WriteString(" `` ")
			i += 2
		}
	}
	return b.String()
}

// treebankQuote is the rule (?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b → "\1 \2": an apostrophe
// followed by a lone word character that does not start a clitic gets a space after it. The
// two-letter alternatives can never hold when a single word character is followed by \b.
func treebankQuote(s string) string {
	if !strings.Contains(s, "'") {
		return s
	}
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
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
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
