package metric

import (
	"strconv"
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
)

// wordNetTemplates are scripts/wordnet-facts.py's TEMPLATES, split at the code point's place.
var wordNetTemplates = [][2]string{{"", ""}, {"", "s"}, {"dog", ""}, {"", "es"}, {"ax", "s"}, {"", "ing"}, {"dog", "s"}}

// TestWordNetFacts compares METEOR's WordNet lookup with NLTK's wordnet.synsets on every code
// point but the surrogates, each beside a lemma and the suffixes morphy strips: what a token of
// any text, lowered and stemmed, may look up. It runs when QA_WORDNET_FACTS names the file
// scripts/wordnet-facts.py writes (14 MB, not committed).
func TestWordNetFacts(t *testing.T) {
	syn := newSynonymText()
	vectors.CodePointsFile(t, "QA_WORDNET_FACTS", "scripts/wordnet-facts.py", func(dst []byte, r rune) []byte {
		dst = strconv.AppendInt(dst, int64(r), 16)
		for _, tp := range wordNetTemplates {
			dst = append(append(dst, '\t'), syn.of(tp[0]+string(r)+tp[1])...)
		}
		return append(dst, '\n')
	})
}
