package predict

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/cache"
)

const envChild = "QAPIPE_PREDICT_CHILD"

// TestChildProcess is the body of the child process of TestRerunAfterKill: qa-predict with a cache,
// arguments taken from the environment.
func TestChildProcess(t *testing.T) {
	args := os.Getenv(envChild)
	if args == "" {
		t.Skip("child process only")
	}
	Run(context.Background(), append([]string{"qa-predict"}, strings.Fields(args)...), strings.NewReader(os.Getenv(envChild+"_STDIN")), io.Discard, io.Discard)
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
	args := fmt.Sprintf("--provider openai --model m --base-url %s --api-key-file %s --cache %s --concurrency 4 --timeout 1h --max-retries 0",
		srv.URL, keyFile(t), db)
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envChild+"="+args, envChild+"_STDIN="+in)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // before the server closes: its hanging calls end with the child
	c, err := cache.Open(db)
	for err != nil { // the child creates the file
		time.Sleep(10 * time.Millisecond)
		c, err = cache.Open(db)
	}
	defer c.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		stored, _ := c.Len(context.Background())
		srv.mu.Lock()
		hanging := srv.attempts["10"] + srv.attempts["11"] + srv.attempts["12"] + srv.attempts["13"]
		srv.mu.Unlock()
		if stored == 10 && hanging == 4 { // every reply stored, and the rest of the window in flight
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child stored %d replies and started %d hanging calls in 30s, want 10 and 4", stored, hanging)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred cleanup runs
		t.Fatal(err)
	}

	before := srv.calls.Load()
	// the rerun: the hanging records now answer (their fault list is spent after one attempt)
	rerun := strings.Replace(args, "--timeout 1h", "--timeout 5s", 1) // a wrong hang fails, not blocks
	recs, _, err := run(t, context.Background(), in, strings.Fields(rerun)...)
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
