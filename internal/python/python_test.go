package python

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/vectors"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

func TestPyStr(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`"x"`, "x"}, {`2022`, "2022"}, {`1.0`, "1.0"}, {`true`, "True"}, {`null`, "None"},
		{`["a", 1]`, "['a', 1]"}, {`1e16`, "1e+16"}, {`0.00001`, "1e-05"},
	}
	for _, tt := range tests {
		if got, err := StrOfJSON([]byte(tt.raw)); err != nil || got != tt.want {
			t.Errorf("StrOfJSON(%s) = %q, %v, want %q", tt.raw, got, err, tt.want)
		}
	}
}

// TestReprUnicodeVersion pins Repr to CPython 3.11 (Unicode 14.0) where Go's tables (15.0) differ:
// what 15.0 added is unassigned, so escaped, in Python 3.11. Values from Python 3.11's repr().
func TestReprUnicodeVersion(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"\u0cf3", `'\u0cf3'`},               // Kannada sign, new in 15.0
		{"\U0001fa75 ok", `'\U0001fa75 ok'`}, // light blue heart, new in 15.0
		{"\U0001fa74", "'\U0001fa74'"},       // thong sandal, 13.0: printable
		{"\U00031350", `'\U00031350'`},       // CJK Extension H, new in 15.0
		{"\U00030000", "'\U00030000'"},       // CJK Extension G, 13.0: printable
		{"\U0001e4f9", `'\U0001e4f9'`},       // Nag Mundari digit, new in 15.0
		{"é\u200b\u00a0", `'é\u200b\xa0'`},   // Cf and Zs are escaped
		{"\U000e0001", `'\U000e0001'`},       // language tag (Cf)
	} {
		if got := Repr(tt.in); got != tt.want {
			t.Errorf("Repr(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func FuzzRepr(f *testing.F) {
	for _, s := range []string{"it's", "\"'", "\x00\u200b中", "\U0001F600"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Repr(s)
		if !utf8.ValidString(r) && utf8.ValidString(s) {
			t.Fatalf("Repr(%q) = %q, not UTF-8", s, r)
		}
		if len(r) < 2 || r[0] != r[len(r)-1] {
			t.Fatalf("Repr(%q) = %q, not quoted", s, r)
		}
		j := JSONString(s)
		for i := 0; i < len(j); i++ {
			if j[i] < 0x20 || j[i] > 0x7e {
				t.Fatalf("JSONString(%q) = %q, not ASCII", s, j)
			}
		}
		if utf8.ValidString(s) {
			var back string
			if err := json.Unmarshal([]byte(j), &back); err != nil || back != s {
				t.Fatalf("JSONString(%q) = %s, decodes to %q, %v", s, j, back, err)
			}
		}
		if st := textnorm.Strip(s); textnorm.Strip(st) != st {
			t.Fatalf("Strip not idempotent on %q", s)
		}
	})
}

// TestRandomValues checks Loads, Dumps, Without and Str against Python on random documents
// (scripts/random-json-values.py): the committed ones, or the file QA_PYTHON_VALUES names.
func TestRandomValues(t *testing.T) {
	type vector struct {
		Raw       string `json:"raw"`
		Dumps     string `json:"dumps"`
		DumpsDrop string `json:"dumps_drop"`
		Str       string `json:"str"`
	}
	vectors.Check(t, "testdata/random_values.jsonl", "QA_PYTHON_VALUES", func(c vector) string {
		v, err := Loads(c.Raw)
		if err != nil {
			return fmt.Sprintf("Loads(%s): %v", c.Raw, err)
		}
		got := [3]string{v.Dumps(), v.Without("has_answer").Dumps(), JSONString(v.Str())}
		if want := [3]string{c.Dumps, c.DumpsDrop, c.Str}; got != want {
			return fmt.Sprintf("%s: dumps, dumps without has_answer, str =\n%q\nwant\n%q", c.Raw, got, want)
		}
		return ""
	})
}

// FuzzLoads checks Loads against encoding/json where their grammars agree (every document Go
// accepts, Python accepts), and that Dumps writes what Loads reads back the same.
func FuzzLoads(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x\ud800"], "a": null}`, `NaN`, `-Infinity`, `[1,]`, `"\u00e9"`, `01`, `1.`, `{"a" 1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Loads(s)
		if err != nil {
			if utf8.ValidString(s) && json.Valid([]byte(s)) && !strings.Contains(s, "0000000000") {
				t.Fatalf("Loads(%q): %v, but it is JSON", s, err)
			}
			return
		}
		d := v.Dumps()
		back, err := Loads(d)
		if err != nil || back.Dumps() != d {
			t.Fatalf("Loads(%q).Dumps() = %s, which reads back as %s, %v", s, d, back.Dumps(), err)
		}
	})
}
