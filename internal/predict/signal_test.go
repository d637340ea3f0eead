package predict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// TestMainChild is the child process of TestSignal and of the kill-and-rerun tests: qa-predict's
// main, as cmd/qa-predict runs it.
func TestMainChild(t *testing.T) {
	clitest.MainChild(t, "qa-predict", func() { command.MainCalls("qa-predict", Run) })
}

// TestSignal signals qa-predict, running in a child process, while three calls hang on the
// server (records 2-4 of 12, at --concurrency 3). After one signal the three are answered, and
// their records and replies written, no other call reaches the server, the 7 records never sent
// are written with the error, and the exit code is 130. A second signal abandons the three
// calls: the server sees them go, and only the 2 records answered before are written.
func TestSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	const n = 12
	for _, tt := range []struct {
		name    string
		signals []os.Signal
	}{
		{"interrupt", []os.Signal{syscall.SIGINT}},
		{"terminate", []os.Signal{syscall.SIGTERM}},
		{"interrupt twice", []os.Signal{syscall.SIGINT, syscall.SIGINT}},
		{"terminate then interrupt", []os.Signal{syscall.SIGTERM, syscall.SIGINT}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := clitest.NewHoldServer(t, "HOLD", func(prompt string) string {
				return "A" + idRe.FindStringSubmatch(prompt)[1]
			})
			db := filepath.Join(t.TempDir(), "cache.db")
			args := []string{"--provider", "openai", "--model", "m", "--base-url", srv.URL, "--api-key-file", keyFile(t),
				"--cache", db, "--concurrency", "3", "--timeout", "1h", "--max-retries", "0"}
			stdin := input(n, map[int]string{2: "HOLD", 3: "HOLD", 4: "HOLD"})
			stdout, stderr := srv.Interrupt(t, "qa-predict", "TestMainChild", args, stdin, 3, 5, tt.signals)
			abandon := len(tt.signals) > 1
			recs := readRecords(t, []byte(stdout))
			answered, stored := 5, 5
			summary := regexp.QuoteMeta(fmt.Sprintf("qa-predict: %d records: 5 predicted (0 cached), 0 passed through, 7 errors (7 of them not called: interrupted);", n))
			if abandon {
				// The records read, which the pipeline's buffers bound, and those finished: the
				// abandoned three and the rest are not counted as records of the run.
				answered, stored = 2, 2
				summary = `qa-predict: ([5-9]|1[0-2]) records read, 2 finished: 2 predicted \(0 cached\), 0 passed through, 0 errors;`
			}
			if !regexp.MustCompile(summary).MatchString(stderr) {
				t.Errorf("stderr lacks %q:\n%s", summary, stderr)
			}
			var ids []string
			for i, r := range recs {
				ids = append(ids, r.ID)
				p := r.Prediction
				switch {
				case i < answered && (p == nil || p.Text != fmt.Sprintf("A%d", i) || p.Error != ""):
					t.Errorf("record %s: prediction %+v, want the answer A%d", r.ID, p, i)
				case i >= answered && (p == nil || p.Text != "" || p.Error != "interrupted before the call was made"):
					t.Errorf("record %s: prediction %+v, want the error of a call not made", r.ID, p)
				}
			}
			clitest.CheckWritten(t, ids, "r", n, answered, abandon, "answered")
			cc, err := cache.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			if got, err := cc.Len(context.Background()); err != nil || got != stored {
				t.Errorf("cache holds %d replies (%v), want %d", got, err, stored)
			}
		})
	}
}
