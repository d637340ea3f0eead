package python

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"

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
	h := sha256.New()
	var line []byte
	for r := rune(0); r < 0x110000; r++ {
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		line = appendFact(line[:0], r)
		h.Write(line)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != unicodeFactsSHA256 {
		t.Errorf("facts of every code point: SHA-256 %s, want CPython 3.11's %s; see which with QA_UNICODE_FACTS (scripts/unicode-facts.py)", got, unicodeFactsSHA256)
	}
}

// TestUnicodeFacts compares appendFact with CPython's facts code point by code point. It runs when
// QA_UNICODE_FACTS names the file scripts/unicode-facts.py writes; the facts are 70 MB, so none is
// committed.
func TestUnicodeFacts(t *testing.T) {
	path := os.Getenv("QA_UNICODE_FACTS")
	if path == "" {
		t.Skip("QA_UNICODE_FACTS is not set (write the file with scripts/unicode-facts.py)")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	bad, n := 0, 0
	var got []byte
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			t.Log(line)
			continue
		}
		cp, _, _ := strings.Cut(line, "\t")
		c, err := strconv.ParseUint(cp, 16, 32)
		if err != nil || c >= 0x110000 {
			t.Fatalf("bad line %q", line)
		}
		n++
		if got = appendFact(got[:0], rune(c)); string(got) != line+"\n" {
			if bad++; bad <= 20 {
				t.Errorf("U+%04X: got  %q\nwant %q", c, got, line+"\n")
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 0x110000-0x800 {
		t.Errorf("%d code points, want %d", n, 0x110000-0x800)
	}
	if bad > 0 {
		t.Errorf("%d code points' facts differ", bad)
	}
}
