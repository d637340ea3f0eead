package predict

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestUnescape: --stop's values read Go's escapes of a double-quoted string, a bare double quote
// kept, and refuse a backslash that begins none.
func TestUnescape(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{`\n`, "\n", ""},
		{`\n\n`, "\n\n", ""},
		{`Q: "x"`, `Q: "x"`, ""},
		{`a\"b`, `a"b`, ""},
		{`\\n`, `\n`, ""},
		{`\t|\u00e9|\U0001F600|\x41`, "\t|é|😀|A", ""},
		{`é,`, "é,", ""},
		{`a\q`, "", `(at "\\q")`},
		{`\`, "", `(at "\\")`},
		{`\'`, "", `(at "\\'")`},
	} {
		got, err := unescape(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("unescape(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("unescape(%q) = %q, %v; want an error holding %q", tc.in, got, err, tc.err)
		}
	}
}

// FuzzUnescape: unescape never panics; it reads back any text written with Go's escapes
// (strconv.Quote, its quotes taken off); and text without a backslash comes back as it is.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`\n`, "Question:", `\u00e9\\`, "a\"b", "\xff", `\x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := unescape(s) // no panic, whatever s holds
		if !strings.Contains(s, `\`) && (err != nil || got != s) {
			t.Errorf("unescape(%q) = %q, %v; want it as it is", s, got, err)
		}
		if !utf8.ValidString(s) {
			return
		}
		q := strconv.Quote(s)
		if back, err := unescape(q[1 : len(q)-1]); err != nil || back != s {
			t.Errorf("unescape(%s without its quotes) = %q, %v; want %q", q, back, err, s)
		}
	})
}
