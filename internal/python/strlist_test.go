package python

import (
	"slices"
	"strings"
	"testing"
)

func TestParseStrList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string // nil: not a list
	}{
		{`['x', 'y']`, []string{"x", "y"}},
		{`["it's", 'z']`, []string{"it's", "z"}},
		{` [ 'a' , "b" , ] `, []string{"a", "b"}},
		{`[]`, []string{}},
		{`['\x41\101\u00e9\U0001F600\n\\\'q']`, []string{"AAé😀\n\\'q"}},
		{`['\d']`, []string{`\d`}},     // an unknown escape keeps its backslash
		{"['a\\\nb']", []string{"ab"}}, // a continued line
		{`['a' 'b']`, nil},             // concatenation is no list item
		{`['a',, 'b']`, nil},           //
		{`[,]`, nil},                   //
		{`['unclosed]`, nil},           //
		{`[1989]`, nil},                // numbers are no strings
		{`['\ud800']`, nil},            // a lone surrogate
		{`['\U00110000']`, nil},        // past U+10FFFF
		{`['\N{DASH}']`, nil},          //
		{`['\x4']`, nil},               //
		{`['\x+4']`, nil},              //
		{"['a\nb']", nil},              // a line end inside one-quote literal
		{`[1] and ['b']`, nil},         //
		{`x`, nil},                     //
	} {
		got, ok := ParseStrList(tt.in)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("ParseStrList(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

// FuzzParseStrList: Python's str() of any list of strings (as StrList writes it, and pandas writes a list
// cell) reads back as that list, and no input panics.
func FuzzParseStrList(f *testing.F) {
	f.Add("x\x00y", "it's \"q\"", "\u2028\t\\")
	f.Add("", "'", "\U0001F600\u00a0")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ParseStrList(a)
		items := []string{a, b, c}
		for i, s := range items {
			items[i] = strings.ToValidUTF8(s, "\uFFFD")
		}
		for n := range 4 {
			s := StrList(items[:n])
			got, ok := ParseStrList(s)
			if !ok || !slices.Equal(got, items[:n]) {
				t.Fatalf("ParseStrList(%q) = %q, %v; want %q", s, got, ok, items[:n])
			}
		}
	})
}
