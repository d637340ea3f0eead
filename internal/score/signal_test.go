package score

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestMainChild is the child process of TestSignal: qa-score's main, as cmd/qa-score runs it.
func TestMainChild(t *testing.T) {
	clitest.MainChild(t, "qa-score", func() { command.MainCalls("qa-score", Run) })
}

// TestSignal interrupts qa-score, running in a child process, while its first embedding call
// hangs on the server: the call ends and its record is scored, no other call is made, every
// record is still written, and the exit code is 130.
func TestSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := newOpenAIServer(t, func(*http.Request) {
		once.Do(func() { // the first request: one text, record a's (--embed-batch 1)
			close(arrived)
			<-release
		})
	})
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	args := []string{"--metrics", "sbert", "--embed-provider", "openai", "--embed-model", "m",
		"--embed-base-url", srv.URL + "/v1", "--cache", filepath.Join(t.TempDir(), "cache.db"), "--embed-batch", "1"}
	in := `{"schema":1,"id":"a","answers":["Paris"],"prediction":{"text":"Paris"}}` + "\n" +
		`{"schema":1,"id":"b","answers":["London"],"prediction":{"text":"London"}}` + "\n" +
		`{"schema":1,"id":"c","answers":["Berlin"],"prediction":{"text":"Berlin"}}` + "\n"
	p := clitest.StartMain(t, "TestMainChild", args, in)
	clitest.Receive(t, arrived, "the first embedding request")
	p.Signal(t, syscall.SIGINT)
	p.WaitStderr(t, "finishing 1 call in flight")
	close(release)
	code, stdout, stderr := p.Wait(t)
	if code != command.ExitInterrupted {
		t.Errorf("exit code %d, want %d; stderr:\n%s", code, command.ExitInterrupted, stderr)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r record.Record
		if err := record.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		v, ok := r.Scores["sbert"]
		switch {
		case !ok:
			got = append(got, r.ID+":-")
		case v == 1:
			got = append(got, r.ID+":1")
		default:
			got = append(got, r.ID+":?")
		}
	}
	if want := "a:1 b:- c:-"; strings.Join(got, " ") != want {
		t.Errorf("records (id:sbert) = %q, want %q", strings.Join(got, " "), want)
	}
	if want := "interrupted before the call was made"; strings.Count(stderr, want) != 2 {
		t.Errorf("stderr should report the two records whose call was not made:\n%s", stderr)
	}
}

// TestForcedExitKeepsSummary: a run ended before it returns, here by signals while it waits on
// an input that never ends, runs none of its deferred calls; the summary it was to write under a
// name of its own is removed all the same, and the file it was to replace is left as it was.
func TestForcedExitKeepsSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.json")
	if err := os.WriteFile(summary, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, in := clitest.StartMainPipe(t, "TestMainChild", []string{"--metrics", "em", "--summary", summary})
	if _, err := in.WriteString(`{"schema":1,"id":"a","answers":["x"],"prediction":{"text":"x"}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if tmp, _ := filepath.Glob(filepath.Join(dir, ".summary.json.*.tmp")); len(tmp) == 1 {
			break // the new summary's file is made: the run has begun
		}
		if time.Now().After(deadline) {
			t.Fatal("the new summary's file was not made")
		}
	}
	// No call is in flight, and the run waits on its input: the second signal does not end it
	// (it said "stopping at once"), the third does.
	p.Signal(t, syscall.SIGINT)
	p.WaitStderr(t, "qa-score: interrupted: no calls in flight; writing the records left (interrupt again to stop within 10s)\n")
	p.Signal(t, syscall.SIGINT)
	p.WaitStderr(t, "qa-score: interrupted again: writing only the records done, for at most 10s (interrupt again to stop at once)\n")
	p.Signal(t, syscall.SIGINT) // the run still waits on its input: end the process
	code, _, stderr := p.Wait(t)
	if code != command.ExitInterrupted {
		t.Errorf("exit code %d, want %d; stderr:\n%s", code, command.ExitInterrupted, stderr)
	}
	if b, err := os.ReadFile(summary); err != nil || string(b) != "old\n" {
		t.Errorf("summary file after a forced exit: %q, %v; want it as it was; stderr:\n%s", b, err, stderr)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("files after a forced exit: %v, want the summary alone", left)
	}
}

// TestSignalNoCallsFile interrupts qa-score, in a child process, scoring a large file with
// metrics that call no model: it stops at the first signal (exit 130), its records written so
// far flushed and no more, where it used to score every record left in the file, saying it was
// writing them. A bad first line, reported on stderr as it is read, tells that the run is
// under way.
func TestSignalNoCallsFile(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	const n = 300000
	var b strings.Builder
	b.WriteString("not a record\n")
	for i := range n {
		fmt.Fprintf(&b, `{"schema":1,"id":"r%d","answers":["Paris"],"prediction":{"text":"Paris"}}`+"\n", i)
	}
	file := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := clitest.StartMain(t, "TestMainChild", []string{"--metrics", "em", file}, "")
	p.WaitStderr(t, "records.jsonl:1")
	p.Signal(t, syscall.SIGINT)
	code, stdout, stderr := p.Wait(t)
	if code != command.ExitInterrupted {
		t.Errorf("exit code %d, want %d; stderr:\n%s", code, command.ExitInterrupted, stderr)
	}
	if strings.Contains(stderr, "writing the records left") || !strings.Contains(stderr, "qa-score: interrupted") {
		t.Errorf("stderr should say only that the run was interrupted:\n%s", stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) >= n {
		t.Errorf("%d records written, want fewer than the file's %d", len(lines), n)
	}
	for i, l := range lines { // a prefix of the input, each record whole
		if l == "" {
			continue // none written
		}
		if want := fmt.Sprintf(`{"schema":1,"id":"r%d",`, i); !strings.HasPrefix(l, want) || !strings.HasSuffix(l, `"scores":{"em":1}}`) {
			t.Fatalf("line %d = %q, want record r%d scored", i+1, l, i)
		}
	}
}
