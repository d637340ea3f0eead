package command_test

import (
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// TestProgressOnTerminal draws both bars on a pseudo-terminal: Progress counts records against
// the files' non-blank lines, ByteProgress bytes against the files' sizes.
func TestProgressOnTerminal(t *testing.T) {
	file := clitest.TempFile(t, "in.jsonl", []byte("{}\n\n{}\n{}\n"))
	tty, done := clitest.Terminal(t)
	bar := command.Progress(tty, []string{file})
	if bar == nil {
		t.Fatal("Progress on a terminal = nil, want a bar")
	}
	bar.Add(3) //nolint:errcheck // a terminal
	bar.Finish()
	bytes := command.ByteProgress(tty, []string{file})
	if bytes == nil {
		t.Fatal("ByteProgress on a terminal = nil, want a bar")
	}
	bytes.Write(make([]byte, 10)) //nolint:errcheck
	bytes.Finish()
	got := done()
	for _, want := range []string{"100% |", "(3/3, ", " rec/s)", "B/s)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the terminal shows %q, want %q in it", got, want)
		}
	}
}
