package clitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// progressLine matches a progress line of command.RecordProgress, "prog: N records (R/s, T): …",
// its start ("prog: N records") the submatch.
var progressLine = regexp.MustCompile(`^(\S+: [0-9]+ records) \([0-9]+\.[0-9]/s, [0-9hms.]+\): .*\n$`)

// ProgressLines runs the command three times with args (args[0] the program name, the input
// files last) and stderr no terminal: with --progress, with the flag's environment variable env
// set to true, and with neither. The first two must report "PROG: N records" every
// command.ProgressEvery of the n records in the input, and the third nothing; the records on
// stdout must be the same each time.
func ProgressLines(t *testing.T, run command.RunFunc, args []string, env string, n int) {
	t.Helper()
	var want []string
	for k := command.ProgressEvery; k <= n; k += command.ProgressEvery {
		want = append(want, fmt.Sprintf("%s: %d records", args[0], k))
	}
	withFlag := append([]string{args[0], "--progress"}, args[1:]...)
	var records string
	for _, tc := range []struct {
		how  string
		args []string
		env  string
		want []string
	}{{"--progress", withFlag, "", want}, {env + "=true", args, "true", want}, {"neither", args, "", nil}} {
		t.Setenv(env, tc.env)
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), tc.args, nil, &stdout, &stderr); err != nil {
			t.Fatalf("%s with %s: %v; stderr %s", args[0], tc.how, err, stderr.String())
		}
		var got []string
		for line := range strings.Lines(stderr.String()) {
			if m := progressLine.FindStringSubmatch(line); m != nil && strings.HasPrefix(line, args[0]+": ") {
				got = append(got, m[1])
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s with %s: stderr reports %q, want %q; stderr:\n%s", args[0], tc.how, got, tc.want, stderr.String())
		}
		if records == "" {
			records = stdout.String()
		} else if stdout.String() != records {
			t.Errorf("%s with %s wrote other records than with --progress", args[0], tc.how)
		}
	}
}
