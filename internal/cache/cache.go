// Package cache is a content-addressed store of model replies in one SQLite file, shared by
// qa-predict, qa-judge and embedding metrics, and by several processes at once.
//
// A key is the SHA-256 of the canonical JSON of everything that determines a reply (see Key); the
// value is the encoded reply. The database runs in WAL mode with a busy timeout, so concurrent
// readers never block and writers from several processes queue instead of failing; every Put is its
// own committed transaction, so a run killed with -9 keeps every reply stored before the kill and a
// rerun makes no call twice. Only successful replies are stored: errors are never cached (but for
// an empty reply that stopped of itself, which a Client with KeepEmpty stores), and an entry that
// cannot be read back as a reply (damaged, or without text) is asked for again. A call
// is claimed in the file while it is made, so processes sharing the file ask each request once
// between them (see claim.go).
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
	"sync"
	"time"

	"github.com/qapipe/qapipe/internal/english"
)

// Cache is an open cache file. It is safe for concurrent use.
type Cache struct {
	db   *sql.DB
	path string

	claims claims // this Cache's marks on the calls it makes (see claim.go)

	mu          sync.Mutex
	unstored    int             // replies Client could not store (see Unstored)
	firstErr    error           // the first of their errors
	unread      map[string]bool // the keys of the entries Get found in a damaged part of the file (see Warnings)
	firstUnread error           // the first of their errors
}

// BusyTimeout is how long a writer waits for another process's lock before giving up.
const BusyTimeout = 30 * time.Second

const schema = `CREATE TABLE IF NOT EXISTS entries (
	key     TEXT PRIMARY KEY,
	value   BLOB NOT NULL,
	created INTEGER NOT NULL
) WITHOUT ROWID;
` + claimsSchema

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
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
			// Not made: SQLite says only "unable to open database file"; Check says why.
			if ferr := writableFolder(path); ferr != nil {
				return nil, ferr
			}
		} else if serr == nil && isDenied(err) {
			// Refused: SQLite says "attempt to write a readonly database" of a file this
			// process may write whose folder it may not (where its -wal journal goes), and
			// "unable to open database file" of one it may not read, or on a read-only file
			// system; say why, as Check does.
			if ferr := refused(path); ferr != nil {
				return nil, ferr
			}
		}
		return nil, fault(path, err)
	}
	return &Cache{db: db, path: path, claims: newClaims()}, nil
}

// Close closes the file.
func (c *Cache) Close() error { return c.db.Close() }

// Get returns the value stored under key and whether there was one. An entry in a part of the
// file that SQLite finds damaged as it reads it (malformed: a page overwritten, which Open, reading
// the file's first pages, does not see) is none: its value is asked for again, and stored again
// where the file lets it, as an entry that does not decode is, and Warnings counts it for the end
// of the run, rather than failing every record whose entry sits in that part.
func (c *Cache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	var v []byte
	err := c.db.QueryRowContext(ctx, `SELECT value FROM entries WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if isCorrupt(err) {
		c.mu.Lock()
		if c.unread == nil {
			c.unread, c.firstUnread = map[string]bool{}, err
		}
		c.unread[key] = true // a key read twice (a claim's look, then the call's) is one entry
		c.mu.Unlock()
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cache %s: get: %w", c.path, err)
	}
	return v, true, nil
}

// putEntry stores a value under a key, replacing any previous value: its arguments are the key,
// the value and the time in seconds since 1970.
const putEntry = `INSERT INTO entries (key, value, created) VALUES (?, ?, ?)
	ON CONFLICT(key) DO UPDATE SET value = excluded.value`

// Put stores value under key, replacing any previous value, and commits before returning.
func (c *Cache) Put(ctx context.Context, key string, value []byte) error {
	_, err := c.db.ExecContext(ctx, putEntry, key, value, time.Now().Unix())
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

// Warnings returns the warnings the run ends with: Unstored's, and, when Get found entries in a
// damaged part of the file, how many and the first error (they were asked for again).
func (c *Cache) Warnings() []string {
	var ws []string
	if w := c.Unstored(); w != "" {
		ws = append(ws, w)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.unread); n > 0 {
		ws = append(ws, fmt.Sprintf("%s of the cache %s could not be read (%v) and %s asked for again: the file is damaged; name a new one, or remove it",
			english.Count(n, "entry", "entries"), c.path, c.firstUnread, english.Form(n, "was", "were")))
	}
	return ws
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
