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

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/textfile"
)

// InputsHelp is what the --help of every command that reads records says of its inputs, in the
// same words; qa-load's, whose stdin needs --format, says more.
const InputsHelp = `Input files are positional arguments; none or "-" means stdin; each may be gzip-compressed
(known by its first bytes, whatever its name).`

// CheckInputs returns a usage error for an input argument that begins with "-", names no file
// and is not "-" itself: a flag given after the input files, where urfave/cli does not read
// flags. Checked before any work, so a misplaced --concurrency or --model never runs a whole
// file with the defaults and fails at the end. args are the arguments after the flags as typed:
// a first "--", which ended the flags (see CheckArgs), is no input, and every argument after it
// is a file whatever it begins with (`qa-load -- -odd.jsonl`); a "--" after an input file is a
// usage error unless it names a file, as it is read as one. Then it returns the error of the
// first input file that does not exist, cannot be looked at, is a directory or may not be read
// (access(2)), so that a mistyped or unreadable second file stops a run before the first is read
// (for qa-predict, before its calls are paid for); a missing "help" is a usage error that names
// --help; "-" given twice is a usage error, as stdin can be read once, and so is a file given
// beside "-" that is the file stdin reads (/dev/stdin -, by identity: os.SameFile), and so is a
// regular file or a pipe named twice, by one name or two (a.jsonl ./a.jsonl: see inputFiles.add). Last it returns NotStdout's
// error for an input that is the file stdout writes to. It opens nothing: a named pipe is left
// for its one reading.
func CheckInputs(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	} else if err := flagsBefore(args); err != nil {
		return err
	}
	stdinGiven, stdinSt := false, stdinStat(args, stdin)
	var seen inputFiles
	for _, a := range args {
		if a == "-" {
			if stdinGiven { // the second would read nothing, its records lost without a word
				return Usagef("-: stdin given twice; it can be read once")
			}
			stdinGiven = true
			continue
		}
		st, err := os.Stat(a)
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe) && a == "help" && errors.Is(err, fs.ErrNotExist):
			// "qa-score help", as git and go take it: the commands have no help subcommand.
			return errHelpWord
		case errors.As(err, &pe):
			return &fs.PathError{Op: "open", Path: a, Err: pe.Err}
		case err != nil:
			return err
		case st.IsDir():
			return fmt.Errorf("%s is a directory, not an input file: name the files in it (%s)", a, filepath.Join(a, "*"))
		case stdinSt != nil && os.SameFile(st, stdinSt): // /dev/stdin -, or a.jsonl - < a.jsonl
			return Usagef("%s: stdin given twice (it is the file stdin reads, and - is given too); it can be read once", a)
		}
		if err := seen.add(a, st); err != nil {
			return err
		}
		if err := canRead(a); err != nil {
			return &fs.PathError{Op: "open", Path: a, Err: err}
		}
	}
	return NotStdout(args, stdin, stdout)
}

// inputFiles are the input arguments read so far that name a regular file or a pipe, by the
// files' identity where the system gives one (device and inode), else in a list compared with
// os.SameFile: a command line of tens of thousands of files is checked in linear time.
type inputFiles struct {
	byID  map[[2]uint64]string
	other []namedFile
}

// namedFile is an input argument and the file information of the file it names.
type namedFile struct {
	arg string
	st  os.FileInfo
}

// add returns a usage error naming arg, an input argument whose file is st, and the earlier
// argument that names the same file, by identity: `a.jsonl ./a.jsonl`, a link and what it links
// to; else it adds arg. Its records would be read twice, seen only in the count of repeated ids,
// or, a pipe's, found empty the second time; no command reads an input twice on purpose (inputs
// are read one after the other, never joined). Other files (a character device: /dev/null, a
// terminal, which reads what is typed next) may be read again, and are not added.
func (f *inputFiles) add(arg string, st os.FileInfo) error {
	if !st.Mode().IsRegular() && st.Mode().Type() != fs.ModeNamedPipe {
		return nil
	}
	var before string
	if id, ok := fileID(st); ok {
		if f.byID == nil {
			f.byID = map[[2]uint64]string{}
		}
		before, ok = f.byID[id]
		if !ok {
			f.byID[id] = arg
			return nil
		}
	} else {
		i := slices.IndexFunc(f.other, func(n namedFile) bool { return os.SameFile(n.st, st) })
		if i < 0 {
			f.other = append(f.other, namedFile{arg, st})
			return nil
		}
		before = f.other[i].arg
	}
	why := "its records would be read twice"
	if !st.Mode().IsRegular() {
		why = "a pipe can be read once"
	}
	if before == arg {
		return Usagef("%s: given twice: %s (give it once)", arg, why)
	}
	return Usagef("%s: the same file as %s, given before: %s (give it once)", arg, before, why)
}

// stdinStat returns the file information of the file stdin reads when args, input arguments,
// read it ("-" among them) beside others, else nil: nil too for a stdin that is no file (a
// test's reader).
func stdinStat(args []string, stdin io.Reader) os.FileInfo {
	if len(args) < 2 || !slices.Contains(args, "-") {
		return nil
	}
	var f *os.File
	switch in := stdin.(type) {
	case *os.File:
		f = in
	case *typedInput:
		if in != nil {
			f = in.f
		}
	}
	if f == nil {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	return st
}

// flagsBefore returns a usage error for the first of args, input arguments, that begins with "-",
// names no file and is not "-": a flag given after an input file. The arguments after a "--"
// are files, and that "--" a usage error unless it names one.
func flagsBefore(args []string) error {
	for _, a := range args {
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		_, err := os.Stat(a)
		switch {
		case a == "--" && err != nil:
			return Usagef("--: give it before the first input file (after one, every argument is read as a file, -- too)")
		case a == "--":
			return nil
		case err != nil:
			return Usagef("%s: flags go before the input files (the arguments after the first file are all read as files)", a)
		}
	}
	return nil
}

// commandLineKey is the key of the context value that holds the command line Execute runs.
type commandLineKey struct{}

// errHelpWord is the error of an input file "help" that does not exist.
var errHelpWord = Usagef("help: no such input file; for the help, give --help")

// CheckArgs is CheckInputs over the input arguments of c, the context of a command or a
// subcommand run by Execute, as typed: with the "--" that ended the flags first when one did.
// Each command and subcommand runs it before its Action (NewApp's does).
//
// Note: the flag parser takes away a "--" that ends the flags, so that `qa-load -- -x.jsonl`
// and `qa-load -- a.jsonl -x.jsonl` left no trace of it in c.Args(), and -x.jsonl was refused
// as a flag given after the files. It is looked for in the command line Execute put in c's
// context, before the arguments, which are always its last. A "--" given as a flag's value
// (--metrics --) is taken for one that ended the flags too.
func CheckArgs(c *cli.Context, stdin io.Reader, stdout io.Writer) error {
	args := c.Args().Slice()
	line, _ := c.Context.Value(commandLineKey{}).([]string)
	if i := len(line) - len(args) - 1; i >= 1 && line[i] == "--" && slices.Equal(line[i+1:], args) {
		args = append([]string{"--"}, args...)
	}
	if err := noFlagAsFile(c); err != nil {
		return err
	}
	if err := CheckInputs(args, stdin, stdout); err != nil {
		// "qa-judge help agree": the help asked for is a subcommand's.
		if i := slices.Index(args, "help"); i >= 0 && i+1 < len(args) && c.App != nil && c.App.Command(args[i+1]) != nil &&
			errors.Is(err, errHelpWord) {
			return Usagef("help: no such input file; for the help of %s, give %s %s --help", args[i+1], c.App.Name, args[i+1])
		}
		return err
	}
	return flagFilesNotStdout(c, stdout)
}

// outputFileFlags are the flags, in any command, whose value names a file the command writes
// (a summary, a report, an image, a cache, which it reads too).
var outputFileFlags = []string{"summary", "mismatches", "output", "plot", "cache"}

// noFlagAsFile returns a usage error naming the first of c's outputFileFlags whose value is
// "--" (qa-score --summary -- a.jsonl) or looks like a flag: begins with "--" (--summary
// --metrics em), or is one of the command's flags behind one "-" (--summary -h), with or
// without "=value". The flag takes it for its file's name, where the flags' end or another flag
// was surely meant, and a file so named was written (the summary went to a file named
// "--metrics", the records to stdout, exit 0). Any other name that begins with "-"
// (--summary -s.json) is a name, as the flag package reads it; a file named "--x" is named ./--x.
func noFlagAsFile(c *cli.Context) error {
	for _, name := range outputFileFlags {
		if !hasFlag(c, name) {
			continue
		}
		if v := c.String(name); looksLikeFlag(c, v) {
			return Usagef("--%s: %s is taken for the file's name here, as a flag's value: name the file (./%s for one so named)", name, v, v)
		}
	}
	return nil
}

// looksLikeFlag reports whether v, a flag's value, is "--", begins with "--", or is "-" and the
// name of one of c's command's flags or of help (-h), with or without "=value".
func looksLikeFlag(c *cli.Context, v string) bool {
	if strings.HasPrefix(v, "--") {
		return true
	}
	name, ok := strings.CutPrefix(v, "-")
	if !ok || name == "" {
		return false
	}
	name, _, _ = strings.Cut(name, "=")
	return name == "h" || name == "help" || hasFlag(c, name)
}

// hasFlag reports whether c's command has the flag name.
func hasFlag(c *cli.Context, name string) bool {
	return c.Command != nil && slices.ContainsFunc(c.Command.Flags, func(fl cli.Flag) bool { return slices.Contains(fl.Names(), name) })
}

// inputFileFlags are the flags, in any command, whose value is a file the command reads (a
// prediction file, a template, a price table, a key, a SQLite cache, which it writes too): none
// may be the file stdout writes to.
var inputFileFlags = []string{"predictions", "template", "prompt", "route", "prices", "label-map", "baseline",
	"api-key-file", "judge-api-key-file", "embed-api-key-file", "cache"}

// flagFilesNotStdout returns a usage error naming the first of c's inputFileFlags whose file is
// the regular file stdout writes to (`qa-load --predictions p.json x.json >> p.json`): the run
// would add its records to a file it reads, and leave it so with exit 0. A flag that c's command
// does not have, or that names no file, is fine.
func flagFilesNotStdout(c *cli.Context, stdout io.Writer) error {
	out := regularStdout(stdout)
	if out == nil {
		return nil
	}
	for _, name := range inputFileFlags {
		if !hasFlag(c, name) {
			continue
		}
		path := c.String(name)
		if path == "" || path == "-" {
			continue
		}
		if st, err := os.Stat(path); err == nil && os.SameFile(st, out) {
			return Usagef("--%s: %s is also the file stdout writes to: what is written would be added to a file the run reads (write stdout to another file)", name, path)
		}
	}
	return nil
}

// regularStdout returns the file information of the regular file stdout writes to, or nil when
// it is no regular file (a pipe, a terminal, /dev/null) or no file at all (a test's buffer).
func regularStdout(stdout io.Writer) os.FileInfo {
	f := fileOf(stdout)
	if f == nil {
		return nil
	}
	out, err := f.Stat()
	if err != nil || !out.Mode().IsRegular() {
		return nil
	}
	return out
}

// NotStdout returns a usage error naming the input, a file of args or stdin where it is read
// (args empty or holding "-"), that is the regular file stdout writes to, by identity
// (`qa-score x.jsonl >> x.jsonl`, `qa-score < x.jsonl >> x.jsonl`): a stage would read back what it
// writes, and one that writes a record for each it reads would never reach the end of its input,
// filling the disk. cat refuses so ("input file is output file"). A stdout that is no regular
// file (a pipe, a terminal, /dev/null) or no file at all (a test's buffer) is fine.
func NotStdout(args []string, stdin io.Reader, stdout io.Writer) error {
	out := regularStdout(stdout)
	if out == nil {
		return nil
	}
	if len(args) == 0 || slices.Contains(args, "-") {
		if in, ok := stdin.(*os.File); ok {
			if st, err := in.Stat(); err == nil && os.SameFile(st, out) {
				return Usagef("stdout: %s is also the input, on stdin: what is written would be read back in (write it to another file)", fileName(in))
			}
		}
	}
	for _, a := range args {
		if a == "-" {
			continue
		}
		if st, err := os.Stat(a); err == nil && os.SameFile(st, out) {
			return Usagef("stdout: %s is also an input file: what is written would be read back in (write it to another file)", a)
		}
	}
	return nil
}

// fileName is the path of the regular file f has open: the link /proc/self/fd holds for its
// descriptor where there is one (stdin redirected from a file is named "/dev/stdin"), else f's
// own name.
func fileName(f *os.File) string {
	if path, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil && filepath.IsAbs(path) {
		return path
	}
	return f.Name()
}

// Input is one input stream: a named file or standard input.
type Input struct {
	Name string // file name, or "" for standard input
	R    io.Reader
}

// OpenInputs calls fn for each positional argument in turn ("-" or none means stdin), each read
// through textfile.NewReader: decompressed if it is gzip data, without a leading byte order mark.
// A non-nil count is written every byte as it is read, before decompression, so that it can
// count them against the files' sizes (a ByteProgress bar).
func OpenInputs(args []string, stdin io.Reader, count io.Writer, fn func(Input) error) error {
	if len(args) == 0 {
		args = []string{"-"}
	}
	open := func(r io.Reader) io.Reader {
		if count != nil {
			r = io.TeeReader(r, count)
		}
		return textfile.NewReader(r)
	}
	for _, a := range args {
		if a == "-" {
			if err := fn(Input{Name: "", R: open(stdin)}); err != nil {
				return err
			}
			continue
		}
		f, err := os.Open(a)
		if err != nil {
			return err
		}
		err = fn(Input{Name: a, R: open(f)})
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// QuotedList writes names as a comma-separated list of Go-quoted strings, for messages that must
// show an empty or odd name as it is.
func QuotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// DisplayName is how an input is named in messages: its file name, or "stdin".
func (in Input) DisplayName() string {
	if in.Name == "" {
		return "stdin"
	}
	return in.Name
}

// FilesOnly reports whether every input of a run is a regular file: each of args, and stdin
// where it is read (args empty or holding "-"). Such an input is all there is: no stage before
// the run is still writing it, as one may be to a pipe (a shell's |, a named pipe, bash's <(…)).
// A stdin that is a terminal (typedInput) counts as one: it ends at the first signal, whose
// sender is the one typing. A stdin that is no file at all (a test's reader) is not one.
func FilesOnly(args []string, stdin io.Reader) bool {
	if len(args) == 0 || slices.Contains(args, "-") {
		if _, typed := stdin.(*typedInput); !typed {
			in, ok := stdin.(*os.File)
			if !ok {
				return false
			}
			if st, err := in.Stat(); err != nil || !st.Mode().IsRegular() {
				return false
			}
		}
	}
	for _, a := range args {
		if a == "-" {
			continue
		}
		if st, err := os.Stat(a); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}
