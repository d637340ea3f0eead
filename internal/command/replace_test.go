package command

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReplaceOutput: a regular file, or a path with no file yet, is written under a name of its
// own and put in place by Commit, with the replaced file's mode (a new one gets os.Create's);
// Abort leaves the path as it was. A link replaces its target and stays a link; a file with
// other hard links is written into at Commit, so that they all hold the new content; the file
// stdout writes to is written in place.
func TestReplaceOutput(t *testing.T) {
	// The mode os.Create gives, 0666 less this process's umask.
	probe := filepath.Join(t.TempDir(), "probe")
	f, err := os.Create(probe)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, err := os.Stat(probe)
	if err != nil {
		t.Fatal(err)
	}
	created := st.Mode().Perm()

	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, dir string) string // makes what is there; returns the path to write
		commit bool
		want   string      // the path's content after; "-" for no file
		mode   fs.FileMode // the path's mode after, when there is a file
		inside string      // the path's content before Commit or Abort
		others map[string]string
	}{
		{name: "new, committed", commit: true, want: "new", mode: created, inside: "-",
			setup: func(t *testing.T, dir string) string { return filepath.Join(dir, "s.json") }},
		{name: "new, aborted", want: "-", inside: "-",
			setup: func(t *testing.T, dir string) string { return filepath.Join(dir, "s.json") }},
		{name: "existing, committed", commit: true, want: "new", mode: 0o640, inside: "old",
			setup: func(t *testing.T, dir string) string { return write(t, filepath.Join(dir, "s.json"), "old", 0o640) }},
		{name: "existing, aborted", want: "old", mode: 0o640, inside: "old",
			setup: func(t *testing.T, dir string) string { return write(t, filepath.Join(dir, "s.json"), "old", 0o640) }},
		{name: "link, committed", commit: true, want: "new", mode: 0o600, inside: "old",
			others: map[string]string{"target.json": "new"},
			setup: func(t *testing.T, dir string) string {
				write(t, filepath.Join(dir, "target.json"), "old", 0o600)
				link := filepath.Join(dir, "s.json")
				if err := os.Symlink("target.json", link); err != nil {
					t.Skip(err)
				}
				return link
			}},
		{name: "dangling link, committed", commit: true, want: "new", mode: created, inside: "-",
			others: map[string]string{"target.json": "new"},
			setup:  func(t *testing.T, dir string) string { return dangling(t, dir) }},
		{name: "dangling link, aborted", want: "-", inside: "-",
			others: map[string]string{"target.json": "-"},
			setup:  func(t *testing.T, dir string) string { return dangling(t, dir) }},
		{name: "hard link, committed", commit: true, want: "new", mode: 0o644, inside: "old",
			others: map[string]string{"other.json": "new"},
			setup:  hardLinked},
		{name: "hard link, aborted", want: "old", mode: 0o644, inside: "old",
			others: map[string]string{"other.json": "old"},
			setup:  hardLinked},
		{name: "no name beside it, committed", commit: true, want: "new", mode: 0o640, inside: "old",
			setup: longName},
		{name: "no name beside it, aborted", want: "old", mode: 0o640, inside: "old",
			setup: longName},
		{name: "folder not writable, committed", commit: true, want: "new", mode: 0o640, inside: "old",
			setup: readOnlyFolder},
		{name: "folder not writable, aborted", want: "old", mode: 0o640, inside: "old",
			setup: readOnlyFolder},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tmpdir := t.TempDir()
			t.Setenv("TMPDIR", tmpdir) // where a file in a folder that takes no new name is written
			path := tc.setup(t, dir)
			r, err := ReplaceOutput(path, &bytes.Buffer{}, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Write([]byte("new")); err != nil {
				t.Fatal(err)
			}
			if got := content(t, path); got != tc.inside {
				t.Errorf("%s before the end = %q, want %q", path, got, tc.inside)
			}
			if tc.commit {
				if err := r.Commit(); err != nil {
					t.Fatal(err)
				}
			} else {
				r.Abort()
			}
			r.Abort() // nothing, after either
			if got := content(t, path); got != tc.want {
				t.Errorf("%s = %q, want %q", path, got, tc.want)
			}
			if tc.want != "-" {
				if st, err := os.Stat(path); err != nil {
					t.Errorf("%s: %v, want mode %v", path, err, tc.mode)
				} else if st.Mode().Perm() != tc.mode {
					t.Errorf("%s mode = %v, want %v", path, st.Mode().Perm(), tc.mode)
				}
			}
			for name, want := range tc.others {
				if got := content(t, filepath.Join(dir, name)); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if lst, err := os.Lstat(path); err == nil && (tc.name == "link, committed" || tc.name == "dangling link, committed") && lst.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("%s is no longer a link", path)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if filepath.Ext(e.Name()) == ".tmp" {
					t.Errorf("left %s behind", e.Name())
				}
			}
			if names := dirNames(mustReadDir(t, tmpdir)); len(names) != 0 {
				t.Errorf("left %v behind in the temporary folder", names)
			}
		})
	}
}

// longName makes a file whose name leaves no room for the ".NAME.NUMBER.tmp" beside it (a
// folder entry's name has at most 255 bytes): it is written in place, as in a folder this
// process may not write.
func longName(t *testing.T, dir string) string {
	return write(t, filepath.Join(dir, strings.Repeat("s", 250)+".json"), "old", 0o640)
}

// readOnlyFolder makes a file this process may write in a folder it may not write (a shared
// results folder), which takes no new name.
func readOnlyFolder(t *testing.T, dir string) string {
	if os.Geteuid() == 0 {
		t.Skip("root writes any folder")
	}
	sub := filepath.Join(dir, "ro")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	path := write(t, filepath.Join(sub, "s.json"), "old", 0o640)
	if err := os.Chmod(sub, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(sub, 0o755) })
	return path
}

// TestReplaceOutputStdout: the file stdout writes to, named (/dev/stdout or by its name), is
// written through stdout itself, in place, and neither Commit nor Abort closes or removes it.
func TestReplaceOutputStdout(t *testing.T) {
	dir := t.TempDir()
	path := write(t, filepath.Join(dir, "out.txt"), "", 0o644)
	stdout, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	stdout.WriteString("records\n")
	for _, abort := range []bool{false, true} {
		r, err := ReplaceOutput(path, stdout, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Regular() {
			t.Errorf("Regular() = true for stdout's file")
		}
		r.Write([]byte("summary\n"))
		if abort {
			r.Abort()
		} else if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	stdout.WriteString("end\n")
	if got, want := content(t, path), "records\nsummary\nsummary\nend\n"; got != want {
		t.Errorf("%s = %q, want %q", path, got, want)
	}
	entries, _ := os.ReadDir(dir)
	if names := dirNames(entries); !slices.Equal(names, []string{"out.txt"}) {
		t.Errorf("files %v, want out.txt alone", names)
	}
}

// hardLinked makes s.json, holding "old", with a second name, other.json, and returns its path.
func hardLinked(t *testing.T, dir string) string {
	p := write(t, filepath.Join(dir, "s.json"), "old", 0o644)
	if err := os.Link(p, filepath.Join(dir, "other.json")); err != nil {
		t.Skip(err)
	}
	return p
}

// dangling makes dir/s.json a link to dir/sub/../target.json, which is not there, and returns
// the link's path.
func dangling(t *testing.T, dir string) string {
	t.Helper()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "s.json")
	if err := os.Symlink(filepath.Join("sub", "..", "target.json"), link); err != nil {
		t.Skip(err)
	}
	return link
}

func write(t *testing.T, path, text string, mode fs.FileMode) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return path
}

// content is path's text, "-" when there is no file.
func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "-"
	}
	return string(b)
}

func dirNames(entries []os.DirEntry) []string {
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestReplaceOutputForcedExit: a file written under a name of its own, or a regular file written
// in place, is aborted by a forced exit's cleanups (the process ended before the run returns, as
// qa-learncurve's report is written), which Commit and Abort then no longer hold: a run ended
// at once leaves no ".NAME.NUMBER.tmp" behind.
func TestReplaceOutputForcedExit(t *testing.T) {
	registered := func() int {
		forcedExit.Lock()
		defer forcedExit.Unlock()
		return len(forcedExit.cleanups)
	}
	before := registered()
	for _, commit := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.json")
		r, err := ReplaceOutput(path, &bytes.Buffer{}, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if got := registered(); got != before+1 {
			t.Errorf("forced-exit cleanups after ReplaceOutput = %d, want %d", got, before+1)
		}
		if commit {
			r.Commit()
		} else {
			r.Abort()
		}
		if got := registered(); got != before {
			t.Errorf("forced-exit cleanups after Commit or Abort = %d, want %d", got, before)
		}
	}
	// What a forced exit runs (exitNow's cleanups) removes the file written so far.
	dir := t.TempDir()
	r, err := ReplaceOutput(filepath.Join(dir, "s.json"), &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	r.Write([]byte("part"))
	forcedExit.Lock()
	var fns []func()
	for _, f := range forcedExit.cleanups {
		fns = append(fns, f)
	}
	forcedExit.Unlock()
	for _, f := range fns {
		f()
	}
	if names := dirNames(mustReadDir(t, dir)); len(names) != 0 {
		t.Errorf("files after a forced exit's cleanups: %v, want none", names)
	}
	if got := registered(); got != before {
		t.Errorf("forced-exit cleanups after they ran = %d, want %d", got, before)
	}
}

// TestReplaceOutputRenameFails: when the new file cannot be renamed over the one it replaces
// (a file bind-mounted into a container, EBUSY), Commit writes its content in place instead, as
// OpenOutput would have: the run's output is not lost at its end, and no ".tmp" file is left.
func TestReplaceOutputRenameFails(t *testing.T) {
	dir := t.TempDir()
	path := write(t, filepath.Join(dir, "s.json"), "old and longer", 0o640)
	r, err := ReplaceOutput(path, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	r.rename = func(string, string) error { return &os.LinkError{Op: "rename", Err: syscall.EBUSY} }
	r.Write([]byte("new"))
	if err := r.Commit(); err != nil {
		t.Fatalf("Commit with a failing rename = %v, want nil", err)
	}
	if got := content(t, path); got != "new" {
		t.Errorf("%s = %q, want %q", path, got, "new")
	}
	if names := dirNames(mustReadDir(t, dir)); !slices.Equal(names, []string{"s.json"}) {
		t.Errorf("files %v, want s.json alone", names)
	}
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// TestOnForcedExitOf: what onForcedExitOf's maker makes is cleaned up by a forced exit whenever
// that comes: while the maker runs (the exit waits for the cleanup to be registered, where a
// file made and then registered could be left), or after the cleanups were taken (the cleanup
// runs at once).
func TestOnForcedExitOf(t *testing.T) {
	forcedExit.Lock()
	saved := forcedExit.cleanups
	forcedExit.cleanups = nil
	forcedExit.Unlock()
	t.Cleanup(func() {
		forcedExit.Lock()
		forcedExit.cleanups, forcedExit.exiting = saved, false
		forcedExit.Unlock()
	})
	dir := t.TempDir()
	made := func(name string) func() func() {
		return func() func() {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Error(err)
				return nil
			}
			return func() { os.Remove(path) }
		}
	}
	started, release, exited := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		onForcedExitOf(func() func() {
			close(started)
			<-release // the forced exit comes now
			return made("during")()
		})
	}()
	<-started
	go func() {
		forcedCleanups()
		close(exited)
	}()
	select {
	case <-exited:
		t.Fatal("the forced exit's cleanups were taken while a maker ran")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-exited
	if names := dirNames(mustReadDir(t, dir)); len(names) != 0 {
		t.Errorf("files after a forced exit during the making: %v, want none", names)
	}
	onForcedExitOf(made("after"))
	if names := dirNames(mustReadDir(t, dir)); len(names) != 0 {
		t.Errorf("files made after a forced exit's cleanups were taken: %v, want none", names)
	}
}

// TestReplaceOutputGzip: a file named .gz (in any case) is written gzip-compressed, whole at
// Commit, as the stages read such a file; another name, and the stream stdout, are not.
func TestReplaceOutputGzip(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		gz   bool
	}{{"s.json.gz", true}, {"m.JSONL.GZ", true}, {"s.json", false}, {"s.gzip", false}} {
		path := filepath.Join(dir, tc.name)
		r, err := ReplaceOutput(path, io.Discard, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(r, "{\"records\": 0}\n"); err != nil {
			t.Fatal(err)
		}
		if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !tc.gz {
			if string(b) != "{\"records\": 0}\n" {
				t.Errorf("%s holds %q, want the text as written", tc.name, b)
			}
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s is not gzip: %v (%q)", tc.name, err, b)
		}
		got, err := io.ReadAll(zr)
		if err != nil || string(got) != "{\"records\": 0}\n" {
			t.Errorf("%s decompresses to %q, %v; want the text as written", tc.name, got, err)
		}
	}
}
