package predict

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
)

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
	srv.hangAfter, srv.hangKey = k, seqKey
	db := filepath.Join(t.TempDir(), "run.sqlite")
	args := seqArgs(t, srv.URL, "--cache", db, "--concurrency", "2", "--timeout", "1h")
	c := clitest.StartMain(t, "TestMainChild", args, seqInput(t))
	waitCache(t, c, db, func(stored int) bool {
		if stored > k {
			t.Fatalf("child stored %d replies, want %d", stored, k)
		}
		return stored == k
	})
	c.Kill()
	if got := srv.answeredTotal(); got != k {
		t.Fatalf("child got %d answers before the kill, want %d", got, k)
	}

	// The rerun calls with another key, so that a request the child sent just before it died,
	// which may reach a handler at any time, still hangs instead of being answered (and then
	// asked again): no wait for the server to fall quiet can be sure to outlast it.
	key := args[slices.Index(args, "--api-key-file")+1]
	if err := os.WriteFile(key, []byte("sk-test-seq-rerun\n"), 0o600); err != nil {
		t.Fatal(err)
	}
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
		if d := cmp.Diff(normalize(want[i]), normalize(recs[i]), cmpopts.IgnoreUnexported(record.Record{}, record.Prediction{}, record.Usage{}, record.Passage{}, record.Judgment{}, record.Sequence{}, record.Batch{})); d != "" {
			t.Errorf("record %d differs from the uninterrupted run's (-want +got):\n%s", i, d)
		}
	}
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

// TestSequentialFinish asks a run to finish (as a first signal does) while a call of sequence 36
// is in flight, at concurrency 1: the call is answered and kept, no further call is made, every
// record is written (the positions left with an error), and the exit code says interrupted. Then
// --retry-errors over that output, with the cache, makes only the calls not made, and writes what
// an uninterrupted run writes.
func TestSequentialFinish(t *testing.T) {
	calls := loadTranscript(t)
	for _, tt := range []struct {
		name      string
		hangAfter int               // the call in flight: 16 is the answer of position 36:2, 17 its verdict
		errors    map[string]string // the prediction errors of the records left
	}{
		{"answer in flight", 16, map[string]string{"evalearn:36:2": "interrupted before its verdict was asked",
			"evalearn:36:3": "skipped: interrupted"}},
		{"verdict in flight", 17, map[string]string{"evalearn:36:3": "interrupted before the call was made"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newReplayServer(t, calls)
			srv.hangAfter, srv.hung, srv.release = tt.hangAfter, make(chan struct{}, 1), make(chan struct{})
			args := seqArgs(t, srv.URL, "--cache", filepath.Join(t.TempDir(), "run.sqlite"), "--concurrency", "1")
			ctx, finish := interrupt.WithFinish(context.Background())
			go func() {
				<-srv.hung
				finish()
				close(srv.release)
			}()
			var stdout, stderr bytes.Buffer
			err := Run(ctx, append([]string{"qa-predict"}, args...), strings.NewReader(seqInput(t)), &stdout, &stderr)
			if got := command.ExitCode(err); got != command.ExitInterrupted {
				t.Errorf("exit code %d (%v), want %d", got, err, command.ExitInterrupted)
			}
			if got := srv.answeredTotal(); got != tt.hangAfter+1 {
				t.Errorf("%d calls answered, want %d (none after the one in flight)", got, tt.hangAfter+1)
			}
			recs := readRecords(t, stdout.Bytes())
			if in := readRecords(t, []byte(seqInput(t))); len(recs) != len(in) {
				t.Fatalf("wrote %d records, want the %d read", len(recs), len(in))
			}
			for i, r := range recs {
				want := tt.errors[r.ID]
				if strings.HasPrefix(r.ID, "evalearn:36:") && r.Sequence.Position > 3 {
					want = "skipped: interrupted"
				}
				if p := r.Prediction; p == nil || p.Error != want {
					t.Errorf("record %d %s: prediction %+v, want error %q", i, r.ID, p, want)
				}
				if answered := r.Prediction != nil && r.Prediction.Text != ""; answered != (i < 9) {
					t.Errorf("record %d %s: answered %v, want %v (the answers up to the call in flight are kept)", i, r.ID, answered, i < 9)
				}
			}
			// Every error is a call not made (an answer or verdict not asked): the summary counts
			// them all so, and none is named as a failure.
			failed := 0
			for _, r := range recs {
				if r.Prediction != nil && r.Prediction.Error != "" {
					failed++
				}
			}
			if note := fmt.Sprintf("%d errors (%d of them not called: interrupted)", failed, failed); !strings.Contains(stderr.String(), note) {
				t.Errorf("stderr does not count the %d calls not made as %q:\n%s", failed, note, stderr.String())
			}
			if strings.Contains(stderr.String(), `(id "`) {
				t.Errorf("stderr names a call not made as a failure:\n%s", stderr.String())
			}

			// The rerun over the output with --retry-errors.
			srv.mu.Lock()
			srv.hangAfter = 0
			srv.mu.Unlock()
			resumed, stderr2, err := seqRun(t, stdout.String(), append(args, "--retry-errors")...)
			if err != nil {
				t.Fatalf("rerun: %v\n%s", err, stderr2)
			}
			srv.check(t)
			for i := range calls {
				if n := srv.asked(i); n != 1 {
					t.Errorf("call %d answered %d times over both runs, want 1", i, n)
				}
			}
			want, stderr3, err := seqRun(t, seqInput(t), seqArgs(t, newReplayServer(t, calls).URL)...)
			if err != nil {
				t.Fatalf("uninterrupted run: %v\n%s", err, stderr3)
			}
			if len(resumed) != len(want) {
				t.Fatalf("rerun wrote %d records, want %d", len(resumed), len(want))
			}
			for i := range resumed {
				if d := cmp.Diff(normalize(want[i]), normalize(resumed[i]), cmpopts.IgnoreUnexported(record.Record{}, record.Prediction{}, record.Usage{}, record.Passage{}, record.Judgment{}, record.Sequence{}, record.Batch{})); d != "" {
					t.Errorf("record %d differs from the uninterrupted run's (-want +got):\n%s", i, d)
				}
			}
		})
	}
}

// TestSequentialNoJudgeFinished runs records with a sequence and no --judge-model after a finish
// was asked (as a first signal asks it): each is still written with the error that says what a
// rerun needs, as no call could have been made for it; it was "interrupted before the call was
// made", which a rerun with --retry-errors would meet with the same missing flag.
func TestSequentialNoJudgeFinished(t *testing.T) {
	srv := newReplayServer(t, loadTranscript(t))
	args := slices.DeleteFunc(seqArgs(t, srv.URL), func(a string) bool { return a == "--judge-model" || a == "fake-judge" })
	ctx, finish := interrupt.WithFinish(context.Background())
	finish()
	var stdout, stderr bytes.Buffer
	err := Run(ctx, append([]string{"qa-predict"}, args...), strings.NewReader(seqInput(t)), &stdout, &stderr)
	if got := command.ExitCode(err); got != command.ExitInterrupted {
		t.Errorf("exit code %d (%v), want %d", got, err, command.ExitInterrupted)
	}
	if got := srv.answeredTotal(); got != 0 {
		t.Errorf("%d calls answered, want none", got)
	}
	recs := readRecords(t, stdout.Bytes())
	if len(recs) != 14 {
		t.Fatalf("wrote %d records, want the 14 read", len(recs))
	}
	for _, r := range recs {
		if p := r.Prediction; p == nil || !strings.HasPrefix(p.Error, "needs --judge-model") {
			t.Errorf("%s: prediction %+v, want the needs --judge-model error", r.ID, p)
		}
	}
	if !strings.Contains(stderr.String(), "rerun with --judge-model and --retry-errors") {
		t.Errorf("stderr does not say how to rerun:\n%s", stderr.String())
	}
}
