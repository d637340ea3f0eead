package metric

import (
	"strconv"
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
)

// wordNetTemplates are scripts/wordnet-facts.py's TEMPLATES, split at the code point's place.
var wordNetTemplates = [][2]string{{"", ""}, {"", "s"}, {"dog", ""}, {"", "es"}, {"ax", "s"}, {"", "ing"}, {"dog", "s"}}

// wordNetFactsSHA256 is the SHA-256 of the lines scripts/wordnet-facts.py writes after its first
// (the versions): CPython 3.11.2, NLTK 3.8, WordNet 3.0's dict from Debian's wordnet-base.
const wordNetFactsSHA256 = "b4082f3ad572011d98afb9c24410b9d41cf1728493c51b88fc458fe59ca30767"

// wordNetFacts returns the function that appends the line scripts/wordnet-facts.py writes of a
// code point: its hex value, then the synonyms of each template around it, each after a tab.
func wordNetFacts() func(dst []byte, r rune) []byte {
	syn := newSynonymText()
	return func(dst []byte, r rune) []byte {
		dst = strconv.AppendInt(dst, int64(r), 16)
		for _, tp := range wordNetTemplates {
			dst = append(append(dst, '\t'), syn.of(tp[0]+string(r)+tp[1])...)
		}
		return append(dst, '\n')
	}
}

// TestWordNetFacts compares METEOR's WordNet lookup with NLTK's wordnet.synsets on every code
// point but the surrogates, each beside a lemma and the suffixes morphy strips: what a token of
// any text, lowered and stemmed, may look up. It runs when QA_WORDNET_FACTS names the file
// scripts/wordnet-facts.py writes (14 MB, not committed); TestWordNetFactsDigest holds the same
// facts through their digest on every run.
func TestWordNetFacts(t *testing.T) {
	vectors.CodePointsFile(t, "QA_WORDNET_FACTS", "scripts/wordnet-facts.py", wordNetFacts())
}
