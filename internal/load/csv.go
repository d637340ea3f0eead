package load

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/record"
)

// CSV loads a CSV file with a header row, mapped as for JSONL. A cell of the answers column that
// holds a JSON list of strings (["a","b"]), Python's str() of one (['a', 'b'], as pandas writes a
// list; True and False as true and false; numpy 2's reprs of its scalars, np.str_('a'), as str()
// of a list of them writes them; a tuple's with a string among its items, ('a', 'b'),
// python.ParseAnswerTuple) or numpy's str() of an array of them or of ints or bools
// (['a' 'b'], [1989 1990], [ True False]; numpy 2's of an object array of its scalars,
// [np.str_('a') np.str_('b')]) is several answers, and one with a null, None or nan
// among them a bad item, as is one that holds an object (a dict) or numpy's str() of an array
// that lost items (summarized with "...", or floats rounded: python.ArrayStrLoss); any other cell
// is one answer. The delimiter is a tab in a .tsv or .tab file, else the one the header line
// holds most of (see sniffDelimiter).
func CSV(in Input, opt Options, emit Emit) error {
	c, err := openCSV(in, opt)
	if c == nil || err != nil {
		return err // no error and no reader: an empty input
	}
	for {
		rec, line, bad, err := c.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := emit(rec, line, bad); err != nil {
			return err
		}
	}
}

// csvInput is a CSV input being read, row by row, after its header.
type csvInput struct {
	in     Input
	opt    Options
	end    *lastLine
	limit  *rowLimit
	br     *bufio.Reader
	r      *csv.Reader
	header []string // the names up to the last one given (see namedColumns)
	width  int      // the header's fields, unnamed ones after the last named one included
	// goldFacts and predFacts are the columns of the supporting facts (factsColumns).
	goldFacts, predFacts string
	read                 int // the last line of the last row read whole, to say how far a broken input was read
}

// openCSV starts reading in: it picks the delimiter, and reads and checks the header. It returns
// nil and no error for an empty input.
func openCSV(in Input, opt Options) (*csvInput, error) {
	end := &lastLine{r: in.R}
	limit := &rowLimit{r: end, max: int64(cmp.Or(opt.MaxLine, record.DefaultMaxLine))}
	br := bufio.NewReaderSize(limit, sniffHead)
	head := headerLine(br) // a read error comes again from the first Read
	r := csv.NewReader(br)
	r.Comma = sniffDelimiter(head)
	if tabNamed(in.Name) {
		r.Comma = '\t'
	}
	r.FieldsPerRecord = -1
	if err := crLines(head); err != nil {
		return nil, fmt.Errorf("%s:1: %w", in.DisplayName(), err)
	}
	limit.cut = false // the Peek's, not the header's
	header, err := r.Read()
	if err == io.EOF {
		return nil, nil
	}
	if limit.ended(r.InputOffset()) {
		return nil, fmt.Errorf("%s:1: the header row is longer than --max-line's %d bytes%s", in.DisplayName(), limit.max, rowTooLongHint)
	}
	if _, ok := errors.AsType[*csv.ParseError](err); err != nil && !ok {
		return nil, command.ReadError(in.DisplayName(), 0, err) // a damaged or cut gzip file
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.DisplayName(), err)
	}
	width := len(header)
	header = namedColumns(header)
	if err := checkHeader(header); err != nil {
		return nil, fmt.Errorf("%s:1: %w", in.DisplayName(), err)
	}
	if err := oneColumnEach(opt.Map); err != nil {
		return nil, err
	}
	if err := questionColumn(header, opt.Map, opt.MapFrom); err != nil {
		return nil, fmt.Errorf("%s:1: %w", in.DisplayName(), err)
	}
	if opt.Found != nil {
		opt.Found(func(src string) bool { return slices.Contains(header, column(src)) })
	}
	c := &csvInput{in: in, opt: opt, end: end, limit: limit, br: br, r: r, header: header, width: width, read: 1}
	c.goldFacts, c.predFacts = factsColumns(opt.Map)
	return c, nil
}

// next reads the next row that is not blank and returns its record and line, or bad, why the row
// makes no record (with line 0). err is io.EOF at the end of the input, or the error that
// stops the reading.
func (c *csvInput) next() (rec *record.Record, line int, bad, err error) {
	for {
		row, rerr := c.r.Read()
		long := c.limit.ended(c.r.InputOffset())
		if rerr == io.EOF {
			return nil, 0, nil, io.EOF
		}
		if long && rerr == nil { // read whole in max+1 bytes, and stopped at as a longer one is
			line, _ = c.r.FieldPos(0)
			return nil, 0, nil, fmt.Errorf("%s:%d: the row is longer than --max-line's %d bytes%s: stopped", c.in.DisplayName(), line, c.limit.max, rowTooLongHint)
		}
		if long { // cut at the bound, whatever the reader made of the part it read
			return nil, 0, nil, fmt.Errorf("%s: the row after line %d is longer than --max-line's %d bytes%s: stopped, as the rows after it cannot be found", c.in.DisplayName(), c.read, c.limit.max, rowTooLongHint)
		}
		var perr *csv.ParseError
		if errors.As(rerr, &perr) {
			return nil, 0, c.parseError(perr, row), nil
		}
		if rerr != nil {
			return nil, 0, nil, command.ReadError(c.in.DisplayName(), c.read, rerr) // a damaged or cut gzip file
		}
		last, _ := c.r.FieldPos(len(row) - 1) // where the row's last cell starts; its line ends end it
		c.read = last + strings.Count(row[len(row)-1], "\n")
		if len(row) == 1 && strings.Trim(row[0], " \t") == "" {
			// A line of spaces and tabs is a blank line, as in JSON Lines, and pandas' reader
			// skips it. Other white space (\f, \v, U+00A0) makes a row, as it does for pandas.
			continue
		}
		line, _ = c.r.FieldPos(0) // FieldPos is valid only after a successful Read
		if bad = c.checkRow(row, line); bad != nil {
			return nil, 0, bad, nil
		}
		row = row[:len(c.header)] // the cells of unnamed columns after the last named one, blank
		var obj map[string]jsonRaw
		if obj, bad = c.object(row, line); bad != nil {
			return nil, 0, bad, nil
		}
		rec, bad = genericRecord(c.in, line, defaultID(c.in, itemAt{line: line}), fields{obj: obj}, c.opt.Map)
		return rec, line, bad, nil
	}
}

// parseError is the bad row of a parse error of the CSV reader: the input ends inside a quoted
// cell, or a cell is malformed.
func (c *csvInput) parseError(perr *csv.ParseError, row []string) error {
	if cutInQuotes(perr, c.br, c.end) {
		at := ""
		if perr.Line != perr.StartLine {
			at = fmt.Sprintf(", at line %d,", perr.Line)
		}
		return badf(c.in, perr.StartLine, rowID(c.header, row, c.opt.Map), "the input ends%s inside a quoted cell of this row: was it cut short, or is the cell's closing \" missing (it takes in every line after it)?", at)
	}
	hint := ""
	if errors.Is(perr.Err, csv.ErrBareQuote) || errors.Is(perr.Err, csv.ErrQuote) {
		hint = ` (a cell that holds a " must be quoted whole, its quotes doubled: "say ""hi""")`
	}
	at := fmt.Sprintf("column %d", perr.Column)
	if perr.Line != perr.StartLine { // in a cell that spans lines
		at = fmt.Sprintf("line %d, column %d", perr.Line, perr.Column)
	}
	return badf(c.in, perr.StartLine, rowID(c.header, row, c.opt.Map), "%v at %s%s", perr.Err, at, hint)
}

// oneColumnEach refuses a mapping that gives one CSV column to two fields. ParseMap refuses a
// source mapped twice, but two sources that differ as paths can name one column, which has no
// nesting: a[0] and a\[0], or x.y and x\.y, name the column "a[0]" or "x.y", which the first
// field would take from the record, leaving the other empty without a word.
func oneColumnEach(m Mapping) error {
	fields := make([]string, 0, len(m))
	for _, f := range mappable {
		if _, ok := m[f]; ok {
			fields = append(fields, f)
		}
	}
	for i, f := range fields {
		for _, g := range fields[:i] {
			if column(m[f]) == column(m[g]) {
				return command.Usagef("--map: sources %q (%s) and %q (%s) name one CSV column, %q: a column goes to one field", m[g], g, m[f], f, column(m[f]))
			}
		}
	}
	return nil
}

// questionColumn returns the error of a header without the column of the question's source (the
// one --map names, else the column "question"): the question is the one field a row cannot be
// without, so every row would be a bad item for it, and the header alone says so, once, as it does
// a column named twice. A source of another field that the header lacks leaves that field empty,
// the rows loading without it, and the warning of a --map source no record has names it. A
// question whose column --map gives another field (--map split=question) stays each row's fault,
// where the row says so.
//
// Note: each row was a bad item, "missing field", a line for each row of the file (a million for
// a million rows), then the warning of the source no record has, and exit 3.
func questionColumn(header []string, m Mapping, from string) error {
	src := m.source("question")
	if src == "" || slices.Contains(header, column(src)) {
		return nil
	}
	if _, mapped := m["question"]; mapped {
		return fmt.Errorf("--map question=%s%s: the header has no column %q, so no row has a question (its columns: %s%s)",
			src, from, column(src), fieldList(header), english.DidYouMean(column(src), header))
	}
	return fmt.Errorf("the header has no column %q, so no row has a question (its columns: %s%s); give --map question=COLUMN to name the question's column",
		src, fieldList(header), english.DidYouMean(src, header))
}

// checkRow returns why row, read at line, makes no record: its fields are not as many as the
// header's (those of the unnamed columns after the last named one may be left out), it is the
// header again, a cell is not text, or a cell of an unnamed column after the last named one holds
// text. It returns nil when none is. The row's cells past the named columns are then blank.
func (c *csvInput) checkRow(row []string, line int) error {
	header := c.header
	if len(row) < len(header) || len(row) > c.width {
		cut := ""
		if len(row) < len(header) && atEOF(c.br) && !c.end.ended() {
			cut = ": the input ends inside this row, which has no line end: was it cut short, or did its writer stop?"
		}
		return badf(c.in, line, rowID(header, row, c.opt.Map), "%s, header has %d (split at %s)%s", english.Count(len(row), "field", "fields"), c.width, delimiterName(c.r.Comma), cut)
	}
	if repeatsHeader(row, header) {
		return badf(c.in, line, "", "the header again, not a row (files joined with cat? give each file as an argument)")
	}
	for i := len(header); i < len(row); i++ {
		if strings.Trim(row[i], " \t") != "" {
			return badf(c.in, line, rowID(header, row, c.opt.Map), "field %d has no name in the header, but this row has %q there (name the column, or remove its cells)", i+1, row[i])
		}
	}
	if i, e := notText(row[:len(header)]); e != nil {
		return badf(c.in, line, rowID(header, row, c.opt.Map), "field %q: %v", header[i], e)
	}
	return nil
}

// object is row, read at line, as the members of a JSON object named by the header: each cell
// a string, but a list in the answers column (several answers) and the supporting facts in
// theirs. The error is the bad row of a cell of facts that cannot be read.
func (c *csvInput) object(row []string, line int) (map[string]jsonRaw, error) {
	header := c.header
	obj := make(map[string]jsonRaw, len(row))
	for i, cell := range row {
		b, _ := jsonMarshal(cell)
		if src := c.opt.Map.source("answers"); src != "" && header[i] == column(src) {
			var err error
			if b, err = c.answersCell(row, i, line, b); err != nil {
				return nil, err
			}
		}
		if h := header[i]; h != "" && (h == c.goldFacts || h == c.predFacts) {
			var err error
			if b, err = factsCell(cell); err != nil {
				return nil, badf(c.in, line, c.recordID(row, line), "field %q: %v", h, err)
			}
			if b == nil && h == c.goldFacts {
				continue // a cell left empty, as pandas writes a NaN: no gold facts
			}
			if b == nil {
				b = jsonRaw("null") // no facts predicted
			}
		}
		obj[header[i]] = b
	}
	return obj, nil
}

// answersCell returns the JSON of the answers cell row[i], of the row at line, whose JSON as
// one string is b: a JSON list as it is, Python's or numpy's str() of a list its items; an error
// for a missing value among them or an object.
func (c *csvInput) answersCell(row []string, i, line int, b jsonRaw) (jsonRaw, error) {
	cell, column := row[i], c.header[i]
	if isJSONList(cell) {
		return jsonRaw(cell), nil
	}
	items, ok := python.ParseAnswerList(cell)
	if !ok {
		items, ok = python.ParseArrayStr(cell)
	}
	if !ok {
		items, ok = python.ParseAnswerTuple(cell)
	}
	switch {
	case ok:
		// A missing value makes the row bad, as a null in JSON does.
		if j := slices.Index(items, nil); j >= 0 {
			return nil, badf(c.in, line, c.recordID(row, line), "field %q: item %d is None or nan, a missing value; want a list of strings or numbers", column, j+1)
		}
		b, _ = jsonMarshal(items)
	case python.OpensDict(cell):
		return nil, badf(c.in, line, c.recordID(row, line), "field %q: %s", column, objectCell(column, cell))
	case python.HoldsList(cell):
		// Note: such a cell was one answer, its text, which every prediction scored 0 against,
		// without a word, where JSON Lines makes a list in the answers a bad item.
		return nil, badf(c.in, line, c.recordID(row, line), "field %q: want an answer or a list of them, got a list holding a list or a tuple, "+
			"as pandas' to_csv writes a list of lists or of tuples; put one answer text in each item of the column's lists, or write a JSON list ([\"...\"]) if this text is the answer", column)
	default:
		if why := lostArray(python.ArrayStrLoss(cell), column); why != "" {
			return nil, badf(c.in, line, c.recordID(row, line), "field %q: %s", column, why)
		}
	}
	return b, nil
}

// lostArray says why an answers cell, of the column named so, that holds numpy's str() of an
// array that lost its items so (python.ArrayStrLoss) is no answer, or "" when it lost none.
//
// Note: such a cell was one answer, its text, which every prediction scored 0 against, without
// a word; the items are not in the file, so only writing it again gives them.
func lostArray(loss python.ArrayLoss, column string) string {
	const rewrite = `write the column as lists before to_csv (df[%q] = df[%q].map(lambda a: a.tolist())), or the frame as JSON Lines (df.to_json(orient="records", lines=True))`
	switch loss {
	case python.ElidedArray:
		return fmt.Sprintf(`numpy's str() of an array, summarized with "..." as numpy prints one of over 1000 items: the items it leaves out are not in the file; `+rewrite, column, column)
	case python.RoundedArray:
		return fmt.Sprintf(`numpy's str() of an array of floats, which numpy prints rounded to 8 digits (and 2.0 as 2.): `+rewrite+`; write a JSON list (["..."]) if this text is the answer`, column, column)
	}
	return ""
}

// recordID is the id of the record row, read at line, makes: its id column's, else FILE:LINE.
func (c *csvInput) recordID(row []string, line int) string {
	return cmp.Or(rowID(c.header, row, c.opt.Map), defaultID(c.in, itemAt{line: line}))
}

// objectCell says why an answers cell, of the column named so, that holds an object
// (python.OpensDict) is no answer.
//
// Note: read as text, Python's str() of a dict, {'text': ['x'], 'answer_start': [1]}, which
// pandas' to_csv writes for a Hugging Face export's answers, was one answer, that text, which
// every prediction scored 0 against, without a word; JSON Lines makes an object a bad item.
func objectCell(column, cell string) string {
	what := "an object, as pandas' to_csv writes a dict"
	if strings.HasPrefix(strings.TrimSpace(cell), "[") {
		what = "a list of objects, as pandas' to_csv writes a list of dicts"
	}
	return fmt.Sprintf(`want an answer or a list of them, got %s; put the answer texts in a column of lists (df[%q].map(lambda a: list(a["text"])) for a Hugging Face export's), or write a JSON list (["..."]) if this text is the answer`, what, column)
}

// repeatsHeader reports whether row holds the header's names, in order, the first after a byte
// order mark or not: the header of a second file, as cat a.csv b.csv joins them, which would
// load as a question "question" whose answer is "answers", to be sent to a model and scored.
// The cells after the header's named columns are left to the caller.
func repeatsHeader(row, header []string) bool {
	return len(row) >= len(header) && strings.TrimPrefix(row[0], "\ufeff") == header[0] &&
		slices.Equal(row[1:len(header)], header[1:])
}

// namedColumns returns header without the fields after its last named one: the columns a
// trailing delimiter on the header line makes, as Excel writes one (id,question,answers,), with
// the delimiter at the end of every row too, or not. They name nothing, and their cells, left
// empty, are no data (checkRow makes a row whose cell there holds text bad). An unnamed column
// before a named one is kept: its cells go to meta under "", and two of them fail the file
// (checkHeader). A header with no name at all is kept whole, for checkHeader to fail.
//
// Note: a header line that ended with a delimiter made the file an error when it ended with two,
// or when an unnamed column came before, and otherwise put an empty member "" in every record's
// meta.
func namedColumns(header []string) []string {
	n := len(header)
	for n > 0 && header[n-1] == "" {
		n--
	}
	if n == 0 {
		return header
	}
	return header[:n]
}

// cutInQuotes reports whether perr, the error of the row read last from br, is that of a quoted
// cell that the end of the input cuts: a file cut short, or a cell whose closing quote is missing
// (it then takes in every line after it). encoding/csv reports it as it reports a quote out of
// place (ErrQuote), there at the quote, here one past the end of the last line (Column).
//
// Note: a file cut in a quoted cell was reported as a quote out of place, with the advice to
// double quotes, where a cut JSON Lines line says that the input ends inside it.
func cutInQuotes(perr *csv.ParseError, br *bufio.Reader, end *lastLine) bool {
	return errors.Is(perr.Err, csv.ErrQuote) && atEOF(br) && perr.Column > end.length()
}

// atEOF reports whether br has nothing more to read.
func atEOF(br *bufio.Reader) bool {
	_, err := br.Peek(1)
	return err == io.EOF
}

// rowLimit bounds the bytes a CSV reader reads for one row (all its lines, and its line end) to
// max (--max-line), so that a row without end, such as one whose quoted cell misses its closing
// quote and so takes in every line after it, does not hold the rest of the input in memory: it
// hands out no byte past max+1 bytes from start, the offset at which the row being read begins,
// and then fails with errRowTooLong. A read buffered ahead of the row's end is cut at that bound,
// never failed: the next row, its start moved on, reads on. Whether a row was longer, cut there
// or read whole in max+1 bytes, is told by ended: the CSV reader's error for a cut row may be
// its own, of a quote out of place in the part it read.
type rowLimit struct {
	r     io.Reader
	max   int64
	start int64 // the input offset of the row being read (csv.Reader.InputOffset after the last Read)
	read  int64 // bytes handed out
	cut   bool  // whether a Read failed at the bound since the last ended
}

// ended moves start to end, the input offset after a row, and reports whether the row was
// longer than max.
func (l *rowLimit) ended(end int64) (long bool) {
	long = l.cut || end-l.start > l.max
	l.start, l.cut = end, false
	return long
}

func (l *rowLimit) Read(p []byte) (int, error) {
	room := l.start + l.max + 1 - l.read
	if room <= 0 {
		l.cut = true
		return 0, errRowTooLong
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	return n, err
}

// errRowTooLong is rowLimit's error for a row longer than its bound.
var errRowTooLong = errors.New("row longer than --max-line")

// rowTooLongHint says what most likely made a row that long.
const rowTooLongHint = ` (is a quoted cell's closing " missing? it takes in every line after it)`

// lastLine follows the text a CSV reader reads, to tell a last row cut by the end of the input:
// whether the text ends with a line end, and how long its last line is.
type lastLine struct {
	r    io.Reader
	cur  int  // bytes of the line being read
	prev int  // bytes of the line before it, its line end left out
	last byte // the last byte read
}

func (l *lastLine) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	b := p[:n]
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		start := bytes.LastIndexByte(b[:i], '\n') + 1
		prev := i - start
		if start == 0 {
			prev += l.cur
		}
		if i > 0 && b[i-1] == '\r' || i == 0 && l.last == '\r' {
			prev--
		}
		l.prev, l.cur = prev, n-i-1
	} else {
		l.cur += n
	}
	if n > 0 {
		l.last = b[n-1]
	}
	return n, err
}

// length returns the length in bytes of the last line read, as encoding/csv counts its columns:
// without its line end (a "\n", a "\r\n", or a "\r" at the end of the input).
func (l *lastLine) length() int {
	switch l.last {
	case '\n':
		return l.prev
	case '\r':
		return l.cur - 1
	}
	return l.cur
}

// ended reports whether the text read ends with a line end.
func (l *lastLine) ended() bool { return l.last == '\n' }

// crLines returns the error of a CSV file that begins with head when its first line, up to a
// line feed, holds a carriage return with text after it: a file with CR line endings (classic
// Mac OS), whose lines encoding/csv reads as one row, the header, and so loads as no record at
// all, without a word (or, its header quoted, as a quote out of place).
func crLines(head []byte) error {
	if end := bytes.IndexByte(head, '\n'); end >= 0 {
		head = head[:end]
	}
	if i := record.LoneCR(head); i >= 0 {
		return record.CRLineEndings(i + 1)
	}
	return nil
}

// sniffHead is how much of a CSV file sniffDelimiter sees: a header line longer than this is
// sniffed from its start.
const sniffHead = 64 << 10

// headerLine returns what br holds once the header line (up to a line end outside quotes, as
// sniffDelimiter reads it) is in, or the input ended, or the buffer filled first, without
// consuming it. It reads no further than that line's end, so that rows from a pipe are loaded as
// they come, not once the buffer's 64 kB are there; a file's first read most often fills it.
//
// Note: the delimiter was sniffed from a Peek of the whole buffer, which from a slow pipe held
// every row back until 64 kB of them had come (or the input ended).
func headerLine(br *bufio.Reader) []byte {
	quoted, i := false, 0
	for {
		head, _ := br.Peek(br.Buffered())
		for ; i < len(head); i++ {
			switch head[i] {
			case '"':
				quoted = !quoted
			case '\n':
				if !quoted {
					return head
				}
			}
		}
		if _, err := br.Peek(len(head) + 1); err != nil {
			head, _ = br.Peek(br.Buffered())
			return head
		}
	}
}

// sniffDelimiter returns the delimiter of a table whose text starts with head: of a comma, a tab
// and a semicolon, the one its first line (up to a line end outside quotes) holds most of outside
// quotes, a comma on a tie or when it holds none (a single column).
//
// Note: a spreadsheet or pandas gives one of these three: a tab for a .tsv file, pandas'
// to_csv(sep="\t") or Excel's "Unicode text" export, a semicolon for Excel's CSV where the decimal
// mark is a comma. Read with a comma, such a file is one column, every row a bad item; the header
// line names the columns, so it says which character separates them, as Python's csv.Sniffer
// judges from the character's frequency.
func sniffDelimiter(head []byte) rune {
	var comma, tab, semi int
	quoted := false
	for _, c := range head {
		switch {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '\n':
			return pickDelimiter(comma, tab, semi)
		case c == ',':
			comma++
		case c == '\t':
			tab++
		case c == ';':
			semi++
		}
	}
	return pickDelimiter(comma, tab, semi)
}

// tabNamed reports whether the file name says its cells are separated by tabs: a .tsv or .tab
// file, compressed or not, whose header may hold more commas than tabs (a column named "answers
// (a, b, or c)").
func tabNamed(name string) bool {
	ext := format.Ext(name)
	return ext == ".tsv" || ext == ".tab"
}

// delimiterName names the delimiter d for a message.
func delimiterName(d rune) string {
	switch d {
	case '\t':
		return "tabs"
	case ';':
		return "semicolons"
	}
	return "commas"
}

func pickDelimiter(comma, tab, semi int) rune {
	switch {
	case tab > comma && tab >= semi:
		return '\t'
	case semi > comma && semi > tab:
		return ';'
	}
	return ','
}

// checkHeader checks that every column name of a CSV header is UTF-8 text and that none is
// given twice: two columns of one name would go to one field, the second silently replacing the
// first (id,question,answers,answers would lose an answer), so the file cannot be read.
//
// Note: a repeated column is the file's error, not each row's: every row would be read the same
// ambiguous way, so reporting and skipping rows would only repeat the one fault.
func checkHeader(header []string) error {
	first := make(map[string]int, len(header))
	for i, name := range header {
		if e := record.CheckUTF8([]byte(name)); e != nil {
			e.Within = "name"
			return fmt.Errorf("header field %d: %w", i+1, e)
		}
		j, ok := first[name]
		if ok && name == "" {
			return fmt.Errorf("fields %d and %d of the header have no name (name every column, or remove the empty ones)", j+1, i+1)
		}
		if ok {
			return fmt.Errorf("column %q is named twice in the header (fields %d and %d)", name, j+1, i+1)
		}
		first[name] = i
	}
	return nil
}

// rowID returns the id cell of a CSV row that is bad as a whole, for its report: "" when the row
// has none, or one that is not UTF-8 text. A row that could not be parsed holds the cells before
// the one at fault (encoding/csv returns them with the error), so its id is known when its
// column comes first.
func rowID(header, row []string, m Mapping) string {
	i := slices.Index(header, column(m.source("id")))
	if m.source("id") == "" || i < 0 || i >= len(row) || !utf8.ValidString(row[i]) {
		return ""
	}
	return row[i]
}

// notText returns the first cell of row that is not UTF-8 text, and where it is not.
func notText(row []string) (int, *record.UTF8Error) {
	for i, cell := range row {
		if !utf8.ValidString(cell) {
			e := record.CheckUTF8([]byte(cell))
			e.Within = "cell"
			return i, e
		}
	}
	return 0, nil
}

// isJSONList reports whether s, an answers cell, is a JSON list of answers: of strings, numbers,
// true and false, as a JSON Lines record's answers are (a number, true or false is its JSON text
// there), or null, which makes the record bad there too.
//
// Note: a list with true or false among them was one answer, its text, where JSON Lines reads
// the same list as its items.
func isJSONList(s string) bool {
	var v []jsonRaw
	if !strings.HasPrefix(strings.TrimSpace(s), "[") || jsonUnmarshal([]byte(s), &v) != nil {
		return false
	}
	for _, item := range v {
		if k := record.Kind(item); k != "a string" && k != "a number" && k != "null" && !isBool(item) {
			return false
		}
	}
	return true
}
