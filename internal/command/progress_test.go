package command_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// TestProgressOnTerminal draws both bars on a pseudo-terminal: Progress counts records against
// the files' non-blank lines, ByteProgress bytes against the files' sizes.
func TestProgressOnTerminal(t *testing.T) {
	file := clitest.TempFile(t, "in.jsonl", []byte("{}\n\n{}\n{}\n"))
	tty, done := clitest.Terminal(t)
	bar := command.Progress(tty, nil, []string{file})
	if bar == nil {
		t.Fatal("Progress on a terminal = nil, want a bar")
	}
	bar.Add(3) //nolint:errcheck // a terminal
	bar.Finish()
	bytes := command.ByteProgress(tty, nil, []string{file})
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

// TestBarEndedPartway: a run interrupted partway ends its bar where it stood: the line is erased
// without the bar first drawn complete, which showed "100%" (and a count of all the records or
// bytes) for a moment, as if the run had done them all. The bar of unknown length (stdin) stops
// redrawing itself, too.
func TestBarEndedPartway(t *testing.T) {
	file := clitest.TempFile(t, "in.jsonl", []byte("{}\n{}\n{}\n"))
	for _, tc := range []struct {
		name      string
		end       func(tty *os.File)
		drawn     string   // in the bar drawn before the interruption
		completed []string // in a bar drawn complete
	}{
		{"records", func(tty *os.File) {
			p := command.NewRecordProgress(tty, nil, "qa-x", []string{file}, false, nil)
			p.Add()
			p.Finish()
		}, "(1/3, ", []string{"100%", "(3/3, "}},
		{"bytes", func(tty *os.File) {
			bar := command.ByteProgress(tty, nil, []string{file})
			bar.Write([]byte("{}\n")) //nolint:errcheck // a terminal
			command.EndBar(tty, bar)
		}, "( 3/ 9 B, ", []string{"100%", "( 9/ 9 B, "}},
		{"stdin", func(tty *os.File) {
			bar := command.ByteProgress(tty, nil, []string{"-"})
			bar.Write([]byte("{}\n")) //nolint:errcheck // a terminal
			command.EndBar(tty, bar)
			time.Sleep(300 * time.Millisecond) // a bar that still redrew itself would, every 100 ms
		}, "( 3 B, ", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tty, done := clitest.Terminal(t)
			tc.end(tty)
			got := done()
			i := strings.LastIndex(got, tc.drawn)
			if i < 0 {
				t.Fatalf("the terminal shows %q, want the bar drawn partway, with %q", got, tc.drawn)
			}
			for _, c := range tc.completed {
				if strings.Contains(got, c) {
					t.Errorf("the terminal shows %q, want no bar drawn complete (%q) after the interruption", got, c)
				}
			}
			// After the last frame drawn partway, only erasures: spaces, carriage returns and
			// the erase of the line.
			after := got[i:]
			after = after[strings.IndexByte(after, '\r')+1:]
			if rest := strings.NewReplacer("\r", "", " ", "", "\x1b[K", "").Replace(after); rest != "" || !strings.HasSuffix(got, "\r\x1b[K") {
				t.Errorf("the terminal shows %q, want only erasures after the bar drawn partway, the line erased last, not %q", got, rest)
			}
		})
	}
}

// TestRecordProgressLines: with stderr no terminal, --progress reports a line every
// ProgressEvery records, with the rate, the time so far and what the bar would show, and nothing
// between; without it there is nothing to report (nil, whose methods do nothing).
func TestRecordProgressLines(t *testing.T) {
	var stderr strings.Builder
	p := command.NewRecordProgress(&stderr, nil, "qa-x", nil, true, func() string { return "errors 0" })
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
	p = command.NewRecordProgress(&stderr, nil, "qa-x", nil, false, nil)
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
	p := command.NewRecordProgress(tty, nil, "qa-x", []string{file}, true, func() string { return "errors 0" })
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

// TestNoBarOverRecordsOnTerminal: with stdout a terminal too, the records themselves show the
// progress, and a bar redrawn among them would break their lines: no bar is drawn, and
// --progress's lines go to stderr as they do when it is no terminal.
func TestNoBarOverRecordsOnTerminal(t *testing.T) {
	file := clitest.TempFile(t, "in.jsonl", []byte("{}\n{}\n"))
	stderr, doneErr := clitest.Terminal(t)
	stdout, doneOut := clitest.Terminal(t)
	if bar := command.Progress(stderr, stdout, []string{file}); bar != nil {
		t.Error("Progress with stdout a terminal = a bar, want none")
	}
	if bar := command.ByteProgress(stderr, stdout, []string{file}); bar != nil {
		t.Error("ByteProgress with stdout a terminal = a bar, want none")
	}
	if p := command.NewRecordProgress(stderr, stdout, "qa-x", []string{file}, false, nil); p != nil {
		t.Errorf("NewRecordProgress(stdout a terminal, no lines) = %v, want nil", p)
	}
	p := command.NewRecordProgress(stderr, stdout, "qa-x", []string{file}, true, nil)
	for range command.ProgressEvery {
		p.Add()
	}
	p.Finish()
	if got := doneErr(); !strings.Contains(got, fmt.Sprintf("qa-x: %d records", command.ProgressEvery)) || strings.Contains(got, "|") {
		t.Errorf("stderr shows %q, want the line of %d records and no bar", got, command.ProgressEvery)
	}
	if got := doneOut(); got != "" {
		t.Errorf("stdout shows %q, want nothing", got)
	}
}

// TestByteProgressShowsBytesRead: the bytes bar says how many bytes were read, of the files'
// sizes, and on stdin, whose size is unknown, the bytes read so far: it showed a rate alone
// there, so a long stream's bar told nothing of how much had been read.
func TestByteProgressShowsBytesRead(t *testing.T) {
	file := clitest.TempFile(t, "in.jsonl", make([]byte, 2000))
	for _, tc := range []struct {
		name   string
		inputs []string
		want   string
	}{
		{"file", []string{file}, "(1.5/2.0 kB, "},
		{"stdin", []string{"-"}, "(1.5 kB, "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tty, done := clitest.Terminal(t)
			bar := command.ByteProgress(tty, nil, tc.inputs)
			bar.Write(make([]byte, 1500)) //nolint:errcheck // a terminal
			command.EndBar(tty, bar)
			if got := done(); !strings.Contains(got, tc.want) {
				t.Errorf("the terminal shows %q, want %q in it", got, tc.want)
			}
		})
	}
}
