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

// SquadWords returns SquadNormalize(s) with the articles kept: Python lower, string.punctuation
// dropped, the whitespace-separated words joined with single spaces. It tells apart texts that
// SQuAD's normal form makes empty, such as the answers "A" and "The".
func SquadWords(s string) string {
	var buf [128]byte
	return string(appendNormalized(buf[:0], s, func([]byte) bool { return false }, isWord))
}

// squadArticle reports whether a maximal run of word characters is an article SQuAD removes.
func squadArticle(run []byte) bool {
	switch string(run) {
	case "a", "an", "the":
		return true
	}
	return false
}

// appendNormalized implements white_space_fix(remove_articles(remove_punc(lower(s)))) in one pass
// for an article set and a word-character predicate that defines \b.
//
// An article bounded by \b on both sides is exactly a maximal run of word characters spelling
// it, once punctuation is gone (so "t.he" is "the"). The pass therefore lowers, drops punctuation
// and collapses whitespace as it writes, tracks where the current word run started, and when a
// run ends replaces it by a separator if it is an article. ASCII bytes take a table-driven path.
func appendNormalized(dst []byte, s string, article func([]byte) bool, word func(rune) bool) []byte {
	dst = slices.Grow(dst, len(s))
	start, runStart := len(dst), -1
	pending := false // a separator is owed before the next character
	for i := 0; i < len(s); {
		var r rune // a lowered non-word character, or a non-ASCII one to classify
		if c := s[i]; c < utf8.RuneSelf {
			i++
			k := asciiClass[c]
			switch {
			case k&classPunct != 0:
				continue
			case k&classWord != 0:
				if runStart < 0 {
					if pending {
						dst = append(dst, ' ')
						pending = false
					}
					runStart = len(dst)
				}
				dst = append(dst, c|0x20) // lowercases letters, keeps digits
				continue
			case k&classSpace != 0:
				if runStart >= 0 {
					dst, _ = endArticle(dst, start, runStart, pending, article) // pending is set just below
					runStart = -1
				}
				pending = len(dst) > start
				continue
			}
			r = rune(c)
		} else {
			r0, size := utf8.DecodeRuneInString(s[i:])
			switch r0 {
			case 'İ': // lowers to "i" and U+0307
				if runStart < 0 {
					if pending {
						dst = append(dst, ' ')
						pending = false
					}
					runStart = len(dst)
				}
				dst = append(dst, 'i')
				r = '\u0307'
			case 'Σ':
				r = sigma(s, i)
			default:
				r = unicodeLower(r0)
			}
			i += size
			if word(r) {
				if runStart < 0 {
					if pending {
						dst = append(dst, ' ')
						pending = false
					}
					runStart = len(dst)
				}
				dst = utf8.AppendRune(dst, r)
				continue
			}
		}
		// r ends any word run; it is whitespace or a character kept as it is.
		if runStart >= 0 {
			dst, pending = endArticle(dst, start, runStart, pending, article)
			runStart = -1
		}
		if IsSpace(r) {
			pending = len(dst) > start
			continue
		}
		if pending {
			dst = append(dst, ' ')
			pending = false
		}
		dst = utf8.AppendRune(dst, r)
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
