package cell

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"unicode/utf8"
)

// TestWidth: a wide or fullwidth character takes two columns, a combining mark none (it joins the
// character before it), an ambiguous one one, as terminals outside CJK locales draw it.
func TestWidth(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"type t", 6},
		{"人物", 4},                 // CJK Unified Ideographs: Wide
		{"type 地点", 9},            // ASCII and Wide in one cell
		{"にほんご", 8},               // Hiragana: Wide
		{"한국어", 6},                // Hangul syllables: Wide
		{"ＡＢ１", 6},                // Fullwidth Latin letters and digit
		{"，", 2},                  // fullwidth comma (CMRC's punctuation)
		{"ｶﾀｶﾅ", 4},               // Halfwidth Katakana: one each
		{"e\u0301", 1},            // e and a combining acute accent
		{"cafe\u0301", 4},         // café, decomposed
		{"a\u0308\u0323", 1},      // two combining marks on one letter
		{"\u1100\u1161\u11a8", 2}, // 각 as conjoining jamo: one wide syllable
		{"°±×", 3},                // Ambiguous: narrow
		{"αβγ", 3},                // Greek: Ambiguous, narrow
		{"→①", 2},                 // Ambiguous arrows and circled digits: narrow
		{"👍", 2},                  // emoji presentation: Wide
		{"\u2764", 1},             // heavy black heart, text presentation
		{"\u2764\ufe0f", 2},       // with VS16: the emoji, two columns
	} {
		if got := Width(tc.s); got != tc.want {
			t.Errorf("Width(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// TestColumnsWide: a cell of wide characters, or with combining marks, keeps every later column
// in line as a terminal draws it: each column starts at the same display column on every row.
func TestColumnsWide(t *testing.T) {
	in := "group\tcount\tmean\n" +
		"overall\t4\t0.5000\n" +
		"type 人物\t2\t1.0000\n" +
		"type cafe\u0301\t1\t0.0000\n" +
		"type ＡＢ\t1\t0.0000\n"
	want := "group      count  mean\n" +
		"overall    4      0.5000\n" +
		"type 人物  2      1.0000\n" +
		"type cafe\u0301  1      0.0000\n" +
		"type ＡＢ  1      0.0000\n"
	var b strings.Builder
	c := NewColumns(&b, Left)
	c.Write([]byte(in))
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != want {
		t.Errorf("Columns(Left) wrote\n%s\nwant\n%s", got, want)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for _, line := range lines[1:] {
		if got, want := starts(line), starts(lines[0]); !slices.Equal(got, want) {
			t.Errorf("the cells of %q start at columns %v, want %v (the heading's)", line, got, want)
		}
	}

	b.Reset()
	c = NewColumns(&b, Right)
	c.Write([]byte("gold\t人物\tb\t\n人物\t12\t3\t\nb\t0\t4\t\n"))
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	want = "  gold  人物  b\n" +
		"  人物    12  3\n" +
		"     b     0  4\n"
	if got := b.String(); got != want {
		t.Errorf("Columns(Right) wrote\n%s\nwant\n%s", got, want)
	}
}

// starts returns the terminal columns at which line's cells start, two spaces or more parting
// them.
func starts(line string) []int {
	cols := []int{0}
	for i := 0; ; {
		k := strings.Index(line[i:], "  ")
		if k < 0 {
			return cols
		}
		for i += k; i < len(line) && line[i] == ' '; i++ {
		}
		cols = append(cols, Width(line[:i]))
	}
}

// columnsTables are tables of the shapes the commands print: rows with and without a last
// column, empty cells, a row with no tab between two tables, no line break at the end.
var columnsTables = []string{
	"",
	"no tabs\n",
	"a\tb\tc\n",
	"group\tmetric\tcount\tmean\t95% CI\noverall\tem\t3\t0.6667\t[0.0750, 1.0000]\ntype t\tem\t3\t-\nmeta.level easy\tem\t2\t0.5000\t[0.0000, 1.0000]\n",
	"label\tprecision\trecall\tf1\tsupport\tpredicted\n\"a\"\t1.0000\t0.5000\t0.6667\t2\t1\nmacro avg\t0.7500\t0.7500\t0.6667\t\t\n",
	"gold \\ predicted\t\"a\"\t\"bb\"\t\n\"a\"\t1\t1\t\n\"bb\"\t0\t10\t\n",
	"x\ty\nlonger\n\tz\tw\nlast\tline\twithout\tbreak",
	"\t\t\n\t\n\n\t\t\t\n",
	"one\ttwo\tthree\n1\t22\n333\t4444\t55555\t666666\n",
	"\t",
	"a\tb\nccc\t",
}

// TestColumnsTabwriter: for ASCII text, whose width is its length, Columns writes what
// text/tabwriter writes, byte for byte, aligned to either side.
func TestColumnsTabwriter(t *testing.T) {
	for _, in := range columnsTables {
		for _, align := range []Align{Left, Right} {
			if got, want := columns(t, in, align), tabwriterOut(t, in, align); got != want {
				t.Errorf("Columns(%q, %d) =\n%q\nwant (tabwriter)\n%q", in, align, got, want)
			}
		}
	}
}

// FuzzColumns: Columns writes text/tabwriter's output for any printable ASCII text with tabs
// and line breaks, written in any number of pieces.
func FuzzColumns(f *testing.F) {
	for _, in := range columnsTables {
		f.Add(in, uint8(0), true)
	}
	f.Fuzz(func(t *testing.T, in string, split uint8, right bool) {
		if !asciiTable(in) {
			t.Skip()
		}
		align := Left
		if right {
			align = Right
		}
		var b bytes.Buffer
		c := NewColumns(&b, align)
		k := min(int(split), len(in))
		c.Write([]byte(in[:k]))
		c.Write([]byte(in[k:]))
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		if got, want := b.String(), tabwriterOut(t, in, align); got != want {
			t.Errorf("Columns(%q, %d) =\n%q\nwant (tabwriter)\n%q", in, align, got, want)
		}
	})
}

// asciiTable reports whether s is printable ASCII, tabs and line breaks.
func asciiTable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' || c > '~') && c != '\t' && c != '\n' {
			return false
		}
	}
	return utf8.ValidString(s)
}

func columns(t *testing.T, in string, align Align) string {
	t.Helper()
	var b bytes.Buffer
	c := NewColumns(&b, align)
	c.Write([]byte(in))
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tabwriterOut is what a tabwriter as the commands had it writes for in.
func tabwriterOut(t *testing.T, in string, align Align) string {
	t.Helper()
	var flags uint
	if align == Right {
		flags = tabwriter.AlignRight
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', flags)
	tw.Write([]byte(in))
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestColumnsWriteError: Flush returns the error of the writer under it.
func TestColumnsWriteError(t *testing.T) {
	c := NewColumns(failing{}, Left)
	c.Write([]byte("a\tb\n"))
	if err := c.Flush(); !errors.Is(err, errFull) {
		t.Errorf("Flush() = %v, want %v", err, errFull)
	}
}

var errFull = errors.New("no space left on device")

// failing is a writer that fails every write.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errFull }
