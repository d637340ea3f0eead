package cache

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/nobody"
)

// TestCheck: Check refuses a --cache file exactly when Open does because of the file, with
// Open's words, and makes, changes and locks no file, not even a -wal or -shm beside one.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	database := func(name, ddl string) string {
		path := filepath.Join(dir, name)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(ddl); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cache := func(name string) (string, *Cache) {
		path := filepath.Join(dir, name)
		c, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Put(context.Background(), "k", []byte(`{"text":"a"}`)); err != nil {
			t.Fatal(err)
		}
		return path, c
	}
	closed, c := cache("closed.db")
	c.Close()
	live, c := cache("live.db") // open, as another run holds it: its -wal and -shm beside it
	defer c.Close()
	damaged, c := cache("damaged.db") // cut short, as a full disk or a copy cut off leaves it
	c.Close()
	if err := os.Truncate(damaged, 5000); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path string
		want       string // the start of the *FileError's message after "cache PATH: ", "" for none
	}{
		{"folder", dir, "is a folder"},
		{"missing folder", filepath.Join(dir, "no", "c.db"), "its folder " + filepath.Join(dir, "no") + " does not exist"},
		{"file for a folder", filepath.Join(file("f", ""), "c.db"), filepath.Join(dir, "f") + " is not a folder"},
		{"records", file("run.jsonl", `{"schema":1,"id":"a","question":"q","answers":["x"]}`+"\n"), "not a reply cache (the file is not an SQLite database)"},
		{"another database", database("other.db", `CREATE TABLE people (name TEXT)`), "not a reply cache: the database holds other tables (people)"},
		{"another layout", database("layout.db", `PRAGMA journal_mode=WAL; CREATE TABLE entries (k TEXT PRIMARY KEY, v BLOB)`), "not a reply cache: its entries table is not a reply cache's"},
		{"no key", database("nokey.db", `CREATE TABLE entries (key TEXT, value BLOB, created INTEGER)`), "not a reply cache: its entries table is not a reply cache's (columns key, value, created, want key (primary key), value, created)"},
		{"damaged", damaged, "damaged (the SQLite database is malformed): name a new file, or remove this one"},
		{"new file", filepath.Join(dir, "new.db"), ""},
		{"empty file", file("empty.db", ""), ""},
		{"empty database", database("emptydb.db", `CREATE TABLE t (x); DROP TABLE t`), ""},
		{"cache", closed, ""},
		{"cache in use", live, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, dir)
			err := Check(tt.path, nil)
			if after := snapshot(t, dir); after != before {
				t.Errorf("Check(%s) changed the folder:\n%s\nwas\n%s", tt.path, after, before)
			}
			checkFileError(t, "Check", tt.path, err, tt.want)
			opened, oerr := Open(tt.path)
			if oerr == nil {
				opened.Close()
			}
			checkFileError(t, "Open", tt.path, oerr, tt.want)
		})
	}
}

// TestCheckUnwritable: a cache file, or the folder a new one would be made in, that this process
// may not write is refused as Open refuses it. Root may write anything, so as root the test runs
// again as the user nobody.
func TestCheckUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		nobody.Rerun(t, nobody.TempDir(t))
		return
	}
	dir := t.TempDir()
	roFile := filepath.Join(dir, "ro.db")
	c, err := Open(roFile)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	roDir := filepath.Join(dir, "ro")
	if err := os.Mkdir(roDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A cache this process may write, in a folder it may not: SQLite cannot make its -wal there.
	inRO := filepath.Join(roDir, "in.db")
	if c, err = Open(inRO); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// A link to it from a folder this process may write: SQLite keeps the -wal beside the file
	// the link names.
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(inRO, link); err != nil {
		t.Fatal(err)
	}
	noRead := filepath.Join(dir, "noread.db")
	if err := os.WriteFile(noRead, nil, 0o200); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(roFile, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(roDir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(roDir, 0o755) //nolint:errcheck // so that TempDir can remove it
	for path, want := range map[string]string{
		roFile:                       "cannot be written: permission denied",
		filepath.Join(roDir, "c.db"): "its folder " + roDir + " cannot be written: permission denied",
		inRO:                         "its folder " + roDir + " cannot be written: permission denied",
		link:                         "its folder " + roDir + " cannot be written: permission denied",
		noRead:                       "cannot be read: permission denied",
	} {
		checkFileError(t, "Check", path, Check(path, nil), want)
		// Open says why as Check does, not SQLite's "attempt to write a readonly database"
		// (of a file this process may write, whose folder it may not) or "unable to open
		// database file".
		c, err := Open(path)
		if err == nil {
			c.Close()
		}
		checkFileError(t, "Open", path, err, want)
	}
	// Open says why as Check does where it would make the file, not SQLite's "unable to open
	// database file".
	path := filepath.Join(roDir, "c.db")
	c, err = Open(path)
	if err == nil {
		c.Close()
	}
	checkFileError(t, "Open", path, err, "its folder "+roDir+" cannot be written: permission denied")
}

// TestCheckNoFileSystem: a folder no file can be made in, whatever its permissions say, is
// refused as Open refuses it. /proc is one, for root too, which access(2) lets write it.
func TestCheckNoFileSystem(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no /proc")
	}
	path := "/proc/qapipe-check.db"
	checkFileError(t, "Check", path, Check(path, nil), "its folder /proc cannot be written: ")
	c, err := Open(path)
	if err == nil {
		c.Close()
		t.Fatalf("Open(%s) = nil, want an error, as Check gives", path)
	}
	if _, ok := errors.AsType[*FileError](err); !ok {
		t.Errorf("Open(%s) = %v, want a *FileError, as Check gives", path, err)
	}
}

// checkFileError checks that err, from fn(path), is a *FileError for path whose message starts
// with want, or nil when want is "".
func checkFileError(t *testing.T, fn, path string, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("%s(%s) = %v, want nil", fn, path, err)
		}
		return
	}
	fe, ok := errors.AsType[*FileError](err)
	if !ok || fe.Path != path || !strings.HasPrefix(fe.Err.Error(), want) {
		t.Errorf("%s(%s) = %#v (%v), want a *FileError of %s saying %q", fn, path, err, err, path, want)
	}
}

// snapshot lists every file under dir with its mode, size, modification time and content, and
// every folder with its mode.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Not its modification time, which Check's try of the folder moves (writableFolder):
			// a file it left would be listed.
			fmt.Fprintf(&b, "%s %v\n", path, info.Mode())
			return nil
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %s %x\n", path, fs.FormatFileInfo(info), sha256.Sum256(content))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
