package cell

import (
	"strings"
	"testing"
)

// TestValue: a group's value is shown as it is, unless a row would hide or blur it: empty,
// white space at an end, a leading quote, or a character that is not printable inside (a line
// break, a tab, an escape, a zero-width or no-break space, bytes that are not UTF-8), which are
// quoted, the characters escaped.
func TestValue(t *testing.T) {
	for _, tc := range []struct{ v, want string }{
		{"easy", "easy"},
		{"two words", "two words"},
		{"", `""`},
		{" ", `" "`},
		{"k ", `"k "`},
		{"\tk", `"\tk"`},
		{`"q"`, `"\"q\""`},
		{`a"b`, `a"b`},
		{"日本", "日本"},
		{"two\nlines", `"two\nlines"`},
		{"a\r\nb", `"a\r\nb"`},
		{"t\tz", `"t\tz"`},
		{"red\x1b[31m", `"red\x1b[31m"`},
		{"a\u200bb", `"a\u200bb"`},
		{"a\u00a0b", `"a\u00a0b"`},
		{"a\u2028b", `"a\u2028b"`},
		{"a\x00b", `"a\x00b"`},
		{"a\xffb", `"a\xffb"`},
		{`a\b`, `a\b`},
		{"*em* <b>|`x`", "*em* <b>|`x`"},
	} {
		if got := Value(tc.v); got != tc.want {
			t.Errorf("Value(%q) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

// TestMarkdown: the characters Markdown would read as markup get a backslash, and only those, so
// that the cell or list item shows the text as it is. (Each want was checked by rendering it
// with a CommonMark and GitHub table renderer, goldmark with its GFM extension.)
func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ s, want string }{
		{"overall", "overall"},
		{"a|b", `a\|b`},
		{"two\nlines", "two lines"},
		{"a\r\nb", "a b"},
		{"*em* **b** a*b*c", `\*em\* \*\*b\*\* a\*b\*c`},
		{"_u_ __u__ _x", `\_u\_ \_\_u\_\_ \_x`},
		{"judge_score snake_case_name 日本_語", "judge_score snake_case_name 日本_語"},
		{"a_b_", `a_b\_`},
		{"`code`", "\\`code\\`"},
		{"~~s~~", `\~\~s\~\~`},
		{"$x$", `\$x\$`},
		{"<b>bold</b>", `\<b>bold\</b>`},
		{"<http://x.io> <1@x.io> <!-- c --> x<y", `\<http://x.io> \<1@x.io> \<!-- c --> x\<y`},
		{"(< 30) q->a > q", "(< 30) q->a > q"},
		{"a <", "a <"}, // nothing after it to make a tag of
		{"&lt; &#60;", `\&lt; \&#60;`},
		{"A & B", "A & B"},
		{"&Zeta; &AMP; &zwj; &a &@ &", `\&Zeta; \&AMP; \&zwj; \&a &@ &`},
		{"[l](http://x) ![i](x) a]b", `\[l](http://x) !\[i](x) a]b`},
		{`"two\nlines"`, `"two\nlines"`},
		{`"\"q\""`, `"\\"q\\""`},
		{`\* \|`, `\\\* \\\|`},
		{`back\`, `back\\`},
		{"# h 1. x + y - z", "# h 1. x + y - z"},
		{"", ""},
	} {
		if got := Markdown(tc.s); got != tc.want {
			t.Errorf("Markdown(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestTrim: the spaces at the end of a line are dropped, those before other text kept, even
// when a line comes in several writes, as tabwriter's Flush writes it cell by cell.
func TestTrim(t *testing.T) {
	for _, tc := range []struct {
		writes []string
		want   string
	}{
		{[]string{"a  b  \n"}, "a  b\n"},
		{[]string{"a  ", " \n"}, "a\n"},
		{[]string{"b ", " c  ", "\n", "   \n"}, "b  c\n\n"},
		{[]string{"x", " ", " ", "y\n", "z"}, "x  y\nz"},
		{[]string{"  lead\n"}, "  lead\n"},
		{[]string{"a  \nb"}, "a\nb"}, // a line's end drops its spaces, not holds them for the next
		{[]string{"a ", "\n", "b"}, "a\nb"},
	} {
		var b strings.Builder
		w := Trim(&b)
		for _, s := range tc.writes {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("Write(%q) = %d, %v, want %d, nil", s, n, err, len(s))
			}
		}
		if got := b.String(); got != tc.want {
			t.Errorf("writes %q gave %q, want %q", tc.writes, got, tc.want)
		}
	}
}
