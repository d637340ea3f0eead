package judge

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// TestMainChild is the child process of TestSignal: qa-judge's main, as cmd/qa-judge runs it.
func TestMainChild(t *testing.T) {
	clitest.MainChild(t, "qa-judge", func() { command.MainCalls("qa-judge", Run) })
}

// TestSignal signals qa-judge, running in a child process, while three judge calls hang on the
// server (records 2-4 of 12, at --concurrency 3). After one signal the three verdicts come, are
// written and cached, no other call reaches the server, the 7 records never sent are written
// with the error, and the exit code is 130. A second signal abandons the three calls: the
// server sees them go, only the 2 records judged before are written, and the summary counts the
// records read and those finished, as qa-predict's does.
func TestSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	const n, name = 12, "longmemeval/j"
	var in strings.Builder
	for i := range n {
		q := fmt.Sprintf("Q%d?", i)
		if i >= 2 && i <= 4 {
			q += " HOLD"
		}
		in.WriteString(rec(fmt.Sprintf("q%d", i), "longmemeval", "single-session-user", q, "A", "A", ""))
	}
	for _, tt := range []struct {
		name    string
		signals []os.Signal
	}{
		{"interrupt", []os.Signal{syscall.SIGINT}},
		{"interrupt twice", []os.Signal{syscall.SIGINT, syscall.SIGINT}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := clitest.NewHoldServer(t, "HOLD", func(string) string { return "Yes." })
			db := filepath.Join(t.TempDir(), "cache.db")
			args := []string{"--mode", "longmemeval", "--model", "j", "--base-url", srv.URL, "--cache", db,
				"--concurrency", "3", "--timeout", "1h", "--max-retries", "0"}
			stdout, stderr := srv.Interrupt(t, "qa-judge", "TestMainChild", args, in.String(), 3, 5, tt.signals)
			abandon := len(tt.signals) > 1
			judged, summary := 5, regexp.QuoteMeta("qa-judge: "+name+": 12 judged (0 by rule, 0 from cache), 0 skipped, 0 already judged; of the judged, 0 unparsable, 7 failed (7 of them not called: interrupted);")
			if abandon {
				// The records read, which the pipeline's buffers bound, and those finished, as
				// qa-predict counts them: the abandoned three and the rest are not counted below.
				judged = 2
				summary = regexp.QuoteMeta("qa-judge: "+name+": ") + `([5-9]|1[0-2]) records read, 2 finished: ` +
					regexp.QuoteMeta("2 judged (0 by rule, 0 from cache), 0 skipped, 0 already judged; of the judged, 0 unparsable, 0 failed;")
			}
			if !regexp.MustCompile(summary).MatchString(stderr) {
				t.Errorf("stderr lacks %q:\n%s", summary, stderr)
			}
			var ids []string
			for i, r := range decodeAll(t, stdout) {
				ids = append(ids, r.ID)
				jg := r.Judgments[name]
				switch {
				case jg == nil:
					t.Errorf("record %s: no judgment %s", r.ID, name)
				case i < judged && (jg.Score == nil || *jg.Score != 1 || jg.Error != ""):
					t.Errorf("record %s: judgment %+v, want the verdict 1", r.ID, jg)
				case i >= judged && (jg.Score != nil || jg.Error != "judge call: interrupted before the call was made"):
					t.Errorf("record %s: judgment %+v, want the error of a call not made", r.ID, jg)
				}
			}
			clitest.CheckWritten(t, ids, "q", n, judged, abandon, "judged")
			cc, err := cache.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			if got, err := cc.Len(context.Background()); err != nil || got != judged {
				t.Errorf("cache holds %d replies (%v), want %d", got, err, judged)
			}
		})
	}
}

// TestAgreeSignal: qa-judge agree, run by qa-judge's main in a child process, stops at a signal
// with exit 130, no report and one line, "qa-judge agree: interrupted". The message with which
// the runs that call models take the first signal, "qa-judge: interrupted: no calls in flight;
// writing the records left", came before it, though agree makes no call and writes no records.
func TestAgreeSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	p, stdin := clitest.StartMainPipe(t, "TestMainChild", []string{"agree"})
	io.WriteString(stdin, "not json\n") // a bad line, whose message shows the run has begun
	const bad = "qa-judge agree: stdin:1: "
	p.WaitStderr(t, bad)
	p.Signal(t, syscall.SIGINT)
	// The run sees the signal before its next record: records come until it has.
	stop := make(chan struct{})
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		for {
			if _, err := io.WriteString(stdin, twoJudges); err != nil {
				return // the child is gone
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	code, stdout, stderr := p.Wait(t)
	close(stop)
	<-fed
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != command.ExitInterrupted || stdout != "" || len(lines) != 2 || !strings.HasPrefix(lines[0], bad) || lines[1] != "qa-judge agree: interrupted" {
		t.Errorf("qa-judge agree, interrupted: exit %d, stdout %q, stderr:\n%s\nwant exit %d, no report, and after the bad line's message only %q",
			code, stdout, stderr, command.ExitInterrupted, "qa-judge agree: interrupted")
	}
}
