package command

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestOpenInputsText: every input, named file or stdin, is read through textfile.NewReader
// (whose own tests cover gzip): here a byte order mark on each goes, and the gzip file is
// decompressed. The count sees the bytes as they are stored, the sizes a ByteProgress bar
// counts against.
func TestOpenInputsText(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl.gz")
	if err := os.WriteFile(first, []byte("\ufeffa.jsonl\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte("\ufeffb.jsonl\n")) //nolint:errcheck // a bytes.Buffer
	zw.Close()                          //nolint:errcheck
	if err := os.WriteFile(second, zipped.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	stdin := "\ufeffc\n"
	var got []string
	var count bytes.Buffer
	err := OpenInputs([]string{first, "-", second}, strings.NewReader(stdin), &count, func(in Input) error {
		b, err := io.ReadAll(in.R)
		got = append(got, in.DisplayName()+": "+string(b))
		return err
	})
	want := []string{first + ": a.jsonl\n", "stdin: c\n", second + ": b.jsonl\n"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("OpenInputs read %q, %v; want %q", got, err, want)
	}
	if n, want := count.Len(), len("\ufeffa.jsonl\n")+len(stdin)+zipped.Len(); n != want {
		t.Errorf("OpenInputs counted %d bytes, want %d (the stored bytes)", n, want)
	}
}

func TestNotAnInput(t *testing.T) {
	dir, in, other := twoInputs(t, "in.jsonl", "other.jsonl")
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Link(in, link); err != nil {
		t.Skip("no hard links here:", err)
	}
	inputs := []string{"-", in}
	for _, tc := range []struct {
		path string
		bad  bool
	}{
		{"", false}, {"-", false}, {filepath.Join(dir, "new.json"), false}, {other, false},
		{in, true}, {link, true}, {filepath.Join(dir, ".", "in.jsonl"), true},
	} {
		err := NotAnInput("--out", tc.path, inputs, nil)
		var ue *UsageError
		if got := errors.As(err, &ue); got != tc.bad {
			t.Errorf("NotAnInput(%q) = %v, want a usage error: %v", tc.path, err, tc.bad)
		}
	}
}

// TestNotAnInputNull: the null device as an output is fine though it is an input too (qa-score
// --summary /dev/null /dev/null): writing it destroys nothing.
func TestNotAnInputNull(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Skip("no null device:", err)
	}
	if err := NotAnInput("--summary", os.DevNull, []string{os.DevNull}, nil); err != nil {
		t.Errorf("NotAnInput(%s) with input %s = %v, want nil", os.DevNull, os.DevNull, err)
	}
}

// TestNotAnInputStdin: a file redirected to stdin is an input when stdin is read (no inputs, or
// "-" among them), and only then.
func TestNotAnInputStdin(t *testing.T) {
	_, in, other := twoInputs(t, "in.jsonl", "other.jsonl")
	stdin := openFile(t, in, os.O_RDONLY)
	for _, tc := range []struct {
		path   string
		inputs []string
		bad    bool
	}{
		{in, nil, true}, {in, []string{"-"}, true}, {in, []string{other, "-"}, true},
		{in, []string{other}, false}, {other, nil, false},
	} {
		err := NotAnInput("--summary", tc.path, tc.inputs, stdin)
		var ue *UsageError
		if got := errors.As(err, &ue); got != tc.bad {
			t.Errorf("NotAnInput(%q, inputs %q, stdin %s) = %v, want a usage error: %v", tc.path, tc.inputs, in, err, tc.bad)
		}
	}
	if err := NotAnInput("--summary", in, nil, strings.NewReader("{}")); err != nil {
		t.Errorf("NotAnInput with stdin no file = %v, want nil", err)
	}
}

// TestNotStdout: an input, a file argument by any of its names or a file redirected to stdin
// where stdin is read, that is the regular file stdout writes to is a usage error naming it
// (`qa-score x.jsonl >> x.jsonl` read back its own records until the disk was full); a stdout
// that is another file, no regular file or no file at all is fine.
func TestNotStdout(t *testing.T) {
	dir, in, other := twoInputs(t, "in.jsonl", "other.jsonl")
	stdinIn, stdinOther := openFile(t, in, os.O_RDONLY), openFile(t, other, os.O_RDONLY)
	appendIn, appendOther := openFile(t, in, os.O_WRONLY|os.O_APPEND), openFile(t, other, os.O_WRONLY|os.O_APPEND)
	null := openFile(t, os.DevNull, os.O_WRONLY)
	// The message names stdin's file by its path, as the system gives it where it can.
	stdinName := fileName(stdinIn)
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  io.Reader
		stdout io.Writer
		want   string // the error; "" for none
	}{
		{"file", []string{other, in}, nil, appendIn, "stdout: " + in + " is also an input file"},
		{"file by another name", []string{filepath.Join(dir, ".", "in.jsonl")}, nil, appendIn, "stdout: " + filepath.Join(dir, ".", "in.jsonl") + " is also an input file"},
		{"stdin", nil, stdinIn, appendIn, "stdout: " + stdinName + " is also the input, on stdin"},
		{"stdin among files", []string{other, "-"}, stdinIn, appendIn, "stdout: " + stdinName + " is also the input, on stdin"},
		{"stdin not read", []string{other}, stdinIn, appendIn, ""},
		{"another file", []string{in}, stdinIn, appendOther, ""},
		{"stdin another file", nil, stdinOther, appendIn, ""},
		{"stdin no file", nil, strings.NewReader("{}\n"), appendIn, ""},
		{"no regular file", []string{os.DevNull}, nil, null, ""},
		{"no file", []string{in}, nil, &bytes.Buffer{}, ""},
		{"the stream of Main", []string{in}, nil, &stdoutPipe{f: appendIn}, "stdout: " + in + " is also an input file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantUsage(t, fmt.Sprintf("NotStdout(%q)", tc.args), NotStdout(tc.args, tc.stdin, tc.stdout), tc.want, strings.HasPrefix)
		})
	}
}

func TestDistinctOutputs(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	if err := os.WriteFile(a, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Link(a, link); err != nil {
		t.Skip("no hard links here:", err)
	}
	fresh := filepath.Join(dir, "new.json")
	for _, tc := range []struct {
		a, b string
		bad  bool
	}{
		{"", "", false}, {"-", "-", false}, {a, fresh, false}, {a, "", false},
		{a, a, true}, {a, link, true}, {fresh, filepath.Join(dir, ".", "new.json"), true},
		{os.DevNull, os.DevNull, false}, // the null device discards both
	} {
		err := DistinctOutputs([][2]string{{"--x", tc.a}, {"--y", tc.b}})
		var ue *UsageError
		if got := errors.As(err, &ue); got != tc.bad {
			t.Errorf("DistinctOutputs(%q, %q) = %v, want a usage error: %v", tc.a, tc.b, err, tc.bad)
		}
	}
}

// TestCreateOutputWriteOnly: an output named by a path to a pipe's write end (as /dev/stdout is
// when stdout is a pipe) is opened for writing only, so that once the reader is gone a write
// fails with EPIPE; opened for reading too, the process would be a reader of its own pipe and
// the write would succeed, or block once the pipe is full.
func TestCreateOutputWriteOnly(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skip("no /proc/self/fd here:", err)
	}
	f, err := CreateOutput(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r.Close()
	w.Close()
	if _, err := f.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("write after the reader closed: %v, want EPIPE", err)
	}
}

// TestCountLines: the progress total counts the records a command will read, so a gzip file's
// lines are counted in its text, not its compressed bytes.
func TestCountLines(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	b := filepath.Join(dir, "b.jsonl")
	z := filepath.Join(dir, "c.jsonl.gz")
	os.WriteFile(a, []byte("{}\n\n{}\n{}"), 0o644)
	os.WriteFile(b, []byte("{}\n"), 0o644)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(strings.Repeat("{}\n", 1000)))
	zw.Close()
	os.WriteFile(z, buf.Bytes(), 0o644)
	tests := []struct {
		files []string
		want  int64
	}{
		{[]string{a, b}, 4},
		{[]string{a, z}, 1003},
		{[]string{a, "-"}, -1},
		{nil, -1},
		{[]string{filepath.Join(dir, "missing")}, -1},
	}
	for _, tt := range tests {
		if got := CountLines(tt.files); got != tt.want {
			t.Errorf("CountLines(%v) = %d, want %d", tt.files, got, tt.want)
		}
	}
}

func TestInputSize(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("12345"), 0o644)
	os.WriteFile(b, []byte("123"), 0o644)
	for _, tc := range []struct {
		inputs []string
		want   int64
	}{
		{[]string{a, b}, 8},
		{[]string{a, "-"}, -1},
		{[]string{a, dir}, -1}, // a directory
		{[]string{filepath.Join(dir, "missing")}, -1},
		{nil, -1},
	} {
		if got := inputSize(tc.inputs); got != tc.want {
			t.Errorf("inputSize(%q) = %d, want %d", tc.inputs, got, tc.want)
		}
	}
}

// TestProgressTerminalOnly: a bar is drawn only on a terminal; a pipe, a file or a buffer (logs,
// CI) gets none. TestProgressOnTerminal draws them on one.
func TestProgressTerminalOnly(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, w := range map[string]io.Writer{"file": f, "buffer": &bytes.Buffer{}} {
		if bar := Progress(w, nil, nil); bar != nil {
			t.Errorf("Progress(%s) = a bar, want none", name)
		}
		if bar := ByteProgress(w, nil, nil); bar != nil {
			t.Errorf("ByteProgress(%s) = a bar, want none", name)
		}
	}
}

func TestCheckInputs(t *testing.T) {
	dir := t.TempDir()
	dashed := filepath.Join(dir, "-odd.jsonl")
	if err := os.WriteFile(dashed, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if err := os.WriteFile("a.jsonl", []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		bad  string // the error; "" for none
		exit int
	}{
		{nil, "", 0},
		{[]string{"-"}, "", 0},
		{[]string{"a.jsonl", "-", "-odd.jsonl"}, "", 0}, // a file whose name begins with "-"
		{[]string{"-", "a.jsonl", "-"}, "-: stdin given twice; it can be read once", ExitUsage},
		{[]string{"--", "-", "-"}, "-: stdin given twice; it can be read once", ExitUsage},
		{[]string{"a.jsonl", "--metrics", "f1"}, "--metrics: flags go before the input files", ExitUsage},
		{[]string{"a.jsonl", "-q"}, "-q: flags go before the input files", ExitUsage},
		// After a first "--", which ended the flags, every argument is a file.
		{[]string{"--", "-odd.jsonl", "a.jsonl"}, "", 0},
		{[]string{"--", "-missing.jsonl"}, "open -missing.jsonl: no such file or directory", ExitFailure},
		{[]string{"--", "a.jsonl", "-missing.jsonl"}, "open -missing.jsonl: no such file or directory", ExitFailure},
		{[]string{"--", "--"}, "open --: no such file or directory", ExitFailure},
		// A "--" after a file is read as a file: one that names none was meant to end the flags.
		{[]string{"a.jsonl", "--", "-missing.jsonl"}, "--: give it before the first input file", ExitUsage},
		// A missing second file, or a folder, stops the run before the first is read.
		{[]string{"a.jsonl", "b.jsonl"}, "open b.jsonl: no such file or directory", ExitFailure},
		{[]string{"a.jsonl", "sub"}, "sub is a directory, not an input file: name the files in it (sub/*)", ExitFailure},
		// "help" as git and go take it, which no command has: the flag is named.
		{[]string{"help"}, "help: no such input file; for the help, give --help", ExitUsage},
	} {
		err := CheckInputs(tc.args, nil, nil)
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("CheckInputs(%q) = %v, want nil", tc.args, err)
		case tc.bad != "" && (err == nil || ExitCode(err) != tc.exit || !strings.HasPrefix(err.Error(), tc.bad)):
			t.Errorf("CheckInputs(%q) = %v (exit %d), want %q (exit %d)", tc.args, err, ExitCode(err), tc.bad, tc.exit)
		}
	}
}

// TestCheckInputsStdinNamed: an input file that is the file stdin reads, given beside "-", is
// stdin given twice, as "- -" is (`qa-score /dev/stdin -` read a pipe once and found it empty
// the second time, its records lost without a word); either alone, or beside "-" when stdin is
// another file or no file at all, is fine.
func TestCheckInputsStdinNamed(t *testing.T) {
	_, in, other := twoInputs(t, "in.jsonl", "other.jsonl")
	stdin := openFile(t, in, os.O_RDONLY)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd := func(f *os.File) string { return fmt.Sprintf("/dev/fd/%d", f.Fd()) } // as /dev/stdin names fd 0
	for _, tc := range []struct {
		name  string
		args  []string
		stdin io.Reader
		want  string // the error; "" for none
	}{
		{"file then stdin", []string{in, "-"}, stdin, in + ": stdin given twice (it is the file stdin reads, and - is given too); it can be read once"},
		{"stdin then file", []string{"-", other, in}, stdin, in + ": stdin given twice (it is the file stdin reads, and - is given too); it can be read once"},
		{"pipe by its name", []string{fd(r), "-"}, r, fd(r) + ": stdin given twice (it is the file stdin reads, and - is given too); it can be read once"},
		{"after --", []string{"--", "-", in}, stdin, in + ": stdin given twice"},
		{"stdin not read", []string{in}, stdin, ""},
		{"stdin another file", []string{other, "-"}, stdin, ""},
		{"stdin no file", []string{in, "-"}, strings.NewReader("{}\n"), ""},
		{"no stdin", []string{in, "-"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantUsage(t, fmt.Sprintf("CheckInputs(%q)", tc.args), CheckInputs(tc.args, tc.stdin, nil), tc.want, strings.HasPrefix)
		})
	}
}

// TestCheckInputsSameFile: one file named twice among the inputs, by one name or two (./a, a
// link, a hard link), is a usage error naming both arguments, as stdin given twice is: its
// records were read twice, seen only in the summary's count of repeated ids (a pipe's found
// empty the second time). Two files of the same content are two inputs, and a character device
// (/dev/null, a terminal) may be read again.
func TestCheckInputsSameFile(t *testing.T) {
	dir, a, b := twoInputs(t, "a.jsonl", "b.jsonl")
	ln, hard := filepath.Join(dir, "ln.jsonl"), filepath.Join(dir, "hard.jsonl")
	if err := os.Symlink(a, ln); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(a, hard); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	pipe := fmt.Sprintf("/dev/fd/%d", r.Fd())
	dot := dir + "/./a.jsonl" // filepath.Join would clean it to a
	twice := func(later, earlier string) string {
		if later == earlier {
			return later + ": given twice: its records would be read twice (give it once)"
		}
		return later + ": the same file as " + earlier + ", given before: its records would be read twice (give it once)"
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // the error; "" for none
	}{
		{"one name", []string{a, a}, twice(a, a)},
		{"two names", []string{a, b, dot}, twice(dot, a)},
		{"symbolic link", []string{ln, a}, twice(a, ln)},
		{"hard link", []string{b, hard, a}, twice(a, hard)},
		{"after --", []string{"--", a, "-", a}, twice(a, a)},
		{"pipe", []string{pipe, pipe}, pipe + ": given twice: a pipe can be read once (give it once)"},
		{"two files", []string{a, b}, ""},
		{"file and stdin", []string{a, "-"}, ""},
		{"dev null", []string{os.DevNull, a, os.DevNull}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckInputs(tc.args, strings.NewReader(""), nil)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("CheckInputs(%q) = %v, want nil", tc.args, err)
			case tc.want != "" && (err == nil || ExitCode(err) != ExitUsage || err.Error() != tc.want):
				t.Errorf("CheckInputs(%q) = %v (exit %d), want %q (exit %d)", tc.args, err, ExitCode(err), tc.want, ExitUsage)
			}
		})
	}
}

// TestCheckArgsDashDash: run by Execute, a command takes every argument after the "--" that
// ended its flags for a file, though the flag parser takes the "--" away: `qa-load --
// -missing.jsonl` is the missing file's error (exit 1), not a flag given after the files (exit
// 2). Its subcommands do the same.
func TestCheckArgsDashDash(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("a.jsonl", []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("-odd.jsonl", []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string // the error; "" for none
		exit int
	}{
		{[]string{"--", "-missing.jsonl"}, "open -missing.jsonl: no such file or directory", ExitFailure},
		{[]string{"--", "a.jsonl", "-missing.jsonl"}, "open -missing.jsonl: no such file or directory", ExitFailure},
		{[]string{"--n", "3", "--", "-odd.jsonl"}, "", 0},
		{[]string{"a.jsonl", "-missing.jsonl"}, "-missing.jsonl: flags go before the input files", ExitUsage},
		{[]string{"a.jsonl", "--", "-odd.jsonl"}, "--: give it before the first input file", ExitUsage},
	} {
		for _, sub := range []bool{false, true} {
			var stdout, stderr bytes.Buffer
			app, ran := subApp(&stdout, &stderr)
			app.Flags = []cli.Flag{&cli.IntFlag{Name: "n"}}
			app.Action = func(*cli.Context) error { *ran = true; return nil }
			wantRun(t, app, ran, tc.args, sub, "", tc.want, strings.Contains, tc.exit)
		}
	}
}

// TestOutputFlagLikeFlag: "--", or a value that looks like a flag, as the value of a flag that
// names a file to write (--summary --, --summary --metrics em) is a usage error naming the flag,
// from the command line or a variable, in a command or a subcommand: it made a file so named. A
// file so named is written as ./--, and another name that begins with "-" is a name, as it always
// was.
func TestOutputFlagLikeFlag(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		env  string // QA_SUMMARY's value; "" for none
		want string // the error; "" for none
	}{
		{[]string{"--summary", "--"}, "", "--summary: -- is taken for the file's name here, as a flag's value: name the file (./-- for one so named)"},
		{[]string{"--summary=--", "-"}, "", "--summary: -- is taken for the file's name here"},
		{[]string{"--summary", "--", "--", "-"}, "", "--summary: -- is taken for the file's name here"},
		{nil, "--", "--summary: -- is taken for the file's name here, as a flag's value: name the file (./-- for one so named) (from QA_SUMMARY)"},
		{[]string{"--summary", "--metrics", "em"}, "", "--summary: --metrics is taken for the file's name here, as a flag's value: name the file (./--metrics for one so named)"},
		{[]string{"--summary", "--metrics=em", "-"}, "", "--summary: --metrics=em is taken for the file's name here"},
		{[]string{"--summary", "--help"}, "", "--summary: --help is taken for the file's name here"},
		{[]string{"--summary", "--no-such-flag"}, "", "--summary: --no-such-flag is taken for the file's name here"},
		{[]string{"--summary", "-metrics", "em"}, "", "--summary: -metrics is taken for the file's name here"},
		{[]string{"--summary", "-metrics=em", "-"}, "", "--summary: -metrics=em is taken for the file's name here"},
		{[]string{"--summary", "-h"}, "", "--summary: -h is taken for the file's name here"},
		{nil, "--metrics", "--summary: --metrics is taken for the file's name here, as a flag's value: name the file (./--metrics for one so named) (from QA_SUMMARY)"},
		{[]string{"--summary", "./--"}, "", ""},
		{[]string{"--summary", "./--metrics"}, "", ""},
		{[]string{"--summary", "-s.json"}, "", ""},
		{[]string{"--summary", "-m"}, "", ""},
		{[]string{"--summary", "-"}, "", ""},
	} {
		for _, sub := range []bool{false, true} {
			var stdout, stderr bytes.Buffer
			app, ran := subApp(&stdout, &stderr)
			flags := func() []cli.Flag {
				return []cli.Flag{&cli.StringFlag{Name: "summary", EnvVars: []string{"QA_SUMMARY"}}, &cli.StringFlag{Name: "metrics"}}
			}
			app.Flags = flags()
			app.Commands[0].Flags = flags() // its own: a run of sub reads none of the app's
			app.Action = func(*cli.Context) error { *ran = true; return nil }
			app.Commands[0].Action = app.Action
			if tc.env != "" {
				t.Setenv("QA_SUMMARY", tc.env)
			}
			wantRun(t, app, ran, tc.args, sub, "QA_SUMMARY="+tc.env, tc.want, strings.HasPrefix, ExitUsage)
		}
	}
}

// TestNotNegative: the first negative value among the named flags, whatever their type, is a usage
// error naming that flag.
func TestNotNegative(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for no error
	}{
		{nil, ""},
		{[]string{"--n", "0", "--f", "0", "--d", "0s", "--i", "0"}, ""},
		{[]string{"--n", "-1"}, "--n: must not be negative, got -1"},
		{[]string{"--f", "-0.5"}, "--f: must not be negative, got -0.5"},
		{[]string{"--f", "NaN"}, "--f: want a number, got NaN"},
		{[]string{"--d", "-1ms"}, "--d: must not be negative, got -1ms"},
		{[]string{"--i", "-7", "--n", "-1"}, "--n: must not be negative, got -1"}, // the first named
	} {
		var got error
		app := &cli.App{
			Flags: []cli.Flag{&cli.IntFlag{Name: "n"}, &cli.Float64Flag{Name: "f"}, &cli.DurationFlag{Name: "d"}, &cli.Int64Flag{Name: "i"}},
			Action: func(c *cli.Context) error {
				got = NotNegative(c, "n", "f", "d", "i")
				return nil
			},
		}
		if err := app.Run(append([]string{"x"}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("NotNegative(%q) = %v, want nil", tc.args, got)
		case tc.want != "" && (got == nil || got.Error() != tc.want || ExitCode(got) != ExitUsage):
			t.Errorf("NotNegative(%q) = %v, want the usage error %q", tc.args, got, tc.want)
		}
	}
}

// TestFloatBetween: a value from lo to hi, both included, is returned; one outside, or NaN or
// an infinity, is a usage error naming the flag, the bounds and the value, and the variable it
// came from.
func TestFloatBetween(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string // QA_T's value, unset when ""
		want string // the value read, or the error
	}{
		{nil, "", "0.5"},
		{[]string{"--t", "0"}, "", "0"},
		{[]string{"--t", "1"}, "", "1"},
		{[]string{"--t", "1.5"}, "", "--t: want a number from 0 to 1, got 1.5"},
		{[]string{"--t", "-0.25"}, "", "--t: want a number from 0 to 1, got -0.25"},
		{[]string{"--t", "1.0000001"}, "", "--t: want a number from 0 to 1, got 1.0000001"},
		{[]string{"--t", "NaN"}, "", "--t: want a number from 0 to 1, got NaN"},
		{[]string{"--t", "-Inf"}, "", "--t: want a number from 0 to 1, got -Inf"},
		{nil, "2", "--t: want a number from 0 to 1, got 2 from QA_T"},
		{[]string{"--t", "3"}, "0.5", "--t: want a number from 0 to 1, got 3"},
	} {
		t.Run(fmt.Sprintf("QA_T=%s %q", tc.env, tc.args), func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("QA_T", tc.env)
			}
			got := floatFlagResult(t, &cli.Float64Flag{Name: "t", Value: 0.5, EnvVars: []string{"QA_T"}}, tc.args,
				func(c *cli.Context) (float64, error) { return FloatBetween(c, "t", 0, 1) })
			if got != tc.want {
				t.Errorf("x %q: FloatBetween = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

// TestFloatBetweenFor: a range that is someone's names them before the value.
func TestFloatBetweenFor(t *testing.T) {
	t.Setenv("QA_T", "3")
	var got error
	app := &cli.App{
		Flags: []cli.Flag{&cli.Float64Flag{Name: "t", EnvVars: []string{"QA_T"}}},
		Action: func(c *cli.Context) error {
			_, got = FloatBetweenFor(c, "t", 0, 2, "openai")
			return nil
		},
	}
	if err := app.Run([]string{"x"}); err != nil {
		t.Fatal(err)
	}
	want := "--t: want a number from 0 to 2 for openai, got 3 from QA_T"
	if got == nil || got.Error() != want || ExitCode(got) != ExitUsage {
		t.Errorf("FloatBetweenFor = %v, want the usage error %q", got, want)
	}
}

// TestSourceAt: At names the file and line of the record being handed to fn, across files and
// past blank and bad lines, as a bad line is named.
func TestSourceAt(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(first, []byte(`{"schema":1,"id":"a1","question":"q","answers":[]}`+"\n\nnot json\n"+`{"schema":1,"id":"a4","question":"q","answers":[]}`+"\n"), 0o644)
	os.WriteFile(second, []byte(`{"schema":1,"id":"b1","question":"q","answers":[]}`+"\n"), 0o644)
	var stderr bytes.Buffer
	src := &Source{Args: []string{first, second}, Stderr: &stderr, Prog: "test"}
	var got []string
	err := src.Each(func(r *record.Record) error {
		got = append(got, src.At(r.ID, errors.New("odd")).Error())
		return nil
	})
	want := []string{first + `:1 (id "a1"): odd`, first + `:4 (id "a4"): odd`, second + `:1 (id "b1"): odd`}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("At gave %q, %v; want %q", got, err, want)
	}
	if !strings.Contains(stderr.String(), first+":3: ") || src.Bad != 1 {
		t.Errorf("bad line reported as %q, %d bad; want %s:3 and 1", stderr.String(), src.Bad, first)
	}
}

// TestSourceReject: a record that decoded and that fn rejects is reported and counted as a bad
// line is, at its place and with its id, and the reading goes on; with Strict its error, which
// names the program, stops the run there.
func TestSourceReject(t *testing.T) {
	name := filepath.Join(t.TempDir(), "r.jsonl")
	var lines strings.Builder
	for _, id := range []string{"r1", "r2", "r3"} {
		fmt.Fprintf(&lines, `{"schema":1,"id":%q,"question":"q","answers":[]}`+"\n", id)
	}
	os.WriteFile(name, []byte(lines.String()), 0o644)
	for _, strict := range []bool{false, true} {
		var stderr bytes.Buffer
		src := &Source{Args: []string{name}, Stderr: &stderr, Prog: "test", Strict: strict}
		var got []string
		err := src.Each(func(r *record.Record) error {
			if r.ID == "r2" {
				return src.Reject(r.ID, errors.New("odd"))
			}
			got = append(got, r.ID)
			return nil
		})
		msg := "test: " + name + `:2 (id "r2"): odd` + "\n"
		if !strict {
			if err != nil || !slices.Equal(got, []string{"r1", "r3"}) || stderr.String() != msg || src.Bad != 1 {
				t.Errorf("Reject: took %q, %v, %d bad, stderr %q; want [r1 r3], nil, 1, %q", got, err, src.Bad, stderr.String(), msg)
			}
			continue
		}
		var perr *ProgError
		if !errors.As(err, &perr) || perr.Prog != "test" || Message(perr.Prog, err) != msg || !slices.Equal(got, []string{"r1"}) || stderr.Len() != 0 {
			t.Errorf("Reject with Strict: took %q, %v, stderr %q; want [r1], a ProgError printed as %q, nothing", got, err, stderr.String(), msg)
		}
	}
}

// TestSourceCutGzip: a gzip file cut short is read up to the cut, and the error says how far
// the reading got and that the file was cut, not the gzip package's bare "unexpected EOF".
func TestSourceCutGzip(t *testing.T) {
	var whole bytes.Buffer
	zw := gzip.NewWriter(&whole)
	for i := range 2000 {
		fmt.Fprintf(zw, `{"schema":1,"id":"r%d","question":"q","answers":["a"]}`+"\n", i)
	}
	zw.Close()
	name := filepath.Join(t.TempDir(), "cut.jsonl.gz")
	os.WriteFile(name, whole.Bytes()[:whole.Len()/2], 0o644)
	var stderr bytes.Buffer
	src := &Source{Args: []string{name}, Stderr: &stderr, Prog: "test"}
	n := 0
	err := src.Each(func(*record.Record) error { n++; return nil })
	want := fmt.Sprintf("read %s after line %d: gzip data ends early: the file was cut short (a download or copy that did not finish?)", name, n)
	if n == 0 || n >= 2000 || err == nil || err.Error() != want || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Each over a cut gzip file: %d records, %v; want some records, then %q", n, err, want)
	}
}

// TestSourceNoRecords: a file of records with CR line endings, read as one bad line, stops with
// the advice to convert them, not to run qa-load, which the file does not need; a file whose lines
// are a benchmark's by what they hold names the qa-load format that reads them (told as qa-load
// tells it, by its first object whole, however long), and another file (generic JSON Lines, a
// file whose name alone names a benchmark) only qa-load.
func TestSourceNoRecords(t *testing.T) {
	dir := t.TempDir()
	rec := `{"schema":1,"id":"r","question":"q","answers":["a"]}`
	results := strings.Repeat(`{"id": 252, "type": "Extraction", "gpt4res": "x", "gpt4judge": "[[0]]"}`+"\n", 30)
	squad := "{\n  \"version\": \"v2.0\",\n  \"data\": [{\"title\": \"T\",\n    \"paragraphs\": [{\"context\": \"c\", \"qas\": []}]}]\n}\n"
	// A first object longer than 64 kB is told as qa-load tells it, by its first object whole:
	// SQuAD's questions follow a long context.
	long := strings.Repeat("word ", 20000)
	squadLong := `{"version": "v2.0", "data": [{"title": "T", "paragraphs": [{"context": "` + long + `", "qas": [{"id": "q1", "question": "Where?", "answers": []}]}]}]}`
	exportLong := strings.Repeat(`{"id": "q1", "title": "T", "context": "`+long+`", "question": "Where?", "answers": {"text": ["word"], "answer_start": [0]}}`+"\n", 3)
	for _, tc := range []struct{ name, data, want string }{
		{"cr.jsonl", rec + "\r" + rec + "\r", "so it is no file of records as it is: stopped (convert its CR line endings to LF, as said above)"},
		{"items.jsonl", `{"question":"q"}` + "\n", "so it is no file of records: stopped (qa-load turns benchmark files into records)"},
		{"results.jsonl", results, "its first 20 lines are not qapipe records, so it is no file of records: stopped (qa-load --format evalearn-results turns it into records)"},
		{"dev.json", squad, "its first line opens a JSON document laid out over lines, not one record a line, so it is no file of records: stopped (qa-load --format squad turns it into records)"},
		{"run.jsonl", `{"_id":"5a8b","question":"q","answer":"a","supporting_facts":[["T",0]],"context":[]}`, "its one line is not a qapipe record, so it is no file of records: stopped (qa-load --format hotpotqa turns it into records)"},
		{"dev-long.json", squadLong, "its one line is not a qapipe record, so it is no file of records: stopped (qa-load --format squad turns it into records)"},
		{"rows.jsonl", exportLong, "none of its 3 lines is a qapipe record, so it is no file of records: stopped (qa-load --format squad turns it into records)"},
		// A list of records saved as one JSON document: qa-load writes them one a line.
		{"run.json", `[{"schema":1,"id":"a","question":"q"}, {"schema":1,"id":"b","question":"q"}]`, "run.json: it is a JSON array of records, not one record a line: stopped (qa-load --format records writes them one a line)"},
		{"indented.json", "[\n  {\n    \"schema\": 1,\n    \"id\": \"a\"\n  }\n]\n", "indented.json: it is a JSON array of records, not one record a line: stopped (qa-load --format records writes them one a line)"},
		// A prediction file named after its benchmark is no benchmark file qa-load reads as such.
		{"squad_v20_predictions.json", `{"q1": "answer", "q2": ""}`, "so it is no file of records: stopped (qa-load turns benchmark files into records)"},
	} {
		name := filepath.Join(dir, tc.name)
		os.WriteFile(name, []byte(tc.data), 0o644)
		var stderr bytes.Buffer
		src := &Source{Args: []string{name}, Stderr: &stderr, Prog: "test"}
		err := src.Each(func(*record.Record) error { return nil })
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%s: Each = %v; want an error ending %q", tc.name, err, tc.want)
		}
	}
}

// TestVersion: every command answers --version with the build's version and Go's, on stdout,
// and does nothing else.
func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	app := NewApp("qa-x", "test", "", nil, &stdout, &stderr)
	ran := false
	app.Action = func(*cli.Context) error { ran = true; return nil }
	err := Execute(context.Background(), app, []string{"qa-x", "--version"})
	want := "qa-x version " + Version() + "\n"
	if err != nil || ran || stdout.String() != want || stderr.Len() > 0 {
		t.Errorf("qa-x --version = %v, ran %v, stdout %q, stderr %q; want %q", err, ran, stdout.String(), stderr.String(), want)
	}
	if v := Version(); !strings.HasSuffix(v, ", "+runtime.Version()) || strings.HasPrefix(v, ",") {
		t.Errorf("Version() = %q, want a version, then %s", v, runtime.Version())
	}
}

// TestSubcommandVersion: a subcommand answers --version and -v with its app's version line, as
// the app does, checking no input and running nothing; its other flags still work.
func TestSubcommandVersion(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	want := "qa-x version " + Version() + "\n"
	for _, args := range [][]string{{"sub", "--version"}, {"sub", "-v"}, {"sub", "--n", "3", "--version", missing}} {
		var stdout, stderr bytes.Buffer
		app, ran := subApp(&stdout, &stderr)
		err := Execute(context.Background(), app, append([]string{"qa-x"}, args...))
		if err != nil || *ran || stdout.String() != want || stderr.Len() > 0 {
			t.Errorf("qa-x %s = %v, ran %v, stdout %q, stderr %q; want %q", strings.Join(args, " "), err, *ran, stdout.String(), stderr.String(), want)
		}
	}
	var stdout, stderr bytes.Buffer
	app, ran := subApp(&stdout, &stderr)
	if err := Execute(context.Background(), app, []string{"qa-x", "sub", "--n", "3"}); err != nil || !*ran || stdout.String() != "n 3\n" {
		t.Errorf("qa-x sub --n 3 = %v, ran %v, stdout %q; want it run, printing n 3", err, *ran, stdout.String())
	}
	stdout.Reset()
	app, ran = subApp(&stdout, &stderr)
	if err := Execute(context.Background(), app, []string{"qa-x", "sub", missing}); err == nil || *ran {
		t.Errorf("qa-x sub %s = %v, ran %v; want the missing file's error", missing, err, *ran)
	}
}

// TestMisspeltSubcommand: a first argument that names no file but is near a subcommand's name is
// a usage error suggesting the subcommand; one far from every name is still opened as a file.
func TestMisspeltSubcommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	app, ran := subApp(&stdout, &stderr)
	err := Execute(context.Background(), app, []string{"qa-x", "sbu"})
	var ue *UsageError
	if !errors.As(err, &ue) || *ran || err.Error() != `sbu: no such input file or subcommand; did you mean "sub"?` {
		t.Errorf("qa-x sbu = %v (ran %v), want a usage error suggesting sub", err, *ran)
	}
	app, _ = subApp(&stdout, &stderr)
	missing := filepath.Join(t.TempDir(), "results.jsonl")
	err = Execute(context.Background(), app, []string{"qa-x", missing})
	if !errors.Is(err, fs.ErrNotExist) || errors.As(err, &ue) {
		t.Errorf("qa-x %s = %v, want the missing file's error", missing, err)
	}
}

// subApp is an app with one subcommand, "sub", whose action prints its --n; ran says whether it ran.
func subApp(stdout, stderr io.Writer) (*cli.App, *bool) {
	app := NewApp("qa-x", "test", "", nil, stdout, stderr)
	ran := new(bool)
	app.Commands = []*cli.Command{{
		Name:   "sub",
		Flags:  []cli.Flag{&cli.IntFlag{Name: "n"}},
		Before: func(c *cli.Context) error { return CheckArgs(c, nil, c.App.Writer) },
		Action: func(c *cli.Context) error {
			*ran = true
			fmt.Fprintf(c.App.Writer, "n %d\n", c.Int("n"))
			return nil
		},
	}}
	return app, ran
}

// TestSourceLeadingBad: a file whose first lines are all bad stops at the twentieth, with one
// error saying it is no file of records; a file with a good record first, or with bad records
// that have a schema, is read to its end, every bad line skipped, and the next file starts afresh.
func TestSourceLeadingBad(t *testing.T) {
	good := `{"schema":1,"id":"a","question":"q"}` + "\n"
	bad := strings.Repeat("[not, a record\n", 30)
	// Records with a bad field (they have a schema), and lines of another schema that do not.
	badRecords := strings.Repeat(`{"schema":1,"id":"b","answers":[5]}`+"\n", 25)
	noSchema := strings.Repeat(`{"id":"c","answers":[5]}`+"\n", 25)
	dir := t.TempDir()
	doc, mixed := filepath.Join(dir, "doc.json"), filepath.Join(dir, "mixed.jsonl")
	records, foreign := filepath.Join(dir, "records.jsonl"), filepath.Join(dir, "foreign.jsonl")
	os.WriteFile(doc, []byte(bad+good), 0o644)
	os.WriteFile(mixed, []byte(good+bad+good), 0o644)
	os.WriteFile(records, []byte(badRecords+good), 0o644)
	os.WriteFile(foreign, []byte(noSchema+good), 0o644)
	// Short files of bad lines only: a small CSV, one line of another schema, one bad record.
	csv, one, oneRecord := filepath.Join(dir, "qa.csv"), filepath.Join(dir, "one.jsonl"), filepath.Join(dir, "one-record.jsonl")
	os.WriteFile(csv, []byte("question,answer\nWho?,me\nWhat?,it\n"), 0o644)
	os.WriteFile(one, []byte(`{"question":"q"}`+"\n"), 0o644)
	os.WriteFile(oneRecord, []byte(`{"schema":1,"id":"b","answers":[5]}`+"\n"), 0o644)
	// One record cut short by the end of the input, and one whose JSON breaks after its schema:
	// records still, if bad ones.
	cut, broken := filepath.Join(dir, "cut.jsonl"), filepath.Join(dir, "broken.jsonl")
	os.WriteFile(cut, []byte(`{"schema":1,"id":"b","question":"q","ans`), 0o644)
	os.WriteFile(broken, []byte(`{"schema":1,"id":"b","question":"q",}`+"\n"), 0o644)
	for _, tc := range []struct {
		args      []string
		records   int
		bad       int
		errPrefix string
	}{
		{[]string{mixed}, 2, 30, ""},
		{[]string{mixed, doc}, 2, 50, doc + ": its first 20 lines are not qapipe records"},
		{[]string{doc, mixed}, 0, 20, doc + ": its first 20 lines are not qapipe records"},
		{[]string{records}, 1, 25, ""},
		{[]string{foreign}, 0, 20, foreign + ": its first 20 lines are not qapipe records"},
		{[]string{csv, mixed}, 0, 3, csv + ": none of its 3 lines is a qapipe record, so it is no file of records"},
		{[]string{mixed, one}, 2, 31, one + ": its one line is not a qapipe record, so it is no file of records"},
		{[]string{oneRecord}, 0, 1, ""}, // a record with a bad field: skipped, exit 3
		{[]string{cut}, 0, 1, ""},
		{[]string{broken}, 0, 1, ""},
		{[]string{bad20(dir)}, 0, 20, bad20(dir) + ": its first 20 lines are not qapipe records"},
	} {
		var stderr bytes.Buffer
		s := &Source{Args: tc.args, Stderr: &stderr, Prog: "qa-x"}
		n := 0
		err := s.Each(func(*record.Record) error { n++; return nil })
		if n != tc.records || s.Bad != tc.bad || (tc.errPrefix == "") != (err == nil) ||
			err != nil && !strings.HasPrefix(err.Error(), tc.errPrefix) {
			t.Errorf("%v: %d records, %d bad, error %v; want %d, %d, %q", tc.args, n, s.Bad, err, tc.records, tc.bad, tc.errPrefix)
		}
	}
}

// TestSourceDocument: the lines of a file whose first line opens a JSON document are reported
// only if a record follows, in their order; else the one error says what the file is. A first
// line that is a whole value with text after it, or the file's only line, opens none. The bad
// lines of a file that stops print each message once.
func TestSourceDocument(t *testing.T) {
	good := `{"schema":1,"id":"a","question":"q"}`
	doc := "[\n  {\n" + strings.Repeat(`    "question": "q",`+"\n", 30) + "  }\n]\n"
	for _, tc := range []struct {
		name, text string
		records    int
		stderr     string
		err        string
	}{
		{"doc", doc, 0, "", "doc: its first line opens a JSON document laid out over lines, not one record a line, so it is no file of records: stopped (qa-load turns benchmark files into records)"},
		{"short", "{\n\"a\": 1\n}\n", 0, "", "short: its first line opens a JSON document laid out over lines, not one record a line, so it is no file of records: stopped (qa-load turns benchmark files into records)"},
		{"array", "[\n" + good + "\n" + good + "\n]\n", 2,
			"qa-x: array:1: invalid record: unexpected end of JSON input\nqa-x: array:4: not JSON at column 1: invalid character ']' looking for beginning of value\n", ""},
		{"opened", `[{"question": "q",` + "\n" + good + "\n", 1, "qa-x: opened:1: invalid record: unexpected end of JSON input\n", ""},
		{"one", `[{"question": "q"` + "\n", 0, "qa-x: one:1: invalid record: unexpected end of JSON input\n",
			"one: its one line is not a qapipe record, so it is no file of records: stopped (qa-load turns benchmark files into records)"},
		{"junk", "{\"a\":1} x\n{\"a\":2} x\n", 0,
			"qa-x: junk:1: invalid record: invalid character 'x' after top-level value\n",
			"junk: none of its 2 lines is a qapipe record, so it is no file of records: stopped (qa-load turns benchmark files into records)"},
		// Lines of another JSON Lines schema: the message they share is printed once, with the
		// line of every other message, in order, when the file stops; every line's when a
		// record follows them.
		{"foreign", strings.Repeat(`{"_id":"x"}`+"\n", 25), 0,
			"qa-x: foreign:1: not a qapipe record: no \"schema\" and no \"id\" (qa-load turns benchmark files into records)\n",
			"foreign: its first 20 lines are not qapipe records, so it is no file of records: stopped (qa-load turns benchmark files into records)"},
		{"causes", "{\"a\":1}\n{\"a\":1}\n[1]\n{\"a\":1}\n", 0,
			"qa-x: causes:1: not a qapipe record: no \"schema\" and no \"id\" (qa-load turns benchmark files into records)\n" +
				"qa-x: causes:3: invalid record: want an object, got a list\n",
			"causes: none of its 4 lines is a qapipe record, so it is no file of records: stopped (qa-load turns benchmark files into records)"},
		{"before", "{\"a\":1}\n{\"a\":1}\n" + good + "\n", 1,
			"qa-x: before:1: not a qapipe record: no \"schema\" and no \"id\" (qa-load turns benchmark files into records)\n" +
				"qa-x: before:2: not a qapipe record: no \"schema\" and no \"id\" (qa-load turns benchmark files into records)\n", ""},
	} {
		dir := t.TempDir()
		f := filepath.Join(dir, tc.name)
		os.WriteFile(f, []byte(tc.text), 0o644)
		var stderr bytes.Buffer
		s := &Source{Args: []string{f}, Stderr: &stderr, Prog: "qa-x"}
		n := 0
		err := s.Each(func(*record.Record) error { n++; return nil })
		got := strings.ReplaceAll(stderr.String(), dir+"/", "")
		gotErr := ""
		if err != nil {
			gotErr = strings.ReplaceAll(err.Error(), dir+"/", "")
		}
		if n != tc.records || got != tc.stderr || gotErr != tc.err {
			t.Errorf("%s: %d records, stderr %q, error %q; want %d, %q, %q", tc.name, n, got, gotErr, tc.records, tc.stderr, tc.err)
		}
	}
}

// TestSourceDocumentCut: the lines held for a file whose first line opens a JSON document are
// reported when the file cannot be read on, each message once, as what the file is was not known.
func TestSourceDocumentCut(t *testing.T) {
	var whole bytes.Buffer
	zw := gzip.NewWriter(&whole)
	rnd := rand.New(rand.NewPCG(1, 2))
	fmt.Fprintln(zw, "[")
	for range 18 {
		fmt.Fprint(zw, "  \"")
		for range 60 {
			fmt.Fprintf(zw, "%x", rnd.Uint64()) // ~1 kB of text a line that gzip cannot shrink much
		}
		fmt.Fprintln(zw, "\",")
	}
	zw.Close()
	name := filepath.Join(t.TempDir(), "doc.json.gz")
	os.WriteFile(name, whole.Bytes()[:whole.Len()/2], 0o644)
	var stderr bytes.Buffer
	src := &Source{Args: []string{name}, Stderr: &stderr, Prog: "qa-x"}
	err := src.Each(func(*record.Record) error { return nil })
	want := "qa-x: " + name + ":1: invalid record: unexpected end of JSON input\n" +
		"qa-x: " + name + ":2: invalid record: invalid character ',' after top-level value\n"
	if err == nil || !strings.Contains(err.Error(), "gzip data ends early") || src.Bad < 3 || stderr.String() != want {
		t.Errorf("a cut document: %d bad, error %v, stderr %q; want each message of the lines read once, then the cut", src.Bad, err, stderr.String())
	}
}

// bad20 writes a file of exactly 20 bad lines in dir and returns its name: stopped at its last
// line, not again at its end.
func bad20(dir string) string {
	f := filepath.Join(dir, "bad20.json")
	os.WriteFile(f, []byte(strings.Repeat("[not, a record\n", 20)), 0o644)
	return f
}

// TestInterruption: an interruption that left finished records unwritten says how many, and still
// exits 130; one that left none, and any other error, are reported as before.
func TestInterruption(t *testing.T) {
	other := errors.New("boom")
	for _, tc := range []struct {
		err               error
		written, finished int
		want              string // Report's line
	}{
		{context.Canceled, 4, 6, "qa-x: interrupted: 4 records written; 2 more were finished but not written, as output keeps input order\n"},
		{fmt.Errorf("read: %w", context.Canceled), 0, 1, "qa-x: interrupted: 0 records written; 1 more was finished but not written, as output keeps input order\n"},
		{context.Canceled, 1, 3, "qa-x: interrupted: 1 record written; 2 more were finished but not written, as output keeps input order\n"},
		{context.Canceled, 5, 5, "qa-x: interrupted\n"},
		{other, 1, 3, "qa-x: boom\n"},
		{nil, 2, 2, ""},
	} {
		err := Interruption(tc.err, tc.written, tc.finished)
		var b strings.Builder
		Report(&b, "qa-x", err)
		if b.String() != tc.want {
			t.Errorf("Report(Interruption(%v, %d, %d)) = %q, want %q", tc.err, tc.written, tc.finished, b.String(), tc.want)
		}
		if tc.err != nil && ExitCode(err) != ExitCode(tc.err) {
			t.Errorf("ExitCode(Interruption(%v, %d, %d)) = %d, want %d", tc.err, tc.written, tc.finished, ExitCode(err), ExitCode(tc.err))
		}
	}
}

// TestAbandoned: a run whose calls in flight were abandoned counts the records read and those
// finished; one that finished (asked to, or not interrupted) or failed otherwise counts nothing.
func TestAbandoned(t *testing.T) {
	for _, tc := range []struct {
		err            error
		read, finished int
		want           string
	}{
		{context.Canceled, 12, 2, "12 records read, 2 finished"},
		{&Interrupted{Written: 2, Unwritten: 1}, 9, 3, "9 records read, 3 finished"},
		{fmt.Errorf("judge: %w", context.Canceled), 1, 0, "1 record read, 0 finished"},
		{context.Canceled, 5, 5, ""},
		{interrupt.ErrInterrupted, 12, 5, ""},
		{errors.New("boom"), 12, 2, ""},
		{nil, 12, 2, ""},
	} {
		if got := Abandoned(tc.err, tc.read, tc.finished); got != tc.want {
			t.Errorf("Abandoned(%v, %d, %d) = %q, want %q", tc.err, tc.read, tc.finished, got, tc.want)
		}
	}
}

// TestSourceErr: the error of a run with bad lines says how many, in the singular for one.
func TestSourceErr(t *testing.T) {
	for _, tc := range []struct {
		bad  int
		want string
	}{
		{0, ""},
		{1, "1 bad input line skipped"},
		{2, "2 bad input lines skipped"},
	} {
		s := &Source{Bad: tc.bad}
		got := ""
		if err := s.Err(); err != nil {
			got = err.Error()
			if ExitCode(err) != ExitBadRecords {
				t.Errorf("ExitCode(Source{Bad: %d}.Err()) = %d, want %d", tc.bad, ExitCode(err), ExitBadRecords)
			}
		}
		if got != tc.want {
			t.Errorf("Source{Bad: %d}.Err() = %q, want %q", tc.bad, got, tc.want)
		}
	}
}

// TestNotCalledNote: the note on the errors of an interrupted run says "it" for its one error.
func TestNotCalledNote(t *testing.T) {
	for _, tc := range []struct {
		n, of int
		want  string
	}{
		{0, 0, ""},
		{0, 3, ""},
		{1, 1, " (it was not called: interrupted)"},
		{1, 3, " (1 of them not called: interrupted)"},
		{2, 2, " (2 of them not called: interrupted)"},
		{7, 7, " (7 of them not called: interrupted)"},
	} {
		if got := NotCalledNote(tc.n, tc.of); got != tc.want {
			t.Errorf("NotCalledNote(%d, %d) = %q, want %q", tc.n, tc.of, got, tc.want)
		}
	}
}

// TestSourceProg: the bad line that stops a run, under Strict or as one too many at the start of
// a file, is reported after the Source's Prog, as the lines it skips are, not after the
// command's name; it is still the *record.Error it was, exit 1.
func TestSourceProg(t *testing.T) {
	for _, tc := range []struct {
		strict bool
		lines  int
		want   string // Report's last line
	}{
		{true, 1, "qa-x sub: stdin:1: invalid record: want an object, got a list\n"},
		{false, 2, "qa-x sub: stdin: its first 20 lines are not qapipe records, so it is no file of records: stopped (qa-load turns benchmark files into records)\n"},
	} {
		var stderr bytes.Buffer
		s := &Source{Stdin: strings.NewReader(strings.Repeat("[1]\n", 25)), Stderr: &stderr, Prog: "qa-x sub", Strict: tc.strict}
		err := s.Each(func(*record.Record) error { return nil })
		Report(&stderr, "qa-x", err)
		lines := strings.SplitAfter(stderr.String(), "\n")
		if got := lines[len(lines)-2]; len(lines) != tc.lines+1 || got != tc.want {
			t.Errorf("strict %v: stderr %q, ending %q; want %d lines, ending %q", tc.strict, stderr.String(), got, tc.lines, tc.want)
		}
		var perr *record.Error
		if tc.strict && !errors.As(err, &perr) || ExitCode(err) != ExitFailure {
			t.Errorf("strict %v: error %#v, exit %d; want a *record.Error, exit %d", tc.strict, err, ExitCode(err), ExitFailure)
		}
	}
}

// TestOutputFolder: an output file is refused before the work when its folder does not exist or
// is a file, or when it names a folder; a failure, not a usage error.
func TestOutputFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct{ path, want string }{
		{"", ""},
		{"-", ""},
		{filepath.Join(dir, "new.json"), ""},
		{file, ""}, // overwritten, as a redirection would
		{"relative.json", ""},
		{filepath.Join(dir, "no", "s.json"), "--summary: cannot write " + filepath.Join(dir, "no", "s.json") + ": there is no folder " + filepath.Join(dir, "no") + " (make it first: mkdir -p " + filepath.Join(dir, "no") + ")"},
		{filepath.Join(file, "s.json"), "--summary: cannot write " + filepath.Join(file, "s.json") + ": " + file + " is a file, not a folder"},
		{dir, "--summary: " + dir + " is a folder: name a file in it"},
	} {
		err := OutputFolder("--summary", tc.path)
		got := ""
		if err != nil {
			got = err.Error()
			if ExitCode(err) != ExitFailure {
				t.Errorf("OutputFolder(%q): exit %d, want %d", tc.path, ExitCode(err), ExitFailure)
			}
		}
		if got != tc.want {
			t.Errorf("OutputFolder(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestFileFlag: a file a flag names that is at fault is a usage error naming the flag and the
// file; where its folder is missing it says to make it, in OutputFolder's words.
func TestFileFlag(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "c.sqlite")
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "c.sqlite"), "--cache: " + filepath.Join(dir, "c.sqlite") + ": not a reply cache"},
		{missing, "--cache: cannot write " + missing + ": there is no folder " + filepath.Join(dir, "no") + " (make it first: mkdir -p " + filepath.Join(dir, "no") + ")"},
		{dir, "--cache: " + dir + " is a folder: name a file in it"},
	} {
		err := FileFlag("--cache", tc.path, errors.New("not a reply cache"))
		if err == nil || err.Error() != tc.want || ExitCode(err) != ExitUsage {
			t.Errorf("FileFlag(%q) = %v (exit %d), want %q (exit %d)", tc.path, err, ExitCode(err), tc.want, ExitUsage)
		}
	}
}

// fault is a FileFault, as the cache's file errors are.
type fault struct{ path string }

func (f fault) Error() string              { return "cache " + f.path + ": not a reply cache" }
func (f fault) FileFault() (string, error) { return f.path, errors.New("not a reply cache") }

// TestFlagFile: an error that wraps a FileFault is said as FileFlag says it, a usage error naming
// the flag; any other error, and nil, is returned as it is.
func TestFlagFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.sqlite")
	err := FlagFile("--cache", fmt.Errorf("open: %w", fault{path}))
	if want := "--cache: " + path + ": not a reply cache"; err == nil || err.Error() != want || ExitCode(err) != ExitUsage {
		t.Errorf("FlagFile(fault) = %v (exit %d), want %q (exit %d)", err, ExitCode(err), want, ExitUsage)
	}
	other := errors.New("database is locked")
	if err := FlagFile("--cache", other); err != other {
		t.Errorf("FlagFile(%v) = %v, want it unchanged", other, err)
	}
	if err := FlagFile("--cache", nil); err != nil {
		t.Errorf("FlagFile(nil) = %v, want nil", err)
	}
}

// TestStopped: a record's error from a call not made as the server was never reached, or refused
// every call, is told from the error of a call made, and counted apart by why.
func TestStopped(t *testing.T) {
	for msg, want := range map[string]string{
		"openai m: not called: server http://127.0.0.1:1 was never reached (first error: connection refused)":                 "server never reached",
		"judge call: openai m: not called: server http://h:1 was never reached (first error: x)":                              "server never reached",
		"openai m: not called: server http://h:1 refused every call so far with HTTP 401 (first reply: Incorrect API key)":    "refused by the server",
		"embed http://h:1/embed: not called: server http://h:1 refused every call so far with HTTP 404; no such model or ...": "refused by the server",
		"openai m: network error: failed to reach API server (dial tcp: connection refused)":                                  "",
		"openai m: API returned unexpected status code: 401: Incorrect API key provided":                                      "",
		"judge call: interrupted before the call was made":                                                                    "",
		// The server's words quoted after the reason are not the reason.
		"openai m: not called: server http://h:1 refused every call so far with HTTP 404 (first reply: host was never reached)": "refused by the server",
		"openai m: not called: server http://h:1 failed (first reply: x refused every call so far with HTTP 401)":               "",
	} {
		if got := Stopped(msg); got != want {
			t.Errorf("Stopped(%q) = %q, want %q", msg, got, want)
		}
	}
	var s Stops
	for _, msg := range []string{"a: not called: server h was never reached (x)", "b: failed", "a: not called: server h was never reached (x)", "a: not called: server h was never reached (x)"} {
		s.Count(msg)
	}
	if got, want := s.Note(10), " (3 of them not called: server never reached)"; got != want {
		t.Errorf("Note(10) after 3 never reached = %q, want %q", got, want)
	}
	var one Stops
	if !one.Count("a: not called: server h refused every call so far with HTTP 403") {
		t.Errorf("Count(refused) = false, want true")
	}
	if got, want := one.Note(1), " (it was not called: refused by the server)"; got != want {
		t.Errorf("Note(1) after 1 refused = %q, want %q", got, want)
	}
	var none Stops
	if none.Count("b: failed") || none.Note(3) != "" {
		t.Errorf("Stops counted an error of a call made: Note(3) = %q", none.Note(3))
	}
}

// TestTemperature: a temperature is refused when NaN or negative, and above a provider's bound
// when there is one (named in the error); without a bound any other value is taken.
func TestTemperature(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		hi      float64
		bounded bool
		want    string // the value read, or the error
	}{
		{nil, 2, true, "0"},
		{[]string{"--t", "1"}, 1, true, "1"},
		{[]string{"--t", "1.5"}, 1, true, "--t: want a number from 0 to 1 for anthropic, got 1.5"},
		{[]string{"--t", "1.5"}, 0, false, "1.5"},
		{[]string{"--t", "7"}, 0, false, "7"},
		{[]string{"--t", "-0.5"}, 0, false, "--t: must not be negative, got -0.5"},
		{[]string{"--t", "-0.5"}, 1, true, "--t: must not be negative, got -0.5"},
		{[]string{"--t", "NaN"}, 0, false, "--t: want a number, got NaN"},
	} {
		got := floatFlagResult(t, &cli.Float64Flag{Name: "t"}, tc.args,
			func(c *cli.Context) (float64, error) { return Temperature(c, "t", tc.hi, tc.bounded, "anthropic") })
		if got != tc.want {
			t.Errorf("x %q (bound %v %v): Temperature = %q, want %q", tc.args, tc.hi, tc.bounded, got, tc.want)
		}
	}
}

// floatFlagResult runs an app with flag over args and returns what read gives: the value, or the
// error's text, marked when it is no usage error.
func floatFlagResult(t *testing.T, flag cli.Flag, args []string, read func(c *cli.Context) (float64, error)) string {
	t.Helper()
	var got string
	app := &cli.App{
		Flags: []cli.Flag{flag},
		Action: func(c *cli.Context) error {
			v, err := read(c)
			if got = fmt.Sprint(v); err != nil {
				got = err.Error()
				if ExitCode(err) != ExitUsage {
					got += " (no usage error)"
				}
			}
			return nil
		},
	}
	if err := app.Run(append([]string{"x"}, args...)); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSourceEachUntil: a finish request stops EachUntil before the next record (the records fn
// took are kept) with interrupt.ErrInterrupted, and one made during the last record ends it so
// too; a run never asked reads every record.
func TestSourceEachUntil(t *testing.T) {
	name := filepath.Join(t.TempDir(), "r.jsonl")
	var lines strings.Builder
	for _, id := range []string{"r1", "r2", "r3"} {
		fmt.Fprintf(&lines, `{"schema":1,"id":%q,"question":"q","answers":[]}`+"\n", id)
	}
	os.WriteFile(name, []byte(lines.String()), 0o644)
	for _, tc := range []struct {
		finishAt string // the record during which the finish request comes; "" for none
		want     []string
		err      error
	}{
		{"", []string{"r1", "r2", "r3"}, nil},
		{"r2", []string{"r1", "r2"}, interrupt.ErrInterrupted},
		{"r3", []string{"r1", "r2", "r3"}, interrupt.ErrInterrupted},
	} {
		ctx, finish := interrupt.WithFinish(context.Background())
		src := &Source{Args: []string{name}, Stderr: io.Discard, Prog: "test"}
		var got []string
		err := src.EachUntil(ctx, func(r *record.Record) error {
			got = append(got, r.ID)
			if r.ID == tc.finishAt {
				finish()
			}
			return nil
		})
		if !slices.Equal(got, tc.want) || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("finish at %q: EachUntil took %q, %v; want %q, %v", tc.finishAt, got, err, tc.want, tc.err)
		}
	}
}

// FuzzSourceBadLines: whatever a file holds, Source counts every bad line, reports each at most
// once and in the order of the lines, and reports every one when the file is read on past them
// (a record came): messages held while the file could still be a document or a benchmark's are
// printed or, when the file stops, said by the error that stops it: that it is no file of
// records (a JSON array of records among them), or that it cannot be read.
func FuzzSourceBadLines(f *testing.F) {
	good := `{"schema":1,"id":"a","question":"q"}`
	f.Add("[\n  {\n    \"qa\": 1,\n" + good + "\n]\n")
	f.Add("{\"a\":1}\n{\"a\":1}\n" + good + "\n[1]\n")
	f.Add(strings.Repeat("{\"_id\":\"x\"}\n", 22) + good + "\n")
	f.Add("{\n\"schema\":1,\n" + good + "\n}")
	f.Fuzz(func(t *testing.T, text string) {
		var stderr bytes.Buffer
		s := &Source{Stdin: strings.NewReader(text), Stderr: &stderr, Prog: "qa-x"}
		records := 0
		err := s.Each(func(*record.Record) error { records++; return nil })
		var lines []int
		for _, m := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
			if m == "" {
				continue
			}
			rest, ok := strings.CutPrefix(m, "qa-x: stdin:")
			if !ok {
				t.Fatalf("message %q is not of a line of stdin", m)
			}
			n, _, _ := strings.Cut(rest, ":")
			n, _, _ = strings.Cut(n, " ")
			no, perr := strconv.Atoi(n)
			if perr != nil {
				t.Fatalf("message %q names no line", m)
			}
			if len(lines) > 0 && no <= lines[len(lines)-1] {
				t.Fatalf("line %d reported after line %d:\n%s", no, lines[len(lines)-1], stderr.String())
			}
			lines = append(lines, no)
		}
		if len(lines) > s.Bad {
			t.Fatalf("%d messages for %d bad lines:\n%s", len(lines), s.Bad, stderr.String())
		}
		if err == nil && len(lines) != s.Bad {
			t.Fatalf("read to its end with %d records: %d messages for %d bad lines:\n%s", records, len(lines), s.Bad, stderr.String())
		}
		if err != nil && !strings.Contains(err.Error(), "so it is no file of records") && !strings.Contains(err.Error(), "read stdin") &&
			!strings.Contains(err.Error(), "it is a JSON array of records") {
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// TestDashIsStdin: "-" is stdin to the progress totals even where a file of that name is in the
// working directory, as it is to the reader: neither its size nor its lines are the input's.
func TestDashIsStdin(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("-", []byte("{}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := inputSize([]string{"-"}); got != -1 {
		t.Errorf("inputSize([-]) with a file named - = %d, want -1", got)
	}
	if got := CountLines([]string{"-"}); got != -1 {
		t.Errorf("CountLines([-]) with a file named - = %d, want -1", got)
	}
}

// TestReadError: a read error names the last line read, and no line when none was.
func TestReadError(t *testing.T) {
	cause := errors.New("input/output error")
	for _, tc := range []struct {
		line int
		want string
	}{
		{0, "read a.jsonl: input/output error"},
		{1, "read a.jsonl after line 1: input/output error"},
	} {
		err := ReadError("a.jsonl", tc.line, cause)
		if err.Error() != tc.want || !errors.Is(err, cause) {
			t.Errorf("ReadError(a.jsonl, %d) = %q, want %q wrapping its cause", tc.line, err, tc.want)
		}
	}
}

// TestFlagFilesNotStdout: a file a flag names for the command to read (--predictions, --prices,
// a subcommand's too) that is the file stdout appends to is a usage error naming the flag, and
// the variable its value came from; another file, a stdout that is no file, and a flag of that
// name that only takes a value the command writes are fine.
func TestFlagFilesNotStdout(t *testing.T) {
	dir := t.TempDir()
	p, other := filepath.Join(dir, "p.json"), filepath.Join(dir, "other.json")
	for _, f := range []string{p, other} {
		if err := os.WriteFile(f, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	for _, tc := range []struct {
		name   string
		args   []string
		env    [2]string
		stdout io.Writer
		want   string
	}{
		{"flag", []string{"--predictions", p}, [2]string{}, out, "--predictions: " + p + " is also the file stdout writes to"},
		{"variable", nil, [2]string{"QA_PRICES", p}, out, "--prices: " + p + " is also the file stdout writes to: what is written would be added to a file the run reads (write stdout to another file) (from QA_PRICES)"},
		{"subcommand's flag", []string{"sub", "--route", p}, [2]string{}, out, "--route: " + p + " is also"},
		{"a cache", []string{"--cache", p}, [2]string{}, out, "--cache: " + p + " is also the file stdout writes to"},
		{"another file", []string{"--predictions", other}, [2]string{}, out, ""},
		{"stdout no file", []string{"--predictions", p}, [2]string{}, &bytes.Buffer{}, ""},
		{"the flag's value is no file", []string{"--predictions", "-"}, [2]string{}, out, ""},
	} {
		runWithEnv(t, tc.args, tc.env, func(t *testing.T, name string) {
			var stderr bytes.Buffer
			app := NewApp("qa-x", "test", "", nil, tc.stdout, &stderr)
			app.Flags = []cli.Flag{
				&cli.StringFlag{Name: "predictions"},
				&cli.StringFlag{Name: "prices", EnvVars: []string{"QA_PRICES"}},
				&cli.StringFlag{Name: "cache"},
			}
			app.Action = func(*cli.Context) error { return nil }
			app.Commands = []*cli.Command{{Name: "sub", Flags: []cli.Flag{&cli.StringFlag{Name: "route"}}, OnUsageError: app.OnUsageError,
				Before: func(c *cli.Context) error { return CheckArgs(c, nil, tc.stdout) }, Action: func(*cli.Context) error { return nil }}}
			wantUsage(t, "qa-x "+name, Execute(context.Background(), app, append([]string{"qa-x"}, tc.args...)), tc.want, strings.HasPrefix)
		})
	}
}

// twoInputs writes two files named name1 and name2, each one record "{}", in a new folder, and
// returns the folder and their paths.
func twoInputs(t *testing.T, name1, name2 string) (dir, path1, path2 string) {
	t.Helper()
	dir = t.TempDir()
	path1, path2 = filepath.Join(dir, name1), filepath.Join(dir, name2)
	for _, p := range []string{path1, path2} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, path1, path2
}

// openFile opens the file at path with flag, closed at the test's end.
func openFile(t *testing.T, path string, flag int) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// wantUsage checks that err, call's error, is nil when want is "", else a usage error (exit 2)
// whose message matches want (strings.HasPrefix, or equal for the whole message).
func wantUsage(t *testing.T, call string, err error, want string, match func(s, want string) bool) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s = %v, want nil", call, err)
	case want != "" && (err == nil || ExitCode(err) != ExitUsage || !match(err.Error(), want)):
		t.Errorf("%s = %v (exit %d), want %q (exit %d)", call, err, ExitCode(err), want, ExitUsage)
	}
}

// equal reports whether s is want, as wantUsage's match for a whole message.
func equal(s, want string) bool { return s == want }

// wantRun runs app (made by subApp, ran its flag of a run) on args, after "sub" when sub, and
// checks that it ran when want is "", else that it ran not and failed with exit and an error
// whose message matches want (strings.Contains, strings.HasPrefix); env names the variables
// set, for the message.
func wantRun(t *testing.T, app *cli.App, ran *bool, args []string, sub bool, env, want string, match func(s, want string) bool, exit int) {
	t.Helper()
	args = append([]string{"qa-x"}, args...)
	if sub {
		args = slices.Insert(args, 1, "sub")
	}
	err := Execute(context.Background(), app, args)
	switch {
	case want == "" && (err != nil || !*ran):
		t.Errorf("%q (%s) = %v, ran %v; want it run", args, env, err, *ran)
	case want != "" && (err == nil || ExitCode(err) != exit || !match(err.Error(), want) || *ran):
		t.Errorf("%q (%s) = %v (exit %d), ran %v; want %q (exit %d)", args, env, err, ExitCode(err), *ran, want, exit)
	}
}

// BenchmarkCheckInputsManyFiles: the input checks over a command line of 20,000 files, the last
// of them the first named again (found by the files' identity, not by comparing each file with
// every earlier one).
func BenchmarkCheckInputsManyFiles(b *testing.B) {
	dir := b.TempDir()
	args := make([]string, 20_000)
	for i := range args {
		args[i] = filepath.Join(dir, strconv.Itoa(i)+".jsonl")
		if err := os.WriteFile(args[i], nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	args = append(args, args[0])
	b.ResetTimer()
	for b.Loop() {
		if err := CheckInputs(args, nil, io.Discard); !strings.Contains(fmt.Sprint(err), "given twice") {
			b.Fatalf("got %v, want the first file given twice", err)
		}
	}
	b.ReportMetric(float64(len(args))*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}
