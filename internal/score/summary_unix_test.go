//go:build unix

package score

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// TestFailedRunKeepsSpecialSummary: a failed run leaves no summary file it made, so that make
// does not take an empty one for up to date, but removes only a regular file: a named pipe (as
// /dev/stdout, /dev/full or a device would be) given as --summary stays where it is. A regular
// file is still not left.
func TestFailedRunKeepsSpecialSummary(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "summary.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// The reader a pipe needs before a writer can open it; opened without blocking, so that the
	// test cannot hang whatever the run does.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(io.Discard, r)
	}()
	regular := filepath.Join(dir, "summary.json")
	bad := `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\nnot json\n"
	for _, path := range []string{fifo, regular} {
		var stdout, stderr strings.Builder
		err := Run(context.Background(), []string{"qa-score", "--strict", "--metrics", "em", "--summary", path},
			strings.NewReader(bad), &stdout, &stderr)
		if code := command.ExitCode(err); code != command.ExitFailure {
			t.Errorf("--summary %s: exit %d (%v), want 1 (--strict, a bad line)", path, code, err)
		}
		_, serr := os.Lstat(path)
		if path == fifo && serr != nil {
			t.Errorf("--summary %s: after the failed run: %v, want the named pipe kept", path, serr)
		}
		if path == regular && !os.IsNotExist(serr) {
			t.Errorf("--summary %s: after the failed run: %v, want the file removed", path, serr)
		}
	}
	r.Close()
	<-done
}

// TestBrokenStdoutRemovesSummary: when the reader of the records goes away (qa-score --summary
// s.json | head -1), the run leaves no summary file (nor the one it was writing), as a failed run does, and then
// ends with SIGPIPE as it did before: Go's default would end it at the failed write, leaving the
// file empty for make to take as up to date.
func TestBrokenStdoutRemovesSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.json")
	var in strings.Builder
	for range 2000 {
		in.WriteString(`{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\n")
	}
	p := clitest.StartReaderGone(t, "TestMainChild", []string{"--metrics", "em", "--summary", summary}, in.String())
	stderr := p.WaitSIGPIPE(t)
	if _, serr := os.Lstat(summary); !os.IsNotExist(serr) {
		t.Errorf("--summary %s after stdout's reader went away: %v, want the file removed", summary, serr)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("files after stdout's reader went away: %v, want none", names)
	}
	if len(stderr) > 0 {
		t.Errorf("stderr: %q, want nothing (a command whose reader goes away ends quietly)", stderr)
	}
}

// scoreTo runs qa-score with args over in, stdout and stderr going where the caller says.
func scoreTo(t *testing.T, in string, stdout, stderr io.Writer, args ...string) error {
	t.Helper()
	return Run(context.Background(), append([]string{"qa-score", "--metrics", "em", "--bootstrap", "0"}, args...),
		strings.NewReader(in), stdout, stderr)
}

// scoreOutputs runs qa-score with args over in in memory and returns its stdout and stderr.
func scoreOutputs(t *testing.T, in string, args ...string) (string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	err := scoreTo(t, in, &stdout, &stderr, args...)
	if code := command.ExitCode(err); code != command.ExitOK && code != command.ExitBadRecords {
		t.Fatalf("qa-score %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String()
}

// TestOutputsToNamedPipes: --summary and --mismatches write to named pipes as to files (mkfifo
// s; qa-score --summary s … & cat s), all of it, with exit 0.
func TestOutputsToNamedPipes(t *testing.T) {
	const in = `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\n" +
		`{"schema":1,"id":"b","question":"q","answers":["x"],"prediction":{"text":"y"}}` + "\n"
	records, _ := scoreOutputs(t, in)
	for _, format := range []string{"json", "table", "csv"} {
		summary, _ := scoreOutputs(t, in, "--summary", "-", "--format", format)
		dir := t.TempDir()
		summaryFIFO, mismatchesFIFO := filepath.Join(dir, "summary"), filepath.Join(dir, "mismatches")
		summaryGot, mismatchesGot := clitest.ReadFIFO(t, summaryFIFO), clitest.ReadFIFO(t, mismatchesFIFO)
		var stdout, stderr strings.Builder
		err := scoreTo(t, in, &stdout, &stderr, "--summary", summaryFIFO, "--format", format,
			"--mismatches", mismatchesFIFO, "--mismatch-metric", "em")
		if err != nil {
			t.Errorf("qa-score --summary FIFO --format %s --mismatches FIFO: %v; stderr:\n%s", format, err, stderr.String())
		}
		if stdout.String() != records {
			t.Errorf("--format %s: stdout:\n%s\nwant the records:\n%s", format, stdout.String(), records)
		}
		if got := summaryGot(); got != summary {
			t.Errorf("--format %s: the summary pipe carried:\n%s\nwant:\n%s", format, got, summary)
		}
		want := `{"id":"b","question":"q","gold":["x"],"prediction":"y","metric":"em","score":0}` + "\n"
		if got := mismatchesGot(); got != want {
			t.Errorf("--format %s: the mismatches pipe carried:\n%s\nwant:\n%s", format, got, want)
		}
	}
}

// TestOutputsIntoStreamFiles: --summary /dev/stdout with stdout redirected to a file (or the
// file's own name, or /dev/fd/1) puts the summary after the records, and --mismatches
// /dev/stderr with stderr redirected to a file puts them among the messages: opened afresh,
// the file was truncated and written from its start, and the summary overwrote the records,
// the mismatches the messages. A failed run leaves the file stdout writes to where it is.
func TestOutputsIntoStreamFiles(t *testing.T) {
	const good = `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\n" +
		`{"schema":1,"id":"b","question":"q","answers":["x"],"prediction":{"text":"y"}}` + "\n"
	const in = good + "not json\n"
	records, messages := scoreOutputs(t, in)
	summary, _ := scoreOutputs(t, in, "--summary", "-", "--format", "table")
	const mismatch = `{"id":"b","question":"q","gold":["x"],"prediction":"y","metric":"em","score":0}` + "\n"
	dir := t.TempDir()
	create := func(name string) *os.File {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	read := func(f *os.File) string {
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for i, name := range []string{"", "/dev/fd/%d"} {
		out, errs := create(fmt.Sprintf("out%d", i)), create(fmt.Sprintf("err%d", i))
		summaryPath, mismatchesPath := out.Name(), errs.Name()
		if name != "" {
			summaryPath, mismatchesPath = fmt.Sprintf(name, out.Fd()), fmt.Sprintf(name, errs.Fd())
		}
		err := scoreTo(t, in, out, errs, "--summary", summaryPath, "--format", "table",
			"--mismatches", mismatchesPath, "--mismatch-metric", "em")
		if code := command.ExitCode(err); code != command.ExitBadRecords {
			t.Errorf("--summary %s --mismatches %s: exit %d (%v), want 3", summaryPath, mismatchesPath, code, err)
		}
		if got, want := read(out), records+summary; got != want {
			t.Errorf("--summary %s: stdout's file holds\n%s\nwant the records, then the summary:\n%s", summaryPath, got, want)
		}
		if got, want := read(errs), messages+mismatch; got != want {
			t.Errorf("--mismatches %s: stderr's file holds\n%s\nwant the messages, then the mismatches:\n%s", mismatchesPath, got, want)
		}
	}
	out := create("failed")
	err := scoreTo(t, good+"not json\n"+good, out, io.Discard, "--strict", "--summary", out.Name())
	if code := command.ExitCode(err); code != command.ExitFailure {
		t.Errorf("--strict, a bad line: exit %d (%v), want 1", code, err)
	}
	if got := read(out); got != records {
		t.Errorf("--summary naming stdout's file, a failed run: the file holds\n%s\nwant the records before the bad line:\n%s", got, records)
	}
}

// TestSummaryAppendedToRecords: a --summary written through a stream or a descriptor (stdout
// appended to a file of records, by /dev/fd/N of it or the file's own name; /dev/fd/N of
// another such file opened for appending, 3>> log) replaces nothing, so the guard against a
// summary named after a file of records lets it be: it comes after what the file held. It was
// refused, exit 2, saying the summary would replace the records.
func TestSummaryAppendedToRecords(t *testing.T) {
	const in = `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\n"
	records, _ := scoreOutputs(t, in)
	summary, _ := scoreOutputs(t, in, "--summary", "-", "--format", "csv")
	dir := t.TempDir()
	appendTo := func(name string) *os.File {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for i, name := range []string{"", "/dev/fd/%d"} { // /dev/stdout is the test's own
		out := appendTo(fmt.Sprintf("out%d.jsonl", i))
		path := out.Name()
		if name != "" {
			path = strings.ReplaceAll(name, "%d", fmt.Sprint(out.Fd()))
		}
		err := scoreTo(t, in, out, io.Discard, "--summary", path, "--format", "csv")
		if err != nil {
			t.Errorf("--summary %s, stdout appended to records: %v", path, err)
		}
		if b, _ := os.ReadFile(out.Name()); string(b) != in+records+summary {
			t.Errorf("--summary %s: the file holds\n%s\nwant its records, then the new ones, then the summary", path, b)
		}
	}
	log := appendTo("log.jsonl")
	path := fmt.Sprintf("/dev/fd/%d", log.Fd())
	var stdout strings.Builder
	if err := scoreTo(t, in, &stdout, io.Discard, "--summary", path, "--format", "csv"); err != nil {
		t.Errorf("--summary %s, a descriptor appending to records: %v", path, err)
	}
	if b, _ := os.ReadFile(log.Name()); string(b) != in+summary {
		t.Errorf("--summary %s: the file holds\n%s\nwant its records, then the summary", path, b)
	}
}

// TestMismatchesIntoStdoutFile: --mismatches naming, by its own name, the file stdout was
// redirected to (--mismatches m.jsonl > m.jsonl) is refused as --mismatches /dev/stdout is: it is
// written through stdout, and the mismatches came out line among line with the records.
func TestMismatchesIntoStdoutFile(t *testing.T) {
	const in = `{"schema":1,"id":"b","question":"q","answers":["x"],"prediction":{"text":"y"}}` + "\n"
	out, err := os.Create(filepath.Join(t.TempDir(), "m.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	err = scoreTo(t, in, out, io.Discard, "--metrics", "em", "--mismatches", out.Name(), "--mismatch-metric", "em")
	want := "--mismatches: " + out.Name() + " would mix them with the records on stdout, line among line: name a file, such as /dev/stderr (with --summary -, which prints no records, they come before the summary)"
	if code := command.ExitCode(err); code != command.ExitUsage || err.Error() != want {
		t.Errorf("exit %d, error %v; want exit %d, %q", code, err, command.ExitUsage, want)
	}
	if b, _ := os.ReadFile(out.Name()); len(b) != 0 {
		t.Errorf("stdout's file holds %q, want nothing", b)
	}
}

// TestUnwritableOutputs: a --summary or --mismatches file that cannot be written (/proc makes
// no file, though root's permissions let it write) fails the run before any record is written,
// exit 1, where it was found only at the end, the records out.
func TestUnwritableOutputs(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no /proc")
	}
	rec := `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\n"
	for _, args := range [][]string{{"--summary", "/proc/qapipe-summary.json"}, {"--mismatches", "/proc/qapipe-low.jsonl", "--mismatch-metric", "em"}} {
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), append([]string{"qa-score", "--metrics", "em"}, args...), strings.NewReader(rec), &stdout, &stderr)
		if code := command.ExitCode(err); code != 1 {
			t.Errorf("qa-score %s: exit %d (%v), want 1", strings.Join(args, " "), code, err)
		}
		if stdout.Len() > 0 {
			t.Errorf("qa-score %s wrote %q to stdout, want nothing", strings.Join(args, " "), stdout.String())
		}
		if want := args[0] + ": cannot write " + args[1] + ": "; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("qa-score %s: error %v, want one starting %q", strings.Join(args, " "), err, want)
		}
	}
}

// TestOutputsOnFullDisk: a --summary or --mismatches file that cannot be written for a full disk
// fails the run (exit 1) with the flag's name and, when its value came from one, the variable,
// as the error of one that cannot be opened does and qa-learncurve's --output does: it said
// "summary: write /dev/full: …", naming neither.
func TestOutputsOnFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here:", err)
	}
	const in = `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y"}}` + "\n"
	tests := []struct {
		args []string
		env  string // the variable set to /dev/full, if any
		want string
	}{
		{[]string{"--summary", "/dev/full"}, "", "--summary: write /dev/full: no space left on device"},
		{nil, "QA_SUMMARY", "--summary: write /dev/full: no space left on device (from QA_SUMMARY)"},
		{[]string{"--mismatches", "/dev/full", "--mismatch-metric", "em"}, "",
			"--mismatches: write /dev/full: no space left on device"},
		{[]string{"--mismatch-metric", "em"}, "QA_MISMATCHES",
			"--mismatches: write /dev/full: no space left on device (from QA_MISMATCHES)"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append([]string{tt.env}, tt.args...), " "), func(t *testing.T) {
			if tt.env != "" {
				t.Setenv(tt.env, "/dev/full")
			}
			err := scoreTo(t, in, io.Discard, io.Discard, tt.args...)
			if code := command.ExitCode(err); code != command.ExitFailure || err == nil || err.Error() != tt.want {
				t.Errorf("qa-score %s: exit %d, %v; want exit 1, %q", strings.Join(tt.args, " "), code, err, tt.want)
			}
		})
	}
}
