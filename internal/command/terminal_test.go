package command

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestMessagesOverProgressBar: on a terminal, a message written while the bar is drawn starts
// on an erased line, not after the bar; the bar itself is drawn on the terminal file, and every
// line of a message written in pieces gets one erase at its start only.
func TestMessagesOverProgressBar(t *testing.T) {
	tty, shown := openTerminal(t)
	m := &messages{f: tty}
	if l, ok := barWriter(m).(*barLine); !ok || l.f != tty {
		t.Errorf("barWriter(messages) = %v, want the terminal file's line", barWriter(m))
	}
	bar := Progress(m, nil, nil)
	if bar == nil {
		t.Fatal("Progress(messages on a terminal) = nil, want a bar")
	}
	bar.Add(3) //nolint:errcheck // drawn at once: nothing was drawn before
	fmt.Fprintf(m, "qa-x: warning: one\n")
	fmt.Fprint(m, "qa-x: two, ")
	fmt.Fprint(m, "in pieces\n")
	// Ended as a command ends it: a bar of unknown length redraws itself every 100 ms until it
	// is finished, which would go on writing to the terminal after it is closed.
	EndBar(m, bar)
	closeTerminal(m)
	got := shown()
	want := clearLine + "qa-x: warning: one\r\n" + clearLine + "qa-x: two, in pieces\r\n"
	drawn, _, _ := strings.Cut(got, "qa-x")
	_, after, _ := strings.Cut(got, want)
	if !strings.HasPrefix(got, "\r|") || !strings.HasSuffix(drawn, clearLine) || !strings.Contains(got, want) ||
		!strings.HasSuffix(after, clearLine) || strings.Contains(after, "qa-x") {
		t.Errorf("the terminal shows %q, want the bar, then %q, then the bar ended and erased", got, want)
	}
}

// TestMessagesNotOnATerminal: Stderr is os.Stderr itself when that is no terminal (as under go
// test), so logs and pipes get the messages byte for byte.
func TestMessagesNotOnATerminal(t *testing.T) {
	if terminal(Stderr()) {
		t.Skip("stderr is a terminal")
	}
	if _, ok := Stderr().(*messages); ok {
		t.Error("Stderr() wraps a stderr that is no terminal")
	}
}

// TestEndBarLeavesNoEmptyLine: on a terminal, a finished bar's line is erased and the message
// after it (a summary, the shell's prompt) starts there; a newline written through messages
// erased the bar first and left an empty line above the summary, one for each stage of a pipeline.
func TestEndBarLeavesNoEmptyLine(t *testing.T) {
	file := t.TempDir() + "/in.jsonl"
	if err := os.WriteFile(file, []byte("{}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		end  func(m *messages)
	}{
		{"RecordProgress", func(m *messages) {
			p := NewRecordProgress(m, nil, "qa-x", []string{file}, false, nil)
			p.Add()
			p.Add()
			p.Finish()
		}},
		{"ByteProgress", func(m *messages) {
			bar := ByteProgress(m, nil, []string{file})
			bar.Write([]byte("{}\n{}\n")) //nolint:errcheck // a terminal
			EndBar(m, bar)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tty, shown := openTerminal(t)
			m := &messages{f: tty}
			tc.end(m)
			fmt.Fprintf(m, "qa-x: summary\n")
			closeTerminal(m)
			got := shown()
			if !strings.Contains(got, "100% |") || !strings.HasSuffix(got, clearLine+"qa-x: summary\r\n") || strings.Count(got, "\n") != 1 {
				t.Errorf("the terminal shows %q, want the bar, erased, then the summary on its line alone, no empty line before it", got)
			}
		})
	}
}

// TestBarLineOneAtATime: the stages of a pipeline draw their bars on one terminal line, one at a
// time: a bar drawn while another process's holds the line is dropped (they flickered over each
// other), the next takes the line once the first's EndBar gives it up, and a stage whose records
// go to the terminal holds the line from the start, so that no bar is drawn among them. Each
// barLine here opens the terminal for its lock as a process of its own does.
func TestBarLineOneAtATime(t *testing.T) {
	tty, shown := openTerminal(t)
	first, second := &messages{f: tty}, &messages{f: tty}
	lock := openLock(tty)
	if lock == nil {
		t.Skip("the terminal cannot be opened for its lock here")
	}
	lock.Close()
	io.WriteString(barWriter(first), "[first 1]")   //nolint:errcheck // a terminal
	io.WriteString(barWriter(second), "[second 1]") //nolint:errcheck // dropped: the line is first's
	io.WriteString(barWriter(first), "[first 2]")   //nolint:errcheck // a terminal
	releaseBarLine(first)
	io.WriteString(barWriter(second), "[second 2]") //nolint:errcheck // the line is second's now
	io.WriteString(barWriter(first), "[first 3]")   //nolint:errcheck // dropped
	releaseBarLine(second)

	// A stage whose records go to the terminal holds the line: no bar is drawn, once it has it.
	held := holdBarLine(tty)
	third := &messages{f: tty}
	deadline := time.Now().Add(5 * time.Second)
	for third.line().own() {
		third.line().release()
		if time.Now().After(deadline) {
			t.Fatal("holdBarLine took no lock within 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	io.WriteString(barWriter(third), "[third]") //nolint:errcheck // dropped
	// The terminal reads its end once every file open on it is closed, the locks' included.
	for _, f := range []*os.File{first.bar.lock, second.bar.lock, third.bar.lock, held, tty} {
		f.Close()
	}
	if got, want := shown(), "[first 1][first 2][second 2]"; got != want {
		t.Errorf("the terminal shows %q, want %q", got, want)
	}
}

// closeTerminal closes m's terminal and the file its bar lock holds open on it, if any, so that
// the terminal's other end reads its end.
func closeTerminal(m *messages) {
	if m.bar != nil && m.bar.lock != nil {
		m.bar.lock.Close()
	}
	m.f.Close()
}

// openTerminal opens a pseudo-terminal, skipping the test where there is none, and returns its
// terminal end and shown, which returns what the terminal shows once every file open on that end
// is closed.
func openTerminal(t *testing.T) (tty *os.File, shown func() string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var b bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&b, ptmx) //nolint:errcheck // ends with EIO when the terminal end closes
		close(copied)
	}()
	return tty, func() string {
		<-copied
		return b.String()
	}
}

// TestBarFitsTheTerminal: a bar's line never reaches the terminal's right margin, however long
// its description: one that did wrapped, and each redraw (a carriage return goes back to the
// start of the last row only) left a copy of it on the screen above, several a second. The bar
// gives up its width first, so the count, rate and time left stay in view; the terminal's width
// is read at each redraw, so a narrowed window is followed.
func TestBarFitsTheTerminal(t *testing.T) {
	file := t.TempDir() + "/in.jsonl"
	if err := os.WriteFile(file, []byte("{}\n{}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		cols     uint16
		describe string
		want     string // in every bar line drawn
	}{
		{"bar narrowed", 60, "errors 0", "/3, "},
		{"line cut", 40, "tokens 1234567/123456  $12.3456  errors 12", "tokens 1234567/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tty, shown := openTerminal(t)
			if err := pty.Setsize(tty, &pty.Winsize{Rows: 24, Cols: tc.cols}); err != nil {
				t.Skip("the terminal's size cannot be set here:", err)
			}
			m := &messages{f: tty}
			p := NewRecordProgress(m, nil, "qa-x", []string{file}, false, func() string { return tc.describe })
			for range 3 {
				p.Add()
			}
			p.Finish()
			closeTerminal(m)
			got := shown()
			drawn := 0
			for _, line := range strings.FieldsFunc(got, func(r rune) bool { return r == '\r' || r == '\n' }) {
				if strings.Contains(line, "\x1b") {
					continue
				}
				if w := len([]rune(line)); w >= int(tc.cols) {
					t.Errorf("a line %d columns wide on a terminal of %d: %q", w, tc.cols, line)
				}
				if strings.TrimSpace(line) != "" {
					drawn++
					if !strings.Contains(line, tc.want) {
						t.Errorf("a bar line %q, want %q in it", line, tc.want)
					}
				}
			}
			if drawn == 0 {
				t.Errorf("the terminal shows %q, no bar", got)
			}
		})
	}
}

// TestFitLine: a bar's line too wide for the terminal loses bar cells first, in proportion to
// those filled, then its end; a line that fits, or holds an escape sequence, is kept.
func TestFitLine(t *testing.T) {
	for _, tc := range []struct {
		line  string
		width int
		want  string
	}{
		{"e 50% |██  | (2/4)", 20, "e 50% |██  | (2/4)"},
		{"e 50% |██  | (2/4)", 16, "e 50% |█ | (2/4)"},
		{"e 50% |██  | (2/4)", 14, "e 50% || (2/4)"},
		{"e 50% |██  | (2/4)", 10, "e 50% || ("},
		{"- errors 0 (3/-, 1 rec/s) [1s]", 12, "- errors 0 ("},
		{"      ", 3, "   "},
		{"\x1b[Kqa-x: a long message", 5, "\x1b[Kqa-x: a long message"},
		{"错误 50% |█| (1/2)", 8, "错误 50%"},
	} {
		if got := fitLine(tc.line, tc.width); got != tc.want {
			t.Errorf("fitLine(%q, %d) = %q, want %q", tc.line, tc.width, got, tc.want)
		}
	}
}
