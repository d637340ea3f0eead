package embedding

import (
	"context"
	"database/sql"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/interrupt"
)

// TestClaimAwaitedStoringUntilLetGo: the texts a process claims once another process let them go
// unstored are counted as replies to store (interrupt.Storing) until their claims are let go, as
// the texts of its own requests are: a run whose stdout's reader went away ends once nothing is
// counted (interrupt.Stored), and one that ended holding claims would leave them to hold the
// texts' waiters in other processes until they went stale. Here both requests fail while the
// test holds the file's write lock, so that letting their claims go waits for it.
func TestClaimAwaitedStoringUntilLetGo(t *testing.T) {
	f := newFake(t)
	arrived := make(chan string, 2)
	release := make(chan struct{})
	f.hold = func(in []string) int {
		arrived <- in[0]
		<-release
		return http.StatusBadRequest
	}
	url := f.start().URL + "/v1"
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	path := filepath.Join(t.TempDir(), "shared.db")
	ca, cb := openShared(t, path)
	b := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: url, Cache: cb, Batch: 1, Parallel: 2})
	var keys []string
	for _, text := range []string{"paris", "london"} {
		key, err := cache.Key(vectorNamespace, cacheKey{OpenAI, b.base, "m", text, false})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	// Another process claims both texts, and lets them go unstored once b waits for them.
	_, other, _, err := ca.Claim(context.Background(), keys, func([]byte) bool { return true })
	if err != nil || len(other.Keys()) != 2 {
		t.Fatalf("the other process's Claim: %v, %v, want both texts claimed", other, err)
	}
	ctx, _ := interrupt.WithFinish(context.Background())
	done := sbertAsync(ctx, b, []string{"paris"}, [][]string{{"london"}})
	time.Sleep(200 * time.Millisecond) // for b to find the claims and wait
	other.Release(context.Background())
	<-arrived
	<-arrived
	stored := interrupt.Stored(ctx)

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lock, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	close(release) // both requests fail: their claims are let go once the lock is
	select {
	case <-stored:
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM claims`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			t.Errorf("interrupt.Stored closed while the process held %d claims: a run ending then leaves them behind", n)
		}
	case <-time.After(time.Second):
	}
	if _, err := lock.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.err == nil {
		t.Errorf("SBERT = %v, want the 400", r.scores)
	}
	select {
	case <-stored:
	case <-time.After(10 * time.Second):
		t.Fatal("interrupt.Stored still open 10 s after the requests ended")
	}
	if n := claimsLeft(t, path); n != 0 {
		t.Errorf("%d claims left, want none", n)
	}
}
