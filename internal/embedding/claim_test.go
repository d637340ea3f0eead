package embedding

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/interrupt"
)

// heldFake is a fakeServer whose requests holding "paris" wait until release is closed, the
// first of them then failing with status if it is set; arrived gets each request's inputs as it comes in, and
// asked counts the requests of each text.
type heldFake struct {
	*fakeServer
	url     string
	release chan struct{}
	arrived chan []string
	status  atomic.Int32

	mu    sync.Mutex
	asked map[string]int
}

func newHeldFake(t *testing.T) *heldFake {
	h := &heldFake{fakeServer: newFake(t), release: make(chan struct{}), arrived: make(chan []string, 16), asked: map[string]int{}}
	h.hold = func(in []string) int {
		h.mu.Lock()
		for _, text := range in {
			h.asked[text]++
		}
		h.mu.Unlock()
		h.arrived <- slices.Clone(in)
		if slices.Contains(in, "paris") {
			<-h.release
			return int(h.status.Swap(0))
		}
		return 0
	}
	h.url = h.start().URL + "/v1"
	t.Cleanup(func() {
		select {
		case <-h.release:
		default:
			close(h.release)
		}
	})
	return h
}

func (h *heldFake) times(text string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.asked[text]
}

// openShared opens the cache file at path twice, as two processes would.
func openShared(t *testing.T, path string) (a, b *cache.Cache) {
	t.Helper()
	for _, c := range []**cache.Cache{&a, &b} {
		var err error
		if *c, err = cache.Open(path); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { (*c).Close() })
	}
	return a, b
}

// claimsLeft counts the claims in the cache file at path.
func claimsLeft(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM claims`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

type sbertResult struct {
	scores []float64
	err    error
}

func sbertAsync(ctx context.Context, s *Scorer, preds []string, refs [][]string) chan sbertResult {
	done := make(chan sbertResult, 1)
	go func() {
		scores, err := s.SBERT(ctx, preds, refs)
		done <- sbertResult{scores, err}
	}()
	return done
}

// TestClaimAcrossScorers: while one process's request for some texts is in flight, another
// process sharing the cache file asks only for the texts that request does not hold, and waits
// for the others to be answered from the cache: the two pay for each text once.
func TestClaimAcrossScorers(t *testing.T) {
	srv := newHeldFake(t)
	path := filepath.Join(t.TempDir(), "shared.db")
	ca, cb := openShared(t, path)
	a := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.url, Cache: ca, Batch: 8})
	b := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.url, Cache: cb, Batch: 8})
	ctx := context.Background()

	first := sbertAsync(ctx, a, []string{"paris", "london"}, [][]string{{"rome"}, {}})
	if in := <-srv.arrived; !slices.Equal(in, []string{"paris", "london", "rome"}) {
		t.Fatalf("first process's request: %q, want paris, london and rome", in)
	}
	second := sbertAsync(ctx, b, []string{"paris", "roma"}, [][]string{{"rome"}, {"Paris, France"}})
	if in := <-srv.arrived; !slices.Equal(in, []string{"roma", "Paris, France"}) {
		t.Fatalf("second process's request: %q, want roma and \"Paris, France\" alone", in)
	}
	select {
	case r := <-second:
		t.Fatalf("second process returned %v, %v while the first's request was in flight, want it to wait", r.scores, r.err)
	case <-time.After(300 * time.Millisecond):
	}
	close(srv.release)
	if r := <-first; r.err != nil || !nearAll(r.scores, []float64{1.0 / 3, 0}) {
		t.Errorf("first process: %v, %v, want [1/3 0]", r.scores, r.err)
	}
	if r := <-second; r.err != nil || !nearAll(r.scores, []float64{1.0 / 3, 1 / math.Sqrt2}) {
		t.Errorf("second process: %v, %v, want [1/3 1/√2]", r.scores, r.err)
	}
	for _, text := range []string{"paris", "london", "rome", "roma", "Paris, France"} {
		if n := srv.times(text); n != 1 {
			t.Errorf("%q was asked for %d times, want once", text, n)
		}
	}
	if st := b.Stats(); st.Requests != 1 || st.Texts != 2 || st.CacheHits != 2 {
		t.Errorf("second process's Stats() = %+v, want 1 request of 2 texts and 2 texts from the cache", st)
	}
	if n := claimsLeft(t, path); n != 0 {
		t.Errorf("%d claims left, want none", n)
	}
}

// TestClaimFailedLetsGo: a process whose request fails lets its claims go, and a process that
// waited for them asks for those texts itself.
func TestClaimFailedLetsGo(t *testing.T) {
	srv := newHeldFake(t)
	srv.status.Store(http.StatusForbidden) // a 400 would have the texts asked for apart
	path := filepath.Join(t.TempDir(), "shared.db")
	ca, cb := openShared(t, path)
	a := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.url, Cache: ca, Batch: 8})
	b := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.url, Cache: cb, Batch: 8})
	ctx := context.Background()

	first := sbertAsync(ctx, a, []string{"paris"}, [][]string{{"london"}})
	<-srv.arrived
	second := sbertAsync(ctx, b, []string{"paris"}, [][]string{{"london"}})
	time.Sleep(200 * time.Millisecond) // for the second to find the claims and wait
	if n := srv.times("paris"); n != 1 {
		t.Errorf("paris was asked for %d times while the first request was in flight, want once", n)
	}
	close(srv.release)
	if r := <-first; r.err == nil {
		t.Errorf("first process: %v, want the 403", r.scores)
	}
	if r := <-second; r.err != nil || !nearAll(r.scores, []float64{0}) {
		t.Errorf("second process: %v, %v, want [0]", r.scores, r.err)
	}
	for _, text := range []string{"paris", "london"} {
		if n := srv.times(text); n != 2 {
			t.Errorf("%q was asked for %d times, want twice (the failed request, then the second process's)", text, n)
		}
	}
	if st := b.Stats(); st.Texts != 2 || st.CacheHits != 0 {
		t.Errorf("second process's Stats() = %+v, want 2 texts asked for and nothing from the cache", st)
	}
	if n := claimsLeft(t, path); n != 0 {
		t.Errorf("%d claims left, want none", n)
	}
}

// TestClaimWaitFinishing: a run asked to finish stops waiting for another process's claims, with
// the error of a call not made, and asks for nothing it waited for.
func TestClaimWaitFinishing(t *testing.T) {
	srv := newHeldFake(t)
	ca, cb := openShared(t, filepath.Join(t.TempDir(), "shared.db"))
	a := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.url, Cache: ca, Batch: 8})
	b := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.url, Cache: cb, Batch: 8})
	first := sbertAsync(context.Background(), a, []string{"paris"}, [][]string{{"rome"}})
	<-srv.arrived
	ctx, finish := interrupt.WithFinish(context.Background())
	second := sbertAsync(ctx, b, []string{"paris"}, [][]string{{"rome"}})
	time.Sleep(200 * time.Millisecond)
	finish()
	select {
	case r := <-second:
		if !errors.Is(r.err, interrupt.ErrNotCalled) {
			t.Errorf("waiting process: %v, %v, want %v", r.scores, r.err, interrupt.ErrNotCalled)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a finishing run still waits for another process's claims after 10 s")
	}
	close(srv.release)
	if r := <-first; r.err != nil {
		t.Error(r.err)
	}
	if n := srv.times("paris"); n != 1 {
		t.Errorf("paris was asked for %d times, want once", n)
	}
}

const envEmbedder = "QAPIPE_EMBED_CLAIMER"

// claimTexts are the texts of TestClaimAcrossProcesses: each process scores each of them as a
// prediction against the next as its reference.
var claimTexts = func() []string {
	texts := make([]string, 24)
	for i := range texts {
		texts[i] = fmt.Sprintf("t%d", i)
	}
	return texts
}()

// TestEmbedderProcess is the body of the child processes of TestClaimAcrossProcesses.
func TestEmbedderProcess(t *testing.T) {
	path := os.Getenv(envEmbedder)
	if path == "" {
		t.Skip("helper process only")
	}
	c, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: os.Getenv(envEmbedder + "_URL"), Cache: c, Batch: 4, Parallel: 2})
	refs := make([][]string, len(claimTexts))
	for i := range refs {
		refs[i] = []string{claimTexts[(i+1)%len(claimTexts)]}
	}
	got, err := s.SBERT(context.Background(), claimTexts, refs)
	if err != nil {
		t.Fatal(err)
	}
	for i, score := range got {
		if score != 0 {
			t.Errorf("%s against %s: %v, want 0 (orthogonal)", claimTexts[i], refs[i][0], score)
		}
	}
}

// TestClaimAcrossProcesses: three processes that share a cache file and embed the same texts at
// the same moment, against a server that takes a while to answer, ask for each text once
// between them.
func TestClaimAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	f := newFake(t)
	for i, text := range claimTexts {
		v := make([]float32, len(claimTexts))
		v[i] = 1
		f.sentences[text] = v
	}
	var mu sync.Mutex
	asked := map[string]int{}
	f.hold = func(in []string) int {
		mu.Lock()
		for _, text := range in {
			asked[text]++
		}
		mu.Unlock()
		time.Sleep(50 * time.Millisecond)
		return 0
	}
	url := f.start().URL + "/v1"
	path := filepath.Join(t.TempDir(), "shared.db")
	if c, err := cache.Open(path); err != nil { // made before the three start, as a first run makes it
		t.Fatal(err)
	} else {
		c.Close()
	}
	clitest.RunChildren(t, "TestEmbedderProcess", 3, func(int) []string {
		return []string{envEmbedder + "=" + path, envEmbedder + "_URL=" + url}
	})
	mu.Lock()
	defer mu.Unlock()
	for _, text := range claimTexts {
		if n := asked[text]; n != 1 {
			t.Errorf("%s was asked for %d times, want once", text, n)
		}
	}
}

// TestClaimFailedRequestLetsGoAtOnce: when one of the requests a process makes for texts it
// claimed after waiting fails, their claims go at once, not when its other requests end, so
// that other processes do not wait on texts nobody is asking for: whether the server refused the
// text on its own (400) or failed the request (401, which fails the call).
func TestClaimFailedRequestLetsGoAtOnce(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized} {
		t.Run(http.StatusText(status), func(t *testing.T) { claimFailedRequestLetsGoAtOnce(t, status) })
	}
}

func claimFailedRequestLetsGoAtOnce(t *testing.T, status int) {
	f := newFake(t)
	second, londonIn := make(chan struct{}), make(chan struct{})
	f.hold = func(in []string) int {
		switch {
		case slices.Equal(in, []string{"paris"}):
			select { // failed once the request for london is in flight
			case <-londonIn:
			case <-time.After(20 * time.Second): // see the wait for london below
			}
			return status
		case slices.Equal(in, []string{"london"}):
			close(londonIn)
			<-second
		}
		return 0
	}
	url := f.start().URL + "/v1"
	var once sync.Once
	letGo := func() { once.Do(func() { close(second) }) }
	t.Cleanup(letGo) // before the server's Close, which waits for the requests it holds
	path := filepath.Join(t.TempDir(), "shared.db")
	c := tempCacheAt(t, path)
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: url, Cache: c, Batch: 1, Parallel: 2})
	// Another process's claims on both texts, let go together: the process claims both in one
	// look once they go, and asks for each in a request of its own.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, text := range []string{"paris", "london"} {
		key, err := cache.Key(vectorNamespace, cacheKey{OpenAI, s.base, "m", text, false})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO claims VALUES (?, 'another', 'elsewhere', 1, ?)`, key, time.Now().UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	done := sbertAsync(context.Background(), s, []string{"paris"}, [][]string{{"london"}})
	// For the process to find both claims and wait. Its two requests' claims are looked at
	// apart, in parallel: had the claims gone between the two looks, it would ask for paris
	// alone, and for london only once paris's request ended.
	time.Sleep(time.Second)
	if _, err := db.Exec(`DELETE FROM claims`); err != nil {
		t.Fatal(err)
	}
	select {
	case <-londonIn:
	case <-time.After(30 * time.Second):
		t.Fatal("no request for london: the claims went between the process's two looks at them (a pause too short for this machine's load)")
	}
	deadline := time.Now().Add(5 * time.Second)
	for claimsLeft(t, path) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d claims held 5 s after the request for paris failed, want 1 (london's, in flight)", claimsLeft(t, path))
		}
		time.Sleep(10 * time.Millisecond)
	}
	letGo()
	if r := <-done; r.err == nil {
		t.Errorf("SBERT = %v, want the %d of the request for paris", r.scores, status)
	}
	if n := claimsLeft(t, path); n != 0 {
		t.Errorf("%d claims left, want none", n)
	}
}
