package metric

import (
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
)

// cmrcTemplates are scripts/cmrc-facts.py's TEMPLATES, split at the code point's place.
var cmrcTemplates = [...][2]string{
	{"", ""}, {"a", "b."}, {"", "'s"}, {`"`, `"`}, {"中", "文"}, {"", "... x"}, {"don", "t"}, {"Mr.", " X"},
	{"x. ", "y z"}, {"", ". he"},
}

// cmrcRemovePunctuation is remove_punctuation(s) of CMRC 2018 v6, from the parts cmrc_em uses:
// cmrcNorm's lower().strip() and cmrcPunct's list.
func cmrcRemovePunctuation(s string) string {
	var b strings.Builder
	for _, r := range cmrcNorm(s) {
		if !cmrcPunct(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// appendCMRCFacts appends the line scripts/cmrc-facts.py writes of r: its hex value, then for
// each template around r CMRCSegment's tokens joined by spaces and cmrcRemovePunctuation, each
// after a tab, escaped as the script escapes them. When CMRCEM of one template's text against the
// next's disagrees with their cmrcRemovePunctuation, the line says so, and so differs from the
// script's.
func appendCMRCFacts(dst []byte, r rune) []byte {
	dst = strconv.AppendInt(dst, int64(r), 16)
	var texts, clean [len(cmrcTemplates)]string
	for i, t := range cmrcTemplates {
		texts[i] = t[0] + string(r) + t[1]
		clean[i] = cmrcRemovePunctuation(texts[i])
		dst = vectors.AppendEscaped(append(dst, '\t'), strings.Join(CMRCSegment(texts[i]), " "))
		dst = vectors.AppendEscaped(append(dst, '\t'), clean[i])
	}
	for i := range texts {
		j := (i + 1) % len(texts)
		if em := CMRCEM(texts[i], []string{texts[j]}); (em == 1) != (clean[i] == clean[j]) {
			dst = append(dst, "\tCMRCEM("+strconv.Quote(texts[i])+", "+strconv.Quote(texts[j])+") = "+strconv.FormatFloat(em, 'g', -1, 64)...)
		}
	}
	return append(dst, '\n')
}

// cmrcFactsSHA256 is the SHA-256 of the lines scripts/cmrc-facts.py writes after its first (the
// versions): CPython 3.11.2, NLTK 3.8, cmrc2018_evaluate.py v6.
const cmrcFactsSHA256 = "16388cb4c1d53c920d5bc8297f4dff59ff621ca3c2931d26a8622c387e80e978"

// TestCMRCFacts compares cmrc_em's and cmrc_f1's text handling with CMRC 2018's own
// mixed_segmentation and remove_punctuation on every code point but the surrogates, each in eight
// contexts (an ideograph, a sentence end, a clitic, quotes, an abbreviation, an ellipsis). It runs
// when QA_CMRC_FACTS names the file scripts/cmrc-facts.py writes (211 MB); TestCMRCFactsDigest
// holds the same facts through their digest on every run without the race detector.
func TestCMRCFacts(t *testing.T) {
	vectors.CodePointsFile(t, "QA_CMRC_FACTS", "scripts/cmrc-facts.py", appendCMRCFacts)
}
