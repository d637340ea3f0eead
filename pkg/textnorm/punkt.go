package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SentTokenize splits s into sentences exactly as NLTK 3.8's nltk.sent_tokenize(s) does with the
// english Punkt model (PunktSentenceTokenizer.tokenize with realign_boundaries=True): each '.',
// '?' or '!' followed by whitespace or closing punctuation is a candidate; the word before it and
// the token after it are annotated (abbreviations, initials, ordinals, ellipses, collocations,
// the orthographic and sentence-starter heuristics) to decide; closing quotes and brackets after a
// break stay with the sentence they close. Sentences keep their inner whitespace.
//
// Note: the decision logic is a line-by-line port of NLTK 3.8's punkt.py (checked against NLTK
// itself on 70,000 generated strings; 2,000 are kept in testdata/punkt_nltk38.jsonl), not a
// retraining. The
// english model's parameters (156 abbreviation types, 37 collocations, 39 sentence starters,
// orthographic contexts of 20,366 types) are embedded from punkt_english.tsv, a JSON dump of
// nltk_data's english.pickle published by another project, since nltk_data itself could not be
// fetched; punkt_english_README.md says where from and why it is believed complete. Python's
// str.isupper/islower and \w, \d are CPython 3.11's: Go's Unicode 15.0 tables less the
// characters new in 15.0 and, for islower, the five whose Lowercase property 15.0 added.
func SentTokenize(s string) []string {
	var out []string
	punktEnglish().eachSpan(s, func(start, end int) {
		out = append(out, s[start:end])
	})
	return out
}

// eachSpan calls f with the byte offsets of each sentence of span_tokenize(text) with
// realign_boundaries=True: _slices_from_text followed by _realign_boundaries.
//
// Note: the candidates, their contexts, the slices and the spans are produced one at a time and
// handed on, as NLTK's generators do, rather than collected in turn: a text of many short
// sentences such as "! ! !" would otherwise build four lists as long as itself.
func (m *punktModel) eachSpan(text string, f func(start, end int)) {
	var s1 [2]int
	have, realign := false, 0
	m.eachSlice(text, func(s2 [2]int) {
		if have {
			s1[0] += realign
			if end, kept, ok := punktRealign(text[s2[0]:s2[1]]); ok {
				f(s1[0], s2[0]+kept)
				realign = end
			} else {
				realign = 0
				if s1[0] < s1[1] {
					f(s1[0], s1[1])
				}
			}
		}
		s1, have = s2, true
	})
	// eachSlice ends with the slice after the last break.
	if s1[0] += realign; s1[0] < s1[1] {
		f(s1[0], s1[1])
	}
}

// eachSlice is _slices_from_text: a sentence ends after each candidate whose context holds a
// break, and the last one at the end of the text without its trailing whitespace.
func (m *punktModel) eachSlice(text string, f func([2]int)) {
	last := 0
	m.eachEndContext(text, func(c punktPeriodContext, context string) {
		if !m.hasBreak(context) {
			return
		}
		f([2]int{last, c.at + 1})
		if c.nextTok >= 0 {
			last = c.nextTok
		} else {
			last = c.at + 1
		}
	})
	f([2]int{last, len(strings.TrimRightFunc(text, IsSpace))})
}

// eachEndContext is _match_potential_end_contexts: it calls f with each candidate sentence end
// and its context, the word before it, the candidate character and after_tok. For runs of
// candidates such as "!!!" only the last one is kept, with the word before the run. The word ends
// where the candidate starts, so the context NLTK glues together is one piece of the text.
func (m *punktModel) eachEndContext(text string, f func(punktPeriodContext, string)) {
	prevStart, prevStop := 0, 0
	var prev punktPeriodContext
	have := false
	for i := 0; ; {
		c, ok := punktNextContext(text, i)
		if !ok {
			break
		}
		i = c.at + 1
		start := prevStart
		if idx, n := punktLastSpace(text[prevStop:c.at]); idx > 0 {
			start = prevStop + idx + n
		}
		if have && prevStop <= start {
			f(prev, text[prevStart:prev.afterEnd])
		}
		prev, prevStart, prevStop, have = c, start, c.at, true
	}
	if have {
		f(prev, text[prevStart:prev.afterEnd])
	}
}

// punktLastSpace is _get_last_whitespace_index: the index of the last string.whitespace
// character of s (ASCII only) and its length, or 0 when there is none. As in Python, a space at
// index 0 is indistinguishable from none.
func punktLastSpace(s string) (int, int) {
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return i, 1
		}
	}
	return 0, 0
}

// punktToken is PunktToken: a word with its annotations. Its type is computed when the second
// pass first asks for it: most tokens never need it.
type punktToken struct {
	tok                       string
	typ                       string // valid once typed is set
	typed                     bool
	periodFinal               bool
	sentbreak, abbr, ellipsis bool
	firstUpper, firstLower    bool
	isInitial                 bool
}

func newPunktToken(tok string) punktToken {
	t := punktToken{tok: tok, periodFinal: strings.HasSuffix(tok, ".")}
	r, n := utf8.DecodeRuneInString(tok)
	if r < utf8.RuneSelf {
		t.firstUpper = 'A' <= r && r <= 'Z'
		t.firstLower = 'a' <= r && r <= 'z'
	} else {
		t.firstUpper, t.firstLower = isUpperPy(r), isLowerPy(r)
	}
	// _RE_INITIAL, [^\W\d]\.$ with match: one word character that is not a decimal digit, then
	// a period ending the token.
	t.isInitial = tok[n:] == "." && isWord(r) && !isDecimal(r)
	return t
}

// isUpperPy is CPython 3.11's str.isupper() of the one character r: the Uppercase property of
// Unicode 14.0.
func isUpperPy(r rune) bool {
	return (unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r)) && !NewInUnicode15(r)
}

// isLowerPy is CPython 3.11's str.islower() of the one character r: the Lowercase property of
// Unicode 14.0, which Go's Unicode 15.0 tables give to five more characters (lowercaseSince15).
func isLowerPy(r rune) bool {
	return (unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r)) && !NewInUnicode15(r) &&
		!unicode.Is(lowercaseSince15, r)
}

// lowercaseSince15 holds the characters Unicode 14.0 already had that Unicode 15.0 made
// Other_Lowercase: U+10FC MODIFIER LETTER GEORGIAN NAR, U+A7F2–U+A7F4 MODIFIER LETTER CAPITAL C,
// F and Q, and U+AB69 MODIFIER LETTER SMALL TURNED W. For CPython 3.11 they are neither lower
// nor upper case, so a token they start is neither first_lower nor first_upper. Computed from
// CPython 3.11 over every code point; no character differs the other way, nor for isupper.
var lowercaseSince15 = &unicode.RangeTable{R16: []unicode.Range16{
	{0x10fc, 0x10fc, 1}, {0xa7f2, 0xa7f4, 1}, {0xab69, 0xab69, 1},
}}

// punktType is _get_type: the lowercased token, or ##number## for a numeric one.
func punktType(tok string) string {
	low := Lower(tok)
	if punktNumeric(low) {
		return "##number##"
	}
	return low
}

// punktNumeric matches _RE_NUMERIC, ^-?[\.,]?\d[\d,\.-]*\.?$ with \d any decimal digit.
func punktNumeric(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s != "" && (s[0] == '.' || s[0] == ',') {
		s = s[1:]
	}
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !isDecimal(r) {
		return false
	}
	for _, r := range s[n:] {
		if !isDecimal(r) && r != ',' && r != '.' && r != '-' {
			return false
		}
	}
	return true
}

// typeOf returns the token's type, computing it on first use.
func (t *punktToken) typeOf() string {
	if !t.typed {
		t.typ, t.typed = punktType(t.tok), true
	}
	return t.typ
}

// typeNoPeriod is type_no_period.
func (t *punktToken) typeNoPeriod() string {
	typ := t.typeOf()
	if len(typ) > 1 && typ[len(typ)-1] == '.' {
		return typ[:len(typ)-1]
	}
	return typ
}

// typeNoSentPeriod is type_no_sentperiod.
func (t *punktToken) typeNoSentPeriod() string {
	if t.sentbreak {
		return t.typeNoPeriod()
	}
	return t.typeOf()
}
