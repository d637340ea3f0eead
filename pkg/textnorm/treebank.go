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
// Treebank tokenizer (starting quotes become “, ending quotes ”, punctuation, brackets and
// double dashes are padded, a sentence-final period is split off, contractions such as n't, 's,
// can|not and gon|na are split; parentheses are kept as they are).
//
// Note: Python's regexes use lookahead and a Unicode \b, \s and \d that Go's RE2 lacks, so the
// rules needing them are hand-written scans over runes (treebankQuote, treebankContract) and the
// others are RE2 patterns with Python's character classes spelled out. Text made only of ASCII
// letters, digits and spaces, the common case inside CMRC answers, skips all of that: every rule
// is a no-op on it except the contractions, which a cheap scan rules out.
func WordTokenize(s string) []string {
	if plainWords(s) {
		return Split(s)
	}
	var out []string
	for _, sent := range SentTokenize(s) {
		out = append(out, treebankTokenize(sent)...)
	}
	return out
}

// plainWords reports whether s holds only ASCII letters, digits and whitespace and none of the
// words the contraction rules split (cannot, gimme, gonna, gotta, lemme, wanna).
func plainWords(s string) bool {
	letters := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letters = true
		case '0' <= c && c <= '9', c == ' ', '\t' <= c && c <= '\r', 0x1c <= c && c <= 0x1f:
		default:
			return false
		}
	}
	if !letters {
		return true
	}
	low := strings.ToLower(s) // ASCII only here, so Python's lower() agrees
	for _, w := range [...]string{"cannot", "gimme", "gonna", "gotta", "lemme", "wanna"} {
		if strings.Contains(low, w) {
			return false
		}
	}
	return true
}

// pySpace is Python's Unicode \s (str.isspace) as an RE2 character class body.
const pySpace = `\t-\r\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

// treebankRule is one regex substitution of NLTKWordTokenizer, run only when the text contains
// one of the trigger bytes (an empty trigger means always).
type treebankRule struct {
	re      *regexp.Regexp
	repl    string
	trigger string
}

func (r treebankRule) apply(s string) string {
	if r.trigger != "" && !strings.ContainsAny(s, r.trigger) {
		return s
	}
	return r.re.ReplaceAllString(s, r.repl)
}

var (
	// STARTING_QUOTES, except the apostrophe rule (treebankQuote).
	tbStartQuote = treebankRule{regexp.MustCompile("([«“‘„]|`+)"), " ${1} ", "«“‘„`"}
	tbQuotePair  = treebankRule{regexp.MustCompile(`([ (\[{<])("|'')`), "${1} `` ", `"'`}

	// PUNCTUATION, in order.
	tbPunct = []treebankRule{
		{regexp.MustCompile(`([^.])(\.)([\])}>"'»”’ ]*)[` + pySpace + `]*$`), "${1} ${2} ${3} ", "."},
		{regexp.MustCompile(`([:,])([^\p{Nd}])`), " ${1} ${2}", ":,"},
		{regexp.MustCompile(`([:,])$`), " ${1} ", ":,"},
		{regexp.MustCompile(`\.{2,}`), " ${0} ", "."},
		{regexp.MustCompile(`[;@#$%&]`), " ${0} ", ";@#$%&"},
		{regexp.MustCompile(`([^.])(\.)([\])}>"']*)[` + pySpace + `]*$`), "${1} ${2}${3} ", "."},
		{regexp.MustCompile(`[?!]`), " ${0} ", "?!"},
		{regexp.MustCompile(`([^'])' `), "${1} ' ", "'"},
		{regexp.MustCompile(`\*`), " ${0} ", "*"},
		// PARENS_BRACKETS and DOUBLE_DASHES.
		{regexp.MustCompile(`[\][(){}<>]`), " ${0} ", "[](){}<>"},
		{regexp.MustCompile(`--`), " -- ", "-"},
	}

	// ENDING_QUOTES, run after the text is padded with a space on each side.
	tbEndQuote = []treebankRule{
		{regexp.MustCompile(`([»”’])`), " ${1} ", "»”’"},
		{regexp.MustCompile(`''`), " '' ", "'"},
		{regexp.MustCompile(`"`), " '' ", `"`},
		{regexp.MustCompile(`([^' ])('[sS]|'[mM]|'[dD]|') `), "${1} ${2} ", "'"},
		{regexp.MustCompile(`([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) `), "${1} ${2} ", "'"},
	}
)

// treebankTokenize is NLTKWordTokenizer.tokenize(s) with convert_parentheses=False.
func treebankTokenize(s string) []string {
	s = tbStartQuote.apply(s)
	if strings.HasPrefix(s, `"`) {
		s = "``" + s[1:]
	}
	if strings.Contains(s, "``") {
		s = strings.ReplaceAll(s, "``", " `` ")
	}
	s = tbQuotePair.apply(s)
	s = treebankQuote(s)
	for _, r := range tbPunct {
		s = r.apply(s)
	}
	s = " " + s + " "
	for _, r := range tbEndQuote {
		s = r.apply(s)
	}
	s = treebankContract(s)
	return Split(s)
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
