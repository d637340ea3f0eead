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
	in, feed := io.Pipe()
	stdout := &notifyBuffer{changed: make(chan struct{}, 1)}
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() { done <- run(context.Background(), args, in, stdout, &stderr) }()
	for i, l := range lines {
		if _, err := io.WriteString(feed, l+"\n"); err != nil {
			t.Fatalf("writing line %d: %v", i+1, err)
		}
		for strings.Count(stdout.String(), "\n") < i+1 {
			Receive(t, stdout.changed, fmt.Sprintf("record on stdout for input line %d before the next was given", i+1))
		}
	}
	feed.Close()
	if err := Receive(t, done, "end of the run"); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	return stdout.String()
}
