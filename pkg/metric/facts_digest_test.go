//go:build !race

package metric

import (
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
)

// TestWordNetFactsDigest holds METEOR's WordNet lookup to NLTK's on every code point but the
// surrogates, in every template of scripts/wordnet-facts.py, through the digest of the facts
// TestWordNetFacts compares line by line when given the script's file.
//
// The digests here are built without the race detector only (`make test` runs them in a pass of
// their own): they run on one goroutine, where the detector finds nothing and slows them
// severalfold.
func TestWordNetFactsDigest(t *testing.T) {
	vectors.CodePointsDigest(t, wordNetFactsSHA256, "scripts/wordnet-facts.py", "QA_WORDNET_FACTS", wordNetFacts())
}

// TestCMRCFactsDigest holds cmrc_em's and cmrc_f1's segmentation and punctuation removal to CMRC
// 2018's own on every code point but the surrogates, in every template of scripts/cmrc-facts.py,
// through the digest of the facts TestCMRCFacts compares line by line when given the script's
// file.
func TestCMRCFactsDigest(t *testing.T) {
	vectors.CodePointsDigest(t, cmrcFactsSHA256, "scripts/cmrc-facts.py", "QA_CMRC_FACTS", appendCMRCFacts)
}
