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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

const envSeqChild = "QAPIPE_PREDICT_SEQ_CHILD"

// TestSequentialChild is the body of the child process of TestSequentialResumeAfterKill:
// qa-predict with the JSON-encoded arguments and the stdin file named in the environment.
func TestSequentialChild(t *testing.T) {
	argsJSON := os.Getenv(envSeqChild)
	if argsJSON == "" {
		t.Skip("child process only")
	}
	var args []string
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(os.Getenv(envSeqChild + "_STDIN"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := Run(context.Background(), append([]string{"qa-predict"}, args...), in, io.Discard, os.Stderr); err != nil {
		t.Fatal(err)
	}
}

// TestSequentialResumeAfterKill kills qa-predict with SIGKILL after K of the 28 calls were answered
// (the rest hang), reruns it with the same cache, and checks that no call was asked twice, that
// every call was asked, and that the output is the same as an uninterrupted run's.
func TestSequentialResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	calls := loadTranscript(t)
	for _, k := range []int{5, 12, 17} {
		t.Run(fmt.Sprintf("after_%d_calls", k), func(t *testing.T) {
			resumeAfterKill(t, calls, k)
		})
	}
}

func resumeAfterKill(t *testing.T, calls []call, k int) {
	srv := newReplayServer(t, calls)
	srv.hangAfter = k
	dir := t.TempDir()
	db := filepath.Join(dir, "run.sqlite")
	args := seqArgs(t, srv.URL, "--cache", db, "--concurrency", "2", "--timeout", "1h")
	stdin := filepath.Join(dir, "input.jsonl")
	if err := os.WriteFile(stdin, []byte(seqInput(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	argsJSON, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSequentialChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envSeqChild+"="+string(argsJSON), envSeqChild+"_STDIN="+stdin)
	var childOut syncBuffer
	cmd.Stdout, cmd.Stderr = &childOut, &childOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // before the server closes: its hanging calls end with the child
	if err := waitStored(db, k); err != nil {
		t.Fatalf("%v; the child wrote:\n%s", err, childOut.String())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: nothing is flushed or closed
		t.Fatal(err)
	}
	cmd.Wait()
	if got := srv.answeredTotal(); got != k {
		t.Fatalf("child got %d answers before the kill, want %d", got, k)
	}

	srv.mu.Lock()
	srv.hangAfter = 0
	srv.mu.Unlock()
	recs, stderr, err := seqRun(t, seqInput(t), args...)
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, stderr)
	}
	srv.check(t)
	for i := range calls {
		if n := srv.asked(i); n != 1 {
			t.Errorf("call %d (seq %d pos %d %s) answered %d times over both runs, want 1", i, calls[i].Sequence, calls[i].Position, calls[i].Role, n)
		}
	}

	fresh := newReplayServer(t, calls)
	want, stderr, err := seqRun(t, seqInput(t), seqArgs(t, fresh.URL)...)
	if err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, stderr)
	}
	if len(recs) != len(want) {
		t.Fatalf("rerun wrote %d records, want %d", len(recs), len(want))
	}
	for i := range recs {
		if d := cmp.Diff(normalize(want[i]), normalize(recs[i])); d != "" {
			t.Errorf("record %d differs from the uninterrupted run's (-want +got):\n%s", i, d)
		}
	}
}

// waitStored waits until the cache file db holds n replies.
func waitStored(db string, n int) error {
	deadline := time.Now().Add(60 * time.Second)
	var c *cache.Cache
	for c == nil {
		if _, err := os.Stat(db); err == nil {
			c, _ = cache.Open(db)
		}
		if c == nil {
			if time.Now().After(deadline) {
				return fmt.Errorf("no cache file %s after 60s", db)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	defer c.Close()
	for {
		stored, _ := c.Len(context.Background())
		if stored == n {
			return nil
		}
		if stored > n || time.Now().After(deadline) {
			return fmt.Errorf("child stored %d replies, want %d", stored, n)
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

// normalize clears what legitimately differs between a resumed and an uninterrupted run: whether a
// reply came from the cache, and with it the attempts, latency and cost charged.
func normalize(rec *record.Record) *record.Record {
	r := *rec
	if p := r.Prediction; p != nil {
		q := *p
		q.Cached, q.Attempts, q.LatencyMS, q.CostUSD = false, 0, 0, nil
		r.Prediction = &q
	}
	if r.Judgments != nil {
		js := make(map[string]*record.Judgment)
		for k, j := range r.Judgments {
			c := *j
			c.Cached, c.Attempts, c.CostUSD = false, 0, nil
			js[k] = &c
		}
		r.Judgments = js
	}
	return &r
}

// TestSequentialInterrupt cancels a run while sequence 36 waits for a reply: the finished sequence
// 4 is written whole, nothing of sequence 36 is, and the exit code says interrupted.
func TestSequentialInterrupt(t *testing.T) {
	srv := newReplayServer(t, loadTranscript(t))
	srv.hangAfter, srv.hung = 17, make(chan struct{}, 1) // seq 4 is calls 0-13 at concurrency 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-srv.hung
		cancel()
	}()
	var stdout, stderr bytes.Buffer
	args := append([]string{"qa-predict"}, seqArgs(t, srv.URL, "--concurrency", "1")...)
	err := Run(ctx, args, strings.NewReader(seqInput(t)), &stdout, &stderr)
	if got := command.ExitCode(err); got != command.ExitInterrupted {
		t.Errorf("exit code %d (%v), want %d", got, err, command.ExitInterrupted)
	}
	recs := readRecords(t, stdout.Bytes())
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
		if r.Judgments["evalearn"] == nil || r.Judgments["evalearn"].Score == nil {
			t.Errorf("%s written without a verdict", r.ID)
		}
	}
	want := []string{"evalearn:4:1", "evalearn:4:2", "evalearn:4:3", "evalearn:4:4", "evalearn:4:5", "evalearn:4:6", "evalearn:4:7"}
	if !slices.Equal(ids, want) {
		t.Errorf("written %v, want %v", ids, want)
	}
}
