package command

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// helpWidth is the column at which --help wraps each flag's text; the DESCRIPTION paragraphs are
// wrapped by hand at about the same width.
const helpWidth = 100

// flagIndent is the indent urfave/cli's help template gives each flag line.
const flagIndent = 3

// urfave/cli writes a flag's whole text on one line, 150 to 300 columns for many of qapipe's
// flags, which a terminal breaks at its left margin: every command's help is printed by
// printHelp instead, which wraps it in the flag column.
func init() { cli.HelpPrinter = printHelp }

// printHelp is urfave/cli's help printer with the template's wrap replaced by wrapHelp, which
// wraps the text of each flag within the column of flag texts (data is the *cli.App or the
// *cli.Command whose help is printed).
func printHelp(w io.Writer, templ string, data any) {
	column := 0 // where the flags' texts start: the widest name cell and tabwriter's 2 of padding
	if f, ok := data.(interface{ VisibleFlags() []cli.Flag }); ok {
		for _, fl := range f.VisibleFlags() {
			name, _, _ := strings.Cut(cli.FlagStringer(fl), "\t")
			column = max(column, flagIndent+utf8.RuneCountInString(flagCell(name))+2)
		}
	}
	cli.HelpPrinterCustom(w, templ, data, map[string]any{
		"wrap": func(input string, offset int) string { return wrapHelp(input, offset, column) },
	})
}

// wrapHelp stands in for the template's wrap(input, offset): a flag's text (the name, a tab, the
// usage, as cli.FlagStringer writes it) has its usage wrapped at helpWidth, each further line a
// row of its own whose first cell is empty, so that the tabwriter the help goes through starts it
// in the flag column; any other input is left as urfave/cli leaves it, its lines after the first
// indented by offset.
func wrapHelp(input string, offset, column int) string {
	name, usage, isFlag := strings.Cut(input, "\t")
	if isFlag && !strings.Contains(input, "\n") && column > 0 {
		lines := Wrap(usage, max(helpWidth-column, 40))
		return flagCell(name) + "\t" + strings.Join(lines, "\n"+strings.Repeat(" ", flagIndent)+"\t")
	}
	pad := strings.Repeat(" ", offset)
	lines := strings.Split(input, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = pad + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// flagCell is a flag's name cell as the help shows it: urfave/cli's, without the " [ --by PATH ]"
// it adds after a list flag's (--by PATH [ --by PATH ]), which widened the flag column of the whole
// help by half again; each such flag's text says that it may be given again.
func flagCell(name string) string {
	if i := strings.Index(name, " [ -"); i > 0 && strings.HasSuffix(name, " ]") {
		return name[:i]
	}
	return name
}

// Wrap breaks text at its white space into lines of at most width columns (runes); a word longer
// than width has a line of its own.
func Wrap(text string, width int) []string {
	var lines []string
	line, n := "", 0
	for _, w := range strings.Fields(text) {
		wn := utf8.RuneCountInString(w)
		if n > 0 && n+1+wn > width {
			lines = append(lines, line)
			line, n = "", 0
		}
		if n > 0 {
			line += " "
			n++
		}
		line += w
		n += wn
	}
	return append(lines, line)
}
