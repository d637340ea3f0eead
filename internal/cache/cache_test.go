package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/cache/cachetest"
	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

func TestGetPut(t *testing.T) {
	ctx := context.Background()
	c, err := Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok, err := c.Get(ctx, "k"); ok || err != nil {
		t.Fatalf("Get(empty) = %v, %v, want miss", ok, err)
	}
	for _, v := range []string{"one", "two"} {
		if err := c.Put(ctx, "k", []byte(v)); err != nil {
			t.Fatal(err)
		}
		got, ok, err := c.Get(ctx, "k")
		if !ok || err != nil || string(got) != v {
			t.Errorf("Get(k) = %q, %v, %v, want %q", got, ok, err, v)
		}
	}
}

func TestKey(t *testing.T) {
	temp := 0.0
	base := model.Request{Provider: "openai", Model: "m", Messages: []model.Message{{Role: "user", Content: "q"}}}
	variants := map[string]func(r *model.Request){
		"provider":    func(r *model.Request) { r.Provider = "anthropic" },
		"base url":    func(r *model.Request) { r.BaseURL = "http://127.0.0.1:1" },
		"model":       func(r *model.Request) { r.Model = "m2" },
		"temperature": func(r *model.Request) { r.Temperature = &temp },
		"max tokens":  func(r *model.Request) { r.MaxTokens = 5 },
		"message":     func(r *model.Request) { r.Messages = []model.Message{{Role: "user", Content: "q2"}} },
		"role":        func(r *model.Request) { r.Messages = []model.Message{{Role: "system", Content: "q"}} },
		"sample":      func(r *model.Request) { r.Sample = 1 },
		"seed":        func(r *model.Request) { s := 1; r.Seed = &s },
		"top p":       func(r *model.Request) { p := 0.9; r.TopP = &p },
		"top k":       func(r *model.Request) { k := 40; r.TopK = &k },
		"stop":        func(r *model.Request) { r.Stop = []string{"\n"} },
		"stop order":  func(r *model.Request) { r.Stop = []string{"b", "a"} },
	}
	k0, _ := Key(Namespace, base)
	if k1, _ := Key(Namespace, base); k1 != k0 {
		t.Fatalf("Key is not deterministic: %s vs %s", k0, k1)
	}
	// A request with no stop sequences keys as one made before they were sent.
	empty := base
	empty.Stop = []string{}
	if k, _ := Key(Namespace, empty); k != k0 {
		t.Errorf("an empty Stop changes the key")
	}
	ab := base
	ab.Stop = []string{"a", "b"}
	kab, _ := Key(Namespace, ab)
	for name, f := range variants {
		t.Run(name, func(t *testing.T) {
			r := base
			f(&r)
			if k, _ := Key(Namespace, r); k == k0 || k == kab {
				t.Errorf("Key ignores %s", name)
			}
		})
	}
}

// TestRequestKey: base URLs naming the same endpoint key alike (a trailing slash, the default
// endpoint written out, the scheme and host in other case), and keys made before the rule (no
// base URL, or one without a trailing slash, in lower case) are kept.
func TestRequestKey(t *testing.T) {
	key := func(provider, base string) string {
		k, err := RequestKey(model.Request{Provider: provider, BaseURL: base, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	plain := func(provider, base string) string {
		k, _ := Key(Namespace, model.Request{Provider: provider, BaseURL: base, Model: "m"})
		return k
	}
	for _, tt := range []struct {
		provider, base, same string
	}{
		{"openai", "", ""},
		{"openai", "https://api.openai.com/v1", ""},
		{"openai", "https://api.openai.com/v1//", ""},
		{"anthropic", "https://api.anthropic.com/v1/", ""},
		{"ollama", "http://127.0.0.1:11434/", ""},
		{"googleai", "https://generativelanguage.googleapis.com/", ""},
		{"openai", "http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1"},
		{"openai", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"},
		{"ollama", "https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"extractive", "", ""},
		// Scheme and host name a server in any case; a query mark that asks nothing is none.
		{"openai", "HTTP://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"},
		{"openai", "http://LocalHost:8000/v1/", "http://localhost:8000/v1"},
		{"openai", "http://127.0.0.1:8000/v1?", "http://127.0.0.1:8000/v1"},
		{"openai", "HTTPS://API.OPENAI.COM/v1", ""},
		{"ollama", "Http://127.0.0.1:11434", ""},
		// A base with no host keys as it is written.
		{"openai", "LocalHost:8000/v1", "LocalHost:8000/v1"},
	} {
		if got, want := key(tt.provider, tt.base), plain(tt.provider, tt.same); got != want {
			t.Errorf("%s %q keys as %.12s, want the key of %q, %.12s", tt.provider, tt.base, got, tt.same, want)
		}
	}
	if key("openai", "http://127.0.0.1:8000/v1") == key("openai", "http://127.0.0.1:8000") {
		t.Error("two endpoints key alike")
	}
	if key("openai", "http://127.0.0.1:8000/V1") == key("openai", "http://127.0.0.1:8000/v1") {
		t.Error("two paths that differ in case key alike")
	}
	if key("openai", "http://127.0.0.1:8000/v1?x=1") == key("openai", "http://127.0.0.1:8000/v1") {
		t.Error("a query that asks something keys as none")
	}
}

// TestRequestKeySeed: a seed keys a request as its call carries it. One the call does not carry
// (0, or any seed to anthropic and googleai, whose calls send none) keys as none, so that it finds
// the replies stored without one; one it carries keys as it did before the rule.
func TestRequestKeySeed(t *testing.T) {
	seed := func(n int) *int { return &n }
	key := func(provider string, s *int) string {
		k, err := RequestKey(model.Request{Provider: provider, Model: "m", Seed: s})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	plain := func(provider string, s *int) string {
		k, _ := Key(Namespace, model.Request{Provider: provider, Model: "m", Seed: s})
		return k
	}
	for _, tt := range []struct {
		provider string
		seed     *int
		same     *int // the seed of the request keyed as before the rule that it keys as
	}{
		{"openai", nil, nil},
		{"openai", seed(0), nil},
		{"openai", seed(7), seed(7)},
		{"ollama", seed(-3), seed(-3)},
		{"anthropic", seed(7), nil},
		{"googleai", seed(7), nil},
		{"anthropic", seed(0), nil},
	} {
		if got, want := key(tt.provider, tt.seed), plain(tt.provider, tt.same); got != want {
			t.Errorf("%s seed %v keys as %.12s, want %.12s", tt.provider, tt.seed, got, want)
		}
	}
	if key("openai", seed(7)) == key("openai", seed(8)) {
		t.Error("two seeds sent to openai key alike")
	}
}

// TestRequestKeyTemperature: a temperature keys as the call carries it only where none is sent
// (OpenAI's reasoning models: o3-mini gets none), so that an exported QA_TEMPERATURE does not pay
// again for replies stored without one; elsewhere each temperature keys apart, and a request
// without one keys as before.
func TestRequestKeyTemperature(t *testing.T) {
	temp := func(v float64) *float64 { return &v }
	key := func(m string, tp *float64) string {
		k, err := RequestKey(model.Request{Provider: "openai", Model: m, Temperature: tp})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	if a, b, c := key("o3-mini", nil), key("o3-mini", temp(1)), key("o3-mini", temp(0.3)); a != b || b != c {
		t.Errorf("o3-mini keys %.12s, %.12s, %.12s for no temperature, 1 and 0.3; want one key (none is sent)", a, b, c)
	}
	if a, b := key("gpt-4o", temp(1)), key("gpt-4o", temp(0.3)); a == b {
		t.Error("gpt-4o at temperatures 1 and 0.3 keys alike")
	}
	plain, _ := Key(Namespace, model.Request{Provider: "openai", Model: "gpt-4o"})
	if got := key("gpt-4o", nil); got != plain {
		t.Errorf("gpt-4o without a temperature keys as %.12s, want %.12s as before", got, plain)
	}
}

// TestRequestKeyNumCtx: each context window sent to Ollama keys apart, as the model runs with it
// and may see a prompt the default window cuts; none keys as before Request had one; one given
// to a provider that is sent none keys as none.
func TestRequestKeyNumCtx(t *testing.T) {
	checkKeyedApart(t, "ollama", []string{"openai", "anthropic", "googleai"}, []int{0, 2048, 8192, 131072},
		func(r *model.Request, n int) { r.NumCtx = n })
}

// TestRequestKeyGeminiSafety: each safety threshold sent to Gemini keys apart, as a stricter
// one may block a reply a looser one let through; none, or the default named, keys as before
// Request had one; one given to another provider, which is sent none, keys as none.
func TestRequestKeyGeminiSafety(t *testing.T) {
	checkKeyedApart(t, "googleai", []string{"openai", "anthropic", "ollama"}, []string{"", "block_none", "block_medium_and_above", "block_low_and_above"},
		func(r *model.Request, level string) { r.GeminiSafety = level })
	named, _ := RequestKey(model.Request{Provider: "googleai", Model: "m", GeminiSafety: model.DefaultGeminiSafety})
	if none, _ := RequestKey(model.Request{Provider: "googleai", Model: "m"}); named != none {
		t.Errorf("googleai with the default threshold named keys as %.12s, want %.12s as with none", named, none)
	}
}

// checkKeyedApart checks a request field that set gives each of values (the first its zero
// value): a request of provider keys apart for each value; with the zero value, as a request made
// before Request had the field (provider, model and messages alone); and a request of each of
// others, which are sent no such field, keys the last value as the zero one.
func checkKeyedApart[T any](t *testing.T, provider string, others []string, values []T, set func(*model.Request, T)) {
	t.Helper()
	key := func(provider string, v T) string {
		r := model.Request{Provider: provider, Model: "m"}
		set(&r, v)
		k, err := RequestKey(r)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	seen := map[string]int{}
	for i, v := range values {
		k := key(provider, v)
		if other, ok := seen[k]; ok {
			t.Errorf("%s with %v keys as with %v", provider, v, values[other])
		}
		seen[k] = i
	}
	type before struct {
		Provider string          `json:"provider"`
		Model    string          `json:"model"`
		Messages []model.Message `json:"messages"`
	}
	plain, _ := Key(Namespace, before{Provider: provider, Model: "m"})
	if got := key(provider, values[0]); got != plain {
		t.Errorf("%s with %v keys as %.12s, want %.12s as before", provider, values[0], got, plain)
	}
	last := values[len(values)-1]
	for _, p := range others {
		if a, b := key(p, values[0]), key(p, last); a != b {
			t.Errorf("%s with %v keys as %.12s, want %.12s (none is sent)", p, last, b, a)
		}
	}
}

// TestRequestKeyStable: a request keys as it did before Request had TopK and qa-predict set TopP
// (the keys below were made then), so that the replies cached by earlier versions are found; one
// with top_p or top_k, or with another value of either, keys apart.
func TestRequestKeyStable(t *testing.T) {
	temp := 0.0
	reqs := []model.Request{
		{Provider: "openai", Model: "gpt-4o-mini", Temperature: &temp, MaxTokens: 32, Messages: []model.Message{{Role: "user", Content: "Capital of France?"}}},
		{Provider: "googleai", Model: "gemini-2.0-flash", Temperature: &temp, Messages: []model.Message{{Role: "system", Content: "Terse."}, {Role: "user", Content: "Capital of France?"}}},
	}
	for i, want := range []string{
		"6f6e394a2f5b4c65c8c5cf2578606696d772c271269d0df5894776f3f47af15c",
		"824210fd6d329c5fa17d5218d8e141bef48f697db24b97ca78e420cdd4edb995",
	} {
		if got, err := RequestKey(reqs[i]); got != want || err != nil {
			t.Errorf("RequestKey(%s request) = %s, %v, want %s", reqs[i].Provider, got, err, want)
		}
	}
	seen := map[string]string{}
	for _, tt := range []struct {
		name string
		p    *float64
		k    *int
	}{
		{"neither", nil, nil}, {"top_p 0.9", new(0.9), nil}, {"top_p 0.95", new(0.95), nil}, {"top_k 3", nil, new(3)},
		{"top_k 40", nil, new(40)}, {"top_p 0.95, top_k 3", new(0.95), new(3)}, {"top_p 0.9, top_k 40", new(0.9), new(40)},
	} {
		r := reqs[1]
		r.TopP, r.TopK = tt.p, tt.k
		key, err := RequestKey(r)
		if err != nil {
			t.Fatal(err)
		}
		if other, ok := seen[key]; ok {
			t.Errorf("%s keys as %s does", tt.name, other)
		}
		seen[key] = tt.name
	}
}

// TestClientCachesReplies: a reply is stored, and served from the cache once the file is opened
// again, with its text and usage, Cached set and Attempts zero; the fresh reply carries the
// attempts its call took (here a 500, retried, then the answer).
func TestClientCachesReplies(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := newChatServer(t, func(n int64, q string) (int, string) {
		if n == 1 {
			return http.StatusInternalServerError, `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`
		}
		return http.StatusOK, echo(q)
	})
	next := srv.client(t, model.TransportConfig{MaxRetries: 1, Backoff: time.Millisecond})
	cl := c.Wrap(next)
	req := srv.request("q")
	r1, err := cl.Generate(ctx, req)
	if err != nil || r1.Cached || r1.Attempts != 2 || r1.Text != "a:q" {
		t.Fatalf("first Generate = %+v, %v, want the fresh reply a:q after 2 attempts", r1, err)
	}
	c.Close()
	c, _ = Open(path) // survives reopening
	defer c.Close()
	cl = c.Wrap(next)
	r2, err := cl.Generate(ctx, req)
	if err != nil || !r2.Cached || r2.Text != r1.Text || !reflect.DeepEqual(r2.Usage, r1.Usage) || r2.Attempts != 0 {
		t.Errorf("second Generate = %+v, %v, want cached copy of %+v", r2, err, r1)
	}
	if n := srv.calls.Load(); n != 2 {
		t.Errorf("%d requests reached the server, want 2 (the first call's two attempts)", n)
	}
}

// TestClientStoredOnly: under model.StoredOnly the client answers a stored reply as ever and a
// reply it does not hold with model.ErrNotStored, never asking Next: no request reaches the
// server.
func TestClientStoredOnly(t *testing.T) {
	ctx := context.Background()
	c, _ := Open(filepath.Join(t.TempDir(), "c.db"))
	defer c.Close()
	srv := echoServer(t)
	cl := c.Wrap(srv.client(t, model.TransportConfig{MaxRetries: -1}))
	stored := srv.request("q")
	if _, err := cl.Generate(ctx, stored); err != nil {
		t.Fatal(err)
	}
	r, err := cl.Generate(model.StoredOnly(ctx), stored)
	if err != nil || !r.Cached || r.Text != "a:q" {
		t.Errorf("stored reply under StoredOnly = %+v, %v, want the cached a:q", r, err)
	}
	other := stored
	other.Sample = 1
	if _, err := cl.Generate(model.StoredOnly(ctx), other); !errors.Is(err, model.ErrNotStored) {
		t.Errorf("reply not held under StoredOnly: error %v, want model.ErrNotStored", err)
	}
	if n := srv.calls.Load(); n != 1 {
		t.Errorf("%d requests reached the server, want 1 (the first, stored)", n)
	}
}

// TestClientDoesNotCacheErrors: a failed call (refused, or failing on every attempt), and a reply
// without text (an error too, its usage paid for), are passed on as the model client gave them,
// with their attempts, and never stored: the next call of the request asks again.
func TestClientDoesNotCacheErrors(t *testing.T) {
	const serverError = `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`
	for _, tt := range []struct {
		name, body string
		status     int
		want       string // in the error
		attempts   int
		usage      record.Usage
	}{
		{"400", `{"error":{"message":"Invalid value for 'messages'.","type":"invalid_request_error","param":"messages","code":null}}`, http.StatusBadRequest,
			"400: Invalid value for 'messages'.", 1, record.Usage{}},
		{"500 on every attempt", serverError, http.StatusInternalServerError, "(after 2 attempts)", 2, record.Usage{}},
		{"empty reply", completion(`{"role":"assistant","content":""}`, 3, 0), http.StatusOK, model.ErrEmptyReply.Error(), 1, record.Usage{InputTokens: 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c, _ := Open(filepath.Join(t.TempDir(), "c.db"))
			defer c.Close()
			srv := newChatServer(t, func(int64, string) (int, string) { return tt.status, tt.body })
			cl := c.Wrap(srv.client(t, model.TransportConfig{MaxRetries: 1, Backoff: time.Millisecond}))
			for i := range 2 {
				resp, err := cl.Generate(ctx, srv.request("q"))
				ce, ok := errors.AsType[*model.CallError](err)
				if !ok || ce.Attempts != tt.attempts || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("call %d: Generate error %#v, want a *model.CallError of %d attempts saying %q", i+1, err, tt.attempts, tt.want)
				}
				if resp.Cached || resp.Attempts != tt.attempts || !reflect.DeepEqual(resp.Usage, tt.usage) {
					t.Errorf("call %d: Generate = %+v, want the call's %d attempts and usage %+v, not cached", i+1, resp, tt.attempts, tt.usage)
				}
			}
			if n, _ := c.Len(ctx); n != 0 || srv.calls.Load() != int64(2*tt.attempts) {
				t.Errorf("entries = %d, requests = %d; want 0 entries and %d requests", n, srv.calls.Load(), 2*tt.attempts)
			}
		})
	}
}

// TestClientUnstored: a reply that cannot be stored (here a trigger refuses every insert, as a
// full disk would) still answers its call, paid for as it was, and the cache counts it for the run's
// warning, naming the first error; a reply stored is not counted.
func TestClientUnstored(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv := echoServer(t)
	cl := c.Wrap(srv.client(t, model.TransportConfig{MaxRetries: -1}))
	ask := func(q string) {
		t.Helper()
		if resp, err := cl.Generate(ctx, srv.request(q)); err != nil || resp.Text != "a:"+q {
			t.Fatalf("Generate(%q) = %+v, %v; want the reply", q, resp, err)
		}
	}
	ask("stored")
	if w := c.Unstored(); w != "" {
		t.Errorf("Unstored() = %q after a reply stored, want none", w)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TRIGGER full BEFORE INSERT ON entries BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ask("lost 1")
	ask("lost 2")
	w := c.Unstored()
	if want := "2 replies could not be stored in the cache (cache " + path + ": put: "; !strings.HasPrefix(w, want) ||
		!strings.HasSuffix(w, "): they are in the records, and a rerun with this cache asks for them again") {
		t.Errorf("Unstored() = %q, want it to begin %q and say where the replies are", w, want)
	}
}

const (
	envHelper = "QAPIPE_CACHE_WRITER"
	perWriter = 200
)

// TestWriterProcess is the body of the child processes of TestConcurrentProcesses.
func TestWriterProcess(t *testing.T) {
	path := os.Getenv(envHelper)
	if path == "" {
		t.Skip("helper process only")
	}
	id := os.Getenv(envHelper + "_ID")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < perWriter; i += 4 {
				// Both processes write the shared keys; each also writes its own.
				if err := c.Put(ctx, "shared-"+strconv.Itoa(i), []byte("v"+strconv.Itoa(i))); err != nil {
					t.Error(err)
					return
				}
				if err := c.Put(ctx, id+"-"+strconv.Itoa(i), []byte(id)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "shared.db")
	clitest.RunChildren(t, "TestWriterProcess", 2, func(id int) []string {
		return []string{envHelper + "=" + path, fmt.Sprintf("%s_ID=p%d", envHelper, id)}
	})
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n, err := c.Len(context.Background()); n != 3*perWriter || err != nil {
		t.Errorf("Len = %d, %v, want %d", n, err, 3*perWriter)
	}
	v, ok, _ := c.Get(context.Background(), "shared-7")
	if !ok || string(v) != "v7" {
		t.Errorf("Get(shared-7) = %q, %v, want v7", v, ok)
	}
}

// TestOpenWaitsForAnotherWriter opens a file that another connection holds in a write
// transaction before it is in WAL mode, as when several processes create one cache at once:
// switching to WAL fails at once with SQLITE_BUSY, and Open must wait for the lock instead.
// The other connection waits for locks as a qapipe process does (a busy timeout): without one,
// its COMMIT fails at once whenever Open's connection holds a read lock at that moment, and the
// file stays locked.
func TestOpenWaitsForAnotherWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(30000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The other writer is another run making the cache (a file with other tables is no cache).
	for _, q := range []string{schema, "BEGIN IMMEDIATE", "INSERT INTO entries VALUES ('o', 'v', 1)"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const hold = 300 * time.Millisecond
	committed := make(chan error, 1)
	go func() {
		time.Sleep(hold)
		_, err := conn.ExecContext(ctx, "COMMIT")
		committed <- err
	}()
	c, err := Open(path)
	if err != nil {
		t.Fatalf("Open while another connection writes: %v", err)
	}
	defer c.Close()
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	if err := c.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := c.Get(ctx, "k"); err != nil || !ok || string(v) != "v" {
		t.Fatalf("Get = %q, %v, %v", v, ok, err)
	}
}

// TestOpenOddNames: a cache is the file its name names, whatever characters SQLite's URIs give a
// meaning to, and keeps its replies from one run to the next.
func TestOpenOddNames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{"x%41.db", "a?b.db", "c#d.db", "e f.db", "g%3f.db", "sub/h&i=j.db"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		for run := range 2 {
			c, err := Open(path)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if run == 0 {
				err = c.Put(ctx, "k", []byte(name))
			} else if v, ok, gerr := c.Get(ctx, "k"); !ok || gerr != nil || string(v) != name {
				err = fmt.Errorf("second run got %q, %v, %v, want the first run's reply", v, ok, gerr)
			}
			c.Close()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: the cache is not at its name: %v", name, err)
		}
	}
	// //dir/… is the absolute path, not a URI authority
	if c, err := Open("/" + filepath.Join(dir, "k.db")); err != nil {
		t.Errorf("Open(//…): %v", err)
	} else {
		c.Close()
	}
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), "-wal") && !strings.HasSuffix(e.Name(), "-shm") {
			got = append(got, e.Name())
		}
	}
	if want := []string{"a?b.db", "c#d.db", "e f.db", "g%3f.db", "k.db", "sub", "x%41.db"}; !slices.Equal(got, want) {
		t.Errorf("files made: %q, want %q", got, want)
	}
}

// TestOpenMemoryName: a cache named ":memory:", the name SQLite gives its in-memory databases, is
// a file of that name too, as any other name is: in memory, each of the pool's connections had a
// database of its own, without the cache's tables ("no such table: entries" on records of a
// concurrent run), and nothing was kept for the next run.
func TestOpenMemoryName(t *testing.T) {
	ctx := context.Background()
	t.Chdir(t.TempDir())
	const name = ":memory:"
	for run := range 2 {
		c, err := Open(name)
		if err != nil {
			t.Fatal(err)
		}
		c.db.SetMaxIdleConns(4)
		conns := make([]*sql.Conn, 3) // connections of their own, as concurrent calls take them
		for i := range conns {
			if conns[i], err = c.db.Conn(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for i, conn := range conns {
			var n int
			if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM entries`).Scan(&n); err != nil {
				t.Errorf("run %d, connection %d: %v", run, i, err)
			}
			conn.Close()
		}
		if run == 0 {
			err = c.Put(ctx, "k", []byte("v"))
		} else if v, ok, gerr := c.Get(ctx, "k"); !ok || gerr != nil || string(v) != "v" {
			err = fmt.Errorf("second run got %q, %v, %v, want the first run's reply", v, ok, gerr)
		}
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(name); err != nil {
		t.Errorf("the cache is not at its name: %v", err)
	}
}

// TestOpenNotADatabase: naming another kind of file (a run's records, say) says what is wrong
// with it, and leaves the file as it was.
func TestOpenNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	const records = `{"schema":1,"id":"a","question":"q","answers":["x"]}` + "\n"
	if err := os.WriteFile(path, []byte(records), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), "cache "+path+": not a reply cache") {
		t.Errorf("Open(records) = %v, want an error saying it is not a reply cache", err)
	}
	if _, ok := errors.AsType[*FileError](err); !ok {
		t.Errorf("Open(records) = %#v, want a *FileError (the file named is at fault)", err)
	}
	if b, _ := os.ReadFile(path); string(b) != records {
		t.Errorf("the file became %q", b)
	}
}

// TestOpenWhereNot: a folder, or a file in a folder that does not exist, is refused with what is
// wrong, not SQLite's "unable to open database file".
func TestOpenWhereNot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{dir, "is a folder"},
		{filepath.Join(dir, "no", "c.db"), "its folder " + filepath.Join(dir, "no") + " does not exist"},
		{filepath.Join(file, "c.db"), file + " is not a folder"},
	} {
		c, err := Open(tt.path)
		if err == nil {
			c.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "cache "+tt.path+": "+tt.want) {
			t.Errorf("Open(%s) = %v, want %q", tt.path, err, tt.want)
		}
		if fe, ok := errors.AsType[*FileError](err); !ok || fe.Path != tt.path || !strings.HasPrefix(fe.Err.Error(), tt.want) {
			t.Errorf("Open(%s) = %#v, want a *FileError of %s saying %q (the file named is at fault)", tt.path, err, tt.path, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Error("a missing folder was made")
	}
}

// TestWritable: a cache file SQLite can open only for reading is refused at open, before any
// reply is paid for and then lost at its put. (Root writes a mode-0444 file anyway, so the
// read-only open is asked for here.)
func TestWritable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.sqlite")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := func() error {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=rw")
		if err != nil {
			return err
		}
		defer db.Close()
		return writable(db)
	}(); err != nil {
		t.Errorf("writable(read-write) = %v, want nil", err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := writable(db); err == nil || !strings.Contains(err.Error(), "cannot be written") {
		t.Errorf("writable(read-only) = %v, want an error", err)
	}
}

// TestWritableLocked: a cache whose write lock another process holds past the busy timeout is
// named locked, not unwritable, which reads as a matter of permissions.
func TestWritableLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.sqlite")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	holder, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // only the lock matters
	db, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate&_pragma=busy_timeout(20)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = writable(db)
	if err == nil || !strings.Contains(err.Error(), "is locked: another process held its write lock") ||
		strings.Contains(err.Error(), "cannot be written") {
		t.Errorf("writable(locked) = %v, want an error naming the lock", err)
	}
}

// TestForget: a forgotten reply is asked for again; other replies stay.
func TestForget(t *testing.T) {
	ctx := context.Background()
	c, err := Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv := echoServer(t)
	cl := c.Wrap(srv.client(t, model.TransportConfig{MaxRetries: -1}))
	req := func(q string) model.Request {
		r := srv.request(q)
		r.BaseURL += "/" // Forget keys it as the calls did without the slash
		return r
	}
	for _, q := range []string{"a", "b"} {
		if _, err := cl.Generate(ctx, req(q)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Forget(ctx, req("a")); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"a", "b"} {
		if _, err := cl.Generate(ctx, req(q)); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.calls.Load(); n != 3 {
		t.Errorf("%d requests reached the server, want 3 (the forgotten reply asked again, the other served)", n)
	}
}

// TestClientAsksAgainForBadEntries: an entry that does not decode (a damaged file) or holds no
// text (an empty reply, which versions before empty replies were errors stored as answers) is no
// reply: it is asked for again and replaced, instead of failing, or answering with nothing, on
// every run.
func TestClientAsksAgainForBadEntries(t *testing.T) {
	ctx := context.Background()
	c, err := Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for name, bad := range map[string]string{
		"undecodable": `{{`,
		"empty text":  `{"text":"","model":"m","usage":{"input_tokens":3,"output_tokens":0},"attempts":0,"cached":false}`,
		"blank text":  `{"text":" \n","model":"m","usage":{"input_tokens":3,"output_tokens":1},"attempts":0,"cached":false}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := echoServer(t)
			next := srv.client(t, model.TransportConfig{MaxRetries: -1})
			req := srv.request(name)
			key, _ := RequestKey(req)
			if err := c.Put(ctx, key, []byte(bad)); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				resp, err := c.Wrap(next).Generate(ctx, req)
				if err != nil || resp.Text != "a:"+name || resp.Cached != (i == 1) {
					t.Fatalf("Generate %d = %+v, %v; want the model's reply, then its cached copy", i, resp, err)
				}
			}
			if n := srv.calls.Load(); n != 1 {
				t.Errorf("%d requests reached the server, want 1", n)
			}
		})
	}
}

// TestOpenNotOurs: a database of another program, or an entries or claims table of another
// layout, is refused at open with what it is, and left as it was; an empty database becomes a
// cache, and so does one made before claims, which has the entries table alone.
func TestOpenNotOurs(t *testing.T) {
	dir := t.TempDir()
	for name, ddl := range map[string]string{
		"other.db":  `CREATE TABLE people (name TEXT)`,
		"layout.db": `CREATE TABLE entries (k TEXT PRIMARY KEY, v BLOB)`,
		// The columns' names, but no key to replace a reply on, or a column more that must be
		// set: every reply would fail to be stored.
		"nokey.db": `CREATE TABLE entries (key TEXT, value BLOB, created INTEGER)`,
		"extra.db": `CREATE TABLE entries (key TEXT PRIMARY KEY, value BLOB, created INTEGER, extra INTEGER NOT NULL)`,
		"claims.db": `CREATE TABLE entries (key TEXT PRIMARY KEY, value BLOB NOT NULL, created INTEGER NOT NULL) WITHOUT ROWID;
			CREATE TABLE claims (key TEXT PRIMARY KEY, owner TEXT)`,
		"empty.db": ``,
		"old.db":   `CREATE TABLE entries (key TEXT PRIMARY KEY, value BLOB NOT NULL, created INTEGER NOT NULL) WITHOUT ROWID`,
	} {
		path := filepath.Join(dir, name)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE t (x); DROP TABLE t;` + ddl); err != nil {
			t.Fatal(err)
		}
		db.Close()
		c, err := Open(path)
		if name == "empty.db" || name == "old.db" {
			if err != nil {
				t.Errorf("%s: %v, want a cache", name, err)
			} else {
				if n := claimCount(t, c); n != 0 {
					t.Errorf("%s: %d claims, want an empty claims table", name, n)
				}
				c.Close()
			}
			continue
		}
		if err == nil {
			c.Close()
			t.Errorf("%s opened, want it refused", name)
			continue
		}
		if !strings.Contains(err.Error(), "not a reply cache") {
			t.Errorf("%s: %v, want it said to be no reply cache", name, err)
		}
		if _, ok := errors.AsType[*FileError](err); !ok {
			t.Errorf("%s: %#v, want a *FileError (the file named is at fault)", name, err)
		}
		db, _ = sql.Open("sqlite", path)
		var n int
		db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'entries'`).Scan(&n)
		db.Close()
		if want := map[string]int{"other.db": 0, "layout.db": 1, "nokey.db": 1, "extra.db": 1, "claims.db": 1}[name]; n != want {
			t.Errorf("%s: %d entries tables after Open, want %d (untouched)", name, n, want)
		}
	}
}

// TestRequestKeyMaxTokensField: the member an openai call carries its budget in keys a request
// only where it departs from the base URL's default, so replies stored before it could be named
// keep their keys, and a reply to one member is never served to a call with the other.
func TestRequestKeyMaxTokensField(t *testing.T) {
	const local = "http://127.0.0.1:8000/v1"
	key := func(provider, base, field string, budget int) string {
		k, err := RequestKey(model.Request{Provider: provider, BaseURL: base, Model: "m", MaxTokens: budget, MaxTokensField: field})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	plain := func(provider, base, field string, budget int) string {
		k, _ := Key(Namespace, model.Request{Provider: provider, BaseURL: model.Endpoint(provider, base), Model: "m", MaxTokens: budget, MaxTokensField: field})
		if base == "" {
			k, _ = Key(Namespace, model.Request{Provider: provider, Model: "m", MaxTokens: budget, MaxTokensField: field})
		}
		return k
	}
	for _, tt := range []struct {
		provider, base, field string
		budget                int
		same                  string // the field of the request keyed as before the rule that it keys as
	}{
		{"openai", "", "", 16, ""},
		{"openai", "", "auto", 16, ""},
		{"openai", "", "max_completion_tokens", 16, ""},
		{"openai", "", "max_tokens", 16, "max_tokens"},
		{"openai", local, "auto", 16, ""},
		{"openai", local, "max_tokens", 16, ""},
		{"openai", local, "max_completion_tokens", 16, "max_completion_tokens"},
		{"openai", local, "max_completion_tokens", 0, ""}, // no budget sent
		{"ollama", local, "max_completion_tokens", 16, ""},
	} {
		if got, want := key(tt.provider, tt.base, tt.field, tt.budget), plain(tt.provider, tt.base, tt.same, tt.budget); got != want {
			t.Errorf("%s at %q, field %q, budget %d keys as %.12s, want %.12s", tt.provider, tt.base, tt.field, tt.budget, got, want)
		}
	}
	if key("openai", local, "max_tokens", 16) == key("openai", local, "max_completion_tokens", 16) {
		t.Error("the two members key alike")
	}
}

// TestRequestKeyMaxTokens: a budget keys as the call carries it where the call carries one
// without being given one: anthropic and googleai are sent langchaingo's 2048 then, so a
// --max-tokens 2048 written out finds the replies stored without it (which keep their keys),
// where it made another key for the same call and paid for each reply again. openai and ollama
// are sent no budget without one, so 2048 keys apart there.
func TestRequestKeyMaxTokens(t *testing.T) {
	key := func(provider string, budget int) string {
		k, err := RequestKey(model.Request{Provider: provider, Model: "m", MaxTokens: budget})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for _, provider := range []string{"anthropic", "googleai"} {
		plain, _ := Key(Namespace, model.Request{Provider: provider, Model: "m"})
		if a, b := key(provider, 0), key(provider, 2048); a != plain || b != plain {
			t.Errorf("%s with no budget and with 2048 keys as %.12s and %.12s, want both %.12s, as before", provider, a, b, plain)
		}
		if key(provider, 100) == plain {
			t.Errorf("%s with a budget of 100 keys as with none", provider)
		}
	}
	for _, provider := range []string{"openai", "ollama"} {
		if key(provider, 0) == key(provider, 2048) {
			t.Errorf("%s with no budget and with 2048 key alike, but only one call carries a budget", provider)
		}
	}
}

// TestClientDamagedPage: a page of the file overwritten after a run stored its replies (a disk
// fault Open, reading the file's first pages, does not see) makes the entries on it unreadable:
// each of their calls is asked again and answered, not failed with SQLite's "malformed", and
// Warnings counts them, a single one too; the entries elsewhere are answered from the cache, with
// no call.
func TestClientDamagedPage(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := echoServer(t)
	cl := c.Wrap(srv.client(t, model.TransportConfig{MaxRetries: -1}))
	const n = 400
	q := func(i int) string { return fmt.Sprintf("question %03d %s", i, strings.Repeat("x", 400)) }
	for i := range n {
		if _, err := cl.Generate(ctx, srv.request(q(i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	c.Close()
	cachetest.DamageMiddle(t, path, 40)

	one, err := Open(path) // read until the first entry it cannot read
	if err != nil {
		t.Fatalf("Open of a file damaged in its middle: %v", err)
	}
	for i := 0; i < n && len(one.unread) == 0; i++ {
		key, err := RequestKey(srv.request(q(i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := one.Get(ctx, key); err != nil {
			t.Fatalf("Get(%d) = %v, want no error", i, err)
		}
	}
	ws := one.Warnings()
	if want := fmt.Sprintf("1 entry of the cache %s could not be read (", path); len(ws) != 1 || !strings.HasPrefix(ws[0], want) ||
		!strings.HasSuffix(ws[0], ") and was asked for again: the file is damaged; name a new one, or remove it") {
		t.Errorf("Warnings() after one entry not read = %q, want one that begins %q and says it was asked for again", ws, want)
	}
	one.Close()

	c, err = Open(path)
	if err != nil {
		t.Fatalf("Open of a file damaged in its middle: %v", err)
	}
	defer c.Close()
	cl = c.Wrap(srv.client(t, model.TransportConfig{MaxRetries: -1}))
	before := srv.calls.Load()
	cached := 0
	for i := range n {
		resp, err := cl.Generate(ctx, srv.request(q(i)))
		if err != nil || resp.Text != "a:"+q(i) {
			t.Fatalf("Generate(%d) = %q, %v; want the reply", i, resp.Text, err)
		}
		if resp.Cached {
			cached++
		}
	}
	asked := int(srv.calls.Load() - before)
	if asked == 0 || cached == 0 || asked+cached != n {
		t.Fatalf("%d calls asked again and %d answered from the cache, want some of each, %d in all", asked, cached, n)
	}
	ws = c.Warnings()
	want := fmt.Sprintf("%d entries of the cache %s could not be read (", asked, path)
	if len(ws) == 0 || !strings.HasPrefix(ws[len(ws)-1], want) || !strings.Contains(ws[len(ws)-1], "malformed") {
		t.Errorf("Warnings() = %q, want the last to begin %q and name the damage", ws, want)
	}
}
