package command_test

import (
	"regexp"
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

// TestRecordProgressLines: with stderr no terminal, --progress reports a line every
// ProgressEvery records, with the rate, the time so far and what the bar would show, and nothing
// between; without it there is nothing to report (nil, whose methods do nothing).
func TestRecordProgressLines(t *testing.T) {
	var stderr strings.Builder
	p := command.NewRecordProgress(&stderr, "qa-x", nil, true, func() string { return "errors 0" })
	if p == nil {
		t.Fatal("NewRecordProgress(lines) = nil, want a progress")
	}
	finished := p.Finished()
	for range 2*command.ProgressEvery + 99 {
		finished(nil)
	}
	p.Finish()
	want := regexp.MustCompile(`^qa-x: 100 records \([0-9]+\.[0-9]/s, 0s\): errors 0\nqa-x: 200 records \([0-9]+\.[0-9]/s, 0s\): errors 0\n$`)
	if got := stderr.String(); !want.MatchString(got) {
		t.Errorf("stderr after 299 records = %q, want it to match %s", got, want)
	}

	stderr.Reset()
	p = command.NewRecordProgress(&stderr, "qa-x", nil, false, nil)
	if p != nil {
		t.Fatalf("NewRecordProgress(no terminal, no lines) = %v, want nil", p)
	}
	if p.Finished() != nil {
		t.Error("a nil progress's Finished() is a func, want nil (the pipeline calls nothing)")
	}
	p.Add()
	p.Finish()
	if stderr.Len() != 0 {
		t.Errorf("stderr = %q, want nothing", stderr.String())
	}
}

// TestRecordProgressBar: on a terminal the bar is drawn, with --progress or without, showing
// the description and the count of records; the lines are for stderr that is no terminal.
func TestRecordProgressBar(t *testing.T) {
	file := clitest.TempFile(t, "in.jsonl", []byte("{}\n{}\n{}\n"))
	tty, done := clitest.Terminal(t)
	p := command.NewRecordProgress(tty, "qa-x", []string{file}, true, func() string { return "errors 0" })
	for range 3 {
		p.Add()
	}
	p.Finish()
	got := done()
	for _, want := range []string{"errors 0", "100% |", "(3/3, "} {
		if !strings.Contains(got, want) {
			t.Errorf("the terminal shows %q, want %q in it", got, want)
		}
	}
	if strings.Contains(got, "qa-x: ") {
		t.Errorf("the terminal shows %q, want the bar alone, no progress lines", got)
	}
}
