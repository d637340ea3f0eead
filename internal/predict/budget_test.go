package predict

import (
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/command"
)

// TestMaxCost: once the replies have cost --max-cost, no call is made; the records left carry
// the budget error (exit 3) and a warning counts them, a rerun with --retry-errors and a larger
// budget answers just those, and cached replies are never refused.
func TestMaxCost(t *testing.T) {
	srv := faultServer(t) // 100 tokens in, 2 out a reply
	prices := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(prices, []byte(`{"m": {"input": 1000, "output": 1000}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--provider", "openai", "--model", "m", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--prices", prices, "--concurrency", "1", "--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
	// $0.102 a reply: the third starts at $0.204 < $0.25, the fourth at $0.306 is not made.
	recs, stderr, err := run(t, context.Background(), input(6, nil), append(args, "--max-cost", "0.25")...)
	if command.ExitCode(err) != command.ExitBadRecords || len(recs) != 6 {
		t.Fatalf("exit %d (%v), %d records; stderr %s", command.ExitCode(err), err, len(recs), stderr)
	}
	for i, r := range recs {
		refused := strings.Contains(r.Prediction.Error, "budget spent: $0.306000 of --max-cost $0.250000")
		if (i >= 3) != refused || i < 3 && r.Prediction.Text != "A"+r.ID[1:] {
			t.Errorf("record %d: prediction %+v; want the first three answered and the rest refused", i, r.Prediction)
		}
	}
	if n := srv.calls.Load(); n != 3 {
		t.Errorf("%d calls made, want 3", n)
	}
	if !strings.Contains(stderr, "--max-cost $0.250000 reached ($0.306000 spent): 3 calls not made") {
		t.Errorf("stderr has no budget warning:\n%s", stderr)
	}
	var saved strings.Builder
	for _, r := range recs {
		b, _ := r.MarshalJSON()
		saved.Write(append(b, '\n'))
	}
	recs, stderr, err = run(t, context.Background(), saved.String(), append(args, "--max-cost", "1", "--retry-errors")...)
	if err != nil || len(recs) != 6 || srv.calls.Load() != 6 {
		t.Fatalf("rerun: %v, %d records, %d calls in all; stderr %s", err, len(recs), srv.calls.Load(), stderr)
	}
	for _, r := range recs {
		if r.Prediction.Error != "" {
			t.Errorf("rerun: %s still failed: %s", r.ID, r.Prediction.Error)
		}
	}
	// Replies the cache serves cost nothing and are never refused: a new question first spends
	// the whole budget, and the six cached ones after it are still answered.
	lines := strings.SplitAfter(input(7, nil), "\n")
	reordered := lines[6] + strings.Join(lines[:6], "")
	recs, stderr, err = run(t, context.Background(), reordered, append(args, "--max-cost", "0.000001")...)
	if err != nil || len(recs) != 7 || srv.calls.Load() != 7 || strings.Contains(stderr, "not made") {
		t.Errorf("cached run: %v, %d records, %d calls in all (want 7: one new); stderr %s", err, len(recs), srv.calls.Load(), stderr)
	}
	// A model without a price cannot be metered.
	_, stderr, err = run(t, context.Background(), input(1, nil), "--provider", "openai", "--model", "unpriced-9",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--max-cost", "1")
	if command.ExitCode(err) != command.ExitUsage || !strings.Contains(stderr, `--max-cost: no price for model "unpriced-9"`) {
		t.Errorf("unpriced model: exit %d, stderr %s", command.ExitCode(err), stderr)
	}
}

// TestMaxCostSequences: qa-predict's EvaLearn judge spends from the same budget as the reader.
// With a budget that the first student reply exhausts, each sequence's first answer is made and
// its verdict refused, so the sequence stops there.
func TestMaxCostSequences(t *testing.T) {
	srv := newReplayServer(t, loadTranscript(t))
	recs, stderr, err := seqRun(t, seqInput(t), seqArgs(t, srv.URL, "--concurrency", "1", "--max-cost", "0.000001")...)
	if command.ExitCode(err) != command.ExitBadRecords || len(recs) != 14 {
		t.Fatalf("exit %d (%v), %d records; stderr %s", command.ExitCode(err), err, len(recs), stderr)
	}
	for _, r := range recs {
		pos := r.Sequence.Position
		jg := r.Judgments[judgeKey]
		switch {
		case pos == 1 && r.ID == "evalearn:4:1":
			if r.Prediction.Error != "" || jg == nil || !strings.Contains(jg.Error, "budget spent") {
				t.Errorf("%s: prediction %+v, judgment %+v; want an answer and a refused verdict", r.ID, r.Prediction, jg)
			}
		case pos == 1: // the second sequence's first answer: the budget is already spent
			if !strings.Contains(r.Prediction.Error, "budget spent") {
				t.Errorf("%s: prediction %+v; want it refused", r.ID, r.Prediction)
			}
		case !strings.HasPrefix(r.Prediction.Error, "skipped: "):
			t.Errorf("%s: prediction %+v; want it skipped after position 1", r.ID, r.Prediction)
		}
	}
	if !strings.Contains(stderr, "2 calls not made") {
		t.Errorf("stderr has no budget warning for the judge's and the second reader's call:\n%s", stderr)
	}
}

// TestTPMSequences: qa-predict's EvaLearn judge reserves its tokens with the reader's --tpm
// limiter, as its calls spend from --max-cost's budget and go through --rpm's. Under a limit that
// the first student request fills (a request larger than the limit goes alone in its minute), the
// verdict of that answer is the first call that must wait: when the limiter first sleeps (a sleep
// the test injects, which holds until the run is cancelled), the server has answered the student
// once and the judge not at all. Unmetered, the judge was asked at once, and the first to wait was
// the next student request, after that verdict.
func TestTPMSequences(t *testing.T) {
	srv := newReplayServer(t, loadTranscript(t))
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan struct{}, 1)
	sleep := func(ctx context.Context, d time.Duration) error {
		if d <= 0 {
			return nil
		}
		select {
		case waited <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return ctx.Err()
	}
	answered := func() map[string]int {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		n := map[string]int{}
		for i, k := range srv.answered {
			n[srv.calls[i].Role] += k
		}
		return n
	}
	done := make(chan error, 1)
	go func() {
		a := &app{stdin: strings.NewReader(seqInput(t)), stdout: io.Discard, stderr: io.Discard, sleep: sleep}
		done <- a.execute(ctx, append([]string{"qa-predict"}, seqArgs(t, srv.URL, "--concurrency", "1", "--tpm", "1")...))
	}()
	var got map[string]int
	select {
	case <-waited:
		got = answered()
	case err := <-done:
		t.Fatalf("the run ended (%v) with no call waiting for --tpm", err)
	}
	cancel()
	<-done
	if want := map[string]int{"client": 1}; !maps.Equal(got, want) {
		t.Errorf("calls answered by role when a call first waits for --tpm = %v, want %v (the verdict waiting for its next minute)", got, want)
	}
}
