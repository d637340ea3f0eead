package cache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

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
