package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/cache"
)

const envChild = "QAPIPE_PREDICT_CHILD"

// TestChildProcess is the body of the child processes of the kill-and-rerun tests: qa-predict
// with the JSON-encoded arguments and the stdin file named in the environment (see startChild).
func TestChildProcess(t *testing.T) {
	argsJSON := os.Getenv(envChild)
	if argsJSON == "" {
		t.Skip("child process only")
	}
	var args []string
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(os.Getenv(envChild + "_STDIN"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := Run(context.Background(), append([]string{"qa-predict"}, args...), in, io.Discard, os.Stderr); err != nil {
		t.Fatal(err)
	}
}

// child is qa-predict running in a child process, and what it has written.
type child struct {
	cmd *exec.Cmd
	out syncBuffer
}

// startChild starts qa-predict with args and stdin in a child process, which the test's cleanup
// kills: register it after the server its calls hang on, so that it ends first.
func startChild(t *testing.T, args []string, stdin string) *child {
	t.Helper()
	file := filepath.Join(t.TempDir(), "stdin.jsonl")
	if err := os.WriteFile(file, []byte(stdin), 0o644); err != nil {
		t.Fatal(err)
	}
	argsJSON, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: exec.Command(os.Args[0], "-test.run=^TestChildProcess$", "-test.count=1")}
	c.cmd.Env = append(os.Environ(), envChild+"="+string(argsJSON), envChild+"_STDIN="+file)
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait() })
	return c
}

// kill stops the child with SIGKILL: nothing is flushed, closed or deferred.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait()
}

// waitCache polls the cache file db, once the child has created it, until done reports true for
// the number of replies stored, or fails after 60 seconds with what the child wrote.
func (c *child) waitCache(t *testing.T, db string, done func(stored int) bool) {
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
			t.Fatalf("no cache file %s after 60s; the child wrote:\n%s", db, c.out.String())
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
			t.Fatalf("child stored %d replies in 60s; it wrote:\n%s", stored, c.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer that a child process and the test may use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
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
	c := startChild(t, args, in)
	c.waitCache(t, db, func(stored int) bool {
		srv.mu.Lock()
		hanging := srv.attempts["10"] + srv.attempts["11"] + srv.attempts["12"] + srv.attempts["13"]
		srv.mu.Unlock()
		return stored == 10 && hanging == 4 // every reply stored, and the rest of the window in flight
	})
	c.kill(t)

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
