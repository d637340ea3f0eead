package textnorm

import (
	"slices"
	"unicode/utf8"
)

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

// squadArticle reports whether a maximal run of word characters is an article SQuAD removes.
func squadArticle(run []byte) bool {
	switch string(run) {
	case "a", "an", "the":
		return true
	}
	return false
}

// normalizer is the state of one appendNormalized pass.
type normalizer struct {
	out      []byte
	start    int  // where this text starts in out
	runStart int  // start of the current run of word characters in out, or -1
	pending  bool // a separator is owed before the next character
	article  func([]byte) bool
}

// appendNormalized implements white_space_fix(remove_articles(remove_punc(lower(s)))) in one pass
// for an article set and a word-character predicate that defines \b.
//
// An article bounded by \b on both sides is exactly a maximal run of word characters spelling
// it, once punctuation is gone (so "t.he" is "the"). The pass therefore lowers, drops punctuation
// and collapses whitespace as it writes, tracks the current word run, and when a run ends
// replaces it by a separator if it is an article.
func appendNormalized(dst []byte, s string, article func([]byte) bool, word func(rune) bool) []byte {
	if isASCII(s) {
		return appendNormalizedASCII(dst, s, article)
	}
	n := normalizer{out: dst, start: len(dst), runStart: -1, article: article}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			k := asciiClass[c]
			switch {
			case k&classPunct != 0:
			case k&classSpace != 0:
				n.space()
			case k&classWord != 0:
				if k&classUpper != 0 {
					c += 'a' - 'A'
				}
				n.wordByte(c)
			default:
				n.endRun()
				n.other(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 'İ':
			n.wordByte('i')
			n.wordRune(word, '\u0307') // a word character for the regex module, not for re
		case r == 'Σ':
			n.wordRune(word, sigma(s, i))
		default:
			n.wordRune(word, unicodeLower(r))
		}
		i += size
	}
	n.endRun()
	return n.out
}

// appendNormalizedASCII is appendNormalized for ASCII s, with the state in locals.
func appendNormalizedASCII(dst []byte, s string, article func([]byte) bool) []byte {
	dst = slices.Grow(dst, len(s)) // the output is never longer than s
	start, runStart := len(dst), -1
	pending := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		k := asciiClass[c]
		if k&classPunct != 0 {
			continue
		}
		if k&classWord != 0 {
			if runStart < 0 {
				if pending {
					dst = append(dst, ' ')
					pending = false
				}
				runStart = len(dst)
			}
			dst = append(dst, c|0x20) // lowercases letters, keeps digits
			continue
		}
		if runStart >= 0 {
			dst, pending = endArticle(dst, start, runStart, pending, article)
			runStart = -1
		}
		if k&classSpace != 0 {
			pending = len(dst) > start
			continue
		}
		if pending {
			dst = append(dst, ' ')
			pending = false
		}
		dst = append(dst, c)
	}
	if runStart >= 0 {
		dst, _ = endArticle(dst, start, runStart, pending, article)
	}
	return dst
}

// endArticle closes the word run dst[runStart:]: an article becomes an owed separator, and the
// separator already written before it is taken back.
func endArticle(dst []byte, start, runStart int, pending bool, article func([]byte) bool) ([]byte, bool) {
	if len(dst)-runStart > 3 || !article(dst[runStart:]) {
		return dst, pending
	}
	dst = dst[:runStart]
	if len(dst) > start && dst[len(dst)-1] == ' ' {
		dst = dst[:len(dst)-1]
	}
	return dst, len(dst) > start
}

func (n *normalizer) space() {
	n.endRun()
	n.pending = len(n.out) > n.start
}

// sep writes the owed separator, if any.
func (n *normalizer) sep() {
	if n.pending {
		n.out = append(n.out, ' ')
		n.pending = false
	}
}

func (n *normalizer) wordByte(c byte) {
	if n.runStart < 0 {
		n.sep()
		n.runStart = len(n.out)
	}
	n.out = append(n.out, c)
}

func (n *normalizer) other(c byte) {
	n.sep()
	n.out = append(n.out, c)
}

func (n *normalizer) otherRune(r rune) {
	n.sep()
	n.out = utf8.AppendRune(n.out, r)
}

// wordRune writes a lowered non-ASCII code point, as a word or a space or neither.
func (n *normalizer) wordRune(word func(rune) bool, r rune) {
	switch {
	case IsSpace(r):
		n.space()
	case word(r):
		if n.runStart < 0 {
			n.sep()
			n.runStart = len(n.out)
		}
		n.out = utf8.AppendRune(n.out, r)
	default:
		n.endRun()
		n.otherRune(r)
	}
}

// endRun closes the current word run, turning it into a separator if it is an article.
func (n *normalizer) endRun() {
	if n.runStart < 0 {
		return
	}
	n.out, n.pending = endArticle(n.out, n.start, n.runStart, n.pending, n.article)
	n.runStart = -1
}
