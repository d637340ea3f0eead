package textnorm

import (
	"strconv"
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
)

// normalizerFactsSHA256 is the SHA-256 of what the reference normalisers, the Porter stemmer and
// str.lower() make of every code point in normalizerTemplates, stemTemplates and lowerTemplates, as
// `scripts/normalizer-facts.py --digest` prints it (CPython 3.11.2, regex 2022.10.31, NLTK 3.8).
const normalizerFactsSHA256 = "be366e17cb3197306ca8a3314a406e03ad854f7fca97673891dbda1183974ade"

// normalizerTemplates, stemTemplates and lowerTemplates are scripts/normalizer-facts.py's
// TEMPLATES, STEM_TEMPLATES and LOWER_TEMPLATES, split at the code point's places: a template is
// its pieces joined by the code point.
var (
	normalizerTemplates = [][]string{
		{"", ""}, {"a", "a"}, {"x", "the"}, {"the", "x"}, {"A", " an"}, {"", "", "The"},
		{"\u03a3", ""}, {"\u0130", ""}, {"an", "and"}, {"_", "a"}, {"", "\u03a3 x"}, {"1", "\u00b2"},
	}
	stemTemplates = [][]string{
		{"", ""}, {"", "s"}, {"a", ""}, {"", "ing"}, {"hop", "ing"}, {"y", "y"},
		{"", "ational"}, {"ab", "e"}, {"", "", "ed"}, {"\u0130", "s"}, {"run", "ies"}, {"", "yli"},
	}
	lowerTemplates = [][]string{
		{"\u03a3", ""}, {"", "\u03a3"}, {"A\u03a3", ""}, {"", "A\u03a3 x"}, {"A", "\u03a3"}, {"A\u03a3", "a"},
		{"\u0130", ""}, {"", "\u03a3\u03a3"},
	}
)

// appendNormalizerFacts appends the line scripts/normalizer-facts.py writes of r: its hex value,
// then SquadNormalize, LocomoNormalize and the space-joined AppendRougeText tokens of each of
// normalizerTemplates around r, then Stem of each of stemTemplates and Lower of each of
// lowerTemplates, each after a tab.
func appendNormalizerFacts(dst []byte, r rune) []byte {
	dst = strconv.AppendInt(dst, int64(r), 16)
	for _, pieces := range normalizerTemplates {
		s := around(r, pieces)
		dst = AppendSquadNormalized(append(dst, '\t'), s)
		dst = AppendLocomoNormalized(append(dst, '\t'), s)
		dst = append(dst, '\t')
		n := len(dst)
		dst = AppendRougeText(dst, s) // each token followed by a space
		if len(dst) > n {
			dst = dst[:len(dst)-1]
		}
	}
	for _, pieces := range stemTemplates {
		dst = vectors.AppendEscaped(append(dst, '\t'), Stem(around(r, pieces)))
	}
	for _, pieces := range lowerTemplates {
		dst = vectors.AppendEscaped(append(dst, '\t'), Lower(around(r, pieces)))
	}
	return append(dst, '\n')
}

// around returns pieces joined by r.
func around(r rune, pieces []string) string {
	s := pieces[0]
	for _, p := range pieces[1:] {
		s += string(r) + p
	}
	return s
}

// TestNormalizerFacts compares appendNormalizerFacts with the reference code point by code point.
// It runs when QA_NORMALIZER_FACTS names the file scripts/normalizer-facts.py writes; the file is
// about 400 MB, so none is committed.
func TestNormalizerFacts(t *testing.T) {
	vectors.CodePointsFile(t, "QA_NORMALIZER_FACTS", "scripts/normalizer-facts.py", appendNormalizerFacts)
}
