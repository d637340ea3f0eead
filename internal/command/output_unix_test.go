//go:build unix

package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fdName is the /dev/fd name of f's descriptor.
func fdName(t *testing.T, f *os.File) string {
	t.Helper()
	name := fmt.Sprintf("/dev/fd/%d", f.Fd())
	if _, err := os.Stat(name); err != nil {
		t.Skipf("no /dev/fd: %v", err)
	}
	return name
}

// writeOutput writes text to the output OpenOutput opens for path, and closes it.
func writeOutput(t *testing.T, path string, stdout, stderr io.Writer, text string) {
	t.Helper()
	w, err := OpenOutput(path, stdout, stderr)
	if err != nil {
		t.Fatalf("OpenOutput(%s): %v", path, err)
	}
	if _, err := io.WriteString(w, text); err != nil {
		t.Fatalf("OpenOutput(%s): write: %v", path, err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("OpenOutput(%s): close: %v", path, err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOpenOutputStream: an output that names the regular file stdout (or stderr) was redirected
// to, as /dev/stdout, /dev/fd/1 or the file's own name, goes into the stream after what it wrote,
// and the stream carries on after it: opened afresh, it was truncated and written from offset 0,
// over the records (qa-score --summary /dev/stdout > scored.jsonl kept the summary alone).
func TestOpenOutputStream(t *testing.T) {
	out, err := os.Create(filepath.Join(t.TempDir(), "scored.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	for _, path := range []string{out.Name(), fdName(t, out)} {
		for _, stream := range []string{"stdout", "stderr"} {
			if err := out.Truncate(0); err != nil {
				t.Fatal(err)
			}
			if _, err := out.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			io.WriteString(out, "record 1\nrecord 2\n")
			stdout, stderr := io.Writer(out), io.Writer(os.Stderr)
			if stream == "stderr" {
				stdout, stderr = io.Discard, out
			}
			writeOutput(t, path, stdout, stderr, "summary\n")
			if _, err := io.WriteString(out, "after\n"); err != nil { // Close left the stream open
				t.Fatalf("%s as %s: writing the stream after the output: %v", path, stream, err)
			}
			if got, want := readFile(t, out.Name()), "record 1\nrecord 2\nsummary\nafter\n"; got != want {
				t.Errorf("%s as %s: the file holds %q, want %q", path, stream, got, want)
			}
		}
	}
}

// TestStdoutFileNull: the null device is no output that mixes with stdout's when stdout goes
// there too (--plot /dev/null > /dev/null), unless named as stdout; the file stdout was
// redirected to is.
func TestStdoutFileNull(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	out, err := os.Create(filepath.Join(t.TempDir(), "out.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	for _, tc := range []struct {
		path   string
		stdout *os.File
		want   bool
	}{
		{os.DevNull, null, false}, {"/dev/stdout", null, true}, {"-", null, true},
		{out.Name(), out, true}, {os.DevNull, out, false}, {out.Name(), null, false},
	} {
		if got := StdoutFile(tc.path, tc.stdout); got != tc.want {
			t.Errorf("StdoutFile(%q) with stdout %s = %v, want %v", tc.path, tc.stdout.Name(), got, tc.want)
		}
	}
}

// TestOpenOutputStderrByName: /dev/stderr is written through stderr when stdout is the same file
// (one terminal for both, or 2>&1), so that it goes through stderr's writer.
func TestOpenOutputStderrByName(t *testing.T) {
	if _, err := os.Stat("/dev/stderr"); err != nil {
		t.Skipf("no /dev/stderr: %v", err)
	}
	stderr := &messages{f: os.Stderr}
	w, err := OpenOutput("/dev/stderr", os.Stderr, stderr)
	if err != nil {
		t.Fatal(err)
	}
	if nc, ok := w.(nopCloser); !ok || nc.Writer != io.Writer(stderr) {
		t.Errorf("OpenOutput(/dev/stderr, stdout and stderr one file) = %#v, want stderr's writer", w)
	}
}

// TestOpenOutputDescriptor: /dev/fd/N, for a descriptor that is neither stream, writes where the
// descriptor does: after what the file held for 3>>log, after what the script wrote to fd 3 for
// exec 3>log, and the script's next write to fd 3 goes after it. Opened afresh, the file was
// truncated and written from offset 0.
func TestOpenOutputDescriptor(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		flag  int
		start string // in the file before the redirection
	}{
		{"3>>log", os.O_WRONLY | os.O_APPEND, "earlier run\n"},
		{"exec 3>log", os.O_WRONLY | os.O_TRUNC, "stale\n"},
	} {
		path := filepath.Join(dir, "log")
		if err := os.WriteFile(path, []byte(tc.start), 0o644); err != nil {
			t.Fatal(err)
		}
		fd3, err := os.OpenFile(path, tc.flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(fd3, "header\n")
		var stdout, stderr strings.Builder
		writeOutput(t, fdName(t, fd3), &stdout, &stderr, "summary\n")
		io.WriteString(fd3, "trailer\n")
		fd3.Close()
		want := "header\nsummary\ntrailer\n"
		if tc.flag&os.O_APPEND != 0 {
			want = tc.start + want
		}
		if got := readFile(t, path); got != want {
			t.Errorf("%s: the file holds %q, want %q", tc.name, got, want)
		}
	}
}

// TestOpenOutputReadOnlyDescriptor: a descriptor open for reading only is refused when the output
// is opened, before any work, not at its first write.
func TestOpenOutputReadOnlyDescriptor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fd3, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fd3.Close()
	name := fdName(t, fd3)
	if w, err := OpenOutput(name, io.Discard, io.Discard); err == nil {
		w.Close()
		t.Errorf("OpenOutput(%s, open for reading only) succeeded, want an error", name)
	} else if !strings.Contains(err.Error(), name) {
		t.Errorf("OpenOutput(%s, open for reading only) = %v, want the error to name %s", name, err, name)
	}
}

// TestOpenOutputFile: any other path is created, or truncated, as CreateOutput does.
func TestOpenOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.json")
	if err := os.WriteFile(path, []byte("an older, longer summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeOutput(t, path, io.Discard, io.Discard, "new\n")
	if got := readFile(t, path); got != "new\n" {
		t.Errorf("the file holds %q, want %q", got, "new\n")
	}
}

// TestOutputWritable: an output file that cannot be opened for writing is an error naming the
// flag and the file; one that can is left as it was, and a new one is not left behind. A named
// pipe is not opened (that would wait for a reader).
func TestOutputWritable(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "report.json")
	if err := os.WriteFile(existing, []byte("an older report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.svg")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"", "-", "/dev/stdout", existing, filepath.Join(dir, "new.svg"), fifo} {
		if err := OutputWritable("--plot", path); err != nil {
			t.Errorf("OutputWritable(--plot, %q) = %v, want nil", path, err)
		}
	}
	if got := readFile(t, existing); got != "an older report\n" {
		t.Errorf("the existing file holds %q, want it unchanged", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.svg")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OutputWritable left new.svg behind (stat: %v)", err)
	}
	if _, err := os.Stat("/proc/self"); err != nil {
		return // no /proc
	}
	// No file can be made in /proc, though root's permissions would let it be written.
	path := "/proc/qapipe-plot.svg"
	if err := OutputWritable("--plot", path); err == nil || !strings.HasPrefix(err.Error(), "--plot: cannot write "+path+": ") {
		t.Errorf("OutputWritable(--plot, %s) = %v, want an error naming --plot and the file", path, err)
	}
}

// TestNullForBoth: the null device open for reading and writing, as the Go runtime opens it in
// place of a closed stdout, is told apart from the null device open for writing (a shell's
// > /dev/null) and from a file open for reading and writing.
func TestNullForBoth(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	for _, tt := range []struct {
		path string
		flag int
		want bool
	}{
		{os.DevNull, os.O_RDWR, true},
		{os.DevNull, os.O_WRONLY, false},
		{os.DevNull, os.O_RDONLY, false},
		{file, os.O_RDWR | os.O_CREATE, false},
	} {
		f, err := os.OpenFile(tt.path, tt.flag, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if got := nullForBoth(int(f.Fd())); got != tt.want {
			t.Errorf("nullForBoth(%s opened %#o) = %v, want %v", tt.path, tt.flag, got, tt.want)
		}
		f.Close()
	}
}

// TestMainNullHelper is the process TestMainClosedStdout runs: a command that writes a line and
// returns. It does nothing unless QA_TEST_MAIN_NULL is set.
func TestMainNullHelper(t *testing.T) {
	if os.Getenv("QA_TEST_MAIN_NULL") == "" {
		t.Skip("run by TestMainClosedStdout")
	}
	Main("qa-null", func(_ context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
		_, err := io.WriteString(stdout, "a record\n")
		return err
	})
}

// TestMainClosedStdout runs a command whose stdout the shell closed (>&-): it warns that its
// output is lost, and exits 0 all the same; one whose stdout is > /dev/null does not warn.
func TestMainClosedStdout(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	for _, tt := range []struct {
		redirect string
		warns    bool
	}{{">&-", true}, {"> /dev/null", false}} {
		cmd := exec.Command("sh", "-c", `exec "$0" -test.run='^TestMainNullHelper$' `+tt.redirect, os.Args[0])
		cmd.Env = append(os.Environ(), "QA_TEST_MAIN_NULL=1")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%s: %v\n%s", tt.redirect, err, stderr.String())
		}
		const warning = "qa-null: warning: stdout is the null device open for reading and writing (as when the shell closed it, >&-): what is written to it is lost\n"
		if got := strings.Contains(stderr.String(), warning); got != tt.warns {
			t.Errorf("%s: warned %v, want %v:\n%s", tt.redirect, got, tt.warns, stderr.String())
		}
	}
}
