package clitest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/qapipe/qapipe/internal/command"
)

// Terminal opens a pseudo-terminal for a command's stderr, so that a test sees what a person at
// a terminal sees (progress bars are drawn only there). Call done after the run: it closes the
// terminal and returns everything written to it, with the terminal's line endings (\r\n).
// The test is skipped where no pseudo-terminal can be opened.
func Terminal(t *testing.T) (tty *os.File, done func() string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() {
		// Read until the terminal side is closed (EIO on Linux): a full buffer would block
		// the writer.
		io.Copy(&out, ptmx) //nolint:errcheck // ends with EIO
		close(copied)
	}()
	closed := false
	t.Cleanup(func() {
		if !closed {
			tty.Close()
			<-copied
		}
		ptmx.Close()
	})
	return tty, func() string {
		if !closed {
			closed = true
			tty.Close()
			<-copied
		}
		return out.String()
	}
}

// ProgressBar runs the command twice with args (no stdin): with stderr a buffer, then a
// pseudo-terminal. The records on stdout must be the same; the terminal must show a finished bar
// and each of want; the buffer must show no bar.
func ProgressBar(t *testing.T, run command.RunFunc, args []string, want ...string) {
	t.Helper()
	var plain, logged bytes.Buffer
	if err := run(context.Background(), args, nil, &plain, &logged); err != nil {
		t.Fatalf("%s without a terminal: %v; stderr %s", args[0], err, logged.String())
	}
	tty, done := Terminal(t)
	var out bytes.Buffer
	err := run(context.Background(), args, nil, &out, tty)
	shown := done()
	if err != nil || out.String() != plain.String() {
		t.Errorf("%s on a terminal = %v, %d bytes of records; want the %d bytes of a run without", args[0], err, out.Len(), plain.Len())
	}
	for _, w := range append([]string{"100% |"}, want...) {
		if !strings.Contains(shown, w) {
			t.Errorf("%s: the terminal shows %q, want %q in it", args[0], shown, w)
		}
	}
	if strings.Contains(logged.String(), "%") {
		t.Errorf("%s: stderr that is no terminal shows %q, want no bar", args[0], logged.String())
	}
}

// TempFile writes content to a file of that name in a fresh temporary folder and returns its path.
func TempFile(t *testing.T, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
