package textnorm

import "unicode/utf8"

// SquadNormalize returns the SQuAD normal form of s, as the official evaluate-v1.1.py and
// evaluate-v2.0.py scripts (and HotpotQA's) compute it: Python lower, drop string.punctuation,
// replace the articles a, an and the with a space where Python's Unicode \b bounds them, then
// join the whitespace-separated words with single spaces.
func SquadNormalize(s string) string {
	var buf [128]byte
	return string(AppendSquadNormalized(buf[:0], s))
}

// AppendSquadNormalized appends SquadNormalize(s) to dst and returns the extended slice. Words in
// the result are separated by exactly one ASCII space, so callers can cut tokens at ' '.
func AppendSquadNormalized(dst []byte, s string) []byte {
	return appendNormalized(dst, s, squadArticle, isWord)
}

// squadArticle returns the length of the article ("a", "an" or "the") that b starts with, or 0.
// The caller checks the boundaries.
func squadArticle(b []byte) int {
	switch {
	case len(b) == 0:
		return 0
	case b[0] == 'a':
		if len(b) > 1 && b[1] == 'n' {
			return 2
		}
		return 1
	case len(b) >= 3 && b[0] == 't' && b[1] == 'h' && b[2] == 'e':
		return 3
	}
	return 0
}

// appendNormalized implements white_space_fix(remove_articles(remove_punc(lower(s)))) for an
// article matcher and a word-character predicate that defines \b.
func appendNormalized(dst []byte, s string, article func([]byte) int, word func(rune) bool) []byte {
	start := len(dst)
	dst = appendLowerNoPunct(dst, s)
	buf := dst[start:]
	w := 0
	pending, prevWord := false, false
	for r := 0; r < len(buf); {
		if !prevWord {
			if k := boundedArticle(buf[r:], article, word); k > 0 {
				pending = w > 0
				prevWord = true
				r += k
				continue
			}
		}
		c, n := rune(buf[r]), 1
		if c >= utf8.RuneSelf {
			c, n = utf8.DecodeRune(buf[r:])
		}
		if IsSpace(c) {
			pending = w > 0
			prevWord = false
			r += n
			continue
		}
		if pending {
			buf[w] = ' '
			w++
			pending = false
		}
		copy(buf[w:], buf[r:r+n])
		w += n
		prevWord = word(c)
		r += n
	}
	return dst[:start+w]
}

// boundedArticle returns the length of the article at the start of b when a non-word character
// or the end follows it, else 0. The matcher returns the longest candidate; a shorter one ("a" in
// "an") is always followed by a letter, so trying it as the regex alternation does cannot match.
func boundedArticle(b []byte, article func([]byte) int, word func(rune) bool) int {
	k := article(b)
	if k == 0 || k == len(b) {
		return k
	}
	c := rune(b[k])
	if c >= utf8.RuneSelf {
		c, _ = utf8.DecodeRune(b[k:])
	}
	if word(c) {
		return 0
	}
	return k
}

// appendLowerNoPunct appends Lower(s) without the string.punctuation characters. Punctuation is
// ASCII, so it is dropped byte by byte after lowering.
func appendLowerNoPunct(dst []byte, s string) []byte {
	if !isASCII(s) {
		s = Lower(s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		case c < utf8.RuneSelf && IsPunct(rune(c)):
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
