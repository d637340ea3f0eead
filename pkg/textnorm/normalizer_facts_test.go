package textnorm

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strconv"
	"testing"
)

// normalizerFactsSHA256 is the SHA-256 of what the reference normalisers make of every code point
// in normalizerTemplates, as `scripts/normalizer-facts.py --digest` prints it (CPython 3.11.2,
// regex 2022.10.31).
const normalizerFactsSHA256 = "3b10a5b657e6015cdd09030540f86a307da8846e2a903cf9448c7d4f3783edf4"

// normalizerTemplates are scripts/normalizer-facts.py's TEMPLATES, split at the code point's
// places: a template is its pieces joined by the code point.
var normalizerTemplates = [][]string{
	{"", ""}, {"a", "a"}, {"x", "the"}, {"the", "x"}, {"A", " an"}, {"", "", "The"},
	{"\u03a3", ""}, {"\u0130", ""}, {"an", "and"}, {"_", "a"}, {"", "\u03a3 x"}, {"1", "\u00b2"},
}

// appendNormalizerFacts appends the line scripts/normalizer-facts.py writes of r: its hex value,
// then SquadNormalize, LocomoNormalize and the space-joined AppendRougeText tokens of each
// template around r, each after a tab. text is scratch space, returned for reuse.
func appendNormalizerFacts(dst, text []byte, r rune) ([]byte, []byte) {
	dst = strconv.AppendInt(dst, int64(r), 16)
	for _, pieces := range normalizerTemplates {
		text = append(text[:0], pieces[0]...)
		for _, p := range pieces[1:] {
			text = append(append(text, string(r)...), p...)
		}
		s := string(text)
		dst = AppendSquadNormalized(append(dst, '\t'), s)
		dst = AppendLocomoNormalized(append(dst, '\t'), s)
		dst = append(dst, '\t')
		n := len(dst)
		dst = AppendRougeText(dst, s) // each token followed by a space
		if len(dst) > n {
			dst = dst[:len(dst)-1]
		}
	}
	return append(dst, '\n'), text
}

// TestNormalizerFactsDigest holds the SQuAD, LoCoMo and rouge-score normalisers to the reference
// code on every code point but the surrogates, each in twelve contexts, through the digest of
// their outputs. It fails when a Go release changes its Unicode tables, for one;
// TestNormalizerFacts then names the code points.
func TestNormalizerFactsDigest(t *testing.T) {
	h := sha256.New()
	var line, text []byte
	for r := rune(0); r < 0x110000; r++ {
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		line, text = appendNormalizerFacts(line[:0], text, r)
		h.Write(line)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != normalizerFactsSHA256 {
		t.Errorf("normalisers over every code point: SHA-256 %s, want the reference code's %s; see which with QA_NORMALIZER_FACTS (scripts/normalizer-facts.py)", got, normalizerFactsSHA256)
	}
}

// TestNormalizerFacts compares appendNormalizerFacts with the reference normalisers code point by
// code point. It runs when QA_NORMALIZER_FACTS names the file scripts/normalizer-facts.py writes;
// the file is 233 MB, so none is committed.
func TestNormalizerFacts(t *testing.T) {
	path := os.Getenv("QA_NORMALIZER_FACTS")
	if path == "" {
		t.Skip("QA_NORMALIZER_FACTS is not set (write the file with scripts/normalizer-facts.py)")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	bad, n := 0, 0
	var got, text []byte
	for sc.Scan() {
		line := sc.Bytes()
		cp, _, _ := bytes.Cut(line, []byte("\t"))
		c, err := strconv.ParseUint(string(cp), 16, 32)
		if err != nil || c >= 0x110000 {
			t.Fatalf("%s:%d: bad line %.80q", path, n+1, line)
		}
		n++
		if got, text = appendNormalizerFacts(got[:0], text, rune(c)); !bytes.Equal(got[:len(got)-1], line) {
			if bad++; bad <= 20 {
				t.Errorf("U+%04X: got  %q\nwant %q", c, got[:len(got)-1], line)
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
		t.Errorf("%d code points' outputs differ", bad)
	}
}
