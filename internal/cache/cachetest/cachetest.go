// Package cachetest damages reply-cache files for tests: a page of the file overwritten after a
// run made it, which opening and checking the file do not see and each read of the page does
// (SQLite finds the file malformed). It imports no package of the project's, so that the cache
// package's own tests can use it too.
package cachetest

import (
	"database/sql"
	"os"
	"testing"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DamageTable overwrites the root page of table in the SQLite file at path, which must hold it
// and be closed: every lookup in the table then fails.
func DamageTable(t testing.TB, path, table string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	var root, size int64
	err = db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = ?`, table).Scan(&root)
	if err == nil {
		err = db.QueryRow(`PRAGMA page_size`).Scan(&size)
	}
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	overwrite(t, path, (root-1)*size, size)
}

// DamageMiddle overwrites the page in the middle of the SQLite file at path, which must be
// closed, its journal copied in, and hold pages pages at least (of the default 4,096 bytes): the
// entries on that page are lost, those elsewhere still read.
func DamageMiddle(t testing.TB, path string, pages int64) {
	t.Helper()
	const size = 4096
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() < pages*size {
		t.Fatalf("the cache holds %d bytes, too few to damage a page in its middle", st.Size())
	}
	overwrite(t, path, st.Size()/size/2*size, size)
}

// overwrite writes size bytes of junk at offset in the file at path.
func overwrite(t testing.TB, path string, offset, size int64) {
	t.Helper()
	junk := make([]byte, size)
	for i := range junk {
		junk[i] = byte(i*7 + 3)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(junk, offset); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
