package clitest

import (
	"io"
	"strings"
	"testing"
)

// TestThenAtEOF: the reader gives r's bytes, then calls f once the input is read, and not before.
func TestThenAtEOF(t *testing.T) {
	calls := 0
	r := ThenAtEOF(strings.NewReader("abc"), func() { calls++ })
	buf := make([]byte, 3)
	if n, err := io.ReadFull(r, buf); n != 3 || err != nil || string(buf) != "abc" || calls != 0 {
		t.Fatalf("first read: %d %v %q, %d calls; want 3 <nil> \"abc\", 0 calls", n, err, buf, calls)
	}
	if n, err := r.Read(buf); n != 0 || err != io.EOF || calls != 1 {
		t.Fatalf("read at the end: %d %v, %d calls; want 0 EOF, 1 call", n, err, calls)
	}
}
