package vectors

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
)

// codePoints is how many code points there are but the surrogates.
const codePoints = 0x110000 - 0x800

// CodePointsDigest holds line, which appends the facts of one code point as a line ending in
// "\n", to a reference script's facts of every code point but the surrogates through their
// SHA-256: want is what script prints with --digest, and env the variable that names the file of
// the script's facts for CodePointsFile, which shows the code points that differ.
func CodePointsDigest(t *testing.T, want, script, env string, line func(dst []byte, r rune) []byte) {
	t.Helper()
	h := sha256.New()
	var buf []byte
	for r := range rune(0x110000) {
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		buf = line(buf[:0], r)
		h.Write(buf)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("facts of every code point: SHA-256 %s, want the reference's %s; see which with %s (%s)", got, want, env, script)
	}
}

// CodePointsFile compares line with the facts in the file env names, written by script, code
// point by code point: each line starts with its code point in hex and a tab; lines starting with
// "#" name the versions the facts came from and are logged. Unless env is set it skips the test,
// since such files are too large to commit.
func CodePointsFile(t *testing.T, env, script string, line func(dst []byte, r rune) []byte) {
	t.Helper()
	path := os.Getenv(env)
	if path == "" {
		t.Skipf("%s is not set (write the file with %s)", env, script)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	bad, n, at := 0, 0, 0
	var got []byte
	for sc.Scan() {
		at++
		text := sc.Text()
		if strings.HasPrefix(text, "#") {
			t.Log(text)
			continue
		}
		cp, _, _ := strings.Cut(text, "\t")
		c, err := strconv.ParseUint(cp, 16, 32)
		if err != nil || c >= 0x110000 {
			t.Fatalf("%s:%d: no code point in %.80q", path, at, text)
		}
		n++
		if got = line(got[:0], rune(c)); string(got) != text+"\n" {
			if bad++; bad <= 20 {
				t.Errorf("%s:%d: U+%04X: got  %q\nwant %q", path, at, c, got, text+"\n")
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != codePoints {
		t.Errorf("%s: %d code points, want %d", path, n, codePoints)
	}
	if bad > 0 {
		t.Errorf("%s: %d code points' facts differ", path, bad)
	}
}

// AppendEscaped appends s to dst with a backslash, tab, carriage return or line feed written as
// the facts scripts write them in a line: \\, \t, \r, \n.
func AppendEscaped(dst []byte, s string) []byte {
	for i := range len(s) {
		switch c := s[i]; c {
		case '\\':
			dst = append(dst, `\\`...)
		case '\t':
			dst = append(dst, `\t`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\n':
			dst = append(dst, `\n`...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
