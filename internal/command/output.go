package command

import (
	"io"
	"os"
	"path/filepath"
	"slices"
)

// NotAnInput returns a usage error naming flag when the output file path is one of the input
// files (by identity, so another name for the same file counts): writing it would destroy the
// input, for a file created before the reading even before it is read. Stdin is an input when
// inputs is empty or holds "-": a file redirected to it (< file) counts too. A path that does
// not exist yet, "" and "-" are fine.
func NotAnInput(flag, path string, inputs []string, stdin io.Reader) error {
	if path == "" || path == "-" {
		return nil
	}
	out, err := os.Stat(path)
	if err != nil {
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
// file: by identity when both exist, else by their cleaned absolute paths. "" and "-" are fine.
func DistinctOutputs(outputs [][2]string) error {
	for i, a := range outputs {
		for _, b := range outputs[:i] {
			if a[1] == "" || a[1] == "-" || b[1] == "" || b[1] == "-" {
				continue
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
