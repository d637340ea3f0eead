package python

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// TestUnicodeFacts checks the Python text rules over every code point against what CPython
// reports (scripts/unicode-facts.py): textnorm's Lower, IsSpace, IsAlnum and DecimalValue, and
// Repr. It runs when QA_UNICODE_FACTS names the file; the facts are 70 MB, so none is committed.
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
	fail := func(format string, args ...any) {
		if bad++; bad <= 20 {
			t.Errorf(format, args...)
		}
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			t.Log(line)
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			t.Fatalf("bad line %q", line)
		}
		c, err := strconv.ParseUint(f[0], 16, 32)
		if err != nil {
			t.Fatal(err)
		}
		r, s := rune(c), string(rune(c))
		n++
		var lower, repr string
		if json.Unmarshal([]byte(f[4]), &lower) != nil || json.Unmarshal([]byte(f[5]), &repr) != nil {
			t.Fatalf("bad line %q", line)
		}
		d, ok := textnorm.DecimalValue(r)
		if !ok {
			d = -1
		}
		if strconv.Itoa(d) != f[1] {
			fail("DecimalValue(%U) = %d, want %s", r, d, f[1])
		}
		if got := textnorm.IsAlnum(r); got != (f[2] == "1") {
			fail("IsAlnum(%U) = %v, want %s", r, got, f[2])
		}
		if got := textnorm.IsSpace(r); got != (f[3] == "1") {
			fail("IsSpace(%U) = %v, want %s", r, got, f[3])
		}
		if got := textnorm.Lower(s); got != lower {
			fail("Lower(%U) = %q, want %q", r, got, lower)
		}
		if got := Repr(s); got != repr {
			fail("Repr(%U) = %s, want %s", r, got, repr)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 0x110000-0x800 {
		t.Errorf("%d code points, want %d", n, 0x110000-0x800)
	}
	if bad > 0 {
		t.Errorf("%d facts differ", bad)
	}
}
