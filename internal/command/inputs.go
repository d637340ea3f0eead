package command

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/textfile"
)

// CheckInputs returns a usage error for an input argument that begins with "-", names no file
// and is not "-" itself: a flag given after the input files, where urfave/cli does not read
// flags. Checked before any work, so a misplaced --concurrency or --model never runs a whole
// file with the defaults and fails at the end. Then it returns the error of the first input file
// that does not exist, cannot be looked at, is a directory or may not be read (access(2)), so
// that a mistyped or unreadable second file stops a run before the first is read (for
// qa-predict, before its calls are paid for); a missing "help" is a usage error that names
// --help. It opens nothing: a named pipe is left for its one reading.
func CheckInputs(args []string) error {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' {
			if _, err := os.Stat(a); err != nil {
				return Usagef("%s: flags go before the input files (the arguments after the first file are all read as files)", a)
			}
		}
	}
	for _, a := range args {
		if a == "-" {
			continue
		}
		st, err := os.Stat(a)
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe) && a == "help" && errors.Is(err, fs.ErrNotExist):
			// "qa-score help", as git and go take it: the commands have no help subcommand.
			return Usagef("help: no such input file; for the help, give --help")
		case errors.As(err, &pe):
			return &fs.PathError{Op: "open", Path: a, Err: pe.Err}
		case err != nil:
			return err
		case st.IsDir():
			return fmt.Errorf("%s is a directory, not an input file: name the files in it (%s)", a, filepath.Join(a, "*"))
		}
		if err := canRead(a); err != nil {
			return &fs.PathError{Op: "open", Path: a, Err: err}
		}
	}
	return nil
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
