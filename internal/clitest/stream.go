package clitest

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// RecordsAsTheyCome runs run with args (the program name first) on a stdin that gives the lines
// one at a time, each only once the records of the lines before are on stdout: a stage must not
// hold a finished record in its buffer while it waits for more input, or a reader of its output
// as it grows (tail -f, the next stage of a pipe) would see nothing until the buffer filled. The
// run must end without error once stdin ends; it returns the output.
func RecordsAsTheyCome(t *testing.T, run command.RunFunc, args []string, lines []string) string {
	t.Helper()
	chunks, records := make([]string, len(lines)), make([]int, len(lines))
	for i, l := range lines {
		chunks[i], records[i] = l+"\n", i+1
	}
	return ChunksAsTheyCome(t, run, args, chunks, records)
}

// ChunksAsTheyCome is RecordsAsTheyCome for input that is not one record a line, such as a JSON
// document written on one line: it gives the chunks one at a time, each only once stdout holds
// records[i] lines, the records that chunks[:i+1] make whole.
func ChunksAsTheyCome(t *testing.T, run command.RunFunc, args []string, chunks []string, records []int) string {
	t.Helper()
	in, feed := io.Pipe()
	return chunksThrough(t, run, args, in, feed, chunks, records)
}

// chunksThrough is ChunksAsTheyCome with its run given stdin, and the chunks written to feed,
// which the run reads: stdin itself, or a file args name.
func chunksThrough(t *testing.T, run command.RunFunc, args []string, stdin io.Reader, feed io.WriteCloser, chunks []string, records []int) string {
	t.Helper()
	stdout := &notifyBuffer{changed: make(chan struct{}, 1)}
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() { done <- run(context.Background(), args, stdin, stdout, &stderr) }()
	for i, c := range chunks {
		wrote := make(chan error, 1)
		go func() { _, err := io.WriteString(feed, c); wrote <- err }()
		select {
		case err := <-wrote:
			if err != nil {
				t.Fatalf("writing chunk %d %.40q: %v", i+1, c, err)
			}
		case err := <-done: // it reads no more
			feed.Close()
			t.Fatalf("run ended with chunk %d %.40q not read: %v\nstderr:\n%s", i+1, c, err, stderr.String())
		}
		for strings.Count(stdout.String(), "\n") < records[i] {
			Receive(t, stdout.changed, fmt.Sprintf("%d records on stdout after input chunk %d %.40q, before the next was given", records[i], i+1, c))
		}
	}
	feed.Close()
	if err := Receive(t, done, "end of the run"); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	return stdout.String()
}
