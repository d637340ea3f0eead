package cache

// This file reads a cache file without writing it, for a dry run that says which requests the
// cache would answer: Look.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/model"
)

// Look is a cache file opened for reading alone: nothing is written to the file or beside it. It
// is safe for concurrent use.
//
// Note: SQLite's read-only mode (mode=ro) makes a -wal and a -shm file beside a file that has
// none, and leaves them, and writes to an -shm that is there. The file is read as immutable
// instead, which takes no lock and makes no file; but an immutable read leaves out the -wal
// journal, which holds the replies of a run that is killed (kill -9) or still going, not yet
// copied into the file. When the file has a journal, it and the file are copied to a folder of
// the system's temporary files, and the copy read (and removed on Close). Runs writing the file
// meanwhile can keep the copy from holding one state of the cache (see copyWithJournal), or the
// immutable read from finding the file whole (see readSound): the file is then read through a
// copy made again, or, when the journal begins anew during every copy, with SQLite's locks, as a
// reader of the cache, which writes its read marks in the -shm index that is there.
type Look struct {
	db   *sql.DB // nil for a file without entries
	path string
	tmp  string // the folder of the copy, if one was made

	unguard func() // unregisters the copy's removal from its Guard, if one was given

	mu       sync.Mutex
	firstErr error // the first entry that could not be read
	unread   int   // how many could not
}

// Guard registers the removal of what mk makes for a process ended before it can remove it
// itself, as command.OnForcedExitOf does: it runs mk, which makes it and returns its removal (nil
// when nothing was made), and returns the function that unregisters that removal.
type Guard func(mk func() (remove func())) (cancel func())

// OpenLook opens the cache at path for Answers, without writing it or leaving a file; a file
// that does not exist holds no reply. The file is expected to have passed Check. A copy it makes
// (see Look) is made under guard, when not nil, so that a process ended before Close (a second
// signal) removes it too.
func OpenLook(path string, guard Guard) (*Look, error) {
	l := &Look{path: path}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return l, nil
	case err != nil:
		return nil, &FileError{Path: path, Err: err}
	case st.Size() == 0:
		return l, nil
	}
	real, err := filepath.EvalSymlinks(path) // SQLite keeps the -wal beside the file a link names
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	copied, settled := false, true
	if wal, err := os.Stat(real + "-wal"); err == nil && wal.Size() > 0 {
		l.tmp, l.unguard, err = copyUnder(real, guard)
		switch {
		case errors.Is(err, errUnsettled):
			settled = false
		case err != nil:
			return nil, fmt.Errorf("cache %s: copy to read: %w", path, err)
		default:
			copied = l.tmp != "" // else the journal went meanwhile: the file is read itself
		}
	}
	var db *sql.DB
	open := func(uri string) error {
		if db != nil {
			db.Close()
		}
		var err error
		if db, err = sql.Open("sqlite", uri); err == nil {
			err = ours(db)
		}
		if err == nil {
			err = db.QueryRow(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'entries'`).Scan(new(int))
			if errors.Is(err, sql.ErrNoRows) { // a database a run has not made its table in yet
				db.Close()
				db, err = nil, nil
			}
		}
		return err
	}
	switch {
	case copied:
		err = open(fileURI(filepath.Join(l.tmp, "cache.sqlite")) + "?_pragma=query_only(1)")
	case !settled && journaled(path): // read in place, with SQLite's locks, as a reader of the cache
		err = open(lockedURI(path))
	default:
		l.tmp, l.unguard, err = readSound(path, guard, open)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		l.removeCopy()
		return nil, fault(path, err)
	}
	l.db = db
	return l, nil
}

// copyUnder makes copyWithJournal's copy of the file at path (one no link names) under guard,
// when not nil, and returns its folder ("" for none) and the function that unregisters its
// removal from guard (nil when none).
func copyUnder(path string, guard Guard) (dir string, unguard func(), err error) {
	mk := func() func() {
		if dir, err = copyWithJournal(path, copyFile); err != nil || dir == "" {
			return nil
		}
		made := dir
		return func() { os.RemoveAll(made) }
	}
	if guard != nil {
		unguard = guard(mk)
	} else {
		mk()
	}
	return dir, unguard, err
}

// errUnsettled is copyWithJournal's error when the -wal journal began anew during every copy.
var errUnsettled = errors.New("the journal began anew during every copy")

// copyWithJournal copies the file at path and its -wal journal into a new temporary folder, as
// cache.sqlite and cache.sqlite-wal, and returns the folder; none ("") when the file has no
// journal by then (its last connection closed it, copying it into the file): the file is then
// read itself.
//
// Note: runs may write the file while it is copied (make -j jobs sharing a cache), and their
// checkpoints copy pages from the journal into the file. The file is copied first, then the
// journal, so that the copy holds one state of the cache all the same: a checkpoint writes into
// the file only pages of transactions the journal holds, which the journal, copied after, holds
// still, and SQLite reads its pages over the file's; a transaction cut short at the journal's end
// is left out, as SQLite leaves it out after a crash. The journal only grows, but for when it
// begins anew (once a checkpoint has copied all of it) and its pages are written over: the salts
// in its header change then, so a copy during which the header changed is made again, up to
// three times, and errUnsettled returned after (the file is then read in place). copy copies a
// file (copyFile).
func copyWithJournal(path string, copy func(from, to string) error) (dir string, err error) {
	for range 3 {
		before, err := journalHeader(path)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		} else if err != nil {
			return "", err
		}
		if dir, err = os.MkdirTemp("", "qapipe-look-*"); err != nil {
			return "", err
		}
		for _, suffix := range []string{"", "-wal"} {
			if err = copy(path+suffix, filepath.Join(dir, "cache.sqlite"+suffix)); err != nil {
				break
			}
		}
		after, herr := journalHeader(path)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(herr, fs.ErrNotExist):
			os.RemoveAll(dir) // the journal went meanwhile: read the file
			return "", nil
		case err != nil:
			os.RemoveAll(dir)
			return "", err
		case herr == nil && before == after:
			return dir, nil
		}
		os.RemoveAll(dir)
	}
	return "", errUnsettled
}

// journalHeader returns the header of the -wal journal of the file at path: its first 32 bytes,
// which hold the salts that change when it begins anew.
func journalHeader(path string) (h [32]byte, err error) {
	f, err := os.Open(path + "-wal")
	if err != nil {
		return h, err
	}
	defer f.Close()
	_, err = io.ReadFull(f, h[:])
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil // a journal made, with no page yet (or cut back): all zeros, or what it has
	}
	return h, err
}

// copyFile copies the file from to a new file to.
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// Answers reports whether a run with this cache would answer req from it, making no call: it
// holds a reply to req that a Client serves (an answer, or an empty reply that stopped of itself,
// which a Client serves as its error without KeepEmpty, and takes out). An entry that is no reply,
// or that cannot be read, is asked for again by a run: it answers nothing (Warning counts those
// that cannot be read).
func (l *Look) Answers(req model.Request) bool {
	_, ok, _ := l.Reply(req)
	return ok
}

// Reply is the reply to req that a Client with KeepEmpty would serve from the cache, making no
// call, and its error (an empty reply's), as Client.Generate returns them; ok is false where a
// Client finds none, and would ask (see Answers).
func (l *Look) Reply(req model.Request) (resp model.Response, ok bool, err error) {
	if l == nil || l.db == nil {
		return model.Response{}, false, nil
	}
	key, err := RequestKey(req)
	var v []byte
	if err == nil {
		err = l.db.QueryRowContext(context.Background(), `SELECT value FROM entries WHERE key = ?`, key).Scan(&v)
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return model.Response{}, false, nil
	case err != nil:
		l.mu.Lock()
		if l.unread == 0 {
			l.firstErr = err
		}
		l.unread++
		l.mu.Unlock()
		return model.Response{}, false, nil
	}
	return replyOf(v)
}

// Warning says, when some entries could not be read (a damaged file, or one a run changed while
// it was copied), how many and the first error; else "". Those requests are counted as not
// answered by the cache.
func (l *Look) Warning() string {
	if l == nil {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unread == 0 {
		return ""
	}
	return fmt.Sprintf("%s of the cache %s could not be read (%v): counted as not answered by it",
		english.Count(l.unread, "entry", "entries"), l.path, l.firstErr)
}

// Close closes the file and removes its copy, if one was made.
func (l *Look) Close() error {
	if l == nil {
		return nil
	}
	var err error
	if l.db != nil {
		err = l.db.Close()
	}
	l.removeCopy()
	return err
}

// removeCopy removes the folder of the file's copy, if one was made.
func (l *Look) removeCopy() {
	if l.unguard != nil {
		l.unguard()
		l.unguard = nil
	}
	if l.tmp != "" {
		os.RemoveAll(l.tmp)
		l.tmp = ""
	}
}
