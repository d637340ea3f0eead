package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
)

// heldServer is a loopback chat server that counts the requests of each question and holds its
// replies until release is closed, and delay after that; arrived gets each question as its
// request comes in (the first hundred).
type heldServer struct {
	url     string
	release chan struct{}
	arrived chan string
	mu      sync.Mutex
	asked   map[string]int
	fail    atomic.Bool   // answer 400 while set
	delay   time.Duration // how long each reply takes once released
}

func newHeldServer(t *testing.T) *heldServer {
	t.Helper()
	s := &heldServer{release: make(chan struct{}), arrived: make(chan string, 100), asked: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		q := string(body)
		if i := strings.Index(q, `"content":"`); i >= 0 {
			q = q[i+len(`"content":"`):]
			q = q[:strings.IndexByte(q, '"')]
		}
		s.mu.Lock()
		s.asked[q]++
		s.mu.Unlock()
		select {
		case s.arrived <- q:
		default:
		}
		<-s.release
		time.Sleep(s.delay)
		if s.fail.Load() {
			http.Error(w, `{"error":{"message":"nope","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, echo(q))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-s.release:
		default:
			close(s.release)
		}
	})
	s.url = srv.URL + "/v1"
	return s
}

// times returns how many requests asked q.
func (s *heldServer) times(q string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[q]
}

func (s *heldServer) request(q string) model.Request {
	return model.Request{Provider: "openai", BaseURL: s.url, Model: "m", MaxTokens: 8, Messages: []model.Message{{Role: "user", Content: q}}}
}

// client is a Client of c over s.
func (s *heldServer) client(t *testing.T, c *Cache) *Client {
	return c.Wrap(serverClient(t, "openai", s.url, model.TransportConfig{MaxRetries: -1}))
}

// generated is what a Generate call returned.
type generated struct {
	resp model.Response
	err  error
}

// generate calls cl.Generate on a goroutine of its own, and gives what it returns.
func generate(ctx context.Context, cl *Client, req model.Request) <-chan generated {
	done := make(chan generated, 1)
	go func() {
		resp, err := cl.Generate(ctx, req)
		done <- generated{resp, err}
	}()
	return done
}

// finishing asks the run to finish and returns what the call waiting in got returns, failing
// the test if it still waits 10 s on.
func finishing(t *testing.T, finish func() int, got <-chan generated) generated {
	t.Helper()
	finish()
	select {
	case g := <-got:
		return g
	case <-time.After(10 * time.Second):
		t.Fatal("Generate still waits for another process's claim 10 s after the run was asked to finish")
		return generated{}
	}
}

// claimElsewhere writes a fresh claim on req's key, as a process of another machine makes it.
func claimElsewhere(t *testing.T, c *Cache, req model.Request) {
	t.Helper()
	key, err := RequestKey(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.db.Exec(`INSERT INTO claims VALUES (?, 'another', 'elsewhere', 1, ?)`, key, time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
}

// openTwice opens the cache file at path twice, as two processes would: each Cache has its own
// owner token and connections.
func openTwice(t *testing.T, path string) (a, b *Cache) {
	t.Helper()
	for _, c := range []**Cache{&a, &b} {
		var err error
		if *c, err = Open(path); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { (*c).Close() })
	}
	return a, b
}

// claimCount returns the number of claims in c's file.
func claimCount(t *testing.T, c *Cache) int {
	t.Helper()
	var n int
	if err := c.db.QueryRow(`SELECT count(*) FROM claims`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// shortly is a context that ends soon, for a call that must wait rather than be made.
func shortly(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	t.Cleanup(cancel)
	return ctx
}

// TestClaimAcrossCaches: while one process's call of a request is in flight, another process
// sharing the cache file waits for its reply rather than asking too (here it gives up waiting when
// its context ends, having asked nothing), and is then answered from the cache: the two pay for
// the reply once. A failed call lets its claim go, and the next asks again.
func TestClaimAcrossCaches(t *testing.T) {
	srv := newHeldServer(t)
	a, b := openTwice(t, filepath.Join(t.TempDir(), "c.db"))
	ca, cb := srv.client(t, a), srv.client(t, b)
	ctx := context.Background()

	first := generate(ctx, ca, srv.request("q"))
	<-srv.arrived
	if _, err := cb.Generate(shortly(t), srv.request("q")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second process while the first's call is in flight: %v, want it to wait until its context ends", err)
	}
	waiting := generate(ctx, cb, srv.request("q"))
	close(srv.release)
	if g := <-first; g.err != nil || g.resp.Text != "a:q" || g.resp.Cached {
		t.Errorf("first process: %+v, %v, want a new call's answer", g.resp, g.err)
	}
	if g := <-waiting; g.err != nil || g.resp.Text != "a:q" || !g.resp.Cached {
		t.Errorf("second process: %+v, %v, want the first's reply from the cache", g.resp, g.err)
	}
	if n := srv.times("q"); n != 1 {
		t.Errorf("%d requests asked q, want 1", n)
	}
	if n := claimCount(t, a); n != 0 {
		t.Errorf("%d claims left after the calls ended, want none", n)
	}

	srv.fail.Store(true)
	if _, err := ca.Generate(ctx, srv.request("fails")); err == nil {
		t.Error("failing call: no error, want the 400")
	}
	srv.fail.Store(false)
	if resp, err := cb.Generate(ctx, srv.request("fails")); err != nil || resp.Cached || srv.times("fails") != 2 {
		t.Errorf("after another process's failed call: %+v, %v (%d requests), want a new call's answer", resp, err, srv.times("fails"))
	}
	if n := claimCount(t, a); n != 0 {
		t.Errorf("%d claims left after a failed call, want none", n)
	}
}

// TestClaimTakenOver: a claim that is stale (not renewed for claims.stale by the clock), or of
// a process of this machine that no longer runs, is taken over and the call made; one that is
// fresh, of another machine (whatever its pid names here) or of a process that runs, is waited
// for.
func TestClaimTakenOver(t *testing.T) {
	srv := newHeldServer(t)
	close(srv.release)
	c := tempCache(t)
	cl := srv.client(t, c)
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, tc := range []struct {
		name      string
		host      string
		pid       int
		beat      time.Time
		takenOver bool
	}{
		{"fresh, another machine", "elsewhere", 1, now, false},
		// Its pid names no process here, which says nothing of a process there.
		{"fresh, another machine, a pid that ended here", "elsewhere", gone.Process.Pid, now, false},
		{"fresh, a process that runs", c.claims.host, os.Getpid(), now, false},
		{"fresh, a process that ended", c.claims.host, gone.Process.Pid, now, true},
		{"stale, another machine", "elsewhere", 1, now.Add(-claimStale - time.Second), true},
		{"just fresh", "elsewhere", 1, now.Add(-claimStale + time.Minute), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := strings.ReplaceAll(tc.name, ",", "")
			key, err := RequestKey(srv.request(q))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.db.Exec(`INSERT INTO claims VALUES (?, 'another', ?, ?, ?)`, key, tc.host, tc.pid, tc.beat.UnixMilli()); err != nil {
				t.Fatal(err)
			}
			resp, err := cl.Generate(shortly(t), srv.request(q))
			if tc.takenOver {
				if err != nil || resp.Text != "a:"+q || srv.times(q) != 1 {
					t.Errorf("Generate = %+v, %v (%d requests), want the claim taken over and the call made", resp, err, srv.times(q))
				}
				if n := claimCount(t, c); n != 0 {
					t.Errorf("%d claims left, want none", n)
				}
				return
			}
			if !errors.Is(err, context.DeadlineExceeded) || srv.times(q) != 0 {
				t.Errorf("Generate = %+v, %v (%d requests), want it to wait for the claim until its context ends", resp, err, srv.times(q))
			}
			c.db.Exec(`DELETE FROM claims WHERE key = ?`, key)
		})
	}
}

// TestClaimRenewed: a call that lasts longer than claims.stale keeps its claim, renewed every
// claims.beat, so another process still waits for it. Both processes' clocks are moved an hour
// on while the call is in flight: a claim not renewed since it was made would then be stale.
func TestClaimRenewed(t *testing.T) {
	srv := newHeldServer(t)
	a, b := openTwice(t, filepath.Join(t.TempDir(), "c.db"))
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	a.claims.now, b.claims.now = clock, clock
	a.claims.beat = 5 * time.Millisecond
	ca, cb := srv.client(t, a), srv.client(t, b)
	done := generate(context.Background(), ca, srv.request("long"))
	<-srv.arrived
	offset.Store(int64(time.Hour))
	moved := time.Now().Add(time.Hour).UnixMilli()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		var beat int64
		if err := a.db.QueryRow(`SELECT beat FROM claims`).Scan(&beat); err != nil {
			t.Fatal(err)
		}
		if beat >= moved {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the claim's beat is %d after 10 s, want it renewed to at least %d", beat, moved)
		}
	}
	if _, err := cb.Generate(shortly(t), srv.request("long")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second process: %v, want it to wait for the renewed claim", err)
	}
	close(srv.release)
	if g := <-done; g.err != nil {
		t.Fatal(g.err)
	}
	if n := srv.times("long"); n != 1 {
		t.Errorf("%d requests asked the long question, want 1", n)
	}
}

const envClaimer = "QAPIPE_CACHE_CLAIMER"

// TestClaimerProcess is the body of the child processes of TestClaimAcrossProcesses: it asks
// claimQuestions questions, four at a time, of the server at the URL its environment names.
func TestClaimerProcess(t *testing.T) {
	path := os.Getenv(envClaimer)
	if path == "" {
		t.Skip("helper process only")
	}
	url := os.Getenv(envClaimer + "_URL")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl := c.Wrap(serverClient(t, "openai", url, model.TransportConfig{MaxRetries: -1}))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < claimQuestions; i += 4 {
				q := fmt.Sprintf("q%d", i)
				req := model.Request{Provider: "openai", BaseURL: url, Model: "m", MaxTokens: 8, Messages: []model.Message{{Role: "user", Content: q}}}
				if resp, err := cl.Generate(context.Background(), req); err != nil || resp.Text != "a:"+q {
					t.Errorf("%s: %+v, %v", q, resp, err)
				}
			}
		})
	}
	wg.Wait()
}

const claimQuestions = 24

// TestClaimAcrossProcesses: three processes that share a cache file and ask the same questions at
// the same moment, against a server that takes a while to answer, ask each question once between
// them.
func TestClaimAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	srv := newHeldServer(t)
	srv.delay = 20 * time.Millisecond
	close(srv.release)
	path := filepath.Join(t.TempDir(), "shared.db")
	if c, err := Open(path); err != nil { // made before the three start, as a first run makes it
		t.Fatal(err)
	} else {
		c.Close()
	}
	clitest.RunChildren(t, "TestClaimerProcess", 3, func(int) []string {
		return []string{envClaimer + "=" + path, envClaimer + "_URL=" + srv.url}
	})
	for i := range claimQuestions {
		if n := srv.times(fmt.Sprintf("q%d", i)); n != 1 {
			t.Errorf("q%d was asked %d times, want once", i, n)
		}
	}
}

// TestClaimWaitFinishing: a call waiting for another process's claim is no reply of this run to
// store, so a run whose output has nowhere to go does not wait for it (interrupt.Stored), and a
// run asked to finish stops waiting, with the error of a call it did not make.
func TestClaimWaitFinishing(t *testing.T) {
	srv := newHeldServer(t)
	close(srv.release)
	c := tempCache(t)
	claimElsewhere(t, c, srv.request("q"))
	ctx, finish := interrupt.WithFinish(context.Background())
	got := generate(ctx, srv.client(t, c), srv.request("q"))
	time.Sleep(200 * time.Millisecond) // for the call to start waiting: Stored is closed at once before
	select {
	case <-interrupt.Stored(ctx):
	case <-time.After(10 * time.Second):
		t.Fatal("a call waiting for another process's claim is still counted as a reply to store after 10 s")
	}
	if g := finishing(t, finish, got); !errors.Is(g.err, interrupt.ErrNotCalled) {
		t.Errorf("Generate = %v, want %v", g.err, interrupt.ErrNotCalled)
	}
	if n := srv.times("q"); n != 0 {
		t.Errorf("%d requests asked q, want none", n)
	}
}

// TestClaimWaitWritesNothing: a process waiting for another's claim only reads the file while
// the claim holds, so that its looks, every claims.poll, do not queue for the file's write lock
// with the processes that store replies: it tries to claim the key once, before it waits.
func TestClaimWaitWritesNothing(t *testing.T) {
	srv := newHeldServer(t)
	a, b := openTwice(t, filepath.Join(t.TempDir(), "c.db"))
	b.claims.poll = 5 * time.Millisecond
	ca, cb := srv.client(t, a), srv.client(t, b)
	first := generate(context.Background(), ca, srv.request("q"))
	<-srv.arrived
	if _, err := cb.Generate(shortly(t), srv.request("q")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second process: %v, want it to wait until its context ends", err)
	}
	if n := b.claims.tries.Load(); n != 1 {
		t.Errorf("the second process tried to claim the key %d times while it waited (a look every %v for 300 ms), want once", n, b.claims.poll)
	}
	close(srv.release)
	if g := <-first; g.err != nil {
		t.Fatal(g.err)
	}
	// Once the claim is gone, a look claims the key: here the reply is found first.
	if resp, err := cb.Generate(context.Background(), srv.request("q")); err != nil || !resp.Cached {
		t.Errorf("second process after the first stored the reply: %+v, %v, want it from the cache", resp, err)
	}
}

// TestClaimFinishing: a run asked to finish claims nothing, as it makes no new call: Claim
// gives back every key unclaimed, with no write to the file.
func TestClaimFinishing(t *testing.T) {
	c := tempCache(t)
	ctx, finish := interrupt.WithFinish(context.Background())
	finish()
	stored, h, others, err := c.Claim(ctx, []string{"k1", "k2"}, func([]byte) bool { return true })
	if err != nil || len(stored) != 0 || len(others) != 0 || !slices.Equal(h.Keys(), []string{"k1", "k2"}) {
		t.Fatalf("Claim while finishing = %v, %v, %v, %v; want both keys to call for, unclaimed", stored, h.Keys(), others, err)
	}
	if n := c.claims.tries.Load(); n != 0 {
		t.Errorf("%d claims tried while finishing, want none", n)
	}
	if n := claimCount(t, c); n != 0 {
		t.Errorf("%d claims in the file, want none", n)
	}
	h.Release(ctx)
}

// TestClaimWaitFinishingLastLook: a run asked to finish while it waits for another process's
// call looks once more before it gives up, and a reply stored by then answers its record.
func TestClaimWaitFinishingLastLook(t *testing.T) {
	srv := newHeldServer(t)
	close(srv.release)
	c := tempCache(t)
	c.claims.poll = time.Hour // no look but the last
	claimElsewhere(t, c, srv.request("q"))
	ctx, finish := interrupt.WithFinish(context.Background())
	got := generate(ctx, srv.client(t, c), srv.request("q"))
	time.Sleep(200 * time.Millisecond) // for the call to start waiting
	key, err := RequestKey(srv.request("q"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put(context.Background(), key, []byte(`{"text":"stored meanwhile"}`)); err != nil {
		t.Fatal(err)
	}
	if g := finishing(t, finish, got); g.err != nil || g.resp.Text != "stored meanwhile" || !g.resp.Cached {
		t.Errorf("Generate = %+v, %v, want the reply stored while it waited", g.resp, g.err)
	}
	if n := srv.times("q"); n != 0 {
		t.Errorf("%d requests asked q, want none", n)
	}
}

// TestClaimRenewedBatch: every key a Claims holds is renewed, all in one write, until Store or
// Release lets it go.
func TestClaimRenewedBatch(t *testing.T) {
	c := tempCache(t)
	var offset atomic.Int64
	c.claims.now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	c.claims.beat = 5 * time.Millisecond
	keys := []string{"k1", "k2", "k3"}
	_, h, _, err := c.Claim(context.Background(), keys, func([]byte) bool { return true })
	if err != nil || !slices.Equal(h.Keys(), keys) {
		t.Fatalf("Claim = %v, %v, want the three keys claimed", h.Keys(), err)
	}
	if err := h.Store(context.Background(), "k2", []byte("v")); err != nil {
		t.Fatal(err)
	}
	offset.Store(int64(time.Hour))
	moved := time.Now().Add(time.Hour).UnixMilli()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		var renewed, held int
		if err := c.db.QueryRow(`SELECT count(*) FILTER (WHERE beat >= ?), count(*) FROM claims`, moved).Scan(&renewed, &held); err != nil {
			t.Fatal(err)
		}
		if held != 2 {
			t.Fatalf("%d claims held, want k1's and k3's", held)
		}
		if renewed == 1 {
			t.Fatal("one claim renewed without the other, want them renewed together")
		}
		if renewed == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the 2 claims renewed after 10 s, want both", renewed)
		}
	}
	h.Release(context.Background())
	if n := claimCount(t, c); n != 0 {
		t.Errorf("%d claims left after Release, want none", n)
	}
}

// storedClosed reports, when called, whether ctx's interrupt.Stored is closed: no reply is left
// to store.
func storedClosed(ctx context.Context) func() bool {
	return func() bool {
		select {
		case <-interrupt.Stored(ctx):
			return true
		default:
			return false
		}
	}
}

// TestClaimsCountStoring: a Claims counts as a reply to store (interrupt.Storing) from the
// moment its first claim is written until its last is let go in the file, and not at all when
// it claims nothing (every key held by another process).
func TestClaimsCountStoring(t *testing.T) {
	c := tempCache(t)
	ctx, _ := interrupt.WithFinish(context.Background())
	closed := storedClosed(ctx)
	answers := func([]byte) bool { return true }
	_, h, _, err := c.Claim(ctx, []string{"k1", "k2"}, answers)
	if err != nil {
		t.Fatal(err)
	}
	if closed() {
		t.Error("Stored is closed while two claims are held")
	}
	if err := h.Store(ctx, "k1", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if closed() {
		t.Error("Stored is closed while one claim is held")
	}
	h.Release(ctx)
	if !closed() {
		t.Error("Stored is still open once every claim was let go")
	}
	for _, key := range []string{"k3", "k4"} {
		if _, err := c.db.Exec(`INSERT INTO claims VALUES (?, 'another', 'elsewhere', 1, ?)`, key, time.Now().UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	if _, h, others, err := c.Claim(ctx, []string{"k3", "k4"}, answers); err != nil || len(h.Keys()) != 0 || len(others) != 2 {
		t.Fatalf("Claim of keys claimed elsewhere = %v, %v, %v; want both held by others", h.Keys(), others, err)
	}
	if !closed() {
		t.Error("Stored is open after a Claim that claimed nothing")
	}
}

// TestClaimsCountStoringUntilLetGo: a claim taken out of a Claims' open keys counts as a reply to
// store until it is let go in the file: the count is not ended by a look in between (settle's, as
// another Store or Release may make), only once the claim is gone.
func TestClaimsCountStoringUntilLetGo(t *testing.T) {
	c := tempCache(t)
	ctx, _ := interrupt.WithFinish(context.Background())
	closed := storedClosed(ctx)
	_, h, _, err := c.Claim(ctx, []string{"k"}, func([]byte) bool { return true })
	if err != nil || len(h.Keys()) != 1 {
		t.Fatalf("Claim = %v, %v; want k claimed", h.Keys(), err)
	}
	claimed, ended := h.let("k")
	if !claimed {
		t.Fatal("k was not claimed")
	}
	h.unclaimed()
	if closed() {
		t.Error("Stored is closed while the claim taken out is still in the file")
	}
	c.release(ctx, "k")
	ended()
	if !closed() {
		t.Error("Stored is still open once the claim was let go")
	}
}

// TestClaimFoundStored: a key whose value is stored by the time Claim has claimed it (the process
// that held it stored it and let it go in between) is answered by that value, and its claim is let
// go at once: none is left in the file to hold the key's waiters until it goes stale.
func TestClaimFoundStored(t *testing.T) {
	c := tempCache(t)
	ctx := context.Background()
	if err := c.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	stored, h, others, err := c.Claim(ctx, []string{"k"}, func([]byte) bool { return true })
	if err != nil || string(stored["k"]) != "v" || len(h.Keys()) != 0 || len(others) != 0 {
		t.Fatalf("Claim = stored %q, keys %v, others %v, %v; want k answered by its value", stored, h.Keys(), others, err)
	}
	if n := claimCount(t, c); n != 0 {
		t.Errorf("%d claims left, want none", n)
	}
}

// TestClaimNamelessMachine: a machine without a name, which others may share, never counts as
// this one, even when this one has none: a fresh claim made there by a pid that names no process
// here is held, to a look as to a claim.
func TestClaimNamelessMachine(t *testing.T) {
	c := tempCache(t)
	c.claims.host = ""
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.db.Exec(`INSERT INTO claims VALUES ('k', 'another', '', ?, ?)`, gone.Process.Pid, time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if free, err := c.free(ctx, "k"); free || err != nil {
		t.Errorf("free = %v, %v; want the claim held", free, err)
	}
	if won, err := c.claim(ctx, "k"); won || err != nil {
		t.Errorf("claim = %v, %v; want the claim held", won, err)
	}
}

// TestAwaitOwnClaim: a key this Cache claims already (in another Claims) is free to it: Await
// claims it at its next look, as Claim does, and does not wait for it to go stale.
func TestAwaitOwnClaim(t *testing.T) {
	c := tempCache(t)
	c.claims.poll = 5 * time.Millisecond
	answers := func([]byte) bool { return true }
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, first, _, err := c.Claim(ctx, []string{"k"}, answers)
	if err != nil || len(first.Keys()) != 1 {
		t.Fatalf("Claim = %v, %v; want k claimed", first.Keys(), err)
	}
	defer first.Release(ctx)
	_, h, others, err := c.Await(ctx, []string{"k"}, answers)
	if err != nil {
		t.Fatalf("Await of a key this Cache claims = %v, want k claimed", err)
	}
	if len(others) != 0 || !slices.Equal(h.Keys(), []string{"k"}) {
		t.Fatalf("Await of a key this Cache claims = keys %v, others %v; want k claimed", h.Keys(), others)
	}
	h.Release(ctx)
}
