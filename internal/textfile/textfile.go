// Package textfile reads the text files users hand the commands, records and benchmark files as
// well as prompts, keys, prices and maps, as their editors and tools leave them: gzip-compressed
// or not, with or without a UTF-8 byte order mark, or in UTF-16 with its byte order mark (what
// Windows PowerShell 5's ">" writes) or UTF-32 with its byte order mark.
package textfile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/record"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
	"golang.org/x/text/transform"
)

// NewReader returns a reader of the text r holds, in UTF-8: decompressed when r is gzip data (it
// begins with gzip's magic bytes 1F 8B, whatever the file is called), without the UTF-8 byte order
// mark (EF BB BF) the text may begin with, which editors on Windows write and JSON decoders reject,
// and decoded from UTF-16 when it begins with a UTF-16 byte order mark (FF FE little-endian, FE FF
// big-endian), or from UTF-32 when it begins with a UTF-32 one (FF FE 00 00, whose first two bytes
// are UTF-16's little-endian mark, and 00 00 FE FF), as Python's json.loads decodes bytes. It reads
// the first bytes at the first Read; a gzip stream that is damaged is a read error, and so is data
// in another format that is no text (zip, xz, bzip2, zstd, 7-Zip, Parquet, an old Excel workbook, a
// tar archive, gzip-compressed or not, gzip data inside gzip, SQLite, Arrow, HDF5, a Python pickle,
// a NumPy array, PDF, PNG, JPEG, ELF) or that has a NUL byte in its first line, as no text in UTF-8
// has (binaryData): a *FormatError that says what it is and how to get the text out, where the
// bytes would otherwise be read as text that is not UTF-8 and each line refused with advice to
// convert it from Latin-1, or a tar header as a line of text.
//
// To tell a tar archive, whose mark is at byte 257, it reads up to the first 512 bytes before
// the first Read returns, but no further than the end of a line: a stage that reads a stream
// record by record still has its first line as soon as the line is whole.
func NewReader(r io.Reader) io.Reader { return &textReader{r: r} }

// FormatError is the error of reading data that begins as a known format that is no text.
type FormatError struct {
	What string // "a zip archive"
	Fix  string // what to do instead
}

func (e *FormatError) Error() string { return e.What + ", not text: " + e.Fix }

// gzipOnly ends the fix of a compressed format.
const gzipOnly = "; of compressed files, gzip alone is read as it is"

// binary lists the formats NewReader refuses by their first bytes. A magic made of text
// characters ("BZh", "PAR1", "%PDF-") is followed by a byte no text has, or by ones that only
// that format has there, so that a CSV file whose header begins so is still read.
var binary = []struct {
	magic string
	ok    func(head []byte) bool // more of the head that must hold, or nil
	err   FormatError
}{
	{"PK\x03\x04", nil, FormatError{"a zip archive (an .xlsx workbook is one too)", "unzip it first (unzip -p FILE), or save a workbook as CSV" + gzipOnly}},
	{"PK\x05\x06", nil, FormatError{"an empty zip archive", "it holds no file"}},
	{"\xfd7zXZ\x00", nil, FormatError{"xz-compressed data", "decompress it first (xz -dc FILE)" + gzipOnly}},
	{"BZh", func(h []byte) bool { return len(h) > 3 && '1' <= h[3] && h[3] <= '9' }, FormatError{"bzip2-compressed data", "decompress it first (bzip2 -dc FILE)" + gzipOnly}},
	{"\x28\xb5\x2f\xfd", nil, FormatError{"zstd-compressed data", "decompress it first (zstd -dc FILE)" + gzipOnly}},
	{"7z\xbc\xaf\x27\x1c", nil, FormatError{"a 7-Zip archive", "extract it first (7z x FILE)" + gzipOnly}},
	{"PAR1", func(h []byte) bool { return len(h) > 4 && h[4] < 0x20 && h[4] != '\t' && h[4] != '\n' && h[4] != '\r' }, FormatError{"a Parquet file", `convert it to JSON Lines first (pandas: pd.read_parquet(FILE).to_json(OUT, orient="records", lines=True))`}},
	{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", nil, FormatError{"an Excel .xls workbook (or another Microsoft Office file)", "save it as CSV first"}},
	{"SQLite format 3\x00", nil, FormatError{"an SQLite database", "export a table as CSV first (sqlite3 -header -csv FILE 'select * from TABLE')"}},
	{"ARROW1\x00\x00", nil, FormatError{"an Arrow (Feather) file", `convert it to JSON Lines first (pandas: pd.read_feather(FILE).to_json(OUT, orient="records", lines=True))`}},
	{"\x89HDF\r\n", nil, FormatError{"an HDF5 file", `convert it to JSON Lines first (pandas: pd.read_hdf(FILE).to_json(OUT, orient="records", lines=True))`}},
	{"\x80", func(h []byte) bool { return len(h) > 1 && 2 <= h[1] && h[1] <= 5 }, FormatError{"a Python pickle", `load it in Python and write JSON Lines (a DataFrame: pd.read_pickle(FILE).to_json(OUT, orient="records", lines=True))`}},
	{"\x93NUMPY", nil, FormatError{"a NumPy array (.npy)", otherFile}},
	{"%PDF-", func(h []byte) bool { return len(h) > 6 && '1' <= h[5] && h[5] <= '9' && h[6] == '.' }, FormatError{"a PDF document", "extract its text first (pdftotext FILE OUT), or " + otherFile}},
	{"\x89PNG\r\n", nil, FormatError{"a PNG image", otherFile}},
	{"\xff\xd8\xff", nil, FormatError{"a JPEG image", otherFile}},
	{"\x7fELF", nil, FormatError{"an ELF executable", otherFile}},
}

// otherFile is the fix of a file that holds no text to get out.
const otherFile = "give the text file meant in its place"

// tarFix ends the fix of a tar archive.
const tarFix = " and give the files in it"

// tarArchive and tarGzip are the errors of a tar archive, and of one inside gzip (.tar.gz, .tgz).
var (
	tarArchive = FormatError{"a tar archive", "extract it first (tar -xf FILE)" + tarFix}
	tarGzip    = FormatError{"a gzip-compressed tar archive", "extract it first (tar -xzf FILE)" + tarFix}
)

// gzipTwice is the error of gzip data whose text is gzip data again: a file compressed twice
// (gzip run on a .gz file, or a download gzip-encoded on the way and saved as it came).
var gzipTwice = FormatError{"gzip data inside gzip (a file compressed twice)", "decompress it once first (gzip -dc FILE > OUT) and give OUT; one layer of gzip is read as it is"}

// tarBlock is the size of a tar header, the first thing in a tar archive.
const tarBlock = 512

// HeadSize is how many bytes NewReader looks at before the text, at most (a tar header), and
// returns at its first Read.
const HeadSize = tarBlock

// binaryFormat returns the error for head, the first bytes of data, when they begin a format of
// binary, a tar archive or gzip data inside gzip, or hold a NUL byte in their first line
// (binaryData), else nil; gzipped says head is the text of gzip data.
func binaryFormat(head []byte, gzipped bool) error {
	if isGzip(head) {
		if gzipped {
			e := gzipTwice
			return &e
		}
		return nil // its text is looked at once decompressed
	}
	for _, b := range binary {
		if bytes.HasPrefix(head, []byte(b.magic)) && (b.ok == nil || b.ok(head)) {
			e := b.err
			return &e
		}
	}
	if isTar(head) {
		e := tarArchive
		if gzipped {
			e = tarGzip
		}
		return &e
	}
	return binaryData(head)
}

// binaryData returns the error of data whose first line (or first HeadSize bytes), in head, holds a
// NUL byte, which no text in UTF-8 does, JSON's included (it writes \u0000): data of a kind binary
// does not list, which was read as lines of text that are not UTF-8 or not JSON, a bad line each.
// It is no binary data when head may be text in UTF-16 or UTF-32: with a UTF-16 or UTF-32 byte
// order mark (decoded), or without one, its units in one of the byte orders all characters a text
// holds (wideText), which callers may name, as qa-load names UTF-16 and UTF-32 that begin with
// ASCII; nor when the line begins a JSON object or array, a record whose line the line's reader
// refuses alone, naming it.
//
// Note: only the first line is looked at, which the first Read holds however the data comes, so
// that data is refused or read alike from a file or a pipe; binary data has a NUL soon or not at
// all.
func binaryData(head []byte) error {
	line := head
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i+1]
	}
	nul := bytes.IndexByte(line, 0)
	if nul < 0 || utf16BOM(head) || utf32BOM(head) || wideText(head) {
		return nil
	}
	if t := bytes.TrimLeft(line, " \t\r\n"); t[0] == '{' || t[0] == '[' {
		return nil
	}
	return &FormatError{
		What: fmt.Sprintf("binary data (a NUL byte, which no text holds, at byte %d)", nul+1),
		Fix:  "see what it is with file FILE, and " + otherFile,
	}
}

// utf16BOM reports whether head begins with a UTF-16 byte order mark, little- or big-endian.
func utf16BOM(head []byte) bool {
	return len(head) >= 2 && (head[0] == 0xff && head[1] == 0xfe || head[0] == 0xfe && head[1] == 0xff)
}

// utf32BOM reports whether head begins with a UTF-32 byte order mark, little- or big-endian.
// Little-endian's begins with UTF-16's little-endian mark, which it is taken before: UTF-16
// text that begins with U+0000 is no text.
func utf32BOM(head []byte) bool {
	return bytes.HasPrefix(head, []byte("\xff\xfe\x00\x00")) || bytes.HasPrefix(head, []byte("\x00\x00\xfe\xff"))
}

// MayBeWide reports whether head, the first bytes of data, may be text in UTF-16 or UTF-32 without
// a byte order mark: read as 2- or 4-byte units in either byte order, its whole units are all
// characters a text holds (wideText).
func MayBeWide(head []byte) bool { return wideText(head) }

// wideText reports whether head may be text in UTF-16 or UTF-32 without a byte order mark: read
// as 2- or 4-byte units in either byte order, its whole units are all characters a text holds
// (unitsText), or it has no whole unit. Data that begins with UTF-8's byte order mark is none.
func wideText(head []byte) bool {
	if bytes.HasPrefix(head, []byte("\ufeff")) {
		return false
	}
	for _, size := range []int{2, 4} {
		for _, big := range []bool{false, true} {
			if unitsText(head, size, big) {
				return true
			}
		}
	}
	return false
}

// unitsText reports whether head's whole units of size bytes, big-endian or not, are all
// characters a text holds: no control character but tab, line feed and carriage return (so no
// U+0000, which a run of NUL bytes makes), no code point past U+10FFFF, and in UTF-32 no
// surrogate. A head without a whole unit has nothing that says otherwise.
func unitsText(head []byte, size int, big bool) bool {
	for i := 0; i+size <= len(head); i += size {
		var u uint32
		for j := range size {
			if big {
				u = u<<8 | uint32(head[i+j])
			} else {
				u |= uint32(head[i+j]) << (8 * j)
			}
		}
		switch {
		case u < 0x20 && u != '\t' && u != '\n' && u != '\r', 0x7f <= u && u < 0xa0, u > utf8.MaxRune,
			size == 4 && 0xd800 <= u && u < 0xe000:
			return false
		}
	}
	return true
}

// isTar reports whether head begins with a tar header, as POSIX (ustar) and GNU tar write it:
// "ustar" at byte 257, and the header's checksum at byte 148 (octal) that adds up, the sum of
// its 512 bytes with the checksum's own 8 counted as spaces, unsigned or, as old tars took it,
// signed. A header holds no line end (its names could, but do not), so that text, whose first
// line ends sooner, is never one by chance.
//
// Note: the mark alone was not enough, as a line of text can hold "ustar " at byte 257; an old
// (V7) tar archive, which has no mark, is not told.
func isTar(head []byte) bool {
	if len(head) < tarBlock || bytes.IndexByte(head[:tarBlock], '\n') >= 0 ||
		string(head[257:262]) != "ustar" || head[262] != 0 && head[262] != ' ' {
		return false
	}
	field := strings.Trim(string(head[148:156]), " \x00")
	sum, err := strconv.ParseInt(field, 8, 64)
	if err != nil {
		return false
	}
	var unsigned, signed int64
	for i, c := range head[:tarBlock] {
		if 148 <= i && i < 156 {
			c = ' '
		}
		unsigned += int64(c)
		signed += int64(int8(c))
	}
	return sum == unsigned || sum == signed
}

// isGzip reports whether head begins with gzip's magic bytes, 1F 8B.
func isGzip(head []byte) bool { return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b }

type textReader struct {
	r       io.Reader
	plain   bool // gzip data's text: gzip's magic is not looked for, and a tar archive is a .tar.gz
	started bool
	head    []byte // bytes read while looking at the start, still to be returned
	err     error  // the error of opening a gzip stream, returned by every Read
}

func (t *textReader) Read(p []byte) (int, error) {
	if !t.started {
		t.started = true
		head, err := readHead(t.r)
		if err != nil {
			if len(head) == 0 {
				return 0, err
			}
			t.r = errReader{err} // after the text read with it, as a later read's error comes
		}
		switch t.head, t.err = head, binaryFormat(head, t.plain); {
		case t.err != nil:
		case !t.plain && isGzip(head):
			br := bufio.NewReader(io.MultiReader(bytes.NewReader(t.head), t.r))
			zr, err := gzip.NewReader(br)
			if err != nil {
				t.err = gzipHeaderErr(err)
				break
			}
			zr.Multistream(false)                                                     // members are read one by one: see gzipText
			t.r, t.head = &textReader{r: &gzipText{zr: zr, br: br}, plain: true}, nil // the BOM, if any, is in the decompressed text
		case bytes.HasPrefix(t.head, []byte("\ufeff")):
			t.head = t.head[3:]
		case utf32BOM(head):
			dec := utf32.UTF32(utf32.LittleEndian, utf32.ExpectBOM).NewDecoder() // the mark decides the order
			t.r, t.head = transform.NewReader(io.MultiReader(bytes.NewReader(t.head), t.r), dec), nil
		case utf16BOM(head):
			dec := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder() // the mark decides the order
			t.r, t.head = transform.NewReader(io.MultiReader(bytes.NewReader(t.head), t.r), dec), nil
		}
	}
	if t.err != nil {
		return 0, t.err
	}
	if len(t.head) > 0 {
		n := copy(p, t.head)
		t.head = t.head[n:]
		return n, nil
	}
	return t.r.Read(p)
}

// readHead reads the first bytes of r, HeadSize of them, or fewer when the data or its first
// line ends sooner: no magic of binary holds a line end, nor does a tar header. An error comes
// with the bytes read before it: a small gzip file's whole text comes in the read that finds its
// trailer cut or data after it, and its lines are read before that error, as a larger file's are.
func readHead(r io.Reader) ([]byte, error) {
	head := make([]byte, HeadSize)
	n := 0
	for n < HeadSize {
		m, err := r.Read(head[n:])
		if err != nil && err != io.EOF {
			return head[:n+m], err
		}
		lineEnd := bytes.IndexByte(head[n:n+m], '\n') >= 0
		if n += m; err == io.EOF || lineEnd {
			break
		}
	}
	return head[:n], nil
}

// errReader is a reader whose every read fails with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// ErrGzipCut is the error of gzip data that ends before its stream does: a file cut short. It
// wraps io.ErrUnexpectedEOF, the gzip package's own error for it, which says nothing of gzip.
var ErrGzipCut error = gzipCut{}

type gzipCut struct{}

func (gzipCut) Error() string {
	return "gzip data ends early: the file was cut short (a download or copy that did not finish?)"
}

func (gzipCut) Unwrap() error { return io.ErrUnexpectedEOF }

// gzipHeaderErr is the error of gzip.NewReader's reading a gzip header, err: ErrGzipCut for a
// header cut short, which gzip gives as a bare io.ErrUnexpectedEOF ("unexpected EOF"), as a
// stream cut later is; its other errors say "gzip: " already.
func gzipHeaderErr(err error) error {
	if err == io.ErrUnexpectedEOF {
		return ErrGzipCut
	}
	return err
}

// gzipText reads a gzip stream's text, member after member (gzip a; gzip b; cat them), with
// ErrGzipCut for a stream cut short. NUL bytes after a member are padding, skipped as gzip(1)
// and Python's gzip module skip them (tape and block-sized copies pad with them); other data
// there is no gzip member, an error that says so.
//
// Note: the gzip package's own multistream reading took the padding for a member's header and
// failed with "gzip: invalid header" after the last record, and said the same of other data.
//
// The text that ends a member is returned before anything after the member is read (ended), as
// looking for the next member waits on a pipe until its writer writes more or closes it.
type gzipText struct {
	zr    *gzip.Reader
	br    *bufio.Reader // what zr reads, looked at between members
	ended bool          // the member read has ended, its text returned: the next is still to start
}

func (g *gzipText) Read(p []byte) (int, error) {
	for {
		var n int
		var err error
		if g.ended {
			g.ended = false
			err = g.next()
		}
		if err == nil {
			n, err = g.zr.Read(p)
			if err == io.EOF {
				if g.ended = true; n == 0 {
					continue
				}
				err = nil
			}
		}
		if err == io.ErrUnexpectedEOF {
			err = ErrGzipCut
		}
		return n, err
	}
}

var errGzipTrailing = errors.New("data after the end of the gzip data that is no gzip (not NUL padding either): was something appended to the file?")

// next starts the member after the one read, past any NUL padding: io.EOF at the end of the data.
func (g *gzipText) next() error {
	for {
		b, err := g.br.ReadByte()
		if err != nil {
			return err // io.EOF: the end, after the members and their padding
		}
		if b != 0 {
			g.br.UnreadByte() //nolint:errcheck // the byte just read
			break
		}
	}
	if magic, _ := g.br.Peek(2); string(magic) != "\x1f\x8b" {
		return errGzipTrailing
	}
	if err := g.zr.Reset(g.br); err != nil {
		if errors.Is(err, gzip.ErrHeader) {
			return errGzipTrailing
		}
		return gzipHeaderErr(err)
	}
	g.zr.Multistream(false)
	return nil
}

// ReadFile reads the named file whole through NewReader. Text that is not UTF-8 is an error
// naming the line and column of its first bad byte, where a JSON decoder or an HTTP request would
// silently put U+FFFD in its place; so is data that is no text (a *FormatError), named by the file.
// Every error names the file: the os package's say "open NAME" or "read NAME", the others
// (damaged or cut gzip data) are put after "NAME: ", since callers pass them on as they are.
func ReadFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(NewReader(f))
	if err != nil {
		if _, ok := errors.AsType[*fs.PathError](err); ok {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if e := record.CheckUTF8(b); e != nil {
		off := e.Column - 1
		start := bytes.LastIndexByte(b[:off], '\n') + 1
		e.Column = off - start + 1
		return nil, fmt.Errorf("%s:%d: %w", name, bytes.Count(b[:off], []byte("\n"))+1, e)
	}
	return b, nil
}

// JSONError returns err, the error of decoding b, the JSON text of the file name (as ReadFile
// gave it), naming the file and, for a syntax error, the line and the column (in bytes) of the
// byte at fault, as ReadFile names a byte that is not UTF-8: "r.json:3: invalid character '}'
// looking for beginning of object key string at column 1"; an end cut short is named at its last
// line with text. Other errors are the file's name and DescribeDecodeError's words.
func JSONError(name string, b []byte, err error) error {
	se, ok := errors.AsType[*json.SyntaxError](err)
	if !ok {
		return fmt.Errorf("%s: %s", name, record.DescribeDecodeError(err))
	}
	line, col, words, python := JSONSyntax(b, se)
	if col == 0 {
		return fmt.Errorf("%s:%d: %s", name, line, words)
	}
	return fmt.Errorf("%s:%d: %s at column %d%s", name, line, words, col, python)
}

// JSONSyntax places se, the syntax error of decoding b: the line of the byte at fault, its
// column (in bytes, from 1), the decoder's words naming the whole character there, and what
// Python meant where a constant of its own, NaN say, stands there (to follow the column). An end
// cut short is placed at b's last line with text, with column 0 and the decoder's words alone.
func JSONSyntax(b []byte, se *json.SyntaxError) (line, col int, words, python string) {
	if se.Offset >= int64(len(b)) && strings.HasPrefix(se.Error(), "unexpected end") {
		end := len(bytes.TrimRight(b, " \t\r\n"))
		return bytes.Count(b[:end], []byte("\n")) + 1, 0, se.Error(), ""
	}
	bad := min(max(se.Offset-1, 0), int64(len(b))) // Offset counts the bytes read, the bad one included
	start := bytes.LastIndexByte(b[:bad], '\n') + 1
	return bytes.Count(b[:bad], []byte("\n")) + 1, int(bad) - start + 1,
		record.WholeCharacter(se.Error(), b, bad), record.PythonConstant(b, bad)
}
