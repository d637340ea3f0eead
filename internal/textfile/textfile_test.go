package textfile

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"
)

// TestNewReader: a UTF-8 byte order mark at the start is dropped, nothing else.
func TestNewReader(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"{", "{"},
		{"ab", "ab"},
		{"abc", "abc"},
		{"\ufeff", ""},
		{"\ufeff{\"id\":1}\n", "{\"id\":1}\n"},
		{"\ufeff\ufeffx", "\ufeffx"}, // one mark only
		{"x\ufeff", "x\ufeff"},       // not at the start: data
		{"\xef\xbb", "\xef\xbb"},     // a cut mark is data
		{"\xef\xbbx", "\xef\xbbx"},
	} {
		checkRead(t, fmt.Sprintf("%q", tc.in), tc.in, tc.want)
	}
}

// checkRead reads in through NewReader whole and a byte at a time, and wants want both ways.
func checkRead(t *testing.T, label, in, want string) {
	t.Helper()
	for name, r := range map[string]io.Reader{
		"whole":   strings.NewReader(in),
		"onebyte": iotest.OneByteReader(strings.NewReader(in)),
	} {
		got, err := io.ReadAll(NewReader(r))
		if err != nil || string(got) != want {
			t.Errorf("NewReader(%s) %s = %q, %v; want %q", label, name, got, err, want)
		}
	}
}

func TestNewReaderError(t *testing.T) {
	boom := errors.New("boom")
	if _, err := io.ReadAll(NewReader(iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("NewReader(failing reader) error = %v, want %v", err, boom)
	}
	// An error that comes with the start of the text comes after that text, even from a reader
	// that would not give it again.
	got, err := io.ReadAll(NewReader(&dataThenErr{data: "{\"a\":1", err: boom}))
	if string(got) != "{\"a\":1" || !errors.Is(err, boom) {
		t.Errorf("NewReader(reader failing with its first bytes) = %q, %v; want the bytes and %v", got, err, boom)
	}
}

// dataThenErr returns data with err on its first Read, and io.EOF after.
type dataThenErr struct {
	data string
	err  error
	done bool
}

func (r *dataThenErr) Read(p []byte) (int, error) {
	if r.done {
		return 0, io.EOF
	}
	r.done = true
	return copy(p, r.data), r.err
}

func gz(t testing.TB, parts ...string) string {
	t.Helper()
	var out strings.Builder
	for _, p := range parts { // several members, as `cat a.gz b.gz` makes
		var b strings.Builder
		zw := gzip.NewWriter(&b)
		if _, err := zw.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		out.WriteString(b.String())
	}
	return out.String()
}

// TestNewReaderGzip: gzip data is known by its magic bytes and decompressed, members one after
// another, and the decompressed text loses its byte order mark; a damaged stream is an error.
func TestNewReaderGzip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{gz(t, "{\"id\":1}\n"), "{\"id\":1}\n"},
		{gz(t, "\ufeffa\n"), "a\n"},
		{gz(t, "a\n", "b\n"), "a\nb\n"},
		{gz(t, ""), ""},
		{gz(t, "a\n") + strings.Repeat("\x00", 100), "a\n"},           // NUL padding, as gzip(1) and Python skip it
		{gz(t, "a\n") + "\x00\x00" + gz(t, "b\n") + "\x00", "a\nb\n"}, // padding between members too
	} {
		checkRead(t, fmt.Sprintf("gzip of %q", tc.want), tc.in, tc.want)
	}
	whole := gz(t, strings.Repeat("line\n", 1000))
	// Data after the members that is no gzip member is an error that says so, not
	// gzip's "invalid header".
	for _, junk := range []string{"trailing junk text", "junk", "\x00j", "\x1f\x8bxxxxxxxxxxxxxxxx"} {
		if _, err := io.ReadAll(NewReader(strings.NewReader(gz(t, "a\n") + junk))); err == nil || !strings.Contains(err.Error(), "data after the end of the gzip data") {
			t.Errorf("NewReader(gzip + %q): %v; want an error naming the data after the gzip data", junk, err)
		}
	}
	// A second member cut short is still cut short.
	if _, err := io.ReadAll(NewReader(strings.NewReader(gz(t, "a\n") + whole[:len(whole)/2]))); !errors.Is(err, ErrGzipCut) {
		t.Errorf("NewReader(gzip + a member cut short): %v; want ErrGzipCut", err)
	}
	for _, bad := range []string{"\x1f\x8b", "\x1f\x8bxxxxxxxxxxxxxxxx", whole[:len(whole)/2]} {
		if got, err := io.ReadAll(NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("NewReader(damaged gzip %q…) = %q, nil; want an error", bad[:2], got)
		}
	}
	// The text read before the error comes out before it, in a small file whose whole text
	// comes with the error from one read too (the start, looked at for its format, included):
	// the lines before a cut trailer or appended data are read, as in a larger file.
	small := gz(t, "a\nb\n")
	for _, bad := range []string{small[:len(small)-4], small + "junk"} {
		got, err := io.ReadAll(NewReader(strings.NewReader(bad)))
		if string(got) != "a\nb\n" || err == nil {
			t.Errorf("NewReader(small damaged gzip) = %q, %v; want \"a\\nb\\n\" and an error", got, err)
		}
	}
	// Cut short: ErrGzipCut, which is still io.ErrUnexpectedEOF for errors.Is; within the
	// 10-byte header too, where gzip.NewReader gave a bare "unexpected EOF".
	for _, cut := range []int{2, 3, 9, len(whole) / 2, len(whole) - 4} {
		if _, err := io.ReadAll(NewReader(strings.NewReader(whole[:cut]))); !errors.Is(err, ErrGzipCut) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("NewReader(gzip cut at %d of %d bytes): %v; want ErrGzipCut", cut, len(whole), err)
		}
	}
}

// utf16 is s in UTF-16 with its byte order mark, little-endian or big-endian.
func utf16(t testing.TB, s string, big bool) string {
	order := unicode.LittleEndian
	if big {
		order = unicode.BigEndian
	}
	out, err := unicode.UTF16(order, unicode.UseBOM).NewEncoder().String(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNewReaderUTF16: text that begins with a UTF-16 byte order mark (Windows PowerShell 5's ">"
// writes it) or a UTF-32 one is decoded to UTF-8, gzip-compressed or not; without the mark it is
// not UTF-16. UTF-32LE's mark begins with UTF-16LE's, and is taken first, as Python's json.loads
// takes it.
func TestNewReaderUTF16(t *testing.T) {
	const text = "{\"id\":\"é😀\"}\n{\"id\":2}\n"
	for _, tc := range []struct{ name, in, want string }{
		{"little-endian", utf16(t, text, false), text},
		{"big-endian", utf16(t, text, true), text},
		{"gzip", gz(t, utf16(t, text, false)), text},
		{"mark only", "\xff\xfe", ""},
		{"half a mark", "\xff", "\xff"},
		{"UTF-32 little-endian", "\xff\xfe\x00\x00" + utf32le(text), text},
		{"UTF-32 big-endian", "\x00\x00\xfe\xff" + utf32be(text), text},
		{"UTF-32 gzip", gz(t, "\x00\x00\xfe\xff"+utf32be(text)), text},
		{"UTF-32 mark only", "\xff\xfe\x00\x00", ""},
		{"UTF-16 of a NUL", "\xff\xfe\x00\x00\n\x00", "\ufffd"}, // read as UTF-32: no text either way
	} {
		checkRead(t, tc.name, tc.in, tc.want)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"key.txt": "\ufeffsk-1\n", "key.txt.gz": gz(t, "\ufeffsk-2\n"), "plain.txt": "x\ufeff"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"key.txt": "sk-1\n", "key.txt.gz": "sk-2\n", "plain.txt": "x\ufeff"} {
		if got, err := ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "none")); !os.IsNotExist(err) {
		t.Errorf("ReadFile(missing) error = %v, want not-exist", err)
	}
	// Text that is not UTF-8 (a Latin-1 prompt) is an error at its line and column.
	latin1 := filepath.Join(dir, "prompt.txt")
	if err := os.WriteFile(latin1, []byte("Question: {question}\nR\xe9ponse :\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(latin1)
	if want := latin1 + ":2: not UTF-8 text: byte 0xE9 at column 2"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("ReadFile(Latin-1 file) error = %v, want %q…", err, want)
	}
	// Gzip data cut short, in its header or after, and damaged: errors that name the file, which
	// callers pass on as they are (a --prompt file cut at 3 bytes read "unexpected EOF").
	whole := gz(t, strings.Repeat("line\n", 1000))
	for _, data := range []string{whole[:3], whole[:len(whole)/2], "\x1f\x8bxxxxxxxxxxxxxxxx"} {
		name := filepath.Join(dir, "cut.txt.gz")
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(name); err == nil || !strings.HasPrefix(err.Error(), name+": gzip") {
			t.Errorf("ReadFile(gzip %q…) error = %v, want one starting %q", data[:3], err, name+": gzip")
		}
	}
	if _, err := ReadFile(dir); err == nil || strings.Count(err.Error(), dir) != 1 {
		t.Errorf("ReadFile(a directory) error = %v, want one naming it once", err)
	}
}

// FuzzNewReader: text that is not gzip comes out as it went in, less one leading byte order
// mark, however it is read; gzip data comes out as what was compressed.
func FuzzNewReader(f *testing.F) {
	for _, s := range []string{"", "\ufeff", "\ufeff{}\n", "\x1f", "\x1f\x8b", "\xef\xbb", "a\r\nb", "PK\x03\x04", "BZh9", "PAR1\n", "a\x00", "{\x00\n\x00", "\x89PNG\r\n", "%PDF-1.4\n", "\x00\x00\xfe\xff\x00\x00\x00{"} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte("\ufeffx\n"), true)
	f.Add([]byte(gz(f, "{}\n")), true) // gzip inside gzip
	for _, format := range []tar.Format{tar.FormatUSTAR, tar.FormatGNU} {
		f.Add([]byte(tarOf(f, format, "recs.jsonl", "{}\n")), false)
		f.Add([]byte(tarOf(f, format, "recs.jsonl", "{}\n")), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, compress bool) {
		in, want := string(data), strings.TrimPrefix(string(data), "\ufeff")
		if strings.HasPrefix(in, "\xff\xfe") || strings.HasPrefix(in, "\xfe\xff") || strings.HasPrefix(in, "\x00\x00\xfe\xff") {
			return // a UTF-16 or UTF-32 byte order mark: read as UTF-16 or UTF-32, which they are not
		}
		if compress {
			in = gz(t, string(data))
		} else if strings.HasPrefix(in, "\x1f\x8b") {
			return // gzip's magic bytes: read as gzip, which they are not
		}
		if binaryFormat(data[:min(len(data), HeadSize)], compress) != nil {
			// Another format's magic bytes: refused, compressed or not.
			if _, err := io.ReadAll(NewReader(strings.NewReader(in))); !errors.As(err, new(*FormatError)) {
				t.Fatalf("NewReader(%q, gzip %v) error = %v, want a FormatError", data, compress, err)
			}
			return
		}
		if utf8.Valid(data) { // and in UTF-16 or UTF-32, it comes back
			for _, big := range []bool{false, true} {
				utf32 := "\xff\xfe\x00\x00" + utf32le(want)
				if big {
					utf32 = "\x00\x00\xfe\xff" + utf32be(want)
				}
				for name, wide := range map[string]string{"UTF-16": utf16(t, want, big), "UTF-32": utf32} {
					if utf32BOM([]byte(wide)) != (name == "UTF-32") {
						continue // UTF-16LE of a text that begins with U+0000 (no text) begins as UTF-32LE
					}
					got, err := io.ReadAll(NewReader(strings.NewReader(wide)))
					if err != nil || string(got) != want {
						t.Fatalf("NewReader(%s of %q, big-endian %v) = %q, %v", name, want, big, got, err)
					}
				}
			}
		}
		for name, r := range map[string]io.Reader{
			"whole":   strings.NewReader(in),
			"onebyte": iotest.OneByteReader(strings.NewReader(in)),
		} {
			got, err := io.ReadAll(NewReader(r))
			if err != nil || string(got) != want {
				t.Fatalf("NewReader(%q, gzip %v) %s = %q, %v; want %q", data, compress, name, got, err, want)
			}
		}
	})
}

// TestNewReaderBinary: data that begins as a compressed or binary format other than gzip, or as
// gzip again inside gzip, or that has a NUL byte in its first line, is a FormatError that says
// what it is, at the first Read, however the data is cut; text whose first bytes only look like
// such a magic is read as text, and so are UTF-16 and UTF-32 without a byte order mark, and a
// first line that begins a JSON object or array (its reader refuses it alone).
func TestNewReaderBinary(t *testing.T) {
	const nul = "binary data (a NUL byte, which no text holds, at byte "
	for _, tc := range []struct{ in, what string }{
		{"PK\x03\x04\x14\x00\x00\x00", "a zip archive (an .xlsx workbook is one too)"},
		{"PK\x05\x06" + strings.Repeat("\x00", 18), "an empty zip archive"},
		{"\xfd7zXZ\x00\x00\x04", "xz-compressed data"},
		{"BZh91AY&SY", "bzip2-compressed data"},
		{"\x28\xb5\x2f\xfd\x24\x00", "zstd-compressed data"},
		{"7z\xbc\xaf\x27\x1c\x00\x04", "a 7-Zip archive"},
		{"PAR1\x15\x04\x15\x10", "a Parquet file"},
		{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00", "an Excel .xls workbook (or another Microsoft Office file)"},
		{"SQLite format 3\x00\x10\x00\x01\x01", "an SQLite database"},
		{"ARROW1\x00\x00\xff\xff\xff\xff", "an Arrow (Feather) file"},
		{"\x89HDF\r\n\x1a\n\x00\x00", "an HDF5 file"},
		{"\x80\x04\x95\x1d\x00\x00", "a Python pickle"},
		{"\x80\x02]q\x00", "a Python pickle"},
		{"\x80\x05\x95\x1d\x00\x00", "a Python pickle"}, // protocol 5, Python 3.8 on
		{"\x93NUMPY\x01\x00v\x00{'descr'", "a NumPy array (.npy)"},
		{"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "a PDF document"},
		{"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a PNG image"},
		{"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "a JPEG image"},
		{"\x7fELF\x02\x01\x01\x00", "an ELF executable"},
		// Inside gzip too.
		{gz(t, "PK\x03\x04\x14\x00\x00\x00"), "a zip archive (an .xlsx workbook is one too)"},
		{gz(t, "\x89PNG\r\n\x1a\n\x00"), "a PNG image"},
		// gzip inside gzip: gzip run on a .gz file, three times, or its magic alone.
		{gz(t, gz(t, "{\"id\":1}\n")), gzipTwice.What},
		{gz(t, gz(t, gz(t, "{\"id\":1}\n"))), gzipTwice.What},
		{gz(t, "\x1f\x8b"), gzipTwice.What},
		// Any other data with a NUL in its first line, and no text in UTF-16 or UTF-32 (U+0000,
		// or a control character, in either byte order): binary data, at that byte.
		{"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00", nul + "4)"}, // a Windows executable
		{"\x00\x00\x00\x00", nul + "1)"},
		{"\ufeff\x00", nul + "4)"}, // UTF-8's byte order mark: no UTF-16
		{"a\x00b\x00\x00\x00\n", nul + "2)"},
		{"ab\x01\x00\x00\x01cd", nul + "4)"}, // U+0001 in UTF-16 either way, code points too large in UTF-32
		{"\x7f\x00\x00\x01", nul + "2)"},     // DEL in UTF-16LE, U+0001 big-endian
		{"\xff\xdf\x00\x00", nul + "3)"},     // U+DFFF, a surrogate, in UTF-32LE; U+0000 in UTF-16
		{gz(t, "ab\x00\x00\x00\x00\xff\n"), nul + "3)"},
	} {
		for name, r := range map[string]io.Reader{
			"whole":   strings.NewReader(tc.in),
			"onebyte": iotest.OneByteReader(strings.NewReader(tc.in)),
		} {
			_, err := io.ReadAll(NewReader(r))
			var fe *FormatError
			if !errors.As(err, &fe) || fe.What != tc.what {
				t.Errorf("NewReader(%q) %s: error %v, want a FormatError for %s", tc.in, name, err, tc.what)
			}
		}
	}
	for _, text := range []string{
		"PAR1,PAR2\n1,2\n", // a CSV header
		"BZh,x\n",
		"BZhx\n",
		"PK,id\n",
		"PAR1\t2\n",
		"PAR1\r\n", // a CSV header of one cell, with Windows line ends
		"7z\n",
		"%PDF-x\n",
		"SQLite format 3\n",
		"\x80",                   // not UTF-8, for the line's reader to say so
		"{}\n\x00",               // a NUL past the first line is the line's reader's to report
		"{\"id\":\x00}\n\"",      // a JSON line: its reader refuses it alone, naming it
		" [\x00\n",               // and a JSON array's
		"[1,\x00\x00\x00\x00]\n", // of no text in UTF-16 or UTF-32 either
		"{\x00\n\x00",            // UTF-16LE without a byte order mark, for the caller to name
		"\x00{\x00\n",            // and big-endian
		"{\x00\"\x00i\x00",       // longer
		"a\x00",
		"\x00",
		utf16(t, "问题,答案\n谁?,我\n", false)[2:], // UTF-16LE without a byte order mark, of no ASCII first
		utf16(t, "Énoncé,réponse\n", false)[2:],
		utf32le("{\"q\":\"谁\"}\n"),    // UTF-32LE
		"\x00\x00\x00{\x00\x00\x00\n", // and big-endian
	} {
		checkRead(t, fmt.Sprintf("%q", text), text, text)
	}
}

// utf32le is s in UTF-32, little-endian, without a byte order mark.
func utf32le(s string) string {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	return string(b)
}

// utf32be is s in UTF-32, big-endian, without a byte order mark.
func utf32be(s string) string {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r>>24), byte(r>>16), byte(r>>8), byte(r))
	}
	return string(b)
}

// TestReadFileBinary: ReadFile names the file whose data is no text.
func TestReadFileBinary(t *testing.T) {
	f := filepath.Join(t.TempDir(), "prices.zip")
	if err := os.WriteFile(f, []byte("PK\x03\x04\x14\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(f)
	want := f + ": a zip archive (an .xlsx workbook is one too), not text: unzip it first (unzip -p FILE), or save a workbook as CSV; of compressed files, gzip alone is read as it is"
	if err == nil || err.Error() != want {
		t.Errorf("ReadFile(%s) error = %v, want %s", f, err, want)
	}
}

// tarOf is a tar archive in format holding one file, name, of text.
func tarOf(t testing.TB, format tar.Format, name, text string) string {
	t.Helper()
	var b strings.Builder
	tw := tar.NewWriter(&b)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(text)), Format: format}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestNewReaderTar: a tar archive (a .tar, or a .tar.gz or .tgz, gzip's data a tar archive) is a
// FormatError that says to extract it, known by its header whatever the file is called, where
// its header was read as a line of text and the records after it as more lines; text whose
// bytes at 257 read "ustar" is still text.
func TestNewReaderTar(t *testing.T) {
	const recs = "{\"schema\":1,\"id\":\"a\"}\n"
	long := strings.Repeat("x", 1000) // a name past ustar's 100 bytes: a PAX or GNU header first
	for _, tc := range []struct {
		name, in string
		want     FormatError
	}{
		{"ustar", tarOf(t, tar.FormatUSTAR, "recs.jsonl", recs), tarArchive},
		{"pax", tarOf(t, tar.FormatPAX, long, recs), tarArchive},
		{"gnu", tarOf(t, tar.FormatGNU, long, recs), tarArchive},
		{"gzip", gz(t, tarOf(t, tar.FormatUSTAR, "data/recs.jsonl", recs)), tarGzip},
		{"gzip pax", gz(t, tarOf(t, tar.FormatPAX, "données/é.jsonl", recs)), tarGzip},
		{"empty file", tarOf(t, tar.FormatUSTAR, "empty.jsonl", ""), tarArchive},
	} {
		for name, r := range map[string]io.Reader{
			"whole":   strings.NewReader(tc.in),
			"onebyte": iotest.OneByteReader(strings.NewReader(tc.in)),
		} {
			got, err := io.ReadAll(NewReader(r))
			fe, ok := errors.AsType[*FormatError](err)
			if !ok || *fe != tc.want {
				t.Errorf("NewReader(%s tar) %s = %q, %v; want %v", tc.name, name, got, err, &tc.want)
			}
		}
	}
	if want := "a gzip-compressed tar archive, not text: extract it first (tar -xzf FILE) and give the files in it"; tarGzip.Error() != want {
		t.Errorf("tarGzip.Error() = %q, want %q", tarGzip.Error(), want)
	}
	// Text whose 512 bytes are a header but for a line end, or for the checksum; text with the
	// mark alone.
	header := []byte(tarOf(t, tar.FormatUSTAR, "recs.jsonl", recs)[:512])
	for i, c := range header {
		if c == 0 {
			header[i] = ' ' // no NUL, as in text
		}
	}
	if !isTar(withSum(header)) {
		t.Fatalf("isTar(header with spaces for NULs) = false, want true")
	}
	lineEnd := withSum(header)
	lineEnd[200] = '\n'
	lineEnd = withSum(lineEnd)
	badSum := withSum(header)
	badSum[150]++
	// A checksum summed as signed bytes, as old tars did, of a header with bytes past 0x7f; and
	// one written as seven digits and a NUL, its eighth byte counted as a space all the same.
	signed := []byte(tarOf(t, tar.FormatUSTAR, "recs.jsonl", recs)[:512])
	signed[0] = 0xe9 // "\xe9ecs.jsonl": a name in Latin-1
	copy(signed[148:156], "        ")
	sum := 0
	for _, c := range signed {
		sum += int(int8(c))
	}
	copy(signed[148:156], fmt.Sprintf("%06o\x00 ", sum))
	sevenDigits := withSum(header)
	copy(sevenDigits[148:156], "0"+string(sevenDigits[148:154])+"\x00") // a 0 before its six digits, then NUL
	for name, h := range map[string][]byte{"signed sum": signed, "seven-digit sum": sevenDigits} {
		if !isTar(h) {
			t.Errorf("isTar(header with a %s) = false, want true", name)
		}
	}
	ustar := strings.Repeat("y", 257) + "ustar  " + strings.Repeat("z", 300) + "\n"
	for _, text := range []string{string(lineEnd) + "\n", string(badSum) + "\n", ustar} {
		checkRead(t, fmt.Sprintf("%.20q…", text), text, text)
	}
}

// withSum is a copy of the tar header h with its checksum set to what its bytes add up to.
func withSum(h []byte) []byte {
	h = append([]byte(nil), h...)
	copy(h[148:156], "        ")
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:156], fmt.Sprintf("%06o  ", sum))
	return h
}

// lineThenFail returns one line, then fails the test if it is read again.
type lineThenFail struct {
	t    *testing.T
	line string
	done bool
}

func (r *lineThenFail) Read(p []byte) (int, error) {
	if r.done {
		r.t.Error("read past the first line before returning it")
		return 0, errors.New("read past the first line")
	}
	r.done = true
	return copy(p, r.line), nil
}

// TestNewReaderFirstLine: the first Read returns a first line as soon as it is whole, without
// waiting for the bytes a tar header would fill, so that a stage reading from a pipe record by
// record handles the first record before the next comes.
func TestNewReaderFirstLine(t *testing.T) {
	for _, line := range []string{"{}\n", "{\"schema\":1,\"id\":\"q-1\"}\n", "\ufeff{}\n"} {
		p := make([]byte, 1024)
		n, err := NewReader(&lineThenFail{t: t, line: line}).Read(p)
		if want := strings.TrimPrefix(line, "\ufeff"); string(p[:n]) != want || err != nil {
			t.Errorf("first Read of %q = %q, %v; want %q, nil", line, p[:n], err, want)
		}
	}
}

// gatedSource serves first, then, once released, rest; a read past first before the release
// fails with errGated, standing for a pipe whose writer has not written more yet.
type gatedSource struct {
	first, rest string
	released    bool
	readPast    bool // a read came past first before the release
}

var errGated = errors.New("read past the first gzip member before the writer wrote more")

func (g *gatedSource) Read(p []byte) (int, error) {
	switch {
	case g.first != "":
		n := copy(p, g.first)
		g.first = g.first[n:]
		return n, nil
	case !g.released:
		g.readPast = true
		return 0, errGated
	case g.rest != "":
		n := copy(p, g.rest)
		g.rest = g.rest[n:]
		return n, nil
	}
	return 0, io.EOF
}

// TestNewReaderGzipMemberEnd: the whole text of a gzip member is returned before anything after
// the member is read, so that a producer writing one member at a time into a pipe (gzip -c part1;
// later gzip -c part2) has each part's records read, scored and written while it waits, not its
// last lines held back until the next member's header comes.
func TestNewReaderGzipMemberEnd(t *testing.T) {
	var text1 strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&text1, "{\"id\":\"r%d\",\"n\":%d}\n", i, i*7919%10007)
	}
	for _, tc := range []struct{ name, rest, want string }{
		{"another member", gz(t, "last\n"), "last\n"},
		{"padding, then the end", "\x00\x00\x00", ""},
		{"the end", "", ""},
	} {
		src := &gatedSource{first: gz(t, text1.String()), rest: tc.rest}
		r := NewReader(src)
		var got []byte
		buf := make([]byte, 32<<10) // as a line reader asks, more than the text left
		for len(got) < text1.Len() {
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil || src.readPast {
				break
			}
		}
		if src.readPast || string(got) != text1.String() {
			t.Errorf("%s: the first member's text (%d bytes) read past the member: %v, %d bytes read; want all of it before",
				tc.name, text1.Len(), src.readPast, len(got))
			continue
		}
		src.released = true
		if rest, err := io.ReadAll(r); err != nil || string(rest) != tc.want {
			t.Errorf("%s: after the first member: %q, %v; want %q, nil", tc.name, rest, err, tc.want)
		}
	}
}

func TestJSONError(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"{\n \"a\": 1,\n}\n", `f.json:3: invalid character '}' looking for beginning of object key string at column 1`},
		{"{\"a\": 1} x", `f.json:1: invalid character 'x' after top-level value at column 10`},
		{"{\n \"a\": \"é\n\"}", `f.json:2: invalid character '\n' in string literal at column 10`},
		{"{\"a\": é}", `f.json:1: invalid character 'é' looking for beginning of value at column 7`},
		{"[1,\n NaN]", `f.json:2: invalid character 'N' looking for beginning of value at column 2`},
		{"{\n \"a\": [1,\n\n\n", `f.json:2: unexpected end of JSON input`},
		{"", `f.json:1: unexpected end of JSON input`},
		{`[1]`, `f.json: want an object, got a list`},
	} {
		var v map[string]json.RawMessage
		err := json.Unmarshal([]byte(tt.in), &v)
		if err == nil {
			t.Fatalf("json.Unmarshal(%q) succeeded", tt.in)
		}
		if got := JSONError("f.json", []byte(tt.in), err).Error(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("JSONError(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
