package textnorm

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestRegexWordAllCodePoints checks regexWord on every code point against the regex module's \w
// (testdata/regex_word_ranges.txt, from scripts/regex-word.py). That module has Unicode 15.0
// tables of its own, so the code points CPython 3.11's 14.0 lacks are words here too.
func TestRegexWordAllCodePoints(t *testing.T) {
	f, err := os.Open("testdata/regex_word_ranges.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	word := make([]bool, 0x110000)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		lo, hi, _ := strings.Cut(line, " ")
		a, err1 := strconv.ParseUint(lo, 16, 32)
		b, err2 := strconv.ParseUint(hi, 16, 32)
		if err1 != nil || err2 != nil || a > b || b >= 0x110000 {
			t.Fatalf("bad range %q", line)
		}
		for c := a; c <= b; c++ {
			word[c] = true
		}
	}
	bad := 0
	for r := rune(0); r < 0x110000; r++ {
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		if got := regexWord(r); got != word[r] {
			if bad++; bad <= 20 {
				t.Errorf("regexWord(%U) = %v, regex's \\w says %v", r, got, word[r])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d code points differ", bad)
	}
}
