package command

import (
	"io"
	"os"
	"sync"

	"golang.org/x/term"
)

// clearLine returns the cursor to the start of its line and erases the line.
const clearLine = "\r\x1b[K"

// messages is stderr on a terminal, as the commands write their messages to it. A progress bar
// redraws its line with a carriage return and leaves the cursor at the bar's end, so a message
// written then would land after the bar; here each message line starts by erasing the line
// instead, and the bar redraws below it. The bar itself writes to the file (barWriter, through
// barLine, which fits its lines to the terminal's width).
//
// Note: the progress library can hold messages back and print them between redraws
// (Bprintf), but only those written through it, and every package writes its messages to the
// stderr it was given.
type messages struct {
	f    *os.File
	mu   sync.Mutex
	mid  bool // the last write did not end its line
	once sync.Once
	bar  *barLine
}

// Stderr returns the writer for a command's messages: os.Stderr, wrapped as messages when it is
// a terminal. When stdout is that terminal too, the records written to it are kept from the bars
// of the stages before this one (holdBarLine).
func Stderr() io.Writer {
	if terminal(os.Stderr) {
		if terminal(os.Stdout) {
			holdBarLine(os.Stderr)
		}
		return &messages{f: os.Stderr}
	}
	return os.Stderr
}

// line returns the barLine of m's terminal, one for the process's bars.
func (m *messages) line() *barLine {
	m.once.Do(func() { m.bar = &barLine{f: m.f} })
	return m.bar
}

func (m *messages) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.mid {
		if _, err := io.WriteString(m.f, clearLine); err != nil {
			return 0, err
		}
	}
	n, err := m.f.Write(p)
	m.mid = n == 0 || p[n-1] != '\n'
	return n, err
}

// terminal reports whether w is a terminal.
func terminal(w io.Writer) bool {
	f := fileOf(w)
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// barWriter returns what a progress bar over stderr writes to: the terminal itself, while this
// process holds the terminal line (barLine).
func barWriter(stderr io.Writer) io.Writer {
	if m, ok := stderr.(*messages); ok {
		return m.line()
	}
	return stderr
}

// releaseBarLine gives up the terminal line that stderr's bars drew on, for another stage's bar.
func releaseBarLine(stderr io.Writer) {
	if m, ok := stderr.(*messages); ok {
		m.line().release()
	}
}
