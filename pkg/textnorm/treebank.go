package textnorm

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// WordTokenize splits s into words exactly as NLTK 3.8's nltk.word_tokenize(s) does with its
// defaults (language "english", preserve_line=False): SentTokenize cuts s into sentences with the
// english Punkt model, and each sentence goes through NLTKWordTokenizer, the improved Penn
// Treebank tokenizer: an opening double quote becomes two backticks and a closing one two
// apostrophes; punctuation, brackets and double dashes are padded; a sentence-final period is
// split off; contractions such as n't, 's, can|not and gon|na are split; parentheses are kept.
//
// Note: every rule is a hand-written scan that finds re.sub's matches left to right, not a
// regexp: Python's patterns use lookahead and a Unicode \b, \s and \d that Go's RE2 lacks, and
// Go's regexp ran the others at over 150 ns a byte on long texts of quotes or clitics. A
// sentence is scanned once for the characters the rules look for, and a rule that cannot match
// is skipped. Text that none of the rules can touch (no quote, bracket or punctuation character
// and no contraction word), the common case inside CMRC answers, is split at whitespace
// directly, and Punkt is skipped when no '.', '?' or '!' could end a sentence.
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
	first := len(dst)
	punktEnglish().eachSpan(s, func(start, end int) {
		if n := len(dst) - first; n >= 1024 && cap(dst)-len(dst) < 256 {
			dst = slices.Grow(dst, tokensLeft(n, start, len(s)))
		}
		dst = treebankTokenize(dst, s[start:end])
	})
	return dst
}

// tokensLeft estimates how many tokens the text after byte done of a text of size bytes holds,
// from the n tokens before it, for a text of many sentences to make room for them at once:
// append grows a long slice by a quarter at a time, copying and clearing it each time, which
// took 40% of the time on a megabyte of short sentences. The estimate is at most n, so an
// unlikely one costs no more than the doubling append would do for a short slice.
func tokensLeft(n, done, size int) int {
	return int(min(int64(n), int64(n)*int64(size-done)/int64(max(done, 1))))
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

// treebankChars records which of the characters NLTKWordTokenizer's rules look for a sentence
// holds, so a rule that cannot match is skipped without a scan of its own. The rules only add
// spaces, and backticks and apostrophes for double quotes, so once those two are recorded with
// the first double quote, what it records stays a superset of what the text holds.
type treebankChars struct {
	ascii       [2]uint64 // bit c&63 of ascii[c>>6] for each ASCII byte c
	open, close bool      // one of « “ ‘ „, one of » ” ’
}

// scanTreebankChars records the characters of s.
func scanTreebankChars(s string) treebankChars {
	var t treebankChars
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < utf8.RuneSelf:
			t.ascii[c>>6] |= 1 << (c & 63)
		case c == 0xc2 && i+1 < len(s):
			// « C2 AB, » C2 BB
			t.open = t.open || s[i+1] == 0xab
			t.close = t.close || s[i+1] == 0xbb
		case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80:
			// ‘ E2 80 98, ’ 99, “ 9C, ” 9D, „ 9E
			switch s[i+2] {
			case 0x98, 0x9c, 0x9e:
				t.open = true
			case 0x99, 0x9d:
				t.close = true
			}
		}
	}
	return t
}

// has reports whether the ASCII byte c was seen.
func (t *treebankChars) has(c byte) bool { return t.ascii[c>>6]&(1<<(c&63)) != 0 }

// hasAny reports whether one of the ASCII bytes in set was seen.
func (t *treebankChars) hasAny(set asciiSet) bool {
	return t.ascii[0]&set[0] != 0 || t.ascii[1]&set[1] != 0
}

// add records the ASCII byte c.
func (t *treebankChars) add(c byte) { t.ascii[c>>6] |= 1 << (c & 63) }

// asciiSet is a set of ASCII bytes, in treebankChars's layout.
type asciiSet [2]uint64

func newASCIISet(chars string) asciiSet {
	var set asciiSet
	for i := 0; i < len(chars); i++ {
		set[chars[i]>>6] |= 1 << (chars[i] & 63)
	}
	return set
}

func (set *asciiSet) contains(c byte) bool {
	return c < utf8.RuneSelf && set[c>>6]&(1<<(c&63)) != 0
}

// treebankTokenize appends NLTKWordTokenizer.tokenize(s), with convert_parentheses=False, to dst.
func treebankTokenize(dst []string, s string) []string {
	t := scanTreebankChars(s)
	if t.open || t.has('`') {
		s = treebankStartQuote(s)
	}
	if t.has('"') {
		// Double quotes become backticks here or apostrophes in the ending rules.
		t.add('`')
		t.add('\'')
		if s[0] == '"' {
			s = "``" + s[1:]
		}
	}
	if t.has('`') && strings.Contains(s, "``") {
		s = strings.ReplaceAll(s, "``", " `` ")
	}
	if t.has('"') || t.has('\'') {
		s = treebankQuotePair(s)
	}
	if t.has('\'') {
		s = treebankQuote(s)
	}
	s = treebankPunct(s, &t)
	if !t.close && !t.has('\'') && !t.hasAny(contractionInitials) {
		// Nothing below can match: the padding and the ending rules would leave the fields alone.
		return appendSplit(dst, s)
	}
	s = " " + s + " "
	if t.close {
		s = treebankPadRunes(s, "»”’")
	}
	if t.has('\'') {
		if strings.Contains(s, "''") {
			s = strings.ReplaceAll(s, "''", " '' ")
		}
		if t.has('"') && strings.Contains(s, `"`) {
			s = strings.ReplaceAll(s, `"`, " '' ")
		}
		if clitic(s) {
			s = treebankClitic(s)
		}
	}
	s = treebankContract(s, &t)
	return appendSplit(dst, s)
}

// contractionInitials holds the first characters of the contraction rules' matches.
var contractionInitials = newASCIISet("cCdDgGlLmMwW'")
