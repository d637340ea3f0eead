package cache

// This file tells a file that can hold the cache from one that cannot (a folder, another
// database, a file without write access): Check, and the checks Open shares with it.

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"modernc.org/sqlite" // registers the "sqlite" driver; its Error carries the result code
)

// fault is err, from opening the cache file at path, as a *FileError when the file is at fault.
func fault(path string, err error) error {
	switch {
	case errors.Is(err, errNotOurs):
		return &FileError{Path: path, Err: fmt.Errorf("%w: name a new file, or one a run made", err)}
	case isNotADatabase(err):
		return &FileError{Path: path, Err: errors.New("not a reply cache (the file is not an SQLite database): name a new file, or one a run made")}
	case isCorrupt(err):
		return &FileError{Path: path, Err: errors.New("damaged (the SQLite database is malformed): name a new file, or remove this one")}
	case isDenied(err):
		return &FileError{Path: path, Err: err}
	}
	return fmt.Errorf("cache %s: %w", path, err)
}

// FileError is an Open (or Check) error that comes from the file named, not from the run: a folder named
// in its place, a folder that does not exist, a file that is not a reply cache, a damaged one (cut
// short), or one that cannot be opened or written. Naming another file mends it, as for any bad flag value. A file
// locked by another process past BusyTimeout is no FileError.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return "cache " + e.Path + ": " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

// FileFault returns the cache file's path and its fault, so that a command says the error as that
// of the file its flag named (command.FlagFile).
func (e *FileError) FileFault() (path string, err error) { return e.Path, e.Err }

// Check returns the *FileError Open would return for the file at path (a folder, a missing
// folder, a file that is not a reply cache, one that cannot be written), without changing any
// file or leaving one behind: a dry run checks --cache with it where a run would open the cache.
// A file that does not exist is one Open would make; Check makes none, and checks that a file can
// be made in its folder instead.
//
// Note: the file is read as an immutable, read-only database, which takes no lock and makes no
// -wal or -shm file beside it; a cache another run has open may keep its newest pages in its
// -wal, unread, but a run writes only a cache's own table there. A file that reads as faulty so
// is read again as readSound says: while another run has it open, through a copy of it and its
// journal in the system's temporary folder, made under guard (see OpenLook) and removed before
// Check returns. Whether the file can be written
// is asked of the system (access(2)), where there is such a call: opening it for writing, and
// closing it, would drop the locks an SQLite connection of this process holds on it (POSIX
// locks are the process's, per file). Whether its folder can be written is asked of the
// system too, then tried (see writableFolder).
func Check(path string, guard Guard) error {
	if err := openable(path); err != nil {
		return &FileError{Path: path, Err: err}
	}
	switch _, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
		return writableFolder(path)
	case err != nil:
		return &FileError{Path: path, Err: err}
	}
	if err := canRead(path); err != nil {
		return &FileError{Path: path, Err: fmt.Errorf("cannot be read: %w", err)}
	}
	dir, unguard, err := readSound(path, guard, oursAt)
	if unguard != nil {
		unguard()
	}
	if dir != "" {
		os.RemoveAll(dir)
	}
	if err != nil {
		return fault(path, err)
	}
	if err := canWrite(path); err != nil {
		return &FileError{Path: path, Err: fmt.Errorf("cannot be written: %w", err)}
	}
	return writableFolder(path) // where SQLite keeps the -wal journal beside the file
}

// oursAt is ours of the database at the SQLite URI uri.
func oursAt(uri string) error {
	db, err := sql.Open("sqlite", uri)
	if err != nil {
		return err
	}
	defer db.Close()
	return ours(db)
}

// readSound runs read on the SQLite URI of the file at path read as immutable (see Check) and,
// when that fails, as readSound's note says, and returns the error of the read it believes, with
// the folder of the copy it read ("", or the folder to remove once read is done with it) and the
// function that unregisters the copy's removal from guard (see OpenLook; nil when none).
//
// Note: a read that takes no lock can meet the file as a checkpoint of another run writing the
// cache copies pages from the -wal journal into it (make -j jobs sharing a cache, and a dry run
// or the extractive baseline checking it), and find the sound file malformed, or no database.
// While a run has the file open, it has the -wal journal and its -shm index beside it; then a
// failed read is made again on a copy of the file and its journal (copyWithJournal), whose answer
// is the one believed. Not on the file in place: the last run closing the cache takes its journal
// and index away (and its checkpoint at close is one a read meets torn), and SQLite's read-only
// mode makes both anew beside a file in WAL mode that has none, and leaves them. Only when the
// journal begins anew during every copy (runs writing, and so keeping it) is the file read in
// place, as a reader that takes SQLite's locks (read-only, with a busy timeout), which writes its
// read marks in the -shm index, as every reader of the cache does, and nothing else. With no
// journal (or once it went), no checkpoint runs; the read is made again with no lock, in case the
// last run closed the file meanwhile, its checkpoint done. A damaged file fails every read.
func readSound(path string, guard Guard, read func(uri string) error) (dir string, unguard func(), err error) {
	immutable := fileURI(path) + "?mode=ro&immutable=1"
	err = read(immutable)
	for try := 0; err != nil && try < 3; try++ {
		if !journaled(path) {
			err = read(immutable)
			continue
		}
		real, rerr := filepath.EvalSymlinks(path)
		if rerr != nil {
			return "", nil, rerr
		}
		dir, unguard, err = copyUnder(real, guard)
		switch {
		case errors.Is(err, errUnsettled) && journaled(path):
			return "", nil, read(lockedURI(path))
		case errors.Is(err, errUnsettled) || (err == nil && dir == ""): // the journal went
			err = read(immutable)
		case err != nil:
			return "", nil, err
		default:
			return dir, unguard, read(fileURI(filepath.Join(dir, "cache.sqlite")) + "?_pragma=query_only(1)")
		}
	}
	return "", nil, err
}

// lockedURI is the SQLite URI of the file at path read as a reader of the cache that takes
// SQLite's locks and reads the -wal journal, writing nothing but its read marks in the -shm index.
func lockedURI(path string) string {
	return fmt.Sprintf("%s?mode=ro&_pragma=busy_timeout(%d)", fileURI(path), BusyTimeout.Milliseconds())
}

// journaled reports whether the file at path has the -wal journal and -shm index that SQLite
// keeps beside a database in WAL mode while a connection has it open (or had, when a process was
// killed), beside the file a link names.
func journaled(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if st, err := os.Stat(real + suffix); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// refused is Check's *FileError for the file at path, one that exists, when this process may
// not read it, or write it, or make its -wal journal beside it; nil when it may.
func refused(path string) error {
	if err := canRead(path); err != nil {
		return &FileError{Path: path, Err: fmt.Errorf("cannot be read: %w", err)}
	}
	if err := canWrite(path); err != nil {
		return &FileError{Path: path, Err: fmt.Errorf("cannot be written: %w", err)}
	}
	return writableFolder(path)
}

// writableFolder is Check's *FileError when no file can be made in the folder of path, as Open
// makes the cache file and its -wal journal there (beside the file it names, for a link).
//
// Note: access(2) alone answers for a folder's permissions, which root overrides, and not for the
// file system: root may write /proc by its permissions, yet no file can be made in it. So a file
// is made there and removed; the folder's modification time is all that changes.
func writableFolder(path string) error {
	dir := filepath.Dir(path)
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		// SQLite opens the file a link names, and makes its -wal journal beside that file.
		if real, err := filepath.EvalSymlinks(path); err == nil {
			dir = filepath.Dir(real)
		}
	}
	err := canWrite(dir)
	if err == nil {
		err = tryFolder(dir)
	}
	if err != nil {
		return &FileError{Path: path, Err: fmt.Errorf("its folder %s cannot be written: %w", dir, err)}
	}
	return nil
}

// tryFolder makes an empty file in dir and removes it.
func tryFolder(dir string) error {
	f, err := os.CreateTemp(dir, ".qapipe-check-*")
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			return pe.Err // its path is a name made up for the try: the folder is named already
		}
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name) // one that cannot be removed is named, to be removed by hand
}

// ours checks that db is a reply cache, or empty: a cache is never made inside another
// database (a --cache naming the wrong file), and a table of its names it cannot read (another
// program's, or another layout) is said to be none, before any reply is asked for. A cache made
// before claims has no claims table; Open adds it.
func ours(db *sql.DB) error {
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var others, tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		if _, ok := ourTables[name]; ok {
			tables = append(tables, name)
		} else {
			others = append(others, name)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(others) > 0 {
		return fmt.Errorf("%w: the database holds other tables (%s)", errNotOurs, strings.Join(others, ", "))
	}
	for _, name := range tables {
		if err := ourColumns(db, name); err != nil {
			return fmt.Errorf("%w: its %s table is not a reply cache's (%v)", errNotOurs, name, err)
		}
	}
	return nil
}

// ourTables are the tables of a cache (see schema) and their columns, the key first.
var ourTables = map[string][]string{
	"entries": {"key (primary key)", "value", "created"},
	"claims":  {"key (primary key)", "owner", "host", "pid", "beat"},
}

// ourColumns checks that the table name has the columns of schema, and key as its one primary
// key: a table that merely has columns of those names (no key to replace a reply on, a column
// more that must be set) would take no reply, each paid for and then lost.
func ourColumns(db *sql.DB, name string) error {
	rows, err := db.Query(`SELECT name, pk FROM pragma_table_info(?) ORDER BY cid`, name)
	if err != nil {
		return err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var col string
		var pk int
		if err := rows.Scan(&col, &pk); err != nil {
			return err
		}
		if pk > 0 {
			col += " (primary key)"
		}
		cols = append(cols, col)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if want := ourTables[name]; !slices.Equal(cols, want) {
		return fmt.Errorf("columns %s, want %s", strings.Join(cols, ", "), strings.Join(want, ", "))
	}
	return nil
}

var errNotOurs = errors.New("not a reply cache")

// openable says what keeps the file at path from being opened or made, where SQLite would say
// only "unable to open database file" or "disk I/O error": a folder named as the cache, a file
// that is no regular file (/dev/null, which a run given it failed on at its first read, or a named
// pipe, which Check's read would wait on for ever), or a missing folder.
func openable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return errors.New("is a folder: name a file (in it, say)")
	} else if err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("is %s, not a regular file: name a file, or none for no cache", special(st.Mode()))
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("its folder %s does not exist", dir)
		}
		return err
	} else if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}

// special names the kind of file mode is, one that is neither a folder nor a regular file.
func special(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// fileURI is the SQLite URI of the file at path. SQLite reads the path of a "file:" URI with
// percent-escapes decoded, a '?' starting the parameters and a '#' the fragment, and a leading
// "//" as an authority, so a cache named "runs/a?b.db" or "x%41.db" would be another file; and
// ":memory:" as an in-memory database, one for each connection and none kept, so that name is
// the file of that name in the current folder.
func fileURI(path string) string {
	if strings.HasPrefix(path, "//") {
		path = "/" + strings.TrimLeft(path, "/")
	}
	if path == ":memory:" {
		path = "./" + path
	}
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// writable checks that db can be written: a cache file SQLite could open only for reading (a
// read-only file in a writable folder) would otherwise fail at the first reply's put, after the
// call was paid for.
func writable(db *sql.DB) error {
	tx, err := db.Begin() // BEGIN IMMEDIATE (_txlock): takes the write lock, as a put does
	if err != nil && isBusy(err) {
		// Not a matter of permissions: another process kept the lock past the busy timeout.
		return fmt.Errorf("is locked: another process held its write lock longer than this run waits (%v): %w", BusyTimeout, err)
	}
	if err != nil {
		return fmt.Errorf("cannot be written: %w", err)
	}
	if _, err := tx.Exec(`DELETE FROM entries WHERE 0`); err != nil {
		tx.Rollback() //nolint:errcheck // the write failed; nothing to undo
		return fmt.Errorf("cannot be written: %w", err)
	}
	return tx.Rollback()
}

// isNotADatabase reports whether err is SQLite's SQLITE_NOTADB: the file holds something else.
func isNotADatabase(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == 26
}

// isCorrupt reports whether err is SQLite's SQLITE_CORRUPT (or one of its extended codes): the
// file is a database, damaged (cut short, say), whose tables cannot be read.
func isCorrupt(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == 11
}

// isDenied reports whether err is SQLite's refusal of the file itself: SQLITE_PERM,
// SQLITE_READONLY or SQLITE_CANTOPEN (or one of their extended codes).
func isDenied(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case 3, 8, 14:
		return true
	}
	return false
}

// isBusy reports whether err is SQLite's SQLITE_BUSY (or one of its extended codes).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == 5
}
