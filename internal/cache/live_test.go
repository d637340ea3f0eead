package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/model"
)

// torn makes the cache at path as a dry run can meet it while other runs write it: a run holds it
// open, its newest pages (the first page, with the tables' list, among them) in the -wal journal,
// and the file's first page half written, as a checkpoint copying the journal into the file leaves
// it for a moment. It returns the request of the entry stored and the run's cache, to close.
func torn(t *testing.T, path string) (model.Request, *Cache) {
	t.Helper()
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// No checkpoint but the test's: the pages stay in the journal.
	if _, err := c.db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	req := model.Request{Provider: "openai", Model: "m", Messages: []model.Message{{Role: "user", Content: "q"}}}
	key, err := RequestKey(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put(ctx, key, []byte(`{"text":"A1"}`)); err != nil {
		t.Fatal(err)
	}
	for i := range 40 { // the file grows: its first page, which holds its size, is in the journal
		if err := c.Put(ctx, fmt.Sprintf("k%d", i), []byte(strings.Repeat("v", 3000))); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The first page past its 100-byte header: the list of tables.
	if _, err := f.WriteAt([]byte(strings.Repeat("\xa5", 4096-100)), 100); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return req, c
}

// TestCheckTornByCheckpoint: Check of a cache that a run writes, met while a checkpoint writes
// its first page, does not call the sound cache damaged.
func TestCheckTornByCheckpoint(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	path := filepath.Join(t.TempDir(), "c.db")
	_, c := torn(t, path)
	defer c.Close()
	if db, err := sql.Open("sqlite", fileURI(path)+"?mode=ro&immutable=1"); err == nil {
		if ours(db) == nil {
			t.Fatal("the file reads whole with no lock: no torn page to test")
		}
		db.Close()
	}
	if err := Check(path, nil); err != nil {
		t.Errorf("Check: %v, want nil", err)
	}
	if files, _ := os.ReadDir(tmp); len(files) != 0 {
		t.Errorf("copies left in the folder of temporary files: %v", files)
	}
	// The journal's pages overwritten too: the file is damaged, and is said to be (the journal's
	// frames fail their checksums, and the torn first page is read).
	f, err := os.OpenFile(path+"-wal", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("\xa5", int(st.Size())-32)), 32); err != nil {
		t.Fatal(err)
	}
	f.Close()
	checkFileError(t, "Check", path, Check(path, nil), "damaged (the SQLite database is malformed)")
}

// TestLookTornByCheckpoint: a dry run's Look of a cache met while a checkpoint writes its first
// page opens, and answers the stored reply.
func TestLookTornByCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	req, c := torn(t, path)
	defer c.Close()
	l, err := OpenLook(path, nil)
	if err != nil {
		t.Fatalf("OpenLook: %v", err)
	}
	defer l.Close()
	if resp, ok, err := l.Reply(req); !ok || err != nil || resp.Text != "A1" || l.Warning() != "" {
		t.Errorf("Reply = %+v, %v, %v (warning %q), want the reply A1", resp, ok, err, l.Warning())
	}
}

// TestCopyWithJournalBeganAnew: a run that checkpoints the whole journal and begins it anew
// between the copy of the file and that of its journal would leave a copy mixing two states of
// the cache: the copy is made again, and holds every reply stored; when the journal begins anew
// during every copy, errUnsettled, and no copy is left.
func TestCopyWithJournalBeganAnew(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	path := filepath.Join(t.TempDir(), "c.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	put := func(key string) {
		t.Helper()
		if err := c.Put(ctx, key, []byte(`{"text":"`+key+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	put("a")
	n, stored := 0, 0
	// After the file's copy: a checkpoint of the whole journal, and a reply stored, which begins
	// the journal anew.
	restart := func(times int) func(from, to string) error {
		return func(from, to string) error {
			if err := copyFile(from, to); err != nil {
				return err
			}
			if !strings.HasSuffix(from, "-wal") && n < times {
				n++
				if _, err := c.db.Exec(`PRAGMA wal_checkpoint(RESTART)`); err != nil {
					t.Fatal(err)
				}
				stored++
				put(fmt.Sprintf("b%d", stored))
			}
			return nil
		}
	}
	dir, err := copyWithJournal(path, restart(1))
	if err != nil || dir == "" {
		t.Fatalf("copyWithJournal = %q, %v, want a copy", dir, err)
	}
	if n != 1 {
		t.Fatalf("the journal began anew %d times, want 1", n)
	}
	db, err := sql.Open("sqlite", fileURI(filepath.Join(dir, "cache.sqlite"))+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	rows, err := db.Query(`SELECT key FROM entries ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if got := strings.Join(keys, " "); got != "a b1" {
		t.Errorf("the copy holds %q, want \"a b1\"", got)
	}
	os.RemoveAll(dir)

	n = 0
	if dir, err := copyWithJournal(path, restart(100)); !errors.Is(err, errUnsettled) || dir != "" {
		t.Errorf("copyWithJournal with the journal begun anew during every copy = %q, %v, want errUnsettled", dir, err)
	}
	if files, _ := os.ReadDir(tmp); len(files) != 0 {
		t.Errorf("copies left in the folder of temporary files: %v", files)
	}
}

// TestCheckAndLookWhileWritten: a dry run checks and reads a cache that other runs (make -j jobs)
// write meanwhile, their checkpoints copying the -wal journal into the file as it is read, and
// beginning the journal anew. The file is sound: Check must not call it damaged, nor Look fail to
// open it or find entries it cannot read, whatever moment the reading falls on.
func TestCheckAndLookWhileWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("writes for seconds")
	}
	path := filepath.Join(t.TempDir(), "c.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := model.Request{Provider: "openai", Model: "m", Messages: []model.Message{{Role: "user", Content: "q"}}}
	key, err := RequestKey(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put(context.Background(), key, []byte(`{"text":"A1"}`)); err != nil {
		t.Fatal(err)
	}
	// The writers checkpoint at every commit, as busy runs' checkpoints come one after another.
	w, err := sql.Open("sqlite", fileURI(path)+"?_pragma=busy_timeout(30000)&_pragma=wal_autocheckpoint(1)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for j := range 3 {
		wg.Go(func() {
			v := []byte(strings.Repeat("v", 3000))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := w.Exec(putEntry, fmt.Sprintf("w%d-%d", j, i), v, i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	deadline := time.Now().Add(2 * time.Second)
	for n := 0; time.Now().Before(deadline); n++ {
		if err := Check(path, nil); err != nil {
			t.Fatalf("Check, read %d: %v", n, err)
		}
		l, err := OpenLook(path, nil)
		if err != nil {
			t.Fatalf("OpenLook, read %d: %v", n, err)
		}
		resp, ok, rerr := l.Reply(req)
		warning := l.Warning()
		l.Close()
		if !ok || rerr != nil || resp.Text != "A1" || warning != "" {
			t.Fatalf("read %d: Reply = %+v, %v, %v (warning %q), want the reply A1", n, resp, ok, rerr, warning)
		}
	}
}

// TestReadSoundAfterTheLastRunClosed: the last run writing the cache can close it between a failed
// read with no lock and the read made again (its checkpoint at close, which writes the file's
// first page, is what a read can meet torn), taking its -wal journal and -shm index away. The read
// made again must not make them anew beside the cache, as SQLite's read-only mode does for a file
// in WAL mode that has none, nor find the sound file faulty.
func TestReadSoundAfterTheLastRunClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	_, c := torn(t, path)
	reads := 0
	dir, unguard, err := readSound(path, nil, func(uri string) error {
		reads++
		if reads == 2 { // the run closes as the read is made again
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		}
		return oursAt(uri)
	})
	if unguard != nil {
		t.Error("readSound without a guard returned a function to unregister from one")
	}
	os.RemoveAll(dir)
	if reads < 2 {
		t.Fatalf("read %d times: no torn page to test", reads)
	}
	if err != nil {
		t.Errorf("readSound: %v, want nil", err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + suffix); err == nil {
			t.Errorf("%s left beside the cache, which had none", filepath.Base(path+suffix))
		}
	}
}
