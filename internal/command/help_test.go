package command

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// TestHelpFlagsWrapped: --help wraps each flag's text within the flag column, every line at
// most helpWidth columns, its words in order and none lost; the DESCRIPTION is printed as it is
// written.
func TestHelpFlagsWrapped(t *testing.T) {
	long := strings.Repeat("word ", 60) + "https://example.com/a/path/longer/than/the/flag/column/is/wide/by/far/and/then/some/more/of/it"
	desc := "First line of the description, as written.\nSecond line, not re-wrapped even when it runs on past the width the flags are wrapped at, as this one does.\n\nA paragraph."
	var out bytes.Buffer
	app := NewApp("qa-test", "test", desc, nil, &out, &out)
	app.Flags = []cli.Flag{
		&cli.StringFlag{Name: "short", Usage: "short text", EnvVars: []string{"QA_SHORT"}},
		&cli.IntFlag{Name: "a-much-longer-name", Usage: long, EnvVars: []string{"QA_LONG"}},
	}
	if err := app.Run([]string{"qa-test", "--help"}); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	if !strings.Contains(help, "   Second line, not re-wrapped even when it runs on past the width the flags are wrapped at, as this one does.\n") {
		t.Errorf("the description was changed:\n%s", help)
	}
	_, flags, _ := strings.Cut(help, "GLOBAL OPTIONS:\n")
	column := strings.Index(flags, "short text")
	if want := len("   --a-much-longer-name value  "); column-strings.Index(flags, "--short") != want-flagIndent {
		t.Errorf("flag texts start at column %d, want %d:\n%s", column-strings.Index(flags, "--short")+flagIndent, want, flags)
	}
	var words []string
	for i, line := range strings.Split(strings.TrimRight(flags, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > helpWidth && !strings.Contains(line, "https://") {
			t.Errorf("flag line %d has %d columns (at most %d): %q", i, n, helpWidth, line)
		}
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			if strings.TrimSpace(line[:len("   --a-much-longer-name value  ")]) != "" {
				t.Errorf("continuation line %d does not start in the flag column: %q", i, line)
			}
		}
		words = append(words, strings.Fields(line)...)
	}
	got := strings.Join(words, " ")
	if !strings.Contains(got, strings.TrimSpace(long)+" (default: 0) [$QA_LONG]") {
		t.Errorf("the long flag's words were lost or reordered:\n%s", flags)
	}
	if lines := strings.Count(flags, "\n"); lines < 5 {
		t.Errorf("the long flag's text was not wrapped (%d lines):\n%s", lines, flags)
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		text  string
		width int
		want  []string
	}{
		{"a b c", 3, []string{"a b", "c"}},
		{"a b c", 5, []string{"a b c"}},
		{"  a   b  ", 10, []string{"a b"}},
		{"toolongword a", 4, []string{"toolongword", "a"}},
		{"é é é", 3, []string{"é é", "é"}}, // columns are runes, not bytes
		{"", 10, []string{""}},
	} {
		if got := Wrap(tc.text, tc.width); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.text, tc.width, got, tc.want)
		}
	}
}

// TestFlagCell: a list flag's name cell loses urfave/cli's " [ --by PATH ]", which widened the
// whole help's flag column; other cells are kept as they are.
func TestFlagCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"--by PATH [ --by PATH ]", "--by PATH"},
		{"--names NAMES [ --names NAMES ]", "--names NAMES"},
		{"--format value", "--format value"},
		{"--help, -h", "--help, -h"},
		{"--x [a]", "--x [a]"},
	} {
		if got := flagCell(tc.in); got != tc.want {
			t.Errorf("flagCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
