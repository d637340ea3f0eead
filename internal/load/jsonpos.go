package load

// This file tracks where the JSON decoder is in its input (lines and columns for errors) and
// checks that the input is UTF-8 text as it passes.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/record"
)

// lineCounter counts the newlines read through it so that a byte offset can be turned into a line
// number. Offsets must be asked in increasing order; it keeps only the newlines not yet passed,
// so its memory is bounded by the decoder's read-ahead. It also checks that what it reads is
// UTF-8 text: the first byte that is not fails the read with a *lineError, once the bytes before
// it have been read, so that the decoder takes every item that ends before it, as it does those
// before a syntax error, whichever piece of the input the byte comes in.
type lineCounter struct {
	r       io.Reader
	read    int64   // bytes read so far
	passed  int     // newlines before the last offset asked
	begun   int64   // offset of the line of the last offset asked: just past the last newline passed
	pending []int64 // offsets of newlines read but not yet passed
	lines   int     // newlines read so far
	start   int64   // offset of the line being read: just past the last newline
	text    utf8Stream
	notUTF8 error // the *lineError of a byte that is not text, for the read after the bytes before it
}

func (c *lineCounter) Read(p []byte) (int, error) {
	if c.notUTF8 != nil {
		return 0, c.notUTF8
	}
	n, err := c.r.Read(p)
	chunk := p[:n]
	if off, b, ok := c.text.check(chunk, c.read, err == io.EOF); !ok {
		c.notUTF8 = c.notText(chunk, off, b)
		if off <= c.read { // the byte came in an earlier piece (a character it cut)
			return 0, c.notUTF8
		}
		chunk, err = chunk[:off-c.read], nil
	}
	for i, b := range chunk {
		if b == '\n' {
			c.pending = append(c.pending, c.read+int64(i))
			c.lines++
			c.start = c.read + int64(i) + 1
		}
	}
	c.read += int64(len(chunk))
	return len(chunk), err
}

// notText is the error for byte b at offset off, in chunk (just read) or just before it.
func (c *lineCounter) notText(chunk []byte, off int64, b byte) error {
	line, start := c.lines+1, c.start
	if rel := off - c.read; rel > 0 {
		before := chunk[:rel]
		line += bytes.Count(before, []byte("\n"))
		if k := bytes.LastIndexByte(before, '\n'); k >= 0 {
			start = c.read + int64(k) + 1
		}
	}
	return &lineError{line: line, err: &record.UTF8Error{Byte: b, Column: int(off-start) + 1}}
}

// lineError is an error at a line of the input that the JSON decoder passed on from its reader.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }
func (e *lineError) Unwrap() error { return e.err }

// atLine returns the file:line error for err found at line, or at the line err names itself.
func atLine(in Input, line int, err error) error {
	if le, ok := errors.AsType[*lineError](err); ok {
		line, err = le.line, le.err
	}
	return fmt.Errorf("%s:%d: %w", in.DisplayName(), line, err)
}

// utf8Stream checks that a byte stream read in pieces is UTF-8 text.
type utf8Stream struct {
	cut    []byte // a character cut by the end of the last piece
	cutOff int64  // its offset
}

// check checks the piece p, at offset off of the stream; at the end of the stream (eof) a cut
// character is not text. It returns false with the offset and value of the first byte that is
// not UTF-8 text.
func (u *utf8Stream) check(p []byte, off int64, eof bool) (int64, byte, bool) {
	if len(u.cut) > 0 {
		need := min(utf8.UTFMax-len(u.cut), len(p))
		u.cut = append(u.cut, p[:need]...)
		if !utf8.FullRune(u.cut) {
			if eof {
				return u.cutOff, u.cut[0], false
			}
			return 0, 0, true // p was shorter still: go on with the next piece
		}
		r, size := utf8.DecodeRune(u.cut)
		if r == utf8.RuneError && size == 1 {
			return u.cutOff, u.cut[0], false
		}
		used := size - (len(u.cut) - need) // the character's bytes in p
		p, off = p[used:], off+int64(used)
		u.cut = u.cut[:0]
	}
	end := len(p)
	if !eof { // leave a character cut by the end of p for the next piece
		for k := 1; k < utf8.UTFMax && k <= len(p); k++ {
			if c := p[len(p)-k]; c < utf8.RuneSelf || utf8.RuneStart(c) {
				if !utf8.FullRune(p[len(p)-k:]) {
					end = len(p) - k
				}
				break
			}
		}
	}
	if e := record.CheckUTF8(p[:end]); e != nil {
		return off + int64(e.Column-1), e.Byte, false
	}
	u.cut, u.cutOff = append(u.cut[:0], p[end:]...), off+int64(end)
	return 0, 0, true
}

// lineAt returns the 1-based line of byte offset off.
func (c *lineCounter) lineAt(off int64) int {
	i := 0
	for i < len(c.pending) && c.pending[i] < off {
		i++
	}
	if i > 0 {
		c.begun = c.pending[i-1] + 1
	}
	c.passed += i
	c.pending = c.pending[i:]
	if len(c.pending) == 0 {
		c.pending = nil
	}
	return c.passed + 1
}

// position returns the 1-based line of byte offset off and its 1-based byte column. Offsets must
// be asked in increasing order, as for lineAt.
func (c *lineCounter) position(off int64) (line, col int) {
	line = c.lineAt(off)
	return line, int(off-c.begun) + 1
}
