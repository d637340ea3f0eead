package cell

import (
	"bytes"
	"io"
	"strings"

	"github.com/rivo/uniseg"
)

// Width is the number of terminal columns s takes in a monospaced font: two for a wide or
// fullwidth character (Chinese, Japanese and Korean characters, fullwidth forms, most emoji),
// none for a combining mark (it joins the character before it: "e\u0301" takes one) or a
// control character, one for any other. A character of ambiguous width (East Asian Ambiguous:
// "°", "±", "α", "→", "①") counts as one column, as terminals show it outside CJK locales and
// as most do within them unless told to draw it wide.
//
// Note: golang.org/x/text/width tells a rune's East Asian width, but not that a combining mark,
// a variation selector (U+FE0F draws "❤" as a two-column emoji) or Hangul's conjoining vowels
// and finals join the character before them: uniseg measures each grapheme cluster as a
// terminal draws it.
func Width(s string) int { return uniseg.StringWidth(s) }

// Align says on which side of its column a cell's text stands.
type Align int

// The sides of NewColumns' cells.
const (
	Left  Align = iota // text first, then the spaces
	Right              // the spaces first, then the text
)

// Columns aligns the tables the commands print for people, as text/tabwriter does with no
// minimum width, a padding of two and spaces for padchar, but measuring each cell by Width,
// not by its count of runes: a tabwriter gave a type named "人物" two columns where a terminal
// draws four, and every later column of its row stood two places left of the others.
//
// Its rules are tabwriter's: a tab ends a cell and a line break a row; a row's last cell, after
// its last tab, belongs to no column and is written as it is; a column is a cell index over a
// run of adjacent rows that all have a cell there, as wide as its widest cell and two spaces
// more. Output is byte for byte a tabwriter's for a table of printable ASCII, whose width is its
// length. Columns holds everything written until Flush, as a tabwriter does; the tables are
// small.
//
// Note: text/tabwriter measures a cell only by counting its runes (FilterHTML counts an entity
// as one, a tag as none: never more than the runes), and padding a wide cell's text with
// zero-width characters to fool it would leave them in what is copied from the terminal.
type Columns struct {
	w     io.Writer
	align Align
	buf   bytes.Buffer
}

// NewColumns returns a Columns writing to w, each cell on its column's align side.
func NewColumns(w io.Writer, align Align) *Columns { return &Columns{w: w, align: align} }

// Write holds p until Flush; it never fails.
func (c *Columns) Write(p []byte) (int, error) { return c.buf.Write(p) }

// padding is the spaces between two columns, at least.
const padding = 2

// Flush writes what was written since the last Flush to the underlying writer, aligned, and
// returns the first error writing it.
func (c *Columns) Flush() error {
	lines := strings.Split(c.buf.String(), "\n")
	c.buf.Reset()
	rows := make([][]string, len(lines))
	for i, l := range lines {
		rows[i] = strings.Split(l, "\t")
	}
	if last := rows[len(rows)-1]; last[len(last)-1] == "" {
		// What follows the last line break has no cell after its last tab, as for a tabwriter:
		// the cell before that tab is its last.
		rows[len(rows)-1] = last[:len(last)-1]
	}
	widths := columnWidths(rows)
	var out bytes.Buffer
	for i, row := range rows {
		for j, s := range row {
			if j == len(row)-1 {
				out.WriteString(s)
				break
			}
			pad := strings.Repeat(" ", widths[i][j]-Width(s))
			if c.align == Right {
				out.WriteString(pad + s)
			} else {
				out.WriteString(s + pad)
			}
		}
		if i < len(rows)-1 {
			out.WriteByte('\n')
		}
	}
	_, err := c.w.Write(out.Bytes())
	return err
}

// columnWidths returns the width of each row's columns, widths[i][j] the width of the column
// row i's cell j is in (a row's last cell is in none): the widest of that cell index over the
// run of adjacent rows with a cell there that holds row i, and the padding. A tabwriter finds
// the same runs by recursing column by column within the runs of the column before; a row with
// a cell at index j has one at every index before it, so a run at j lies within one at j-1.
func columnWidths(rows [][]string) [][]int {
	widths := make([][]int, len(rows))
	for i, row := range rows {
		widths[i] = make([]int, max(len(row)-1, 0))
	}
	for i, row := range rows {
		for j := range len(row) - 1 {
			if i > 0 && j < len(rows[i-1])-1 {
				widths[i][j] = widths[i-1][j] // in the run of the row above, measured with it
				continue
			}
			for k := i; k < len(rows) && j < len(rows[k])-1; k++ {
				widths[i][j] = max(widths[i][j], Width(rows[k][j])+padding)
			}
		}
	}
	return widths
}
