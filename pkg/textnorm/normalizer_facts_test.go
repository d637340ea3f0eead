package textnorm

import (
	"strconv"
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
)

// normalizerFactsSHA256 is the SHA-256 of what the reference normalisers and the Porter stemmer
// make of every code point in normalizerTemplates and stemTemplates, as
// `scripts/normalizer-facts.py --digest` prints it (CPython 3.11.2, regex 2022.10.31, NLTK 3.8).
const normalizerFactsSHA256 = "b50e65a2c5f89effcafb219b8c130785da9d048e37bda722d35beb00f006c2e0"

// normalizerTemplates and stemTemplates are scripts/normalizer-facts.py's TEMPLATES and
// STEM_TEMPLATES, split at the code point's places: a template is its pieces joined by the code
// point.
var (
	normalizerTemplates = [][]string{
		{"", ""}, {"a", "a"}, {"x", "the"}, {"the", "x"}, {"A", " an"}, {"", "", "The"},
		{"\u03a3", ""}, {"\u0130", ""}, {"an", "and"}, {"_", "a"}, {"", "\u03a3 x"}, {"1", "\u00b2"},
	}
	stemTemplates = [][]string{
		{"", ""}, {"", "s"}, {"a", ""}, {"", "ing"}, {"hop", "ing"}, {"y", "y"},
		{"", "ational"}, {"ab", "e"}, {"", "", "ed"}, {"\u0130", "s"}, {"run", "ies"}, {"", "yli"},
	}
)

// appendNormalizerFacts appends the line scripts/normalizer-facts.py writes of r: its hex value,
// then SquadNormalize, LocomoNormalize and the space-joined AppendRougeText tokens of each of
// normalizerTemplates around r, then Stem of each of stemTemplates, each after a tab.
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

// TestNormalizerFactsDigest holds the SQuAD (v1.1, v2.0 and HotpotQA), LoCoMo and rouge-score
// normalisers and the Porter stemmer to the reference code on every code point but the
// surrogates, each in twelve contexts, through the digest of their outputs. The tests of their
// parts (Lower, IsAlnum, IsSpace, the regex module's \w) hold those to Python code point by code
// point; this holds what the normalisers build of them. It fails when a Go release changes its
// Unicode tables, for one; TestNormalizerFacts then names the code points.
func TestNormalizerFactsDigest(t *testing.T) {
	vectors.CodePointsDigest(t, normalizerFactsSHA256, "scripts/normalizer-facts.py", "QA_NORMALIZER_FACTS", appendNormalizerFacts)
}

// TestNormalizerFacts compares appendNormalizerFacts with the reference code point by code point.
// It runs when QA_NORMALIZER_FACTS names the file scripts/normalizer-facts.py writes; the file is
// 336 MB, so none is committed.
func TestNormalizerFacts(t *testing.T) {
	vectors.CodePointsFile(t, "QA_NORMALIZER_FACTS", "scripts/normalizer-facts.py", appendNormalizerFacts)
}
