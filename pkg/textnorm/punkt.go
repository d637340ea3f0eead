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
// str.isupper/islower and \w, \d follow the Unicode tables of Go's unicode package, which can
// differ from a given Python build's on characters added in recent Unicode versions.
func SentTokenize(s string) []string {
	spans := punktEnglish().spans(s)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = s[sp[0]:sp[1]]
	}
	return out
}

// spans is span_tokenize(text) with realign_boundaries=True: _slices_from_text followed by
// _realign_boundaries, as byte offsets.
func (m *punktModel) spans(text string) [][2]int {
	slices := m.slices(text)
	var out [][2]int
	realign := 0
	for i, s1 := range slices {
		s1[0] += realign
		if i+1 == len(slices) {
			if s1[0] < s1[1] {
				out = append(out, s1)
			}
			break
		}
		s2 := slices[i+1]
		if end, kept, ok := punktRealign(text[s2[0]:s2[1]]); ok {
			out = append(out, [2]int{s1[0], s2[0] + kept})
			realign = end
		} else {
			realign = 0
			if s1[0] < s1[1] {
				out = append(out, s1)
			}
		}
	}
	return out
}

// slices is _slices_from_text: a sentence ends after each candidate whose context holds a break.
func (m *punktModel) slices(text string) [][2]int {
	var out [][2]int
	last := 0
	var toks []punktToken
	for _, c := range m.endContexts(text) {
		toks = m.annotate(c.context, toks[:0])
		if !punktHasBreak(toks) {
			continue
		}
		out = append(out, [2]int{last, c.match.at + 1})
		if c.match.nextTok >= 0 {
			last = c.match.nextTok
		} else {
			last = c.match.at + 1
		}
	}
	end := len(strings.TrimRightFunc(text, IsSpace))
	return append(out, [2]int{last, end})
}

// punktEndContext pairs a candidate sentence end with its context: the word before it, the
// candidate character and after_tok.
type punktEndContext struct {
	match   punktPeriodContext
	context string
}

// endContexts is _match_potential_end_contexts: for runs of candidates such as "!!!" only the
// last one is kept, with the word before the run.
func (m *punktModel) endContexts(text string) []punktEndContext {
	var out []punktEndContext
	prevStart, prevStop := 0, 0
	var prev *punktPeriodContext
	matches := punktPeriodContexts(text)
	emit := func() {
		ctx := text[prevStart:prevStop] + text[prev.at:prev.afterEnd]
		out = append(out, punktEndContext{*prev, ctx})
	}
	for i := range matches {
		mt := &matches[i]
		before := text[prevStop:mt.at]
		start := prevStart
		if idx, n := punktLastSpace(before); idx > 0 {
			start = prevStop + idx + n
		}
		if prev != nil && prevStop <= start {
			emit()
		}
		prev, prevStart, prevStop = mt, start, mt.at
	}
	if prev != nil {
		emit()
	}
	return out
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

// punktHasBreak is text_contains_sentbreak over annotated tokens: a break before the last token.
func punktHasBreak(toks []punktToken) bool {
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].sentbreak {
			return true
		}
	}
	return false
}

// punktToken is PunktToken: a word with its type and annotations.
type punktToken struct {
	tok, typ                  string
	periodFinal               bool
	sentbreak, abbr, ellipsis bool
	firstUpper, firstLower    bool
	isInitial                 bool
}

func newPunktToken(tok string) punktToken {
	t := punktToken{tok: tok, typ: punktType(tok), periodFinal: strings.HasSuffix(tok, ".")}
	r, n := utf8.DecodeRuneInString(tok)
	t.firstUpper = (unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r)) && !NewInUnicode15(r)
	t.firstLower = (unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r)) && !NewInUnicode15(r)
	// _RE_INITIAL, [^\W\d]\.$ with match: one word character that is not a decimal digit, then
	// a period ending the token.
	t.isInitial = tok[n:] == "." && isWord(r) && !isDecimal(r)
	return t
}

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

// typeNoPeriod is type_no_period.
func (t *punktToken) typeNoPeriod() string {
	if len(t.typ) > 1 && t.typ[len(t.typ)-1] == '.' {
		return t.typ[:len(t.typ)-1]
	}
	return t.typ
}

// typeNoSentPeriod is type_no_sentperiod.
func (t *punktToken) typeNoSentPeriod() string {
	if t.sentbreak {
		return t.typeNoPeriod()
	}
	return t.typ
}
