package cache

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/model"
)

// TestCheckAndLookWhileWritten: a dry run checks and reads a cache that other runs (make -j jobs)
// write meanwhile, their checkpoints copying the -wal journal into the file as it is read. The
// file is sound: Check must not call it damaged, nor Look fail to open it or find entries it
// cannot read, whatever moment the reading falls on.
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
	ctx := context.Background()
	if err := c.Put(ctx, key, []byte(`{"text":"A1"}`)); err != nil {
		t.Fatal(err)
	}
	// The writers checkpoint at every commit, as busy runs' autocheckpoints come one after another.
	w, err := sql.Open("sqlite", fileURI(path)+"?_pragma=busy_timeout(30000)&_pragma=wal_autocheckpoint(1)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			v := make([]byte, 3000)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				rand.Read(v)
				if _, err := w.Exec(putEntry, fmt.Sprintf("%x", v[:16]), v, i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	deadline := time.Now().Add(3 * time.Second)
	for n := 0; time.Now().Before(deadline); n++ {
		if err := Check(path); err != nil {
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
