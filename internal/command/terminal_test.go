package command

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// TestMessagesOverProgressBar: on a terminal, a message written while the bar is drawn starts
// on an erased line, not after the bar; the bar itself is drawn on the terminal file, and every
// line of a message written in pieces gets one erase at its start only.
func TestMessagesOverProgressBar(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	defer ptmx.Close()
	var shown bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&shown, ptmx) //nolint:errcheck // ends with EIO when tty closes
		close(copied)
	}()
	m := &messages{f: tty}
	if barWriter(m) != io.Writer(tty) {
		t.Errorf("barWriter(messages) = %v, want the terminal file", barWriter(m))
	}
	bar := Progress(m, nil, nil)
	if bar == nil {
		t.Fatal("Progress(messages on a terminal) = nil, want a bar")
	}
	bar.Add(3) //nolint:errcheck // drawn at once: nothing was drawn before
	fmt.Fprintf(m, "qa-x: warning: one\n")
	fmt.Fprint(m, "qa-x: two, ")
	fmt.Fprint(m, "in pieces\n")
	tty.Close()
	<-copied
	got := shown.String()
	want := clearLine + "qa-x: warning: one\r\n" + clearLine + "qa-x: two, in pieces\r\n"
	drawn, _, _ := strings.Cut(got, "qa-x")
	if !strings.HasPrefix(got, "\r|") || !strings.HasSuffix(drawn, clearLine) || !strings.HasSuffix(got, want) {
		t.Errorf("the terminal shows %q, want the bar, then %q", got, want)
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
