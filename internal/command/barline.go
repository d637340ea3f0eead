package command

import (
	"bytes"
	"os"
	"strings"
	"sync"

	"github.com/rivo/uniseg"
	"golang.org/x/term"
)

// barLine is what a progress bar draws on: the terminal, while this process holds the terminal's
// bar lock (an exclusive flock on the terminal device, opened afresh so that each process has a
// lock of its own). The stages of a pipeline share one terminal line on stderr, and each would
// draw its bar there, over the others', flickering; with the lock one draws at a time: the first
// to ask, until it finishes its bar (EndBar releases the lock), then the next that asks. A write
// made without the lock is dropped, as the bar redraws whole at its next update. A stage whose
// records go to the terminal takes the lock for its whole run (holdBarLine), so that no stage
// before it draws a bar among its records. Where no lock can be had (no such device, or a system
// without flock) every bar draws, as before.
type barLine struct {
	f    *os.File // the terminal drawn on
	once sync.Once
	mu   sync.Mutex
	lock *os.File // the terminal opened for the lock; nil when it could not be
	held bool
}

func (b *barLine) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.own() {
		return len(p), nil
	}
	if cols, _, err := term.GetSize(int(b.f.Fd())); err == nil && cols > 1 {
		if _, err := b.f.Write(fitLines(p, cols-1)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return b.f.Write(p)
}

// fitLines fits each line a bar draws in p (the text between carriage returns and line feeds)
// to width columns, for a terminal of width+1: a line that reached the right margin wrapped, and
// each redraw, which returns to the start of the last row only, left a copy of it above. The
// progress library narrows its bar to the terminal itself only when it writes to the terminal's
// file, not through barLine. The bar between "% |" and "|" gives up its cells first, so that the
// count, rate and time left stay in view; what is still too wide is cut at its end. A line that
// holds an escape sequence (the erase of EndBar's clearLine) is left as it is.
func fitLines(p []byte, width int) []byte {
	var out bytes.Buffer
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			i = len(p)
		}
		out.WriteString(fitLine(string(p[:i]), width))
		if i < len(p) {
			out.WriteByte(p[i])
			i++
		}
		p = p[i:]
	}
	return out.Bytes()
}

// fitLine fits one line of a bar to width columns (fitLines).
func fitLine(line string, width int) string {
	over := uniseg.StringWidth(line) - width
	if over <= 0 || strings.Contains(line, "\x1b") {
		return line
	}
	if i := strings.Index(line, "% |"); i >= 0 {
		start := i + len("% |")
		if n := strings.IndexByte(line[start:], '|'); n > 0 && strings.Trim(line[start:start+n], "█ ") == "" {
			cells := []rune(line[start : start+n])
			filled := strings.Count(line[start:start+n], "█")
			keep := max(len(cells)-over, 0)
			filled = filled * keep / len(cells)
			bar := strings.Repeat("█", filled) + strings.Repeat(" ", keep-filled)
			line = line[:start] + bar + line[start+n:]
			over -= len(cells) - keep
		}
	}
	if over <= 0 {
		return line
	}
	var cut strings.Builder
	w, state := 0, -1
	for rest := line; rest != ""; {
		var cluster string
		var cw int
		cluster, rest, cw, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if w+cw > width {
			break
		}
		cut.WriteString(cluster)
		w += cw
	}
	return cut.String()
}

// own reports whether this process may draw: it holds the lock, or takes it now, or there is no
// lock to take. b.mu is held.
func (b *barLine) own() bool {
	b.once.Do(func() { b.lock = openLock(b.f) })
	if b.held || b.lock == nil {
		return true
	}
	b.held = tryLock(b.lock)
	return b.held
}

// release gives the lock up, for the next stage's bar; the terminal line is its to draw on.
func (b *barLine) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held {
		unlock(b.lock)
		b.held = false
	}
}

// holdBarLine takes the bar lock of the terminal f for the rest of the process, waiting for it
// on a goroutine of its own: the records this process writes go to that terminal, and a bar that
// a stage before it draws would break their lines. It returns the file it locks, or nil.
func holdBarLine(f *os.File) *os.File {
	lock := openLock(f)
	if lock != nil {
		go waitLock(int(lock.Fd())) // the descriptor taken here, not read from the file on the goroutine
	}
	return lock
}
