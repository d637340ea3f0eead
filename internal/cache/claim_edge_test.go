package cache

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/interrupt"
)

// TestClaimCancelledLeavesNoClaim: a Claim whose context ends while it claims leaves no claim in
// the file, whatever the moment the context ends at. SQLite may have committed a claim's write
// when the driver reports the context's error (modernc.org/sqlite returns ctx.Err() for a
// statement that ran to its end if the context ended meanwhile): that claim is the Cache's all
// the same, and left behind it would hold the key's waiters until it went stale.
func TestClaimCancelledLeavesNoClaim(t *testing.T) {
	c := tempCache(t)
	answers := func([]byte) bool { return true }
	// How long a Claim of one key takes, for the moments the contexts end at.
	start := time.Now()
	for i := range 20 {
		_, h, _, err := c.Claim(context.Background(), []string{fmt.Sprintf("warm%d", i)}, answers)
		if err != nil {
			t.Fatal(err)
		}
		h.Release(context.Background())
	}
	took := time.Since(start) / 20
	for i := range 300 {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(rand.N(2*took), cancel)
		_, h, _, err := c.Claim(ctx, []string{fmt.Sprintf("k%d", i)}, answers)
		if err == nil {
			h.Release(ctx)
		}
		timer.Stop()
		cancel()
		if n := claimCount(t, c); n != 0 {
			t.Fatalf("claim %d (its context ended within %v of a Claim that takes %v): %d claims left after Claim returned %v and its claims were let go, want none", i, 2*took, took, n, err)
		}
	}
}

// TestClaimKeyTwice: a key given twice to Claim is settled once: Release then lets every claim
// go and stops their renewing, where a key counted twice as held kept the renewing goroutine, and
// its write every claims.beat, for the rest of the process.
func TestClaimKeyTwice(t *testing.T) {
	c := tempCache(t)
	_, h, others, err := c.Claim(context.Background(), []string{"k", "k"}, func([]byte) bool { return true })
	if err != nil || len(others) != 0 || len(h.Keys()) != 1 {
		t.Fatalf("Claim(k, k) = keys %v, others %v, %v, want k claimed once", h.Keys(), others, err)
	}
	h.Release(context.Background())
	h.mu.Lock()
	held, renewing := h.held, h.stop != nil
	h.mu.Unlock()
	if held != 0 || renewing {
		t.Errorf("after Release: %d claims counted as held, renewing %v, want none and the renewing stopped", held, renewing)
	}
	if n := claimCount(t, c); n != 0 {
		t.Errorf("%d claims left, want none", n)
	}
}

// TestAwaitFinishingKeyTwice: a run asked to finish is answered by Await's last look when every
// key is stored, a key given twice as well: counting the keys as given, one stored value fell
// short of two keys and the call failed as not made.
func TestAwaitFinishingKeyTwice(t *testing.T) {
	c := tempCache(t)
	c.claims.poll = time.Hour // no look but the last
	if err := c.Put(context.Background(), "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	ctx, finish := interrupt.WithFinish(context.Background())
	finish()
	stored, h, others, err := c.Await(ctx, []string{"k", "k"}, func([]byte) bool { return true })
	if err != nil {
		t.Fatalf("Await(k, k), finishing, with k stored: %v, want k's stored value", err)
	}
	if string(stored["k"]) != "v" || len(others) != 0 || len(h.Keys()) != 0 {
		t.Errorf("Await(k, k), finishing = %q, keys %v, others %v; want k's stored value alone", stored, h.Keys(), others)
	}
}

// TestAwaitFinishAskedDuringLook: a run asked to finish while Await looks for a key, after the
// look found the run not finishing and before it claims the key, still counts the claim it then
// writes as a reply to store (interrupt.Storing). A run whose stdout's reader went away asks to
// finish and then ends once Stored is closed: were Stored closed when it asked, the run would end
// holding the claim, which would hold the key's waiters in other machines' processes until it
// went stale. Here the value stored under the key is one answers refuses, and answers asks the
// run to finish.
func TestAwaitFinishAskedDuringLook(t *testing.T) {
	c := tempCache(t)
	c.claims.poll = time.Millisecond
	if err := c.Put(context.Background(), "k", []byte("refused")); err != nil {
		t.Fatal(err)
	}
	ctx, finish := interrupt.WithFinish(context.Background())
	var stored <-chan struct{}
	answers := func([]byte) bool {
		if stored == nil {
			finish()
			stored = interrupt.Stored(ctx) // what a run whose output went away waits for
		}
		return false
	}
	_, h, _, err := c.Await(ctx, []string{"k"}, answers)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release(ctx)
	if stored == nil {
		t.Fatal("answers was never asked: the test no longer asks to finish during the look")
	}
	select {
	case <-stored:
		if n := claimCount(t, c); n > 0 {
			t.Errorf("Stored closed when the run was asked to finish, before the %d claims Await then wrote were let go", n)
		}
	default:
	}
	h.Release(ctx)
	select {
	case <-stored:
	default:
		t.Error("Stored still open once the claim was let go")
	}
}

// TestClaimsStoringConcurrentLetGo: a Claims counts as a reply to store until its last claim is
// let go in the file, whichever of its keys was taken out of it last: Store letting one key go
// while Release lets the last other go ends the count only once both are done with the file. The
// count ended by the last key taken out ended it while Store still had its value to write and its
// claim to let go, so that a run whose output went away could end (interrupt.Stored) without the
// value, leaving the claim. Here the test holds the file's write lock while Store waits for it,
// and lets it go once Release waits for it too: Release, which waited less, mostly writes first.
func TestClaimsStoringConcurrentLetGo(t *testing.T) {
	c := tempCache(t)
	ctx, _ := interrupt.WithFinish(context.Background())
	for i := range 3 {
		a, b := fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)
		_, h, _, err := c.Claim(ctx, []string{a, b}, func([]byte) bool { return true })
		if err != nil || len(h.Keys()) != 2 {
			t.Fatalf("Claim = %v, %v, want both keys claimed", h.Keys(), err)
		}
		lock, err := c.db.Begin() // BEGIN IMMEDIATE: the file's write lock
		if err != nil {
			t.Fatal(err)
		}
		storeDone := make(chan error, 1)
		go func() { storeDone <- h.Store(ctx, a, []byte("v")) }()
		time.Sleep(300 * time.Millisecond) // for Store to wait for the lock
		stored := interrupt.Stored(ctx)
		releaseDone := make(chan struct{})
		go func() { h.ReleaseKeys(ctx, []string{b}); close(releaseDone) }()
		time.Sleep(20 * time.Millisecond) // for Release to wait for the lock too
		lock.Rollback()
		select {
		case <-stored:
			var n int
			if err := c.db.QueryRow(`SELECT count(*) FROM claims WHERE key = ?`, a).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if _, ok, err := c.Get(context.Background(), a); err != nil || !ok || n != 0 {
				t.Errorf("round %d: Stored closed while Store had still to write: value stored %v (%v), %d claims on its key, want it stored and none", i, ok, err, n)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Stored still open 10 s after both keys were let go")
		}
		if err := <-storeDone; err != nil {
			t.Fatal(err)
		}
		<-releaseDone
	}
}

// TestClaimWaitForeignWritesNothing: a fresh claim of another machine whose pid names no process
// here is held, to a look as to a claim: the waiting process tries to claim the key once, before
// it waits, and only reads the file after.
func TestClaimWaitForeignWritesNothing(t *testing.T) {
	srv := newHeldServer(t)
	close(srv.release)
	c := tempCache(t)
	c.claims.poll = 5 * time.Millisecond
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	key, err := RequestKey(srv.request("q"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.db.Exec(`INSERT INTO claims VALUES (?, 'another', 'elsewhere', ?, ?)`, key, gone.Process.Pid, time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.client(t, c).Generate(shortly(t), srv.request("q")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Generate = %v, want it to wait until its context ends", err)
	}
	if n := c.claims.tries.Load(); n != 1 {
		t.Errorf("tried to claim the key %d times while it waited, want once", n)
	}
}
