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
	"encoding/hex"
	"fmt"
	"os"
	"sync"
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
func (c *Cache) claim(ctx context.Context, key string) (bool, error) {
	now := c.claims.now().UnixMilli()
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

// release removes this Cache's claim on key, if it still holds it. It runs whether or not the
// run is being interrupted: a claim left behind holds the key's waiters until it goes stale.
func (c *Cache) release(ctx context.Context, key string) {
	// An error leaves the claim to go stale, as a crashed owner's does.
	c.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM claims WHERE key = ? AND owner = ?`, key, c.claims.owner) //nolint:errcheck
}

// hold is a call's claim on its key while the call is made: renewed until stop is called, and
// let go by store, with the reply, or by release.
type hold struct {
	c    *Cache
	key  string
	stop func() // stops the renewing; nil once the claim is let go, or for a call made unclaimed
}

// store stores the reply value under the key and lets the claim go, in one transaction, so that
// a process waiting for the key finds the reply as the claim goes. A call made unclaimed stores
// its reply alone.
func (h *hold) store(ctx context.Context, value []byte) error {
	if h.stop == nil {
		return h.c.Put(ctx, h.key, value)
	}
	h.stop()
	h.stop = nil
	err := h.c.putReleasing(ctx, h.key, value)
	if err != nil {
		h.c.release(ctx, h.key) // the reply is not stored: let the claim go all the same
	}
	return err
}

// release lets the claim go, unless store did.
func (h *hold) release(ctx context.Context) {
	if h.stop != nil {
		h.stop()
		h.c.release(ctx, h.key)
		h.stop = nil
	}
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

// renew renews this Cache's claim on key every claims.beat until the returned function is
// called, which waits for the renewing to stop.
func (c *Cache) renew(key string) (stop func()) {
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
				// A renewal that fails leaves the claim to go stale, and another process to
				// make the call too: the worst a claim can do.
				c.db.Exec(`UPDATE claims SET beat = ? WHERE key = ? AND owner = ?`, //nolint:errcheck
					c.claims.now().UnixMilli(), key, c.claims.owner)
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// await waits until this Client holds key's claim or another process has stored key's reply,
// and returns the stored reply (ok) or the claim's hold, which stores the reply and lets the
// claim go. A claim that cannot be made (the file locked past BusyTimeout) is not waited for:
// the call is made unclaimed, as two processes made it before claims.
//
// While it waits for another process's call, the call of this one is neither counted as a reply
// to be stored (*storing, the interrupt.Storing count, is ended, and counted again once the
// claim is won: a run whose output has nowhere to go need not wait for another process's call),
// nor waited for once the run is asked to finish (it ends with interrupt.ErrNotCalled, as a call
// the finishing run does not make).
func (c *Client) await(ctx context.Context, key string, storing *func()) (resp model.Response, ok bool, h *hold, err error) {
	wait, cancel := interrupt.Waiting(ctx)
	defer cancel()
	waited := false
	for {
		won, err := c.Cache.claim(ctx, key)
		if err != nil {
			if ctx.Err() != nil {
				return model.Response{}, false, nil, ctx.Err()
			}
			return model.Response{}, false, &hold{c: c.Cache, key: key}, nil
		}
		if won {
			// The owner before may have stored the reply and let the key go between the look
			// that found no reply and this claim.
			if resp, ok, err := c.stored(ctx, key); ok || err != nil {
				c.Cache.release(ctx, key)
				return resp, ok, nil, err
			}
			if waited {
				*storing = interrupt.Storing(ctx)
			}
			return model.Response{}, false, &hold{c: c.Cache, key: key, stop: c.Cache.renew(key)}, nil
		}
		if !waited {
			(*storing)()
			*storing, waited = func() {}, true
		}
		select {
		case <-wait.Done():
			if err := ctx.Err(); err != nil {
				return model.Response{}, false, nil, err
			}
			return model.Response{}, false, nil, &model.CallError{Err: interrupt.ErrNotCalled} // as the model's clients say it
		case <-time.After(c.Cache.claims.poll):
		}
		if resp, ok, err := c.stored(ctx, key); ok || err != nil {
			return resp, ok, nil, err
		}
	}
}
