package metric

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"testing/synctest"
)

// TestAheadReader: what an aheadReader gives is its source's bytes, in order, whatever their
// length against the chunks', then the source's error. It runs in a bubble, where a reader left
// waiting for a chunk fails the test at once.
func TestAheadReader(t *testing.T) { synctest.Test(t, testAheadReader) }

func testAheadReader(t *testing.T) {
	const size = 7
	for _, n := range []int{0, 1, size - 1, size, size + 1, 2 * size, 3*size + 5, 1000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte('a' + i%26)
		}
		for _, ahead := range []int{1, 2} {
			a := newAheadReader(bytes.NewReader(data), size, ahead)
			if err := iotest.TestReader(a, data); err != nil {
				t.Errorf("%d bytes, %d chunks ahead: %v", n, ahead, err)
			}
			a.Close()
		}
		// The source's bytes are given in reads of one byte too.
		a := newAheadReader(bytes.NewReader(data), size, 2)
		got, err := io.ReadAll(iotest.OneByteReader(a))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d bytes one at a time: got %q, %v, want %q", n, got, err, data)
		}
		a.Close()
	}

	// The source's own errors come through as they are, io.ErrUnexpectedEOF too (a cut gzip
	// stream), after the bytes before them.
	cut := newAheadReader(io.MultiReader(strings.NewReader("0123456789"), iotest.ErrReader(io.ErrUnexpectedEOF)), size, 2)
	if got, err := io.ReadAll(cut); string(got) != "0123456789" || err != io.ErrUnexpectedEOF {
		t.Errorf("source cut after 10 bytes: got %q, %v, want its 10 bytes, then %v", got, err, io.ErrUnexpectedEOF)
	}
	cut.Close()

	bad := errors.New("bad")
	a := newAheadReader(io.MultiReader(strings.NewReader("0123456789"), iotest.ErrReader(bad)), size, 2)
	got, err := io.ReadAll(a)
	if string(got) != "0123456789" || err != bad {
		t.Errorf("source failing after 10 bytes: got %q, %v, want its 10 bytes, then %v", got, err, bad)
	}
	if n, err := a.Read(make([]byte, 4)); n != 0 || err != bad {
		t.Errorf("Read after the error = %d, %v, want 0, %v again", n, err, bad)
	}
	a.Close()
}

// TestAheadReaderClose: Close ends the reading goroutine whether it waits for a chunk to read into or
// for its reader to take one, so a decoding that stops early leaks nothing; the bubble fails the
// test if the goroutine is left blocked.
func TestAheadReaderClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		endless := iotest.OneByteReader(repeatReader('x'))
		a := newAheadReader(endless, 16, 2)
		buf := make([]byte, 20)
		if _, err := io.ReadFull(a, buf); err != nil || string(buf) != strings.Repeat("x", 20) {
			t.Fatalf("ReadFull = %q, %v", buf, err)
		}
		synctest.Wait() // the goroutine is blocked, its chunks ahead full
		a.Close()
		if n, err := a.Read(buf); n != 0 || err != io.ErrClosedPipe {
			t.Errorf("Read after Close = %d, %v, want 0, %v", n, err, io.ErrClosedPipe)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		a := newAheadReader(repeatReader('y'), 16, 2)
		synctest.Wait() // nothing read: the goroutine holds a third chunk it cannot hand over
		a.Close()
	})
}

// repeatReader is an endless source of one byte.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
