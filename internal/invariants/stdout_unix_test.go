//go:build unix

package invariants

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/judge"
	"github.com/qapipe/qapipe/internal/learncurve"
	"github.com/qapipe/qapipe/internal/load"
	"github.com/qapipe/qapipe/internal/predict"
	"github.com/qapipe/qapipe/internal/score"
)

// mains are the commands' mains, as cmd/qa-*/main.go runs them, by name.
var mains = map[string]func(){
	"qa-load":       func() { command.Main("qa-load", load.Run) },
	"qa-predict":    func() { command.MainCalls("qa-predict", predict.Run) },
	"qa-judge":      func() { command.MainCalls("qa-judge", judge.Run) },
	"qa-score":      func() { command.MainCalls("qa-score", score.Run) },
	"qa-learncurve": func() { command.Main("qa-learncurve", learncurve.Run) },
}

// TestMainChild is the child process of TestClosedStdoutEveryStage: the main of the command
// QA_TEST_MAIN_PROG names.
func TestMainChild(t *testing.T) {
	prog := os.Getenv("QA_TEST_MAIN_PROG")
	clitest.MainChild(t, prog, mains[prog])
}

// TestClosedStdoutEveryStage: a reader of stdout that goes away (| head -1) ends every command
// as it ends cat: by SIGPIPE (the shell's status 141), with nothing on stderr, and no summary
// file left (qa-score's --summary is written when its run gets to its end). A full disk is a failure, exit 1, that says so (see
// TestFullStdoutEveryStage).
func TestClosedStdoutEveryStage(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	stages := slices.Concat(everyStage, []stage{{"qa-score", score.Run, []string{"--metrics", "em", "--summary", filepath.Join(dir, "summary.json")}}})
	for _, st := range stages {
		prog, args := st.line()[0], st.line()[1:] // the child runs the command's main with its arguments
		if prog == "qa-learncurve" {
			args = append(args, "--problems", "2000")
		}
		t.Run(prog+" "+strings.Join(args, " "), func(t *testing.T) {
			p := clitest.StartReaderGone(t, "TestMainChild", args, stageRecords(st.prog, 2000), "QA_TEST_MAIN_PROG="+prog)
			if stderr := p.WaitSIGPIPE(t); len(stderr) > 0 {
				t.Errorf("stdout's reader gone: stderr %q, want nothing", stderr)
			}
		})
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("files left: %v, want none (qa-score's --summary: the run did not get to its end)", left)
	}
}

// TestInterruptWaitingOnInput: qa-load interrupted while it waits on an input that has not ended
// (a stage before it still writing) has written every record it read, and ends 10s later
// saying so: it said "completed output could not be flushed", which was false.
func TestInterruptWaitingOnInput(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process, and waits 10s")
	}
	cmd := clitest.MainCommand("TestMainChild", []string{"--format", "records"})
	cmd.Env = append(cmd.Env, "QA_TEST_MAIN_PROG=qa-load")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	const recs = `{"schema":1,"id":"a","question":"q","answers":["x"]}` + "\n" + `{"schema":1,"id":"b","question":"q","answers":["y"]}` + "\n"
	if _, err := io.WriteString(in, recs); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(recs))
	if _, err := io.ReadFull(stdout, got); err != nil || string(got) != recs { // written as they came
		t.Fatalf("stdout %q (%v) before the signal, want %q", got, err, recs)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if rest, err := io.ReadAll(stdout); err != nil || len(rest) > 0 {
		t.Errorf("stdout after the signal: %q (%v), want nothing more", rest, err)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != command.ExitInterrupted {
		t.Errorf("exit %v, want %d", err, command.ExitInterrupted)
	}
	if want := "qa-load: interrupted, and still running 10s later: stopping; what was not written is left out\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

// TestClosedStdoutTerminal: a command ended by SIGPIPE while its progress bar is on the terminal
// (stderr) leaves the terminal at the start of a clean line, as it ends a finished run's bar
// with a line end, rather than leaving a half-drawn bar for the shell's prompt to follow.
func TestClosedStdoutTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, `{"schema":1,"id":"q%d","question":"q","answers":["Paris"],"prediction":{"text":"Paris"},"judgments":{"a":{"score":1}}}`+"\n", i)
	}
	file := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		prog string
		args []string
	}{
		{"qa-load", []string{"--format", "records", file}},
		{"qa-judge", []string{"--mode", "rules", "--force", file}},
		{"qa-score", []string{"--metrics", "em", file}},
	} {
		t.Run(tt.prog, func(t *testing.T) {
			tty, done := clitest.Terminal(t)
			p := clitest.StartReaderGoneOn(t, "TestMainChild", tt.args, "", tty, "QA_TEST_MAIN_PROG="+tt.prog)
			p.WaitSIGPIPE(t)
			if shown := done(); !strings.HasSuffix(shown, "\r\x1b[K") {
				t.Errorf("the terminal ends with %q, want a cleared line (\\r\\x1b[K)", shown[max(0, len(shown)-80):])
			}
		})
	}
}
