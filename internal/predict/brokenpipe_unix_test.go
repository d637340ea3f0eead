//go:build unix

package predict

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/clitest"
)

// TestClosedStdoutStoresReplies: qa-predict --cache whose stdout's reader has gone (| head -1)
// while three calls are in flight (records 1-3 of 4, at --concurrency 4) makes no new call,
// stores the three replies once they come, says so in one line while it waits, and then ends by
// SIGPIPE, as cat does; a rerun finds the four replies in the cache and asks nothing. Without
// --cache no reply could be used: it ends at once, quietly, and the calls are abandoned.
//
// The reader is gone before the first write, which comes when record 0 is answered, once the
// three calls are in flight: the write that finds the reader gone cannot come before.
func TestClosedStdoutStoresReplies(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	const n = 4 // a fifth would start once record 0 is written, and be answered, or refused, by chance
	in := input(n, map[int]string{1: "HOLD", 2: "HOLD", 3: "HOLD"})
	for _, cached := range []bool{true, false} {
		name := map[bool]string{true: "cache", false: "no cache"}[cached]
		t.Run(name, func(t *testing.T) {
			srv, asked0, answer, args, db := holdingServer(t, cached)
			p := clitest.StartReaderGone(t, "TestMainChild", args, in)
			clitest.Receive(t, asked0, "record 0's call")
			for range 3 {
				clitest.Receive(t, srv.Held, "a held call")
			}
			answer() // its record is written, to no reader
			if cached {
				want := "qa-predict: stdout's reader went away: storing the replies of 3 calls in flight (--cache), for at most 2m0s; interrupt to abandon them"
				if got := clitest.Receive(t, p.Stderr, "the line saying what is waited for"); got != want {
					t.Fatalf("stderr %q, want %q", got, want)
				}
				srv.Release()
			} else {
				for range 3 {
					clitest.Receive(t, srv.Abandoned, "an abandoned call")
				}
			}
			stderr := p.WaitSIGPIPE(t)
			if len(stderr) > 0 {
				t.Errorf("stderr after the wait: %q, want nothing more", stderr)
			}
			if got := len(srv.Prompts()); got != 4 {
				t.Errorf("the server was asked %d times, want 4 (no call after stdout's reader went away)", got)
			}
			if !cached {
				return
			}
			if got := cacheLen(t, db); got != 4 {
				t.Errorf("cache holds %d replies, want 4", got)
			}
			recs, _, err := run(t, context.Background(), in, args...)
			if err != nil {
				t.Fatal(err)
			}
			for i, rec := range recs {
				if p := rec.Prediction; p == nil || !p.Cached || p.Text != "A"+rec.ID[1:] || i >= 4 {
					t.Errorf("rerun: record %s: prediction %+v, want its reply from the cache", rec.ID, p)
				}
			}
			if got := len(srv.Prompts()); got != 4 || len(recs) != 4 {
				t.Errorf("rerun: %d records, and the server asked %d times in all; want 4 and 4 (every reply cached)", len(recs), got)
			}
		})
	}
}

// TestFullStdoutStoresReplies: qa-predict --cache whose stdout cannot be written (a full disk,
// /dev/full) while three calls are in flight makes no new call, stores the three replies once
// they come, saying so in one line while it waits, and then fails with the write's error (exit
// 1), the cache holding the four replies. The calls in flight had been cut, their replies, paid
// for, lost without a word. Without --cache it says nothing of them, and fails once they end.
func TestFullStdoutStoresReplies(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	full.Close()
	const n = 4
	in := input(n, map[int]string{1: "HOLD", 2: "HOLD", 3: "HOLD"})
	for _, cached := range []bool{true, false} {
		name := map[bool]string{true: "cache", false: "no cache"}[cached]
		t.Run(name, func(t *testing.T) {
			srv, asked0, answer, args, db := holdingServer(t, cached)
			full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			p := clitest.StartStdoutOn(t, "TestMainChild", args, in, full)
			clitest.Receive(t, asked0, "record 0's call")
			for range 3 {
				clitest.Receive(t, srv.Held, "a held call")
			}
			answer() // its record is written, to a full disk
			const failed = "qa-predict: write /dev/stdout: no space left on device"
			if cached {
				want := failed + ": storing the replies of 3 calls in flight (--cache) before stopping, for at most 2m0s; interrupt twice to abandon them"
				for {
					got := clitest.Receive(t, p.Stderr, "the line saying what is waited for")
					if strings.HasPrefix(got, "qa-predict: warning: ") {
						continue
					}
					if got != want {
						t.Fatalf("stderr %q, want %q", got, want)
					}
					break
				}
				srv.Release()
			} else {
				// Nothing to store: the calls in flight, whose records could be written
				// nowhere, are abandoned, not waited for (the server holds them until then).
				for range 3 {
					clitest.Receive(t, srv.Abandoned, "a held call abandoned")
				}
			}
			code, stderr := p.Wait(t)
			if code != 1 || len(stderr) == 0 || stderr[len(stderr)-1] != failed {
				t.Errorf("exit %d, stderr ending %q; want 1 and %q", code, stderr, failed)
			}
			if got := len(srv.Prompts()); got != 4 {
				t.Errorf("the server was asked %d times, want 4 (no call after stdout failed)", got)
			}
			if !cached {
				return
			}
			if got := cacheLen(t, db); got != 4 {
				t.Errorf("cache holds %d replies, want 4", got)
			}
		})
	}
}

// holdingServer is the loopback server of the tests above: it holds the calls of questions that
// say HOLD until released, and record 0's first call until answer is called (asked0 is closed
// once it has come), answering each question i with "Ai". args ask it with four calls at once,
// and with --cache db when cached; a failed test lets record 0's call end, and the server close.
func holdingServer(t *testing.T, cached bool) (srv *clitest.HoldServer, asked0 chan struct{}, answer func(), args []string, db string) {
	t.Helper()
	asked0, answer0 := make(chan struct{}), make(chan struct{})
	var first sync.Once // a rerun's call, should it make one, is answered at once
	srv = clitest.NewHoldServer(t, "HOLD", func(prompt string) string {
		id := idRe.FindStringSubmatch(prompt)[1]
		if id == "0" {
			first.Do(func() {
				close(asked0)
				<-answer0
			})
		}
		return "A" + id
	})
	var answered sync.Once
	answer = func() { answered.Do(func() { close(answer0) }) }
	t.Cleanup(answer)
	db = filepath.Join(t.TempDir(), "cache.db")
	args = []string{"--provider", "openai", "--model", "m", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--concurrency", "4", "--timeout", "1h", "--max-retries", "0"}
	if cached {
		args = append(args, "--cache", db)
	}
	return srv, asked0, answer, args, db
}

// cacheLen returns how many replies the cache file db holds.
func cacheLen(t *testing.T, db string) int {
	t.Helper()
	cc, err := cache.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	n, err := cc.Len(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}
