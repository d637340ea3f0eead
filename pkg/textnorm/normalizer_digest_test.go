//go:build !race

package textnorm

import (
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
)

// TestNormalizerFactsDigest holds the SQuAD (v1.1, v2.0 and HotpotQA), LoCoMo and rouge-score
// normalisers, the Porter stemmer and Lower to the reference code on every code point but the
// surrogates, each in eight or twelve contexts, through the digest of their outputs. The tests of
// their parts (Lower, IsAlnum, IsSpace of one character, the regex module's \w) hold those to
// Python code point by code point; this holds what is built of them, and Lower's final sigma. It
// fails when a Go release changes its Unicode tables, for one; TestNormalizerFacts then names the
// code points.
//
// It is built without the race detector only (`make test` runs it in a pass of its own): it runs
// on one goroutine, where the detector finds nothing, and took over a minute under it against
// 9 s without, the longest test of the suite.
func TestNormalizerFactsDigest(t *testing.T) {
	vectors.CodePointsDigest(t, normalizerFactsSHA256, "scripts/normalizer-facts.py", "QA_NORMALIZER_FACTS", appendNormalizerFacts)
}
