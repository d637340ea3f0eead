package textnorm

import (
	"strings"
	"unicode/utf8"
)

// This file holds Punkt's regular expressions (PunktLanguageVars with NLTK's english defaults)
// as hand-written scans: each needs lookahead, which RE2 lacks.

// punktNonWord reports membership in _re_non_word_chars, the characters that cannot appear
// within words: ) " ; } ] * : @ ' ( { [ ? !
func punktNonWord(r rune) bool {
	return strings.ContainsRune(`)";}]*:@'({[?!`, r)
}

// punktWordStart reports membership in _re_word_start, the characters a word may start with:
// anything but ( " ` { [ : ; & # * @ ) } ] - ,
func punktWordStart(r rune) bool {
	return !strings.ContainsRune("(\"`{[:;&#*@)}]-,", r)
}

// punktMultiChar returns the length of _re_multi_char_punct, (?:\-{2,}|\.{2,}|(?:\.\s){2,}\.),
// matched at the start of s, or 0.
func punktMultiChar(s string) int {
	if n := punktRun(s, '-'); n >= 2 {
		return n
	}
	if n := punktRun(s, '.'); n >= 2 {
		return n
	}
	// (?:\.\s){2,}\. : greedy repetition, backtracking one pair if the final period is missing.
	// Every pair but the first starts with a period, so the match ends after the last pair or,
	// with three or more, after the one before it.
	i, pairs, prevEnd := 0, 0, 0
	for i < len(s) && s[i] == '.' {
		r, n := utf8.DecodeRuneInString(s[i+1:])
		if n == 0 || !IsSpace(r) {
			break
		}
		prevEnd = i
		i += 1 + n
		pairs++
	}
	switch {
	case pairs >= 2 && i < len(s) && s[i] == '.':
		return i + 1
	case pairs >= 3:
		return prevEnd + 1
	}
	return 0
}

// punktRun counts the leading bytes of s equal to c.
func punktRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// punktWords is PunktLanguageVars.word_tokenize(line): findall of
//
//	MultiChar | (?=WordStart)\S+?(?=\s|$|NonWord|MultiChar|,(?=$|\s|NonWord|MultiChar)) | \S
//
// over a line without newlines.
func punktWords(line string, out []string) []string {
	for i := 0; ; {
		start, end := punktNextWord(line, i)
		if start == end {
			return out
		}
		out = append(out, line[start:end])
		i = end
	}
}

// punktNextWord returns the bounds of the first word of punktWords(line[i:]) within line, or an
// empty span when there is none.
func punktNextWord(line string, i int) (start, end int) {
	for i < len(line) {
		r, n := utf8.DecodeRuneInString(line[i:])
		if IsSpace(r) {
			i += n
			continue
		}
		if m := punktMultiChar(line[i:]); m > 0 {
			return i, i + m
		}
		if !punktWordStart(r) {
			return i, i + n
		}
		j := i + n
		for j < len(line) && !punktWordEnd(line, j) {
			_, n := utf8.DecodeRuneInString(line[j:])
			j += n
		}
		return i, j
	}
	return i, i
}

// punktWordEnd reports whether the lazy \S+? of a word stops before line[j]: whitespace, a
// non-word character, multi-character punctuation, or a comma ending the word.
func punktWordEnd(line string, j int) bool {
	r, n := utf8.DecodeRuneInString(line[j:])
	if IsSpace(r) || punktNonWord(r) || punktMultiChar(line[j:]) > 0 {
		return true
	}
	if r != ',' {
		return false
	}
	k := j + n
	if k == len(line) {
		return true
	}
	r2, _ := utf8.DecodeRuneInString(line[k:])
	return IsSpace(r2) || punktNonWord(r2) || punktMultiChar(line[k:]) > 0
}

// punktPeriodContext is one match of period_context_re,
//
//	[.?!](?=(?P<after_tok>NonWord|\s+(?P<next_tok>\S+)))
//
// at: the index of the sentence-ending character; afterEnd: the end of after_tok; nextTok: the
// start of next_tok, or -1 when after_tok is a non-word character.
type punktPeriodContext struct {
	at, afterEnd, nextTok int
}

// punktHasCandidate reports whether period_context_re matches anywhere in text.
func punktHasCandidate(text string) bool {
	_, ok := punktNextContext(text, 0)
	return ok
}

// punktNextContext returns the first period_context_re match in text at or after i.
func punktNextContext(text string, i int) (punktPeriodContext, bool) {
	for ; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '?' && c != '!' {
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i+1:])
		if n == 0 {
			continue
		}
		if punktNonWord(r) {
			return punktPeriodContext{i, i + 1 + n, -1}, true
		}
		if !IsSpace(r) {
			continue
		}
		j := i + 1
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !IsSpace(r) {
				break
			}
			j += n
		}
		if j == len(text) {
			continue
		}
		k := j
		for k < len(text) {
			r, n := utf8.DecodeRuneInString(text[k:])
			if IsSpace(r) {
				break
			}
			k += n
		}
		return punktPeriodContext{i, k, j}, true
	}
	return punktPeriodContext{}, false
}

// punktRealign returns the length of re_boundary_realignment, ["')\]}]+?(?:\s+|(?=--)|$) with
// MULTILINE, matched at the start of s, the part kept by rstrip, and whether it matched.
func punktRealign(s string) (end, kept int, ok bool) {
	for k := 1; k <= len(s) && strings.IndexByte(`"')]}`, s[k-1]) >= 0; k++ {
		if k == len(s) {
			return k, k, true
		}
		r, n := utf8.DecodeRuneInString(s[k:])
		if IsSpace(r) {
			j := k + n
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if !IsSpace(r) {
					break
				}
				j += n
			}
			return j, k, true
		}
		if strings.HasPrefix(s[k:], "--") {
			return k, k, true
		}
	}
	return 0, 0, false
}
