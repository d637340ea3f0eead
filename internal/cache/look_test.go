package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/cache/cachetest"
	"github.com/qapipe/qapipe/internal/model"
)

// countingClient answers every call with an answer, and counts the calls.
type countingClient struct{ calls atomic.Int64 }

func (c *countingClient) Generate(context.Context, model.Request) (model.Response, error) {
	c.calls.Add(1)
	return model.Response{Text: "new"}, nil
}

// TestLookAnswersAsClientServes: Look.Answers says a request is answered exactly where a Client,
// with KeepEmpty or without, serves it with no call: an answer, an empty reply that stopped of
// itself (served as its error without KeepEmpty); not an entry without text or error, an empty
// reply cut or not stopped, one that does not decode, or none; and Look.Reply is the reply and
// error a Client with KeepEmpty serves. The lookup leaves the file alone.
func TestLookAnswersAsClientServes(t *testing.T) {
	entries := []struct {
		name  string
		value string // "" for no entry
		want  bool
	}{
		{"answer", `{"text":"A1"}`, true},
		{"empty reply stopped", `{"text":"","stopped":true,"empty_reply":"openai m: empty reply"}`, true},
		{"empty reply cut", `{"text":"","stopped":true,"cut":true,"empty_reply":"openai m: empty reply"}`, false},
		{"empty reply not stopped", `{"text":"","empty_reply":"openai m: empty reply"}`, false},
		{"blank text", `{"text":"  "}`, false},
		{"not a reply", `not json`, false},
		{"none", "", false},
	}
	req := model.Request{Provider: "openai", Model: "m", Messages: []model.Message{{Role: "user", Content: "q"}}}
	key, err := RequestKey(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, e := range entries {
		for _, keep := range []bool{false, true} {
			path := filepath.Join(t.TempDir(), "c.db")
			c, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if e.value != "" {
				if err := c.Put(ctx, key, []byte(e.value)); err != nil {
					t.Fatal(err)
				}
			}
			c.Close()
			before, _ := os.ReadFile(path)
			l, err := OpenLook(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := l.Answers(req)
			lresp, lok, lerr := l.Reply(req)
			l.Close()
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Errorf("%s: the look changed the file", e.name)
			}
			if got != e.want {
				t.Errorf("%s: Answers = %v, want %v", e.name, got, e.want)
			}
			if c, err = Open(path); err != nil {
				t.Fatal(err)
			}
			next := &countingClient{}
			cl := &Client{Next: next, Cache: c, KeepEmpty: keep}
			cresp, cerr := cl.Generate(ctx, req)
			c.Close()
			if served := next.calls.Load() == 0; served != got || lok != got {
				t.Errorf("%s, KeepEmpty %v: Client served it from the cache %v, Answers %v, Reply %v", e.name, keep, served, got, lok)
			}
			if keep && lok && (lresp.Text != cresp.Text || lresp.Cached != cresp.Cached || lresp.Stopped != cresp.Stopped ||
				fmt.Sprint(lerr) != fmt.Sprint(cerr) || errors.Is(lerr, model.ErrEmptyReply) != errors.Is(cerr, model.ErrEmptyReply)) {
				t.Errorf("%s: Reply = %+v, %v; the Client served %+v, %v", e.name, lresp, lerr, cresp, cerr)
			}
		}
	}
}

// TestLookMissingFile: a file that does not exist answers nothing and is not made.
func TestLookMissingFile(t *testing.T) {
	dir := t.TempDir()
	l, err := OpenLook(filepath.Join(dir, "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Answers(model.Request{Provider: "openai", Model: "m"}) {
		t.Error("a missing file answers a request")
	}
	l.Close()
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("the look made %v", files)
	}
}

// TestLookCopyGuarded: the copy OpenLook makes of a file with a -wal journal is made under guard
// (command.OnForcedExitOf), whose cleanup removes it when the process is ended before Close, as
// a second signal ends a dry run waiting on its input; Close unregisters it.
func TestLookCopyGuarded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	c, err := Open(path) // held open: its entry stays in the journal
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := model.Request{Provider: "openai", Model: "m", Messages: []model.Message{{Role: "user", Content: "q"}}}
	key, _ := RequestKey(req)
	if err := c.Put(context.Background(), key, []byte(`{"text":"A"}`)); err != nil {
		t.Fatal(err)
	}
	var cleanup func()
	registered := 0
	guard := func(mk func() func()) func() {
		cleanup = mk()
		registered++
		return func() { registered-- }
	}
	l, err := OpenLook(path, guard)
	if err != nil {
		t.Fatal(err)
	}
	if l.tmp == "" || cleanup == nil || registered != 1 || !l.Answers(req) {
		t.Fatalf("copy %q, cleanup %v, %d registered; want a copy made under the guard, answering", l.tmp, cleanup != nil, registered)
	}
	copyDir := l.tmp
	cleanup() // the process ended before Close
	if _, err := os.Stat(copyDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the forced exit's cleanup left the copy %s (%v)", copyDir, err)
	}
	l.Close()
	if registered != 0 {
		t.Errorf("Close left the cleanup registered")
	}
}

// TestLookReadsJournal: a run still going (or killed) keeps its newest replies in the -wal journal
// beside the file, which an immutable read leaves out: Look reads them, named directly or through
// a link to a file in another folder (whose journal is beside the file it names), and the copy it
// reads is removed on Close, leaving no file in the folder of temporary files.
func TestLookReadsJournal(t *testing.T) {
	req := model.Request{Provider: "openai", Model: "m", Messages: []model.Message{{Role: "user", Content: "q"}}}
	key, err := RequestKey(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range []bool{false, true} {
		for _, going := range []bool{false, true} {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			path := filepath.Join(t.TempDir(), "c.db")
			held, err := Open(path) // open while the run writes: the run's replies stay in its journal
			if err != nil {
				t.Fatal(err)
			}
			c, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Put(context.Background(), key, []byte(`{"text":"A1"}`)); err != nil {
				t.Fatal(err)
			}
			c.Close()
			if !going {
				held.Close()
			}
			if st, err := os.Stat(path + "-wal"); going && (err != nil || st.Size() == 0) {
				t.Fatalf("no journal to read (%v)", err)
			}
			named := path
			if link {
				named = filepath.Join(t.TempDir(), "link.db")
				if err := os.Symlink(path, named); err != nil {
					t.Fatal(err)
				}
			}
			l, err := OpenLook(named, nil)
			if err != nil {
				t.Fatalf("link %v, going %v: %v", link, going, err)
			}
			resp, ok, rerr := l.Reply(req)
			if !ok || rerr != nil || resp.Text != "A1" || !resp.Cached || l.Warning() != "" {
				t.Errorf("link %v, going %v: Reply = %+v, %v, %v (warning %q), want the reply A1, cached", link, going, resp, ok, rerr, l.Warning())
			}
			if err := l.Close(); err != nil {
				t.Error(err)
			}
			if files, _ := os.ReadDir(tmp); len(files) != 0 {
				t.Errorf("link %v, going %v: Close left %v in the folder of temporary files", link, going, files)
			}
			if going {
				held.Close()
			}
		}
	}
}

// TestLookNoTable: a database a run has not made its table in yet (SQLite's, with no table) answers
// nothing, and is no error.
func TestLookNoTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	db, err := sql.Open("sqlite", fileURI(path))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("no database made (%v)", err)
	}
	if err := Check(path, nil); err != nil {
		t.Fatalf("Check: %v", err)
	}
	l, err := OpenLook(path, nil)
	if err != nil {
		t.Fatalf("OpenLook: %v", err)
	}
	defer l.Close()
	if l.Answers(model.Request{Provider: "openai", Model: "m"}) || l.Warning() != "" {
		t.Errorf("a database without the table answers a request, or warns %q", l.Warning())
	}
}

// TestLookDamagedPage: the entries on a page of the file overwritten after a run stored them are
// not answered, as a run asks them again, and Warning counts them, naming the damage; the entries
// elsewhere are answered.
func TestLookDamagedPage(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	req := func(i int) model.Request {
		return model.Request{Provider: "openai", Model: "m", Messages: []model.Message{{Role: "user", Content: fmt.Sprintf("question %03d %s", i, strings.Repeat("x", 400))}}}
	}
	for i := range n {
		key, err := RequestKey(req(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Put(ctx, key, []byte(fmt.Sprintf(`{"text":"a%d %s"}`, i, strings.Repeat("y", 400)))); err != nil {
			t.Fatal(err)
		}
	}
	c.Close() // the last connection: the journal is copied into the file
	cachetest.DamageMiddle(t, path, 40)

	l, err := OpenLook(path, nil)
	if err != nil {
		t.Fatalf("OpenLook of a file damaged in its middle: %v", err)
	}
	defer l.Close()
	answered := 0
	for i := range n {
		if l.Answers(req(i)) {
			answered++
		}
	}
	unread := n - answered
	if unread < 2 || answered == 0 {
		t.Fatalf("%d answered, %d not, want some of each, and more than one not", answered, unread)
	}
	one, err := OpenLook(path, nil) // asked until the first entry it cannot read
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	for i := 0; i < n && one.Answers(req(i)); i++ {
	}
	if w, want := one.Warning(), fmt.Sprintf("1 entry of the cache %s could not be read (", path); !strings.HasPrefix(w, want) {
		t.Errorf("Warning() after one entry not read = %q, want it to begin %q", w, want)
	}
	w := l.Warning()
	want := fmt.Sprintf("%d entries of the cache %s could not be read (", unread, path)
	if !strings.HasPrefix(w, want) || !strings.Contains(w, "malformed") || !strings.HasSuffix(w, "): counted as not answered by it") {
		t.Errorf("Warning() = %q, want it to begin %q, name the damage and end \"): counted as not answered by it\"", w, want)
	}
}

// TestLookWarningNamesFirst: Warning counts every entry that could not be read, and names the
// first one's error, not the last.
func TestLookWarningNamesFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put(context.Background(), "k", []byte(`{"text":"a"}`)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	l, err := OpenLook(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	nan := math.NaN()
	if l.Answers(model.Request{Provider: "openai", Model: "m", Temperature: &nan}) {
		t.Fatal("a request with no key answered")
	}
	l.db.Close()
	if l.Answers(model.Request{Provider: "openai", Model: "m"}) {
		t.Fatal("a closed file answered")
	}
	if w := l.Warning(); !strings.HasPrefix(w, "2 entries of the cache") || !strings.Contains(w, "NaN") || strings.Contains(w, "closed") {
		t.Errorf("Warning() = %q, want 2 entries and the first error, of the NaN", w)
	}
}

// TestJournalHeaderShort: a -wal journal shorter than its header (made, with no page yet, or cut
// back) has a header of what it holds, zeros after; it is no error.
func TestJournalHeaderShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	for _, wal := range []string{"", "0123456789"} {
		if err := os.WriteFile(path+"-wal", []byte(wal), 0o600); err != nil {
			t.Fatal(err)
		}
		var want [32]byte
		copy(want[:], wal)
		if h, err := journalHeader(path); err != nil || h != want {
			t.Errorf("journalHeader of a %d-byte journal = %q, %v; want %q, nil", len(wal), h, err, want)
		}
	}
}
