package textfile

import (
	"compress/gzip"
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
}

func gz(t *testing.T, parts ...string) string {
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
	} {
		checkRead(t, fmt.Sprintf("gzip of %q", tc.want), tc.in, tc.want)
	}
	whole := gz(t, strings.Repeat("line\n", 1000))
	for _, bad := range []string{"\x1f\x8b", "\x1f\x8bxxxxxxxxxxxxxxxx", whole[:len(whole)/2]} {
		if got, err := io.ReadAll(NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("NewReader(damaged gzip %q…) = %q, nil; want an error", bad[:2], got)
		}
	}
	// Cut short: ErrGzipCut, which is still io.ErrUnexpectedEOF for errors.Is.
	for _, cut := range []int{len(whole) / 2, len(whole) - 4} {
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
// writes it) is decoded to UTF-8, gzip-compressed or not; without the mark it is not UTF-16.
func TestNewReaderUTF16(t *testing.T) {
	const text = "{\"id\":\"é😀\"}\n{\"id\":2}\n"
	for _, tc := range []struct{ name, in, want string }{
		{"little-endian", utf16(t, text, false), text},
		{"big-endian", utf16(t, text, true), text},
		{"gzip", gz(t, utf16(t, text, false)), text},
		{"mark only", "\xff\xfe", ""},
		{"half a mark", "\xff", "\xff"},
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
}

// FuzzNewReader: text that is not gzip comes out as it went in, less one leading byte order
// mark, however it is read; gzip data comes out as what was compressed.
func FuzzNewReader(f *testing.F) {
	for _, s := range []string{"", "\ufeff", "\ufeff{}\n", "\x1f", "\x1f\x8b", "\xef\xbb", "a\r\nb", "PK\x03\x04", "BZh9", "PAR1\n"} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte("\ufeffx\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, compress bool) {
		in, want := string(data), strings.TrimPrefix(string(data), "\ufeff")
		if strings.HasPrefix(in, "\xff\xfe") || strings.HasPrefix(in, "\xfe\xff") {
			return // a UTF-16 byte order mark: read as UTF-16, which they are not
		}
		if compress {
			in = gz(t, string(data))
		} else if strings.HasPrefix(in, "\x1f\x8b") {
			return // gzip's magic bytes: read as gzip, which they are not
		}
		if binaryFormat(data[:min(len(data), headSize)]) != nil {
			// Another format's magic bytes: refused, compressed or not.
			if _, err := io.ReadAll(NewReader(strings.NewReader(in))); !errors.As(err, new(*FormatError)) {
				t.Fatalf("NewReader(%q, gzip %v) error = %v, want a FormatError", data, compress, err)
			}
			return
		}
		if utf8.Valid(data) { // and in UTF-16, it comes back
			for _, big := range []bool{false, true} {
				got, err := io.ReadAll(NewReader(strings.NewReader(utf16(t, want, big))))
				if err != nil || string(got) != want {
					t.Fatalf("NewReader(UTF-16 of %q, big-endian %v) = %q, %v", want, big, got, err)
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

// TestNewReaderBinary: data that begins as a compressed or binary format other than gzip is a
// FormatError that says what it is, at the first Read, however the data is cut; text whose first
// bytes only look like such a magic is read as text.
func TestNewReaderBinary(t *testing.T) {
	for _, tc := range []struct{ in, what string }{
		{"PK\x03\x04\x14\x00\x00\x00", "a zip archive (an .xlsx workbook is one too)"},
		{"PK\x05\x06" + strings.Repeat("\x00", 18), "an empty zip archive"},
		{"\xfd7zXZ\x00\x00\x04", "xz-compressed data"},
		{"BZh91AY&SY", "bzip2-compressed data"},
		{"\x28\xb5\x2f\xfd\x24\x00", "zstd-compressed data"},
		{"7z\xbc\xaf\x27\x1c\x00\x04", "a 7-Zip archive"},
		{"PAR1\x15\x04\x15\x10", "a Parquet file"},
		{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00", "an Excel .xls workbook (or another Microsoft Office file)"},
		{gz(t, "PK\x03\x04\x14\x00\x00\x00"), "a zip archive (an .xlsx workbook is one too)"}, // inside gzip too
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
		"7z\n",
	} {
		checkRead(t, fmt.Sprintf("%q", text), text, text)
	}
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
