package python

import (
	"strconv"
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// unicodeFactsSHA256 is the SHA-256 of CPython 3.11's facts of every code point, as
// `scripts/unicode-facts.py --digest` prints it (3.11.2 and 3.11.7, Unicode 14.0, agree).
const unicodeFactsSHA256 = "cd9f915a72b3ed2adc904362f6e6e5b1c32b8bd045a54d9c80f3e446ab1ce2b2"

// appendFact appends what scripts/unicode-facts.py writes of r, from the Go functions that
// restate Python: unicodedata.decimal (or -1), str.isalnum, str.isspace, then JSON strings of
// str.lower() and repr().
func appendFact(dst []byte, r rune) []byte {
	d, ok := textnorm.DecimalValue(r)
	if !ok {
		d = -1
	}
	s := string(r)
	dst = strconv.AppendInt(dst, int64(r), 16)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(d), 10)
	dst = append(dst, '\t', bit(textnorm.IsAlnum(r)), '\t', bit(textnorm.IsSpace(r)), '\t')
	dst = append(dst, JSONString(textnorm.Lower(s))...)
	dst = append(dst, '\t')
	dst = append(dst, JSONString(Repr(s))...)
	return append(dst, '\n')
}

func bit(b bool) byte {
	if b {
		return '1'
	}
	return '0'
}

// TestUnicodeFactsDigest holds textnorm's Lower, IsSpace, IsAlnum and DecimalValue, and Repr, to
// CPython 3.11 on every code point but the surrogates, through the digest of the facts. It fails
// when a Go release changes its Unicode tables, for one; TestUnicodeFacts then names the code
// points.
func TestUnicodeFactsDigest(t *testing.T) {
	vectors.CodePointsDigest(t, unicodeFactsSHA256, "scripts/unicode-facts.py", "QA_UNICODE_FACTS", appendFact)
}

// TestUnicodeFacts compares appendFact with CPython's facts code point by code point. It runs when
// QA_UNICODE_FACTS names the file scripts/unicode-facts.py writes; the facts are 70 MB, so none is
// committed.
func TestUnicodeFacts(t *testing.T) {
	vectors.CodePointsFile(t, "QA_UNICODE_FACTS", "scripts/unicode-facts.py", appendFact)
}
