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
	i, pairs := 0, 0
	var ends []int
	for i < len(s) && s[i] == '.' {
		r, n := utf8.DecodeRuneInString(s[i+1:])
		if n == 0 || !IsSpace(r) {
			break
		}
		i += 1 + n
		pairs++
		ends = append(ends, i)
	}
	for k := pairs; k >= 2; k-- {
		if e := ends[k-1]; e < len(s) && s[e] == '.' {
			return e + 1
		}
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
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRuneInString(line[i:])
		if IsSpace(r) {
			i += n
			continue
		}
		if m := punktMultiChar(line[i:]); m > 0 {
			out = append(out, line[i:i+m])
			i += m
			continue
		}
		if !punktWordStart(r) {
			out = append(out, line[i:i+n])
			i += n
			continue
		}
		j := i + n
		for j < len(line) && !punktWordEnd(line, j) {
			_, n := utf8.DecodeRuneInString(line[j:])
			j += n
		}
		out = append(out, line[i:j])
		i = j
	}
	return out
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

// punktPeriodContexts finds every period_context_re match in text.
func punktPeriodContexts(text string) []punktPeriodContext {
	return punktScanContexts(text, nil, false)
}

// punktHasCandidate reports whether period_context_re matches anywhere in text.
func punktHasCandidate(text string) bool {
	return len(punktScanContexts(text, nil, true)) > 0
}

// punktScanContexts appends the period_context_re matches in text to out, stopping after the
// first one if first is set.
func punktScanContexts(text string, out []punktPeriodContext, first bool) []punktPeriodContext {
	for i := 0; i < len(text) && !(first && len(out) > 0); i++ {
		c := text[i]
		if c != '.' && c != '?' && c != '!' {
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i+1:])
		if n == 0 {
			continue
		}
		if punktNonWord(r) {
			out = append(out, punktPeriodContext{i, i + 1 + n, -1})
			continue
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
		out = append(out, punktPeriodContext{i, k, j})
	}
	return out
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
