// Package cell writes the names and text a command shows people in its tables, Markdown and
// warnings: a value Go-quoted where a row or a line would hide or blur it (Value), a table's cell
// kept to one cell (Table), Markdown text shown as it is (Markdown), a table's columns aligned
// as a terminal draws them, a Chinese character two columns wide (Columns, Width), and a
// table's lines without the spaces their last cells are padded with (Trim). qa-score's summary
// and qa-judge agree's report name their groups through it, so that a type reads the same in
// both.
//
// Note: the data formats (JSON) key a group by the value itself; only what people read goes
// through this package.
package cell

import (
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Value is a group's value (a type, or qa-score's --by field's value) as the table, Markdown and
// csv rows and the warnings name it: as it is, or Go-quoted when it is empty, has white space at an
// end or starts with a quote, which a row would hide ("meta.v " read as cut off) or make
// ambiguous, or holds a character that is not printable (a line break, a tab, an escape
// sequence, a zero-width space), which would split a warning's line or a row, move the columns
// or act on the terminal: the quotes show it escaped ("two\nlines"). The JSON keys the group by
// the value itself, which is data.
//
// Note: csv could keep a line break inside its quoted cell, but the csv readers turn a "\r\n"
// there into "\n", and other control characters would still reach a terminal that shows the
// file; its group column is a label as the table's is, so it names the value the same way.
func Value(v string) string {
	if v == "" || strings.TrimSpace(v) != v || strings.HasPrefix(v, `"`) || !printable(v) {
		return strconv.Quote(v)
	}
	return v
}

// printable reports whether v is UTF-8 of printable characters and spaces only, which
// strconv.Quote leaves as they are.
func printable(v string) bool {
	return utf8.ValidString(v) && !strings.ContainsFunc(v, func(r rune) bool { return !strconv.IsPrint(r) })
}

// Table makes s one cell of the aligned table: a tab would start another column and a line
// break another row, so both are printed as spaces, as in a Markdown cell. (A group's value has
// them escaped already, by Value; a --by path given with one has not.)
func Table(s string) string { return tableEscaper.Replace(s) }

var tableEscaper = strings.NewReplacer("\t", " ", "\r\n", " ", "\n", " ", "\r", " ")

// Markdown makes s Markdown text that shows s as it is, in a table cell or a list item: a "|"
// escaped, which would end the cell, line breaks as spaces, which would end the row, and with a
// backslash (CommonMark's escape of an ASCII punctuation character) the characters Markdown
// would read as markup: "*", "~" and "_" (emphasis, GitHub's strikethrough), "`" (code), "["
// (links and images), "$" (GitHub's math), "<" unless a space follows (a tag or an autolink
// could start there: "<b>", "</", "<1@x.io>"), "&" before what could be an entity ("&lt;",
// "&#60;"), and "\" before what it would escape. What cannot be markup is left as it is, so
// that the file reads as plainly as the table: "_" between two letters or digits
// (judge_score), "< 30", a "\" before a letter ("two\nlines", as Value writes it), a "]"
// without its "[".
//
// Note: a backslash does not stop GitHub's emoji (":name:"), mentions ("@name") or links of
// bare URLs, which are left as they are.
func Markdown(s string) string {
	s = mdBreaks.Replace(s)
	var b strings.Builder
	prev := rune(0)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		next := rune(0)
		if i+n < len(s) {
			next, _ = utf8.DecodeRuneInString(s[i+n:])
		}
		if mdMarkup(prev, r, next) {
			b.WriteByte('\\')
		}
		b.WriteString(s[i : i+n])
		prev, i = r, i+n
	}
	return b.String()
}

var mdBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// mdMarkup reports whether r, between prev and next (0 at an end), could be read as Markdown
// markup, and so needs a backslash to be shown as itself (see Markdown).
func mdMarkup(prev, r, next rune) bool {
	switch r {
	case '|', '*', '~', '`', '[', '$':
		return true
	case '_':
		return !alnum(prev) || !alnum(next)
	case '<':
		return next != 0 && next != ' '
	case '&':
		return asciiLetter(next) || next == '#'
	case '\\':
		return next == 0 || strings.ContainsRune(asciiPunct, next)
	}
	return false
}

// asciiPunct are the characters a backslash escapes in CommonMark.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

func asciiLetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

// alnum reports whether r is a letter or a digit.
func alnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Trim returns a writer that passes what is written to it on to w but the spaces at the end of
// each line. Columns, as a tabwriter, pads a row's last cell to its column's width when another
// row has a cell after it (in qa-score's summary a row without an interval under "95% CI", the
// classification's averages under support and predicted), which left spaces at the end of
// those lines. Spaces not yet followed by anything are held back, so a table must end its last
// line.
func Trim(w io.Writer) io.Writer { return &trimmed{w: w} }

// trimmed is Trim's writer.
type trimmed struct {
	w      io.Writer
	spaces int    // spaces held back until something other than a line end follows them
	buf    []byte // Write's scratch
}

func (t *trimmed) Write(p []byte) (int, error) {
	t.buf = t.buf[:0]
	for _, c := range p {
		switch c {
		case ' ':
			t.spaces++
			continue
		case '\n':
			t.spaces = 0
		default:
			for ; t.spaces > 0; t.spaces-- {
				t.buf = append(t.buf, ' ')
			}
		}
		t.buf = append(t.buf, c)
	}
	if _, err := t.w.Write(t.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}
