// Package textfile reads the text files users hand the commands, records and benchmark files as
// well as prompts, keys, prices and maps, as their editors and tools leave them: gzip-compressed
// or not, with or without a UTF-8 byte order mark, or in UTF-16 with its byte order mark (what
// Windows PowerShell 5's ">" writes).
package textfile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/qapipe/qapipe/pkg/record"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// NewReader returns a reader of the text r holds, in UTF-8: decompressed when r is gzip data (it
// begins with gzip's magic bytes 1F 8B, whatever the file is called), without the UTF-8 byte
// order mark (EF BB BF) the text may begin with, which editors on Windows write and JSON decoders
// reject, and decoded from UTF-16 when it begins with a UTF-16 byte order mark (FF FE little-
// endian, FE FF big-endian), as Python's json.loads decodes bytes. It reads the first bytes at
// the first Read; a gzip stream that is damaged is a read error.
func NewReader(r io.Reader) io.Reader { return &textReader{r: r} }

type textReader struct {
	r       io.Reader
	plain   bool // text already decompressed: only a byte order mark is looked for
	started bool
	head    []byte // bytes read while looking at the start, still to be returned
	err     error  // the error of opening a gzip stream, returned by every Read
}

func (t *textReader) Read(p []byte) (int, error) {
	if !t.started {
		t.started = true
		head := make([]byte, 3)
		n, err := io.ReadFull(t.r, head)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return 0, err
		}
		switch t.head = head[:n]; {
		case !t.plain && n >= 2 && head[0] == 0x1f && head[1] == 0x8b:
			zr, err := gzip.NewReader(io.MultiReader(bytes.NewReader(t.head), t.r))
			if err != nil {
				t.err = err // gzip's errors say "gzip: "
				break
			}
			t.r, t.head = &textReader{r: zr, plain: true}, nil // the BOM, if any, is in the decompressed text
		case string(t.head) == "\ufeff":
			t.head = nil
		case n >= 2 && (head[0] == 0xff && head[1] == 0xfe || head[0] == 0xfe && head[1] == 0xff):
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

// ReadFile reads the named file whole through NewReader. Text that is not UTF-8 is an error
// naming the line and column of its first bad byte, where a JSON decoder or an HTTP request would
// silently put U+FFFD in its place.
func ReadFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(NewReader(f))
	if err != nil {
		return nil, err
	}
	if e := record.CheckUTF8(b); e != nil {
		off := e.Column - 1
		start := bytes.LastIndexByte(b[:off], '\n') + 1
		e.Column = off - start + 1
		return nil, fmt.Errorf("%s:%d: %w", name, bytes.Count(b[:off], []byte("\n"))+1, e)
	}
	return b, nil
}
