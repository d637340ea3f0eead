package format

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
)

// FirstObject returns br's bytes, without consuming them, up to the one that ends the first JSON
// object it opens (the top-level value, or a top-level array's first item, as FirstMembers reads
// it) or shows the value there to be no object, or no JSON; or what br holds when the input
// ended, or MaxHead bytes came, first. With data, a top-level object's member "data" that opens
// a list ends it with that list's first item where that is a SQuAD article (SQuAD's first
// article, not the whole file after it; see itemEnds). It reads no further, so that a JSON
// document written on one line, read from a pipe, is loaded as it comes, not once a buffer's
// worth is there; and it returns no more than that, though a read brought more (a file's first
// read most often fills the buffer), so that what the bytes are taken for does not hang on how a
// pipe cut them. An object longer than br's buffer grows it (peekUntil).
//
// Note: a Peek of the whole buffer held a SQuAD or CMRC 2018 file written on one line, from a
// slow pipe, until 64 kB of it had come, though its first question was whole long before; and
// one whose first question was longer than the buffer's 64 kB was taken for no export.
func FirstObject(br *bufio.Reader, data bool) []byte {
	s := objectScan{data: data}
	head, _, _ := peekUntil(br, s.end)
	return head
}

// Head returns the bytes of br, without consuming them, that a format is detected from (Detect):
// by qa-load, which also looks at them for --format's warning of another format, and by the
// other stages, for the qa-load format of a file that holds no records (HeadOf). They are
// FirstObject's, with data; or, when they show that the text opens no JSON object, or not one
// that is JSON (a table, a file of records cut at its start, a first line cut short), or a
// top-level object with more text after it on its line (a file of records cut within a nested
// object), its first two lines that are not blank, as Detect looks past one line that is not JSON. Whole or a byte
// at a time, from a file or a pipe, the input gives the same bytes. full reports that MaxHead
// bytes came before their end; err is the read error that came first (not io.EOF).
//
// Note: detection read a file's first 64 kB (a pipe's, or what it held once the loader gave its
// first item): a Hugging Face export of SQuAD whose first context was longer was no export, a
// named pipe gave no record until 64 kB of it had come, and --format's warning over indented
// JSON from a pipe was given or not as the bytes happened to come.
func Head(br *bufio.Reader) (head []byte, full bool, err error) {
	end, whole := headEnd()
	head, full, err = peekUntil(br, end)
	if n := whole(); n > 0 && n < len(head) { // the input ended, or the head filled, in the blanks after it
		head, full = head[:n], false
	}
	return head, full, err
}

// HeadOf returns Head's bytes of an input whose text, or whose first bytes (MaxHead at most),
// text holds.
func HeadOf(text []byte) []byte {
	end, whole := headEnd()
	if n := end(text); n > 0 {
		return text[:n]
	}
	if n := whole(); n > 0 {
		return text[:n]
	}
	return text
}

// headEnd returns the end function, for peekUntil, of Head's bytes, and whole, which reports the
// length of the first object once that has ended and nothing but blanks has followed it (0
// else), for an input that ended, or a head that filled, before the end of its line. Like
// objectScan's, end reads the bytes it is given once, on from those it was given before, and
// ends where it would have ended given them whole.
func headEnd() (end func(head []byte) int, whole func() int) {
	s := objectScan{data: true}
	obj, j := 0, 0          // the first object's length once it ended; how far the rest of its line is read
	lines, text := 0, false // the lines ended that held text; whether this one does
	i := 0
	// One end, which reads on past the object's line, or past a fault for two lines, so that
	// Head grows br's buffer from one reader (see grow).
	end = func(head []byte) int {
		if !s.fault && obj == 0 {
			if obj = s.end(head); obj == 0 || !s.fault && s.list != 0 {
				return obj
			}
			j = obj
		}
		if !s.fault {
			// An object that is the whole top-level value is a line's only JSON when the rest
			// of its line is blank; else the line is no JSON (a file of records cut at its start
			// within a nested object: {"title": "T"}], "meta": {}}), told as a fault is. A
			// carriage return ends the line too: a file of lines that carriage returns alone end
			// is told by its first object, for its loader to say how to mend the line endings.
			for ; j < len(head); j++ {
				if c := head[j]; c == '\n' || c == '\r' {
					return obj
				} else if !isSpace(c) {
					s.fault = true
					break
				}
			}
			if !s.fault {
				return 0
			}
		}
		for ; i < len(head); i++ {
			switch c := head[i]; {
			case c == '\n' && text:
				if lines++; lines == 2 {
					return i + 1
				}
				text = false
			case !isSpace(c):
				text = true
			}
		}
		return 0
	}
	whole = func() int {
		if s.fault {
			return 0
		}
		return obj
	}
	return end, whole
}

// peekUntil peeks at br until end, given the bytes peeked so far, returns how many of them it
// wants (0 for more), and returns them, unconsumed; or what br holds when the input ends (err,
// the read error, nil at io.EOF), or when MaxHead bytes are there (full). A buffer that fills
// first is grown, to MaxHead at most.
func peekUntil(br *bufio.Reader, end func(head []byte) int) (head []byte, full bool, err error) {
	var src io.Reader // what br reads on from once grown
	for {
		head, _ = br.Peek(br.Buffered())
		if n := end(head); n > 0 {
			return head[:n], false, nil
		}
		_, err = br.Peek(len(head) + 1)
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull) && br.Size() < MaxHead:
			src = grow(br, src, min(2*br.Size(), MaxHead))
		case errors.Is(err, bufio.ErrBufferFull):
			return head, true, nil
		case err == io.EOF:
			return head, false, nil
		default:
			return head, false, err
		}
	}
}

// grow gives br a buffer of size bytes that holds what it held, unconsumed, its reader reading on
// where it was: every holder of br reads on through the larger buffer. It returns what br reads
// on from after what it holds, to be given back as src when br is grown again before anything is
// consumed from it (peekUntil): br's first reader behind a copy of br (src nil), whose buffer,
// empty then, is the one kept until the input ends. The bytes held are read from the buffer
// they are in, which nothing else writes (the copy of br reads into its buffer only after them).
//
// Note: a bufio.Reader cannot grow its buffer, and its reader cannot be taken back from it: each
// growth read from a copy of the reader before it, so that a chain of copies kept every smaller
// buffer, 16 MiB in all for a first object of 16 MiB, until the input ended, and passed every
// byte of the input through each of them.
func grow(br *bufio.Reader, src io.Reader, size int) io.Reader {
	held, _ := br.Peek(br.Buffered())
	if src == nil {
		old := new(bufio.Reader)
		*old = *br
		old.Discard(len(held))
		src = old
	}
	*br = *bufio.NewReaderSize(io.MultiReader(bytes.NewReader(held), src), size)
	return src
}

// objectScan follows the JSON text that FirstObject peeks at, a byte once, for the end of its
// first object.
type objectScan struct {
	data     bool   // a top-level object's "data" list ends the scan with its first item (itemEnds)
	i        int    // the bytes scanned
	depth    int    // the arrays and objects open
	list     int    // the depth inside the list whose first item ends the scan (0: none)
	article  bool   // the first item of the "data" list has a "paragraphs" key of its own
	str, esc bool   // in a string; after its backslash
	strAt    int    // where the string being read opens
	key      string // the last string closed in the top-level object
	colon    bool   // the byte before this one was a ':' of the top-level object
	prev     byte   // the last byte, not a blank, outside a string ('"' for a string)
	keyOpen  bool   // the string being read opens after a '{' or ',' (a key, in an object)
	fault    bool   // the scan ended at a byte that shows no JSON object, or no JSON
}

// itemEnds reports whether the first item of the list the scan ends with (or the list, empty),
// just ended, ends the scan. A "data" list's first item ends it only where it is a SQuAD article
// (its own "paragraphs"): elsewhere the object is read on to its end, as any other is, so that a
// JSON Lines row with a data column is told by its own members, as one without it is, and not by
// its text up to the column (a benchmark's key nested in meta, or in the column, taken for its
// format).
func (s *objectScan) itemEnds() bool {
	if s.list == 2 && !s.article {
		s.list = 0
		return false
	}
	return true
}

// end is scan as peekUntil asks it: how many bytes of head end the first object, or 0.
func (s *objectScan) end(head []byte) int {
	if s.scan(head) {
		return s.i + 1
	}
	return 0
}

// scan reads the bytes of head past those already read and reports whether the first object
// ended in them, at head[s.i]. It ends at a byte that no JSON holds there as well: a control
// character in a string (a line cut short in it, the next line read on as the string's), or a
// value or key that follows no '{', '[', ',' or ':' (a line cut short after a value, the next
// line's object read on as the cut line's); and at a first byte that opens no object or list.
func (s *objectScan) scan(head []byte) bool {
	for ; s.i < len(head); s.i++ {
		c := head[s.i]
		if s.str {
			switch {
			case c < 0x20:
				s.fault = true
				return true
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.str, s.prev = false, '"'
				if s.depth == s.list && s.itemEnds() { // a string, not an object
					return true
				}
				if s.depth == 1 {
					s.key = string(head[s.strAt+1 : s.i])
				}
				if s.list == 2 && s.depth == 3 && s.keyOpen && string(head[s.strAt+1:s.i]) == "paragraphs" {
					s.article = true
				}
			}
			continue
		}
		if isSpace(c) {
			continue
		}
		afterColon, prev := s.colon, s.prev
		s.colon, s.prev = false, c
		if s.depth == 0 && c != '{' && c != '[' ||
			s.depth > 0 && (c == '{' || c == '[' || c == '"') && !strings.ContainsRune("{[,:", rune(prev)) {
			s.fault = true
			return true
		}
		switch c {
		case '"':
			s.str, s.strAt, s.keyOpen = true, s.i, prev == '{' || prev == ','
		case ':':
			s.colon = s.depth == 1
		case '{', '[':
			switch {
			case s.depth == 0 && c == '[':
				s.list = 1
			case s.depth == s.list && c != '{' && s.itemEnds(): // a list, not an object
				return true
			case s.depth == 1 && s.list == 0 && s.data && afterColon && c == '[' && s.key == "data":
				s.list = 2
			}
			s.depth++
		case '}', ']':
			if s.depth--; s.depth <= s.list && s.itemEnds() { // the item, or the list, ended
				return true
			}
		default: // a number, true, false or null: no object where it is the first item
			if s.depth == s.list && s.itemEnds() {
				return true
			}
		}
	}
	return false
}

// isSpace reports whether c is a blank of JSON text.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
