package textnorm

import (
	"strings"
	"unicode"
)

// LocomoNormalize returns the answer normal form of LoCoMo's task_eval/evaluation.py
// (normalize_answer): commas deleted, then SquadNormalize's steps with "and" added to the
// articles, where \b follows the third-party regex module's Unicode word characters.
func LocomoNormalize(s string) string {
	return string(AppendLocomoNormalized(nil, s))
}

// AppendLocomoNormalized appends LocomoNormalize(s) to dst and returns the extended slice; words
// are separated by exactly one ASCII space.
func AppendLocomoNormalized(dst []byte, s string) []byte {
	// The commas go before lowering: they can decide whether a capital sigma is final.
	s = strings.ReplaceAll(s, ",", "")
	return appendNormalized(dst, s, locomoArticle, regexWord)
}

// locomoArticle reports whether a maximal run of word characters is a word LoCoMo removes.
func locomoArticle(run []byte) bool {
	return string(run) == "and" || squadArticle(run)
}

// regexWord reports whether r is a word character for the regex module (mrab-regex) on str:
// Alphabetic, a mark, a decimal digit, connector punctuation or a join control. It differs from
// Python re's isalnum rule on marks (word here) and on No numbers such as ² (not word here).
// The module carries its own Unicode tables, 15.0 in the version LoCoMo's vectors came from, as
// Go's are: what 15.0 added counts (unlike for CPython 3.11's own rules, see NewInUnicode15).
// Checked on every code point (testdata/regex_word_ranges.txt).
func regexWord(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	return (unicode.IsLetter(r) || unicode.In(r, unicode.Nl, unicode.M, unicode.Nd, unicode.Pc,
		unicode.Other_Alphabetic, unicode.Join_Control))
}
