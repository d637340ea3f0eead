package command

import (
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Replacement is an output file that a run writes under a name of its own beside the file it
// replaces, and that Commit renames over that file once the run has written it whole (or copies
// into it, where a rename would change more than its content): a run that fails or is
// interrupted (or a summary named by mistake after a file of records) leaves the file as it
// was, where truncating it at the start had lost it whatever the run did next. Where no such
// name can be made, a file there is written into at Commit from one in the system's temporary
// folder, and only when that cannot be made either is the file written in place, as OpenOutput
// writes it.
type Replacement struct {
	io.Writer
	w       io.WriteCloser
	path    string // the file replaced: path's target when path is a link
	tmp     string // the name written under; "" when written in place
	regular bool   // a regular file written in place, which Abort removes
	// copyBack: Commit writes tmp's content into path instead of renaming tmp over it, which
	// would part path from its other hard links, or from its owner and group.
	copyBack bool
	// rename puts the new file in place (os.Rename; a test's failure).
	rename func(oldpath, newpath string) error
	// unregister takes Abort off the cleanups of a forced exit (see OnForcedExit).
	unregister func()
	mu         sync.Mutex
	done       bool
	closed     bool  // Finish closed w
	closeErr   error // what closing w returned
}

// ReplaceOutput opens the output file path a flag names (see Replacement). A regular file or a
// named pipe whose name ends in .gz is written gzip-compressed, as the stages read such a file
// (mkfifo s.json.gz; zcat < s.json.gz & qa-score --summary s.json.gz). A regular file, or a
// path where there is no file yet, is written under a new name in the same folder, made with the
// mode, owner and group of the file it replaces (for a new one, 0666 less the umask, as os.Create
// makes it); a link to a regular file replaces the file linked to, and a dangling link gets the
// file it names. A file with other hard links, or whose owner or group this process cannot give
// the new file (another user's file it may write), is written into by Commit, not renamed over;
// so is a regular file in a folder that takes no new name, whose new content waits meanwhile in
// the system's temporary folder. Anything else is written in place: the files OpenOutput writes
// through a stream or a descriptor (/dev/stdout, the file stdout was redirected to, /dev/fd/3),
// devices and named pipes, and a regular file that no temporary file could be made for.
//
// A process ended before its run returns (see OnForcedExit) aborts the file, as Abort does, until
// Commit or Abort is called: the run need not register that itself.
func ReplaceOutput(path string, stdout, stderr io.Writer) (*Replacement, error) {
	r := &Replacement{path: path, rename: os.Rename, unregister: func() {}}
	target, st, err := replaceable(path, stdout, stderr)
	if err == nil {
		r.path = target
		var f *os.File
		aside := false // made in the temporary folder, not beside target
		// Made and registered at once: a forced exit in between would leave the file.
		r.unregister = onForcedExitOf(func() func() {
			if f, r.tmp, err = createBeside(target); err != nil {
				if st == nil {
					return nil // no file to keep: made in place, or failing there
				}
				// A folder that takes no new name (one this process may not write, a name
				// too long for the one beside it): the file there is written into at
				// Commit, and kept as it was until then, where writing it in place had
				// truncated it at the start and left it so after a failed run (its folder
				// lets no file be removed either).
				if f, r.tmp, err = createAside(); err != nil {
					return nil
				}
				aside, r.copyBack = true, true
			}
			r.w = f
			return r.Abort
		})
		if err == nil && st != nil && !aside {
			if err = f.Chmod(st.Mode().Perm()); err == nil {
				r.copyBack = linked(st) || keepOwner(f, st) != nil
			} else {
				r.unregister()
				r.unregister = func() {}
				f.Close()
				os.Remove(r.tmp)
			}
		}
	}
	if err != nil { // in place
		r.tmp = ""
		if r.w, err = OpenOutput(path, stdout, stderr); err != nil {
			return nil, err
		}
		r.regular = regularFile(path, r.w)
		if r.regular {
			r.unregister = OnForcedExit(r.Abort)
		}
	}
	if GzipNamed(path) && (r.Regular() || namedPipe(r.w)) {
		r.w = newGzipFile(r.w)
	}
	r.Writer = r.w
	return r, nil
}

// GzipNamed reports whether path names a gzip file by its extension, .gz in any case, as the
// stages' inputs are read.
func GzipNamed(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".gz")
}

// gzipFile compresses what is written into the file w; Close ends the gzip stream, then closes w.
type gzipFile struct {
	*gzip.Writer
	w io.WriteCloser
}

func newGzipFile(w io.WriteCloser) *gzipFile { return &gzipFile{Writer: gzip.NewWriter(w), w: w} }

func (g *gzipFile) Close() error {
	err := g.Writer.Close()
	if cerr := g.w.Close(); err == nil {
		err = cerr
	}
	return err
}

// namedPipe reports whether w is a named pipe that OpenOutput opened by its name: not the stream
// stdout or stderr, which a shell may have redirected to one.
//
// Note: only a regular file named .gz was compressed, so a named pipe named so (written as a file
// is) carried plain text to its reader, which zcat refuses.
func namedPipe(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&fs.ModeNamedPipe != 0
}

// errInPlace is replaceable's error for an output that is written in place.
var errInPlace = errors.New("written in place")

// replaceable returns the file path names, through a link, and its FileInfo (nil when there is
// no file yet), or errInPlace when it is to be written in place.
func replaceable(path string, stdout, stderr io.Writer) (string, os.FileInfo, error) {
	if path == "" || ThroughStream(path, stdout, stderr) {
		return "", nil, errInPlace
	}
	lst, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil, nil
	}
	if err != nil {
		return "", nil, errInPlace
	}
	target := path
	if lst.Mode()&fs.ModeSymlink != 0 {
		if target, err = linkTarget(path); err != nil {
			return "", nil, errInPlace
		}
	}
	st, err := os.Stat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return target, nil, nil // a dangling link: its target is made, as os.Create makes it
	}
	if err != nil || !st.Mode().IsRegular() {
		return "", nil, errInPlace
	}
	return target, st, nil
}

// linkTarget returns the path that the link path leads to, through any further links: the file
// it names, or the path where a dangling link's file would be made.
func linkTarget(path string) (string, error) {
	for range 40 { // as many links as Linux follows
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dir, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				return "", err
			}
			dest = filepath.Join(dir, dest)
		}
		lst, err := os.Lstat(dest)
		if err != nil || lst.Mode()&fs.ModeSymlink == 0 {
			if errors.Is(err, fs.ErrNotExist) {
				// Its folder must hold the new file: a link into a folder that is not there
				// is written in place, and fails there as os.Create would.
				_, err = os.Stat(filepath.Dir(dest))
			}
			return dest, err
		}
		path = dest
	}
	return "", errors.New("too many links")
}

// createBeside makes a new file for writing in path's folder, named after it
// (".NAME.NUMBER.tmp", hidden from ls and from globs such as *.json).
func createBeside(path string) (*os.File, string, error) {
	dir, base := filepath.Split(path)
	for range 100 {
		tmp := filepath.Join(dir, "."+base+"."+strconv.FormatUint(uint64(rand.Uint32()), 10)+".tmp")
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, tmp, err
		}
	}
	return nil, "", fs.ErrExist
}

// createAside makes a new file for writing in the system's temporary folder, readable by this
// process's user alone, for the content that Commit writes into a file in a folder that takes no
// new name.
func createAside() (*os.File, string, error) {
	f, err := os.CreateTemp("", "qapipe-output-*.tmp")
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

// Commit closes the file and puts it in place of the file it replaces. Where the file is not to
// be renamed over the one it replaces (see ReplaceOutput), or cannot be (a file bind-mounted into
// a container), its content is written into that file instead, as OpenOutput writes it. It does
// nothing after Commit or Abort.
func (r *Replacement) Commit() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return nil
	}
	r.done = true
	defer r.unregister()
	err := r.close()
	if r.tmp == "" {
		return err
	}
	if err == nil && (r.copyBack || r.rename(r.tmp, r.path) != nil) {
		err = copyOver(r.tmp, r.path)
	}
	if err != nil {
		os.Remove(r.tmp)
	}
	return err
}

// Finish closes the file, ending a gzip stream, without putting it in place: what a full disk
// refuses only then (a gzip file's last block) fails here, so that a run with more than one
// output file can put none of them in place when one cannot be finished. Commit then puts it in
// place, returning Finish's error again, and Abort removes it. It does nothing after Commit or
// Abort.
func (r *Replacement) Finish() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return nil
	}
	return r.close()
}

// close closes w once, and returns what that returned.
func (r *Replacement) close() error {
	if !r.closed {
		r.closed, r.closeErr = true, r.w.Close()
	}
	return r.closeErr
}

// copyOver writes the content of the file tmp into the file path, truncated, and removes tmp.
func copyOver(tmp, path string) error {
	src, err := os.Open(tmp)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := CreateOutput(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err // path is truncated: its error says why it is not whole
	}
	os.Remove(tmp)
	return nil
}

// Abort closes the file and leaves the file it would have replaced as it was; a regular file
// written in place, truncated when it was opened, is removed rather than left part written. A
// gzip stream is not ended: a named pipe's reader finds it cut short, not a whole file. It
// does nothing after Commit or Abort, and may be called from another goroutine than the writer's
// (a forced exit's cleanup).
func (r *Replacement) Abort() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	defer r.unregister()
	switch g, ok := r.w.(*gzipFile); {
	case r.closed: // by Finish
	case ok:
		g.w.Close()
	default:
		r.w.Close()
	}
	switch {
	case r.tmp != "":
		os.Remove(r.tmp)
	case r.regular:
		os.Remove(r.path)
	}
}

// Regular reports whether the output is a regular file: under a name of its own until Commit,
// or written in place.
func (r *Replacement) Regular() bool { return r.tmp != "" || r.regular }

// regularFile reports whether path names, itself and not through a link, the regular file f
// opened. Only such a file, written in place, is removed by Abort: removing /dev/stdout, a device or
// a named pipe the user made would break the system or the user's plumbing, and they hold no
// stale output anyway; nor is the file stdout was redirected to, given by its name (the
// output was to follow the records there), which f is not then.
func regularFile(path string, w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	lst, err := os.Lstat(path)
	if err != nil || !lst.Mode().IsRegular() {
		return false
	}
	st, err := f.Stat()
	return err == nil && os.SameFile(lst, st)
}
