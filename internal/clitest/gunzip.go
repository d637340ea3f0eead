package clitest

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// Gunzip returns the text of the gzip-compressed file at path, failing the test when it cannot
// be read or is not gzip.
func Gunzip(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not gzip-compressed: %v", path, err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return text
}
