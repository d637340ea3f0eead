// Package cache is a content-addressed store of model replies in one SQLite file, shared by
// qa-predict, qa-judge and embedding metrics, and by several processes at once.
//
// A key is the SHA-256 of the canonical JSON of everything that determines a reply (see Key); the
// value is the encoded reply. The database runs in WAL mode with a busy timeout, so concurrent
// readers never block and writers from several processes queue instead of failing; every Put is its
// own committed transaction, so a run killed with -9 keeps every reply stored before the kill and a
// rerun makes no call twice. Only successful replies are stored: errors are never cached, and an
// entry that cannot be read back as a reply (damaged, or without text) is asked for again.
//
// Note: modernc.org/sqlite (pure Go) is used rather than mattn/go-sqlite3 so the binaries build
// without cgo. A key-value file per entry was rejected: thousands of small files, no atomic
// multi-process writes without extra locking.
package cache

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver; its Error carries the result code

	"github.com/qapipe/qapipe/internal/english"
)

// Cache is an open cache file. It is safe for concurrent use.
type Cache struct {
	db   *sql.DB
	path string

	mu       sync.Mutex
	unstored int   // replies Client could not store (see Unstored)
	firstErr error // the first of their errors
}

// BusyTimeout is how long a writer waits for another process's lock before giving up.
const BusyTimeout = 30 * time.Second

const schema = `CREATE TABLE IF NOT EXISTS entries (
	key     TEXT PRIMARY KEY,
	value   BLOB NOT NULL,
	created INTEGER NOT NULL
) WITHOUT ROWID`

// Open opens (creating if needed) the cache file at path.
func Open(path string) (*Cache, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_txlock", "immediate")
	if err := openable(path); err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	db, err := sql.Open("sqlite", fileURI(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("cache %s: %w", path, err)
	}
	// Another process creating the same file at the same moment can hold the lock that
	// switching it to WAL needs, and SQLite reports that at once instead of waiting: wait here.
	deadline := time.Now().Add(BusyTimeout)
	for {
		if err = ours(db); err == nil {
			_, err = db.Exec(schema)
		}
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Duration(5+rand.IntN(20)) * time.Millisecond)
	}
	if err == nil {
		err = writable(db)
	}
	if err != nil {
		db.Close()
		return nil, fault(path, err)
	}
	return &Cache{db: db, path: path}, nil
}

// fault is err, from opening the cache file at path, as a *FileError when the file is at fault.
func fault(path string, err error) error {
	switch {
	case errors.Is(err, errNotOurs):
		return &FileError{Path: path, Err: fmt.Errorf("%w: name a new file, or one a run made", err)}
	case isNotADatabase(err):
		return &FileError{Path: path, Err: errors.New("not a reply cache (the file is not an SQLite database): name a new file, or one a run made")}
	case isDenied(err):
		return &FileError{Path: path, Err: err}
	}
	return fmt.Errorf("cache %s: %w", path, err)
}

// FileError is an Open (or Check) error that comes from the file named, not from the run: a folder named
// in its place, a folder that does not exist, a file that is not a reply cache, or one that
// cannot be opened or written. Naming another file mends it, as for any bad flag value. A file
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
// -wal, unread, but a run writes only a cache's own table there. Whether the file can be written
// is asked of the system (access(2)), where there is such a call: opening it for writing, and
// closing it, would drop the locks an SQLite connection of this process holds on it (POSIX
// locks are the process's, per file). Whether its folder can be written is asked of the
// system too, then tried (see writableFolder).
func Check(path string) error {
	if err := openable(path); err != nil {
		return &FileError{Path: path, Err: err}
	}
	switch _, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
		return writableFolder(path)
	case err != nil:
		return &FileError{Path: path, Err: err}
	}
	db, err := sql.Open("sqlite", fileURI(path)+"?mode=ro&immutable=1")
	if err != nil {
		return fmt.Errorf("cache %s: %w", path, err)
	}
	defer db.Close()
	if err := ours(db); err != nil {
		return fault(path, err)
	}
	if err := canWrite(path); err != nil {
		return &FileError{Path: path, Err: fmt.Errorf("cannot be written: %w", err)}
	}
	return writableFolder(path) // where SQLite keeps the -wal journal beside the file
}

// writableFolder is Check's *FileError when no file can be made in the folder of path, as Open
// makes the cache file and its -wal journal there.
//
// Note: access(2) alone answers for a folder's permissions, which root overrides, and not for the
// file system: root may write /proc by its permissions, yet no file can be made in it. So a file
// is made there and removed; the folder's modification time is all that changes.
func writableFolder(path string) error {
	dir := filepath.Dir(path)
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
// database (a --cache naming the wrong file), and a table of its name it cannot read (another
// program's, or another layout) is said to be none, before any reply is asked for.
func ours(db *sql.DB) error {
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var others []string
	entries := false
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		if name == "entries" {
			entries = true
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
	if entries {
		if err := ourColumns(db); err != nil {
			return fmt.Errorf("%w: its entries table is not a reply cache's (%v)", errNotOurs, err)
		}
	}
	return nil
}

// ourColumns checks that the entries table has the columns of schema, and key as its one
// primary key: a table that merely has columns of those names (no key to replace a reply on, a
// column more that must be set) would take no reply, each paid for and then lost.
func ourColumns(db *sql.DB) error {
	rows, err := db.Query(`SELECT name, pk FROM pragma_table_info('entries') ORDER BY cid`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var name string
		var pk int
		if err := rows.Scan(&name, &pk); err != nil {
			return err
		}
		if pk > 0 {
			name += " (primary key)"
		}
		cols = append(cols, name)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if want := []string{"key (primary key)", "value", "created"}; !slices.Equal(cols, want) {
		return fmt.Errorf("columns %s, want %s", strings.Join(cols, ", "), strings.Join(want, ", "))
	}
	return nil
}

var errNotOurs = errors.New("not a reply cache")

// openable says what keeps the file at path from being opened or made, where SQLite would say
// only "unable to open database file": a folder named as the cache, or a missing folder.
func openable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return errors.New("is a folder: name a file (in it, say)")
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

// fileURI is the SQLite URI of the file at path. SQLite reads the path of a "file:" URI with
// percent-escapes decoded, a '?' starting the parameters and a '#' the fragment, and a leading
// "//" as an authority, so a cache named "runs/a?b.db" or "x%41.db" would be another file.
func fileURI(path string) string {
	if strings.HasPrefix(path, "//") {
		path = "/" + strings.TrimLeft(path, "/")
	}
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// writable checks that db can be written: a cache file SQLite could open only for reading (a
// read-only file in a writable folder) would otherwise fail at the first reply's put, after the
// call was paid for.
func writable(db *sql.DB) error {
	tx, err := db.Begin() // BEGIN IMMEDIATE (_txlock): takes the write lock, as a put does
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

// Close closes the file.
func (c *Cache) Close() error { return c.db.Close() }

// Get returns the value stored under key and whether there was one.
func (c *Cache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	var v []byte
	err := c.db.QueryRowContext(ctx, `SELECT value FROM entries WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cache %s: get: %w", c.path, err)
	}
	return v, true, nil
}

// Put stores value under key, replacing any previous value, and commits before returning.
func (c *Cache) Put(ctx context.Context, key string, value []byte) error {
	_, err := c.db.ExecContext(ctx,
		`INSERT INTO entries (key, value, created) VALUES (?, ?, ?)
		 ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
		key, value, time.Now().Unix())
	if err != nil {
		return fmt.Errorf("cache %s: put: %w", c.path, err)
	}
	return nil
}

// unstoredReply notes a reply Client could not store.
func (c *Cache) unstoredReply(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unstored == 0 {
		c.firstErr = err
	}
	c.unstored++
}

// Unstored says, when some replies could not be stored (a lock held past BusyTimeout, a full
// disk), how many and the first error, for a warning at the end of the run; else "". Those
// replies were paid for and are in the records; a rerun with the cache asks for them again.
func (c *Cache) Unstored() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unstored == 0 {
		return ""
	}
	return fmt.Sprintf("%s could not be stored in the cache (%v): %s in the records, and a rerun with this cache asks for %s again",
		english.Count(c.unstored, "reply", "replies"), c.firstErr, english.Form(c.unstored, "it is", "they are"), english.Form(c.unstored, "it", "them"))
}

// Len returns the number of entries.
func (c *Cache) Len(ctx context.Context) (int, error) {
	var n int
	if err := c.db.QueryRowContext(ctx, `SELECT count(*) FROM entries`).Scan(&n); err != nil {
		return 0, fmt.Errorf("cache %s: count: %w", c.path, err)
	}
	return n, nil
}

// Key returns the hex SHA-256 of namespace, a newline, and the JSON encoding of v. encoding/json
// writes struct fields in declaration order and map keys sorted, so equal values give equal keys.
// The namespace keeps different kinds of entries (model replies, embeddings) apart.
func Key(namespace string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("cache key: %w", err)
	}
	h := sha256.New()
	h.Write([]byte(namespace))
	h.Write([]byte{'\n'})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Delete removes the entry under key, if there is one.
func (c *Cache) Delete(ctx context.Context, key string) error {
	if _, err := c.db.ExecContext(ctx, `DELETE FROM entries WHERE key = ?`, key); err != nil {
		return fmt.Errorf("cache %s: delete: %w", c.path, err)
	}
	return nil
}
