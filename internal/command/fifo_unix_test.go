//go:build unix

package command

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCountLinesLeavesPipes: a named input that is a pipe (bash's <(qa-load …) is one, named
// /dev/fd/63) can be read once, so the progress bar's counting pass must not read it: it
// consumed every line, and the run that followed read none of them and exited 0 with no
// records. Such an input counts as unknown (-1), as stdin does, and its lines stay for the run.
func TestCountLinesLeavesPipes(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "records.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	const lines = "{}\n{}\n"
	go func() { // the writer; its open waits for a reader
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		io.WriteString(w, lines) //nolint:errcheck // the reader below checks what came
		w.Close()
	}()
	if got := CountLines([]string{fifo}); got != -1 {
		// It read the pipe to its end: reading it again would wait for a writer forever.
		t.Fatalf("CountLines(named pipe) = %d, want -1 (unknown, the pipe left unread)", got)
	}
	r, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := io.ReadAll(r); err != nil || string(got) != lines {
		t.Errorf("the pipe after CountLines holds %q (%v), want %q", got, err, lines)
	}
}

// TestFilesOnly: a run's inputs are files only when each named one, and stdin where it is read,
// is a regular file: a pipe (named or not), a directory, a missing file or a stdin that is no
// file is not one, as a stage before may still be writing it. A terminal, read as typed input
// (typedInput), is all there is once a signal has ended it.
func TestFilesOnly(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(file, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "b.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tt := range []struct {
		name  string
		args  []string
		stdin io.Reader
		want  bool
	}{
		{"a file", []string{file}, r, true},
		{"two files", []string{file, file}, r, true},
		{"stdin a file", nil, f, true},
		{"a file and stdin a file", []string{file, "-"}, f, true},
		{"stdin a pipe", nil, r, false},
		{"a file and stdin a pipe", []string{file, "-"}, r, false},
		{"stdin no file", nil, io.MultiReader(), false},
		{"stdin typed", nil, &typedInput{f: r}, true},
		{"a file and stdin typed", []string{file, "-"}, &typedInput{f: r}, true},
		{"a named pipe and stdin typed", []string{fifo, "-"}, &typedInput{f: r}, false},
		{"a named pipe", []string{fifo}, f, false},
		{"a directory", []string{dir}, f, false},
		{"a missing file", []string{filepath.Join(dir, "none")}, f, false},
	} {
		if got := FilesOnly(tt.args, tt.stdin); got != tt.want {
			t.Errorf("%s: FilesOnly = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestReplaceOutputGzipPipe: a named pipe named .gz is written gzip-compressed, as a regular file
// named so is (a named pipe is written as a file is): it carried plain text, which zcat, or a
// stage reading it, refused. An aborted run ends no gzip stream, so the reader finds it cut
// short rather than a whole file of part of the output.
func TestReplaceOutputGzipPipe(t *testing.T) {
	const text = "{\"records\": 0}\n"
	for _, commit := range []bool{true, false} {
		fifo := filepath.Join(t.TempDir(), "s.json.gz")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		read := make(chan []byte)
		go func() { // the reader; its open waits for the writer
			b, _ := os.ReadFile(fifo)
			read <- b
		}()
		r, err := ReplaceOutput(fifo, io.Discard, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(r, text); err != nil {
			t.Fatal(err)
		}
		if commit {
			if err := r.Commit(); err != nil {
				t.Fatal(err)
			}
		} else {
			r.Abort()
		}
		b := <-read
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("commit %v: the pipe carried no gzip: %v (%q)", commit, err, b)
		}
		got, err := io.ReadAll(zr)
		switch {
		case commit && (err != nil || string(got) != text):
			t.Errorf("the pipe decompresses to %q, %v; want %q", got, err, text)
		case !commit && !errors.Is(err, io.ErrUnexpectedEOF):
			t.Errorf("after Abort the pipe decompresses to %q, %v; want a stream cut short", got, err)
		}
	}
}
