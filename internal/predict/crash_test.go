package predict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/clitest"
)

// waitCache polls the cache file db, once the child has created it, until done reports true for
// the number of replies stored, or fails after 60 seconds with what the child wrote.
func waitCache(t *testing.T, c *clitest.Process, db string, done func(stored int) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var cc *cache.Cache
	for {
		if _, err := os.Stat(db); err == nil {
			if cc, err = cache.Open(db); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no cache file %s after 60s; the child wrote:\n%s", db, c.Stderr())
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer cc.Close()
	for {
		stored, _ := cc.Len(context.Background())
		if done(stored) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("child stored %d replies in 60s; it wrote:\n%s", stored, c.Stderr())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRerunAfterKill kills qa-predict with SIGKILL while calls are in flight and checks that the
// rerun asks the server only for the records whose replies were not yet stored.
func TestRerunAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	srv := faultServer(t)
	db := filepath.Join(t.TempDir(), "cache.db")
	const n = 20
	faults := map[int]string{}
	for i := 10; i < 14; i++ {
		faults[i] = "hang" // fill the window of 4: the first run never gets past record 13
	}
	in := input(n, faults)
	args := []string{"--provider", "openai", "--model", "m", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--cache", db, "--concurrency", "4", "--timeout", "1h", "--max-retries", "0"}
	c := clitest.StartMain(t, "TestMainChild", args, in)
	waitCache(t, c, db, func(stored int) bool {
		srv.mu.Lock()
		hanging := srv.attempts["10"] + srv.attempts["11"] + srv.attempts["12"] + srv.attempts["13"]
		srv.mu.Unlock()
		return stored == 10 && hanging == 4 // every reply stored, and the rest of the window in flight
	})
	c.Kill()

	before := srv.calls.Load()
	// the rerun: the hanging records now answer (their fault list is spent after one attempt)
	rerun := slices.Clone(args)
	rerun[slices.Index(rerun, "1h")] = "5s" // --timeout: a wrong hang fails, not blocks
	recs, _, err := run(t, context.Background(), in, rerun...)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.calls.Load() - before; got != n-10 {
		t.Errorf("rerun made %d calls, want %d (only the records without a stored reply)", got, n-10)
	}
	for i, r := range recs {
		if cached := i < 10; r.Prediction.Cached != cached || r.Prediction.Text != fmt.Sprintf("A%d", i) {
			t.Errorf("record %d: prediction %+v, want A%d cached=%v", i, r.Prediction, i, cached)
		}
	}
}
