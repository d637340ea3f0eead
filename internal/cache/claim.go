package cache

// This file keeps processes that share a cache file from paying twice for one reply: before a
// call, a Client claims its key in the file, and a Client of another process that finds the
// claim waits for the reply to be stored instead of asking for it too.
//
// Note: a claim is a row of its own table, written in its own transaction, rather than a lock
// held over the call: SQLite's locks are the whole file's, and a call lasts seconds or minutes.
// A claim whose process died (kill -9) would then hold its key forever, so its owner renews it
// (a heartbeat) while the call lasts, and a claim not renewed for claimStale, or one of a
// process on this machine that no longer runs, is taken over. Anything that goes wrong with a
// claim (a lock held past BusyTimeout) costs at most a call made twice, as before claims: no
// record fails for it.

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
)

const claimsSchema = `CREATE TABLE IF NOT EXISTS claims (
	key   TEXT PRIMARY KEY,
	owner TEXT NOT NULL,
	host  TEXT NOT NULL,
	pid   INTEGER NOT NULL,
	beat  INTEGER NOT NULL
) WITHOUT ROWID`

// The claims' timing: an owner renews its claims every claimBeat, a claim not renewed for
// claimStale is taken over, and a Client waiting on another's claim looks for its reply every
// claimPoll.
const (
	claimBeat  = 2 * time.Second
	claimStale = 20 * time.Second
	claimPoll  = 100 * time.Millisecond
)

// claims is what a Cache marks its calls with: who it is (a token of its own, its machine and
// process), its clock (milliseconds since 1970, compared across processes), and the timing.
type claims struct {
	owner, host       string
	pid               int
	now               func() time.Time
	beat, stale, poll time.Duration
	alive             func(pid int) bool // whether a process of this machine runs
	tries             atomic.Int64       // claim's writes, which take the file's write lock
}

// newClaims returns a Cache's claims, with a new owner token.
func newClaims() claims {
	var b [16]byte
	rand.Read(b[:])
	host, _ := os.Hostname()
	return claims{owner: hex.EncodeToString(b[:]), host: host, pid: os.Getpid(), now: time.Now,
		beat: claimBeat, stale: claimStale, poll: claimPoll, alive: processAlive}
}

// claim tries to mark key's call as this Cache's, and says whether it did: it did when no
// process claims key, when this Cache does already, or when the claim there is stale (not
// renewed for claims.stale, or made by a process of this machine that no longer runs; a machine
// without a name, which others may share, never counts as this one).
//
// A claim whose context ends while it writes may be committed all the same (the driver reports
// the context's error for a statement that ran to its end when the context ended meanwhile): it
// is let go, so that an error never leaves a claim behind. Only the claim this call wrote is (its
// beat is now): one this Cache made before for the same key, in another Claims, is left.
func (c *Cache) claim(ctx context.Context, key string) (won bool, err error) {
	c.claims.tries.Add(1)
	now := c.claims.now().UnixMilli()
	defer func() {
		if err != nil && ctx.Err() != nil {
			// An error leaves the claim to go stale, as release's does.
			c.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM claims WHERE key = ? AND owner = ? AND beat = ?`, key, c.claims.owner, now) //nolint:errcheck
		}
	}()
	res, err := c.db.ExecContext(ctx,
		`INSERT INTO claims (key, owner, host, pid, beat) VALUES (?, ?, ?, ?, ?)
		 ON CONFLICT(key) DO UPDATE SET owner = excluded.owner, host = excluded.host, pid = excluded.pid, beat = excluded.beat
		 WHERE claims.owner = excluded.owner OR claims.beat < ?`,
		key, c.claims.owner, c.claims.host, c.claims.pid, now, now-c.claims.stale.Milliseconds())
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return n == 1, err
	}
	var owner, host string
	var pid int
	err = c.db.QueryRowContext(ctx, `SELECT owner, host, pid FROM claims WHERE key = ?`, key).Scan(&owner, &host, &pid)
	if err != nil || host == "" || host != c.claims.host || c.claims.alive(pid) {
		return false, nil // released since (the next look finds its reply, or claims it), or held
	}
	res, err = c.db.ExecContext(ctx, `UPDATE claims SET owner = ?, pid = ?, beat = ? WHERE key = ? AND owner = ?`,
		c.claims.owner, c.claims.pid, now, key, owner)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// tryClaim claims key; with look (a wait's), only once a read finds it free, so that a process
// waiting for others' calls writes nothing to the file while they hold them.
func (c *Cache) tryClaim(ctx context.Context, key string, look bool) (bool, error) {
	if look {
		if free, err := c.free(ctx, key); err != nil || !free {
			return false, err
		}
	}
	return c.claim(ctx, key)
}

// free says whether claim may find key free to claim: no other process's claim holds it that is
// fresh and not of a process of this machine that no longer runs (see claim). It only reads, so
// that a process waiting for others' calls does not write to the file at every look.
func (c *Cache) free(ctx context.Context, key string) (bool, error) {
	var owner, host string
	var pid int
	var beat int64
	err := c.db.QueryRowContext(ctx, `SELECT owner, host, pid, beat FROM claims WHERE key = ?`, key).Scan(&owner, &host, &pid, &beat)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	stale := beat < c.claims.now().UnixMilli()-c.claims.stale.Milliseconds()
	return owner == c.claims.owner || stale || host != "" && host == c.claims.host && !c.claims.alive(pid), nil
}

// release removes this Cache's claim on key, if it still holds it. It runs whether or not the
// run is being interrupted: a claim left behind holds the key's waiters until it goes stale.
func (c *Cache) release(ctx context.Context, key string) {
	// An error leaves the claim to go stale, as a crashed owner's does.
	c.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM claims WHERE key = ? AND owner = ?`, key, c.claims.owner) //nolint:errcheck
}

// Claims is a set of keys whose calls this Cache makes, each claimed in the file (or, when the
// claim could not be made, called for unclaimed): the claims are renewed until each key is let go
// by Store, with its value, or by Release. It is safe for concurrent use.
type Claims struct {
	c    *Cache
	keys []string // the keys to call for, in the order they were settled

	mu      sync.Mutex
	open    map[string]bool // the keys not yet stored or let go: true for those claimed
	held    int             // how many of open are claimed
	letting int             // claimed keys taken out of open whose claims are still being let go
	stop    func()          // stops the renewing; nil once no claimed key is left, or none was
	storing func()          // ends h's interrupt.Storing count (see settle); nil once ended
}

// Keys returns the keys whose calls the Claims' owner makes, in the order they were given.
func (h *Claims) Keys() []string { return h.keys }

// add adds key to h's keys, claimed or not.
func (h *Claims) add(key string, claimed bool) {
	h.keys = append(h.keys, key)
	if h.open == nil {
		h.open = map[string]bool{}
	}
	h.open[key] = claimed
	if claimed {
		h.held++
	}
}

// Store stores value under key, one of h's keys, and lets its claim go, in one transaction, so
// that a process waiting for the key finds the value as the claim goes. A key called for
// unclaimed, or stored or let go before, is stored alone.
func (h *Claims) Store(ctx context.Context, key string, value []byte) error {
	claimed, ended := h.let(key)
	defer ended()
	if !claimed {
		return h.c.Put(ctx, key, value)
	}
	err := h.c.putReleasing(ctx, key, value)
	if err != nil {
		h.c.release(ctx, key) // the value is not stored: let the claim go all the same
	}
	return err
}

// Release lets go every claim of h's that Store has not, and stops their renewing.
func (h *Claims) Release(ctx context.Context) { h.ReleaseKeys(ctx, h.keys) }

// ReleaseKeys lets go the claims of keys, those of h's that Store has not let go, as Release
// does, and leaves the others held: the keys of one request that failed among several.
func (h *Claims) ReleaseKeys(ctx context.Context, keys []string) {
	for _, key := range keys {
		claimed, ended := h.let(key)
		if claimed {
			h.c.release(ctx, key)
		}
		ended()
	}
}

// let takes key out of h's open keys, stops the renewing once no claimed key is left, and says
// whether key was open and claimed. Once the caller has let the claim go in the file, it calls
// ended, which ends h's Storing count when no other claim of h's is held or still being let go:
// the last key taken out is not always the last claim let go, when Store and Release run at once.
func (h *Claims) let(key string) (claimed bool, ended func()) {
	h.mu.Lock()
	claimed = h.open[key]
	delete(h.open, key)
	var stop func()
	ended = func() {}
	if claimed {
		h.letting++
		if h.held--; h.held == 0 {
			stop, h.stop = h.stop, nil
		}
		ended = h.letGo
	}
	h.mu.Unlock()
	if stop != nil {
		stop()
	}
	return claimed, ended
}

// letGo notes that a claim let has taken out is let go in the file, and ends h's Storing count
// if that was the last of h's claims.
func (h *Claims) letGo() {
	h.mu.Lock()
	h.letting--
	h.mu.Unlock()
	h.unclaimed()
}

// unclaimed ends h's Storing count if h holds no claim, nor is letting one go: settle calls it,
// having taken the count before it knew, and letGo once a claim is let go in the file.
func (h *Claims) unclaimed() {
	h.mu.Lock()
	var ended func()
	if h.held == 0 && h.letting == 0 && h.storing != nil {
		ended, h.storing = h.storing, nil
	}
	h.mu.Unlock()
	if ended != nil {
		ended()
	}
}

// claimed returns the keys h still claims, for the renewing.
func (h *Claims) claimed() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	keys := make([]string, 0, h.held)
	for key, claimed := range h.open {
		if claimed {
			keys = append(keys, key)
		}
	}
	return keys
}

// putReleasing stores value under key, as Put does, and removes this Cache's claim on key, in
// one transaction.
func (c *Cache) putReleasing(ctx context.Context, key string, value []byte) error {
	tx, err := c.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err == nil {
		_, err = tx.ExecContext(ctx, putEntry, key, value, time.Now().Unix())
		if err == nil {
			_, err = tx.ExecContext(ctx, `DELETE FROM claims WHERE key = ? AND owner = ?`, key, c.claims.owner)
		}
		if err == nil {
			err = tx.Commit()
		} else {
			tx.Rollback() //nolint:errcheck // the write failed; nothing to undo
		}
	}
	if err != nil {
		return fmt.Errorf("cache %s: put: %w", c.path, err)
	}
	return nil
}

// renew renews h's claims every claims.beat until the returned function is called, which waits
// for the renewing to stop.
func (c *Cache) renew(h *Claims) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(c.claims.beat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				c.renewNow(h.claimed())
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// renewNow renews this Cache's claims on keys, in one transaction: one turn at the file's write
// lock for a request's texts. A renewal that fails leaves the claims to go stale, and another
// process to make the calls too: the worst a claim can do.
func (c *Cache) renewNow(keys []string) {
	if len(keys) == 0 {
		return // the last claim went since the beat: no turn at the lock for nothing
	}
	tx, err := c.db.Begin()
	if err != nil {
		return
	}
	now := c.claims.now().UnixMilli()
	for _, key := range keys {
		if _, err := tx.Exec(`UPDATE claims SET beat = ? WHERE key = ? AND owner = ?`, now, key, c.claims.owner); err != nil {
			tx.Rollback() //nolint:errcheck // the renewal failed; nothing to keep
			return
		}
	}
	tx.Commit() //nolint:errcheck // see above
}

// Claim claims the call of each of keys, none of which the caller found stored, for this Cache,
// unless another process claims it: those keys are others, in order, to be waited for with
// Await. Claimed keys are looked for once more, since the process that claimed one before may
// have stored its value and let it go in between: a value found, that answers says answers its
// key, is in stored and its claim let go; the others are h's keys, whose calls the caller makes,
// storing each value with h.Store and letting the rest go with h.Release. A claim that cannot be
// made (the file locked past BusyTimeout) is not waited for: the key is one of h's, called for
// unclaimed, as two processes called for it before claims. h counts as a reply to store
// (interrupt.Storing) while it holds a claim, so that a run that ends once its replies are
// stored does not end between writing a claim and letting it go. A run asked to finish
// (internal/interrupt) claims nothing: its keys are h's, unclaimed, for calls it will not make.
func (c *Cache) Claim(ctx context.Context, keys []string, answers func([]byte) bool) (stored map[string][]byte, h *Claims, others []string, err error) {
	return c.settle(ctx, keys, answers, false)
}

// Await waits for keys, each claimed by another process, until at least one of them is stored
// or can be claimed, looking every claims.poll, and then returns as Claim does. Once the run is
// asked to finish (internal/interrupt) it stops waiting: after a last look, which answers the
// keys if every one is stored by then, with the error of a call not made
// (interrupt.ErrNotCalled, as the model's clients say it).
func (c *Cache) Await(ctx context.Context, keys []string, answers func([]byte) bool) (stored map[string][]byte, h *Claims, others []string, err error) {
	wait, cancel := interrupt.Waiting(ctx)
	defer cancel()
	for {
		select {
		case <-wait.Done():
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, err
			}
			// Finishing, settle claims nothing: the keys not stored are h's, unclaimed, and
			// h has none when every key is stored (a key given twice is one of h's once).
			if stored, h, _, err := c.settle(ctx, keys, answers, true); err == nil && len(h.Keys()) == 0 {
				return stored, h, nil, nil
			}
			return nil, nil, nil, &model.CallError{Err: interrupt.ErrNotCalled}
		case <-time.After(c.claims.poll):
		}
		stored, h, others, err = c.settle(ctx, keys, answers, true)
		if err != nil || len(others) < len(keys) {
			return stored, h, others, err
		}
	}
}

// settle is Claim, and with look, Await's look: then each key is looked for before it is
// claimed, and one found stored is not.
//
// h counts as a reply to store (interrupt.Storing) from before settle asks whether the run
// finishes until h's last claim is let go in the file, so that a run whose output has nowhere to
// go, which waits for the replies it stores and then ends, never ends between writing a claim
// and letting it go: the claim would hold other machines' processes up until it went stale.
func (c *Cache) settle(ctx context.Context, keys []string, answers func([]byte) bool, look bool) (stored map[string][]byte, h *Claims, others []string, err error) {
	h = &Claims{c: c}
	defer h.unclaimed()
	fail := func(err error) (map[string][]byte, *Claims, []string, error) {
		h.Release(ctx)
		return nil, nil, nil, err
	}
	found := func(key string) (bool, error) {
		v, ok, err := c.Get(ctx, key)
		if !ok || err != nil || !answers(v) {
			return false, err
		}
		if stored == nil {
			stored = map[string][]byte{}
		}
		stored[key] = v
		return true, nil
	}
	settled := make(map[string]bool, len(keys))
	// The count is taken before the run is asked whether it finishes: a run asked to finish
	// after that question is still counting it when it waits for Stored, and one asked before
	// has the answer, and claims nothing. unclaimed ends it when no claim was made.
	h.storing = interrupt.Storing(ctx)
	finishing := interrupt.Asked(ctx)
	for _, key := range keys {
		if settled[key] {
			continue // a key given twice is settled once
		}
		settled[key] = true
		if look {
			if ok, err := found(key); err != nil {
				return fail(err)
			} else if ok {
				continue
			}
		}
		if finishing {
			// The run makes no new call (interrupt.Begin refuses it): a claim would only be
			// written and let go.
			h.add(key, false)
			continue
		}
		won, err := c.tryClaim(ctx, key, look)
		switch {
		case err != nil && ctx.Err() != nil:
			return fail(ctx.Err())
		case err != nil:
			h.add(key, false)
		case !won:
			others = append(others, key)
		default:
			ok, err := found(key)
			if ok || err != nil {
				c.release(ctx, key)
			}
			if err != nil {
				return fail(err)
			}
			if !ok {
				h.add(key, true)
			}
		}
	}
	if h.held > 0 {
		h.stop = c.renew(h)
	}
	return stored, h, others, nil
}
