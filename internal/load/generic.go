package load

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/record"
)

// Mapping names, for each record field, the source field it comes from in the generic jsonl and
// csv formats: in jsonl a path into nested objects, in csv a column (see sourcePath). Unmapped
// record fields come from the source field of the same name, unless the mapping gives that source
// to another record field (see takenBy).
type Mapping map[string]string

// mappable lists the record fields a Mapping may name: prediction, prediction_model,
// prediction_score and prediction_supporting_facts fill prediction.text, .model, .score and
// .supporting_facts (see takePrediction).
var mappable = []string{"id", "question", "answers", "type", "context", "rubric", "lang", "dataset", "split",
	"prediction", "prediction_model", "prediction_score", "prediction_supporting_facts"}

// ParseMap parses `question=q,answers=gold,id=qid,type=category`, a source being a path
// (answers.text, see sourcePath). A source with an empty name on its path is an error, and so is
// a field mapped twice, or a source mapped to two fields: a field takes its source's value away
// from the record, so the later would be lost without a word.
func ParseMap(s string) (Mapping, error) {
	m := Mapping{}
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	for _, pair := range strings.Split(s, ",") {
		field, src, ok := strings.Cut(pair, "=")
		field, src = strings.TrimSpace(field), strings.TrimSpace(src)
		if !ok || src == "" {
			return nil, fmt.Errorf("map %q: want field=source", pair)
		}
		if !slices.Contains(mappable, field) {
			return nil, fmt.Errorf("map %q: %q is not one of %v%s", pair, field, mappable, english.DidYouMean(field, mappable))
		}
		if _, err := sourcePath(src); err != nil {
			return nil, fmt.Errorf("map %q: source %q: %v", pair, src, err)
		}
		if prev, ok := m[field]; ok {
			return nil, fmt.Errorf("map %q: %s is mapped twice (from %q and from %q)", pair, field, prev, src)
		}
		for f, s := range m {
			if s == src { // the first field would take the source, leaving the other empty
				return nil, fmt.Errorf("map %q: source %q is mapped twice (to %s and to %s)", pair, src, f, field)
			}
		}
		m[field] = src
	}
	return m, nil
}

// source returns the source field for record field f: the one the mapping names, else the field
// of f's own name, unless the mapping names that field as another record field's source (see
// takenBy): then f has none, "".
func (m Mapping) source(f string) string {
	if s, ok := m[f]; ok {
		return s
	}
	if m.takenBy(f) != "" {
		return ""
	}
	return f
}

// takenBy returns the record field that the mapping gives the source field named as the record
// field f, which f does not map (split for f "type", under --map split=type), or "".
//
// Note: f read that source too, the field first in mappable's order taking it from the other, so
// that --map split=type loaded the type field as the records' type and gave them no split, and
// --map type=id gave them no type, without a word. A source given to a field is that field's
// alone, as a source given to two fields is refused: the mapping renames it.
func (m Mapping) takenBy(f string) string {
	if _, ok := m[f]; ok {
		return ""
	}
	for _, g := range mappable {
		if m[g] == f {
			return g
		}
	}
	return ""
}

// unfound returns the record fields of m, in their order, whose source is not in found, each
// source once.
func (m Mapping) unfound(found map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range mappable {
		if src, ok := m[f]; ok && !found[src] && !seen[src] {
			seen[src] = true
			out = append(out, f)
		}
	}
	return out
}

// JSONL loads generic JSON Lines (or a JSON array) of objects, taking the record fields from the
// source fields named by the mapping: answers may be a string, a number or a list; context a
// string (one passage) or a list of strings; id a string or a number (absent, null or "":
// FILE:LINE, see defaultID); type, rubric, lang, dataset and split a string or a number (a list
// or an object there is a bad item); prediction and prediction_model those of a prediction made
// by another tool (see takePrediction). Every source field not mapped goes to meta verbatim.
func JSONL(in Input, opt Options, emit Emit) error {
	id := func([]byte) string { return "" } // no id field: a bad line is named by its line alone
	if src := opt.Map.source("id"); src != "" {
		id = pathID(src)
	}
	return eachItemAt(in, opt, emit, id, func(raw jsonRaw, at itemAt, emit Emit) error {
		line := at.line
		obj, repeated, ok := members(raw)
		if !ok {
			if err := decodeItem(in, line, "", raw, &obj); err != nil { // not an object: the usual message
				return emit(nil, 0, err)
			}
		}
		item := fields{obj: obj, nested: true}
		if opt.Found != nil {
			opt.Found(item.has)
		}
		if repeated != "" {
			id := ""
			if src := opt.Map.source("id"); src != "" && repeated != pathHead(src) { // a repeated id names nothing
				id = pathID(src)(raw)
			}
			return emit(nil, 0, badf(in, line, id, "field %q is given twice", repeated))
		}
		rec, err := genericRecord(in, line, defaultID(in, at), item, opt.Map)
		return emit(rec, line, err)
	})
}

// members decodes the members of the JSON object raw (valid JSON) and returns the first key the
// object gives twice, if any. It reports false if raw is not an object.
//
// Note: json.Unmarshal into a map keeps the last of two members of one name, so
// {"answers":"a","answers":"b"} would load as answers ["b"] without a word. A generic record
// cannot say which it means, so a repeated key makes it a bad item, as a repeated CSV column
// makes the file an error. Objects nested in a field (meta) are kept verbatim, repeats and all.
func members(raw []byte) (obj map[string]jsonRaw, repeated string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, "", false
	}
	obj = make(map[string]jsonRaw)
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		var v jsonRaw
		if err != nil || !isKey || dec.Decode(&v) != nil {
			return nil, "", false // not reached for valid JSON
		}
		if _, seen := obj[key]; seen && repeated == "" {
			repeated = key
		}
		obj[key] = v
	}
	return obj, repeated, true
}

// CSV loads a CSV file with a header row, mapped as for JSONL. A cell of the answers column that
// holds a JSON list of strings (["a","b"]) or Python's str() of one (['a', 'b'], as pandas writes a
// list) is several answers; any other cell is one answer. The
// delimiter is the one the header line holds most of (see sniffDelimiter).
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
	br     *bufio.Reader
	r      *csv.Reader
	header []string
	// goldFacts and predFacts are the columns of the supporting facts (factsColumns).
	goldFacts, predFacts string
	read                 int // the last line of the last row read whole, to say how far a broken input was read
}

// openCSV starts reading in: it picks the delimiter, and reads and checks the header. It returns
// nil and no error for an empty input.
func openCSV(in Input, opt Options) (*csvInput, error) {
	end := &lastLine{r: in.R}
	br := bufio.NewReaderSize(end, sniffHead)
	head, _ := br.Peek(sniffHead) // a read error comes again from the first Read
	r := csv.NewReader(br)
	r.Comma = sniffDelimiter(head)
	r.FieldsPerRecord = -1
	if err := crLines(head); err != nil {
		return nil, fmt.Errorf("%s:1: %w", in.DisplayName(), err)
	}
	header, err := r.Read()
	if err == io.EOF {
		return nil, nil
	}
	if _, ok := errors.AsType[*csv.ParseError](err); err != nil && !ok {
		return nil, command.ReadError(in.DisplayName(), 0, err) // a damaged or cut gzip file
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.DisplayName(), err)
	}
	if err := checkHeader(header); err != nil {
		return nil, fmt.Errorf("%s:1: %w", in.DisplayName(), err)
	}
	if opt.Found != nil {
		opt.Found(func(src string) bool { return slices.Contains(header, column(src)) })
	}
	c := &csvInput{in: in, opt: opt, end: end, br: br, r: r, header: header, read: 1}
	c.goldFacts, c.predFacts = factsColumns(opt.Map)
	return c, nil
}

// next reads the next row that is not blank and returns its record and line, or bad, why the row
// makes no record (with line 0). err is io.EOF at the end of the input, or the error that
// stops the reading.
func (c *csvInput) next() (rec *record.Record, line int, bad, err error) {
	for {
		row, rerr := c.r.Read()
		if rerr == io.EOF {
			return nil, 0, nil, io.EOF
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

// checkRow returns why row, read at line, makes no record: its fields are not as many as the
// header's, it is the header again, or a cell is not text. It returns nil when none is.
func (c *csvInput) checkRow(row []string, line int) error {
	header := c.header
	if len(row) != len(header) {
		cut := ""
		if len(row) < len(header) && atEOF(c.br) && !c.end.ended() {
			cut = ": the input ends inside this row, which has no line end: was it cut short, or did its writer stop?"
		}
		return badf(c.in, line, rowID(header, row, c.opt.Map), "%s, header has %d%s", english.Count(len(row), "field", "fields"), len(header), cut)
	}
	if repeatsHeader(row, header) {
		return badf(c.in, line, "", "the header again, not a row (files joined with cat? give each file as an argument)")
	}
	if i, e := notText(row); e != nil {
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
			if isJSONList(cell) {
				b = []byte(cell)
			} else if items, ok := python.ParseStrList(cell); ok {
				b, _ = jsonMarshal(items)
			}
		}
		if h := header[i]; h != "" && (h == c.goldFacts || h == c.predFacts) {
			var err error
			if b, err = factsCell(cell); err != nil {
				id := cmp.Or(rowID(header, row, c.opt.Map), defaultID(c.in, itemAt{line: line})) // as the record's
				return nil, badf(c.in, line, id, "field %q: %v", h, err)
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

// repeatsHeader reports whether row holds the header's names, in order, the first after a byte
// order mark or not: the header of a second file, as cat a.csv b.csv joins them, which would
// load as a question "question" whose answer is "answers", to be sent to a model and scored.
func repeatsHeader(row, header []string) bool {
	return len(row) == len(header) && strings.TrimPrefix(row[0], "\ufeff") == header[0] &&
		slices.Equal(row[1:], header[1:])
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

func isJSONList(s string) bool {
	var v []string
	return strings.HasPrefix(strings.TrimSpace(s), "[") && jsonUnmarshal([]byte(s), &v) == nil
}

// questionHint says, for a record without its question field, which fields it has (those left in
// obj and taken) and, unless --map names the question's field already, how to name it.
func questionHint(obj map[string]jsonRaw, taken []string, m Mapping) string {
	const most = 8
	fields := slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(obj)), taken...)))
	for i, f := range fields {
		fields[i] = fieldName(f)
	}
	list := strings.Join(fields[:min(len(fields), most)], ", ")
	if len(fields) > most {
		list += fmt.Sprintf(", and %d more", len(fields)-most)
	}
	if len(fields) == 0 {
		list = "none"
	}
	if _, mapped := m["question"]; mapped {
		return fmt.Sprintf(" (its fields: %s)", list)
	}
	return fmt.Sprintf(" (its fields: %s; if the question is under another name, give --map question=FIELD)", list)
}

// fieldName is a source field's name as a list of them shows it: quoted when it is empty, has
// blanks at an end or holds a character that does not show, as a header "id, question, answers"
// gives " question", which the list read as "question", the very field said to be missing (and
// a second byte order mark "\ufeffid").
func fieldName(f string) string {
	if f == "" || strings.TrimSpace(f) != f || strings.ContainsFunc(f, func(r rune) bool { return !strconv.IsPrint(r) }) {
		return strconv.Quote(f)
	}
	return f
}

// genericRecord makes the record of the row item at line, whose id is id when the row has none
// (no id field, or one that is null or "").
func genericRecord(in Input, line int, id string, item fields, m Mapping) (*record.Record, error) {
	obj := item.obj
	var fault error // the first source whose path does not hold
	take := func(f string) (jsonRaw, bool) {
		src := m.source(f)
		if src == "" || fault != nil { // its field is another's source
			return nil, false
		}
		raw, ok, err := item.take(src)
		if err != nil {
			fault = fmt.Errorf("field %q: %w", src, err)
			if _, ok := errors.AsType[*givenTwice](err); ok {
				fault = err
			}
		}
		return raw, ok && !isNull(raw)
	}
	rec := newRecord(id, "", "")
	var taken []string
	raw, ok := take("id")
	if fault != nil {
		return nil, badf(in, line, "", "%v", fault)
	}
	if ok {
		taken = append(taken, m.source("id"))
		id, ok := scalarText(raw)
		if !ok {
			return nil, badf(in, line, "", "field %q: id must be a string or a number", m.source("id"))
		}
		if id != "" { // "" is no id, as null is: an empty CSV cell is how pandas writes NaN
			rec.ID = id
		}
	}
	if g := m.takenBy("question"); g != "" {
		return nil, badf(in, line, rec.ID, "no field for the question: --map %s=question makes field \"question\" the %s; give --map question=FIELD", g, g)
	}
	present := item.has(m.source("question"))
	raw, ok = take("question")
	if fault != nil {
		return nil, badf(in, line, rec.ID, "%v", fault)
	}
	if !ok && present {
		return nil, badf(in, line, rec.ID, "field %q is null", m.source("question"))
	}
	if !ok {
		return nil, badf(in, line, rec.ID, "missing field %q%s", m.source("question"), questionHint(obj, taken, m))
	}
	if !isString(raw) {
		return nil, badf(in, line, rec.ID, "field %q: question must be a string", m.source("question"))
	}
	rec.Question, _ = scalarText(raw)
	if err := emptyQuestion(m.source("question"), rec.Question); err != nil {
		return nil, badf(in, line, rec.ID, "%v", err)
	}
	var err error
	answers, ok := take("answers")
	if rec.Answers, err = textList(answers, ok); err != nil {
		return nil, badf(in, line, rec.ID, "field %q: %v%s", m.source("answers"), err, textHint(answers, m.source("answers")))
	}
	ctx, err := textList(take("context"))
	if err != nil {
		return nil, badf(in, line, rec.ID, "field %q: %v", m.source("context"), err)
	}
	for _, t := range ctx {
		rec.Context = append(rec.Context, record.Passage{Text: t})
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"type", &rec.Type}, {"rubric", &rec.Rubric}, {"lang", &rec.Lang}, {"dataset", &rec.Dataset},
		{"split", &rec.Split}} {
		if raw, ok := take(f.name); ok {
			if *f.dst, ok = scalarText(raw); !ok { // a list or an object would be lost without a word
				return nil, badf(in, line, rec.ID, "field %q: %s must be a string or a number", m.source(f.name), f.name)
			}
		}
	}
	if rec.Prediction, err = takePrediction(take, m, item.nested); err != nil {
		return nil, badf(in, line, rec.ID, "%v", err)
	}
	if fault != nil { // a later field's path did not hold: the fields after it were not read
		return nil, badf(in, line, rec.ID, "%v", fault)
	}
	for k, v := range obj {
		setMeta(rec, k, v)
	}
	return rec, nil
}

// takePrediction returns the prediction of a generic item, made by another tool, whose fields
// take gives: its text from the prediction source, a string or a number (its JSON text), and its
// model, score and supporting facts from their sources, if the item gives them not null (a model
// or score cell left empty is none; see takeScore and takeFacts). An item without the prediction
// source, or with null there, has no prediction (nil), as a record not yet sent to qa-predict,
// and its model, score and facts sources, if any, go to meta with the other fields. A CSV cell is
// text: one left empty is the empty answer "", which declines to answer. nested is false for a
// CSV row.
//
// Note: nothing else is made up for such a prediction: no provider, usage, cost, latency or
// prompt hash, which qapipe could not know; a cost left out is unknown, not free.
func takePrediction(take func(string) (jsonRaw, bool), m Mapping, nested bool) (*record.Prediction, error) {
	pred := &record.Prediction{}
	raw, ok := take("prediction")
	switch {
	case ok:
		text, ok := scalarText(raw)
		if !ok { // a list or an object: which of its parts is the answer cannot be told
			hint := ""
			if obj, _, isObj := members(raw); isObj && obj["text"] != nil {
				hint = fmt.Sprintf(` (an object with "text": give --map prediction=%s.text)`, m.source("prediction"))
			}
			return nil, fmt.Errorf("field %q: prediction must be a string or a number%s", m.source("prediction"), hint)
		}
		pred.Text = text
	default:
		// HotpotQA's supporting facts without an answer, which hotpot_evaluate_v1.py scores
		// (its answer counted missing): a prediction without a text, as qa-load --predictions
		// makes of an id its file gives "sp" and no "answer" for.
		raw, ok := take("prediction_supporting_facts")
		if !ok {
			return nil, nil
		}
		fs, err := takeFacts(raw, m.source("prediction_supporting_facts"))
		if err != nil {
			return nil, err
		}
		pred.SupportingFacts = fs
		pred.ClearText()
	}
	if raw, ok := take("prediction_model"); ok {
		if pred.Model, ok = scalarText(raw); !ok {
			return nil, fmt.Errorf("field %q: prediction_model must be a string or a number", m.source("prediction_model"))
		}
	}
	var err error
	if raw, ok := take("prediction_score"); ok {
		if pred.Score, err = takeScore(raw, nested); err != nil {
			return nil, fmt.Errorf("field %q: prediction_score: %v", m.source("prediction_score"), err)
		}
	}
	if raw, ok := take("prediction_supporting_facts"); ok {
		if pred.SupportingFacts, err = takeFacts(raw, m.source("prediction_supporting_facts")); err != nil {
			return nil, err
		}
	}
	return pred, nil
}

// takeScore reads a prediction's positive-class score (qa-score's auc and ranking metrics read
// it): in JSON Lines a number, in a CSV cell a decimal number as a float flag reads one
// (command.ParseDecimal), blanks around it ignored. A cell left empty (or of blanks) is no score
// (nil), as pandas writes a NaN; NaN, an infinity or a number past a float64's range is an error,
// as is anything else.
func takeScore(raw jsonRaw, nested bool) (*float64, error) {
	text := string(trimSpace(raw))
	if !nested {
		var cell string
		jsonUnmarshal(raw, &cell) //nolint:errcheck // a CSV cell is a JSON string
		if text = strings.TrimSpace(cell); text == "" {
			return nil, nil
		}
	} else if record.Kind(raw) != "a number" {
		return nil, fmt.Errorf("want a number, got %s", record.Kind(raw))
	}
	f, err := command.ParseDecimal(text)
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// takeFacts reads a prediction's supporting facts at the source src, a list of [title, sentence
// index] pairs read and checked as qa-score reads them (record.FactsError names the pair at
// fault): HotpotQA's sp_* and joint_* compare them with meta.supporting_facts. A CSV cell has
// been read so already, as JSON (factsCell).
func takeFacts(raw jsonRaw, src string) ([]record.Fact, error) {
	if k := record.Kind(raw); k != "a list" {
		return nil, fmt.Errorf("field %q: prediction_supporting_facts: want a list of [title, sentence index] pairs, got %s", src, k)
	}
	var fs []record.Fact
	if jsonUnmarshal(raw, &fs) != nil {
		return nil, fmt.Errorf("field %q: %v", src, record.FactsError("", raw))
	}
	return fs, nil
}

// factsColumns returns the CSV columns that hold HotpotQA's supporting facts: gold, the column
// supporting_facts (which goes to meta.supporting_facts, as in JSON Lines) unless m gives it to
// another field, and pred, the source of prediction_supporting_facts; "" for none.
func factsColumns(m Mapping) (gold, pred string) {
	if m.takenBy("supporting_facts") == "" {
		gold = "supporting_facts"
	}
	if src := m.source("prediction_supporting_facts"); src != "" {
		pred = column(src)
	}
	return gold, pred
}

// factsCell reads a CSV cell of HotpotQA supporting facts as the JSON list of [title, sentence
// index] pairs it is, or as Python's str() of a list of [title, index] lists or tuples, the text
// pandas' to_csv writes for such a column ([["Arthur's Magazine", 0], ['First for Women', 1]]),
// checked as qa-score checks them (record.FactsError names the pair at fault). A cell left
// empty, or of blanks, is none (nil), as pandas writes a NaN; any other text is an error.
//
// Note: the cell was kept as a string, which qa-score then refused as a bad line (meta) or
// qa-load as a bad item (prediction); facts from a spreadsheet or a DataFrame are lists written
// as text, as answers are (python.ParseStrList).
func factsCell(cell string) (jsonRaw, error) {
	t := strings.TrimSpace(cell)
	if t == "" {
		return nil, nil
	}
	if json.Valid([]byte(t)) {
		if k := record.Kind([]byte(t)); k != "a list" {
			return nil, fmt.Errorf("want a list of [title, sentence index] pairs, got %s", k)
		}
		if err := record.FactsError("", []byte(t)); err != nil {
			return nil, err
		}
		return jsonRaw(t), nil
	}
	pairs, ok := python.ParseStrIntPairs(t)
	if !ok {
		return nil, fmt.Errorf(`want a list of [title, sentence index] pairs, as JSON ([["Title", 0]]) or Python's str() of one ([['Title', 0]]), got %s`, shortText(t))
	}
	fs := make([]record.Fact, len(pairs))
	for i, p := range pairs {
		fs[i] = record.Fact{Title: p.Str, Sentence: p.Int}
	}
	b, err := jsonMarshal(fs)
	return b, err
}

// shortText quotes t for an error, cut to its first 40 characters.
func shortText(t string) string {
	if r := []rune(t); len(r) > 40 {
		return strconv.Quote(string(r[:40])) + "..."
	}
	return strconv.Quote(t)
}

// defaultID is the id of a generic row without one: FILE:LINE (see idName), and FILE:LINE:COLUMN
// for an item of a JSON array that starts on the line where the item before it ends, as every
// item but the first of an array written on one line (json.dump's default) does: their ids would
// otherwise all be FILE:1, one --shard part and one joined row for them all. Ids that were
// unique stay as they were.
func defaultID(in Input, at itemAt) string {
	if at.col > 0 {
		return fmt.Sprintf("%s:%d:%d", idName(in), at.line, at.col)
	}
	return fmt.Sprintf("%s:%d", idName(in), at.line)
}

// idName is the file name in the default id of a generic record, FILE:LINE: the base name,
// without a ".gz" suffix, so that the id does not depend on how the path was typed or whether
// the file was compressed ("stdin" for standard input).
func idName(in Input) string {
	if in.Name == "" {
		return "stdin"
	}
	return strings.TrimSuffix(filepath.Base(in.Name), ".gz")
}

// textHint says, for the answers at the source src that are an object with a member "text" (a
// Hugging Face export's answers: {"text": [...], "answer_start": [...]}), the --map that reads
// them, else "".
func textHint(raw jsonRaw, src string) string {
	if obj, _, ok := members(raw); !ok || obj["text"] == nil {
		return ""
	}
	return fmt.Sprintf(` (an object with "text", as a Hugging Face export holds answers: give --map answers=%s.text)`, src)
}

// textList reads a string, a number or a list of them as a list of strings (absent: empty).
func textList(raw jsonRaw, ok bool) ([]string, error) {
	if !ok {
		return []string{}, nil
	}
	if s, ok := scalarText(raw); ok {
		return []string{s}, nil
	}
	var items []jsonRaw
	if err := jsonUnmarshal(raw, &items); err != nil {
		return nil, errors.New("want a string or a list of strings")
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		if isNull(it) {
			return nil, fmt.Errorf("item %d is null; want a list of strings", i+1)
		}
		s, ok := scalarText(it)
		if !ok {
			return nil, errors.New("want a list of strings")
		}
		out = append(out, s)
	}
	return out, nil
}
