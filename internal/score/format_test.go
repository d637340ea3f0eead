package score

import "testing"

// TestMdText: the characters Markdown would read as markup get a backslash, and only those, so
// that the cell or list item shows the text as it is. (Each want was checked by rendering it
// with a CommonMark and GitHub table renderer, goldmark with its GFM extension.)
func TestMdText(t *testing.T) {
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
		{"&lt; &#60;", `\&lt; \&#60;`},
		{"A & B", "A & B"},
		{"[l](http://x) ![i](x) a]b", `\[l](http://x) !\[i](x) a]b`},
		{`"two\nlines"`, `"two\nlines"`},
		{`"\"q\""`, `"\\"q\\""`},
		{`\* \|`, `\\\* \\\|`},
		{`back\`, `back\\`},
		{"# h 1. x + y - z", "# h 1. x + y - z"},
		{"", ""},
	} {
		if got := mdText(tc.s); got != tc.want {
			t.Errorf("mdText(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
