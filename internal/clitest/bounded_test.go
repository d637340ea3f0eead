package clitest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"testing"
)

// copyLines is a streaming stage: each line is written as it is read.
func copyLines(_ context.Context, _ []string, stdin io.Reader, stdout, _ io.Writer) error {
	_, err := io.Copy(stdout, stdin)
	return err
}

// hoardLines writes nothing until it has read every line, as a stage that sorts or buffers would.
func hoardLines(_ context.Context, _ []string, stdin io.Reader, stdout, _ io.Writer) error {
	var lines [][]byte
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	for _, l := range lines {
		stdout.Write(append(l, '\n'))
	}
	return sc.Err()
}

// TestBoundedMeasure: the measurement tells a streaming stage from one that keeps every record.
func TestBoundedMeasure(t *testing.T) {
	line := bytes.Repeat([]byte("x"), 2000)
	s := Stream{Args: []string{"stage"}, N: 10000, Line: func(int) []byte { return line }}
	s.Run = copyLines
	m, err := s.measure()
	if err != nil {
		t.Fatal(err)
	}
	if m.lines != s.N || m.growth() > 1<<20 {
		t.Errorf("streaming copy: %d lines, heap growth %d kB; want %d lines, < 1 MB", m.lines, m.growth()>>10, s.N)
	}
	s.Run = hoardLines
	m, err = s.measure()
	if err != nil {
		t.Fatal(err)
	}
	// 8,000 lines of 2 kB are held between the two measurements.
	if m.lines != s.N || m.growth() < 12<<20 {
		t.Errorf("hoarding copy: %d lines, heap growth %d kB; want %d lines, > 12 MB", m.lines, m.growth()>>10, s.N)
	}
}
