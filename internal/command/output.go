package command

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// NotAnInput returns a usage error naming flag when the output file path is one of the input
// files (by identity, so another name for the same file counts): writing it would destroy the
// input, for a file created before the reading even before it is read. Stdin is an input when
// inputs is empty or holds "-": a file redirected to it (< file) counts too. A path that does
// not exist yet, "" and "-" are fine, and so is one that is no regular file (/dev/null, a
// terminal: writing it destroys no input), as NotStdout has it.
func NotAnInput(flag, path string, inputs []string, stdin io.Reader) error {
	if path == "" || path == "-" {
		return nil
	}
	out, err := os.Stat(path)
	if err != nil || !out.Mode().IsRegular() {
		return nil
	}
	if len(inputs) == 0 || slices.Contains(inputs, "-") {
		if f, ok := stdin.(interface{ Stat() (os.FileInfo, error) }); ok {
			if st, err := f.Stat(); err == nil && os.SameFile(st, out) {
				return Usagef("%s: %s is also the input, on stdin", flag, path)
			}
		}
	}
	for _, in := range inputs {
		if in == "-" {
			continue
		}
		if st, err := os.Stat(in); err == nil && os.SameFile(st, out) {
			return Usagef("%s: %s is also an input file", flag, path)
		}
	}
	return nil
}

// DistinctOutputs returns a usage error when two of the output files (flag, path) are the same
// file: by identity when both exist, else by their cleaned absolute paths. "" and "-" are fine,
// and so is the null device.
func DistinctOutputs(outputs [][2]string) error {
	for i, a := range outputs {
		for _, b := range outputs[:i] {
			if a[1] == "" || a[1] == "-" || b[1] == "" || b[1] == "-" || nullDevice(a[1]) {
				continue // the null device discards them both
			}
			if sameOutput(a[1], b[1]) {
				return Usagef("%s and %s name the same file, %s: one would overwrite the other", b[0], a[0], a[1])
			}
		}
	}
	return nil
}

func sameOutput(a, b string) bool {
	sa, erra := os.Stat(a)
	sb, errb := os.Stat(b)
	if erra == nil && errb == nil {
		return os.SameFile(sa, sb)
	}
	absA, err1 := filepath.Abs(a)
	absB, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && absA == absB
}

// CreateOutput creates or truncates the output file path for writing only. Unlike os.Create it
// does not open it for reading too, so that a path such as /dev/stdout on a pipe leaves the
// process no read end of its own pipe: a reader that goes away gives EPIPE instead of a write
// that blocks for ever.
func CreateOutput(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
}

// OpenOutput opens the output file a flag names for writing. When path is the file the
// command's stdout or stderr writes to, /dev/stdout or /dev/stderr, or the file a shell
// redirection opened for them named as such, it returns that stream itself, whose Close does
// nothing. Another descriptor's name (/dev/fd/3, /proc/self/fd/3) gets a duplicate of the
// descriptor, which writes where the shell's redirection does (3>>log appends). Anything else, a
// named pipe too, is opened by CreateOutput.
//
// Note: Linux opens /dev/stdout, /dev/fd/N and the like afresh, at offset 0 and truncated, when
// they are a regular file: the output was written over what the stream had written and would
// write (the records before qa-score's summary, the messages around its mismatches), and
// 3>>log lost what log held. A pipe, a terminal or a device has no offset, so there any opening
// did the same.
func OpenOutput(path string, stdout, stderr io.Writer) (io.WriteCloser, error) {
	fd := descriptor(path)
	streams := []io.Writer{stdout, stderr}
	if fd == 2 { // the same terminal as stdout, say, but named as stderr
		streams = []io.Writer{stderr, stdout}
	}
	if w := streamAt(path, streams); w != nil {
		return nopCloser{w}, nil
	}
	if fd >= 0 {
		return dupDescriptor(path, fd)
	}
	return CreateOutput(path)
}

// streamAt returns the first of streams whose file path names, or nil.
func streamAt(path string, streams []io.Writer) io.Writer {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	for _, w := range streams {
		f := fileOf(w)
		if f == nil {
			continue
		}
		if fst, err := f.Stat(); err == nil && os.SameFile(st, fst) {
			return w
		}
	}
	return nil
}

// fileOf returns the file w writes to, or nil when it is no file (a test's buffer).
func fileOf(w io.Writer) *os.File {
	switch w := w.(type) {
	case *messages:
		return w.f
	case *stdoutPipe:
		return w.f
	}
	f, _ := w.(*os.File)
	return f
}

// descriptor returns the number of the open descriptor path names (/dev/stderr, /dev/fd/2 and
// /proc/self/fd/2 are 2), or -1 when it names none.
func descriptor(path string) int {
	switch path {
	case "/dev/stdin":
		return 0
	case "/dev/stdout":
		return 1
	case "/dev/stderr":
		return 2
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(path, dir); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			if fd, err := strconv.Atoi(n); err == nil {
				return fd
			}
		}
	}
	return -1
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// OutputFolder returns an error naming flag when the output file path cannot be made where it is
// named: in a folder that does not exist (which is not made: a misspelt folder would take the
// output out of sight), or when path is a folder itself. It is meant for a check before the work,
// so that a report written at the end is not lost to a typo; "" and "-" are fine. The error is
// not a usage error: output that cannot be written is a failure (exit 1), as it is when found
// at the end.
func OutputFolder(flag, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s: %s is a folder: name a file in it", flag, path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: cannot write %s: there is no folder %s (make it first: mkdir -p %s)", flag, path, dir, dir)
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s: cannot write %s: %s is a file, not a folder", flag, path, dir)
	}
	return nil
}

// FileFault is an error that comes from the file a flag named, not from the run (a --cache file
// that is no cache, in a folder that does not exist): FileFault returns the file's path and its
// fault.
type FileFault interface {
	error
	FileFault() (path string, err error)
}

// FlagFile is err as FileFlag says it for flag when err is (or wraps) a FileFault, and err
// unchanged otherwise.
func FlagFile(flag string, err error) error {
	if ff, ok := errors.AsType[FileFault](err); ok {
		path, fault := ff.FileFault()
		return FileFlag(flag, path, fault)
	}
	return err
}

// FileFlag is err, the fault of the file path that flag names (a --cache file that is not a
// cache, say), as a usage error naming both; where path's folder is missing or no folder, or
// path is a folder, it is OutputFolder's error instead, which says to make the folder as the
// output flags' does.
func FileFlag(flag, path string, err error) error {
	if ferr := OutputFolder(flag, path); ferr != nil {
		return &UsageError{Err: ferr}
	}
	return Usagef("%s: %s: %v", flag, path, err)
}

// OutputWritable returns an error naming flag when the output file path cannot be opened for
// writing, as OutputFolder's check before the work: a folder the file system makes no file in
// (/proc, which root's permissions let write), a file or folder this process may not write. It
// writes nothing and leaves no file: an existing regular file is opened for writing without
// truncating it, and closed; a missing one is made and removed. Any other file, a named pipe (whose
// opening waits for a reader, and whose closing ends its reader's input), a device or a descriptor
// (/dev/stdout, /dev/fd/3), is left to the writing; so are "" and "-". Like OutputFolder's, the error
// is a failure (exit 1), not a usage error.
func OutputWritable(flag, path string) error {
	if path == "" || path == "-" || descriptor(path) >= 0 {
		return nil
	}
	var f *os.File
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return nil
	case err == nil:
		f, err = os.OpenFile(path, os.O_WRONLY, 0)
	case errors.Is(err, fs.ErrNotExist):
		if f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666); err == nil {
			defer os.Remove(path)
		}
	}
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err // the path is named already
		}
		return fmt.Errorf("%s: cannot write %s: %w", flag, path, err)
	}
	return f.Close()
}

// Stdout reports whether the output file path a flag names is stdout: "-", or a name of
// descriptor 1 (/dev/stdout, /dev/fd/1, /proc/self/fd/1). A command that writes something else
// there (an image) can then keep its other output off stdout.
func Stdout(path string) bool { return path == "-" || descriptor(path) == 1 }

// StdoutFile reports whether the output file path a flag names is where stdout writes: Stdout's
// names, or the file stdout was redirected to given by its own name (`--plot c.svg > c.svg`),
// which OpenOutput would write through stdout itself.
//
// The null device is not: `--plot /dev/null > /dev/null` discards both, and nothing mixes.
func StdoutFile(path string, stdout io.Writer) bool {
	return Stdout(path) || !nullDevice(path) && streamAt(path, []io.Writer{stdout}) != nil
}

// ThroughStream reports whether OpenOutput (and ReplaceOutput) write the output file path a flag
// names through a stream or a descriptor the process has open, after what it holds: a name of a
// descriptor (/dev/stdout, /dev/fd/3), or the file stdout or stderr was redirected to, by its own
// name. Such a file is never replaced.
func ThroughStream(path string, stdout, stderr io.Writer) bool {
	return path != "" && (descriptor(path) >= 0 || streamAt(path, []io.Writer{stdout, stderr}) != nil)
}

// nullDevice reports whether path names the null device (os.DevNull), where any number of
// outputs may go together.
func nullDevice(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(st, null)
}
