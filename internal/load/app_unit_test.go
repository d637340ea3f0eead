package load

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	err := Run(ctx, []string{"qa-load", "testdata/hotpotqa_array5.json"}, nil, &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitInterrupted {
		t.Errorf("Run(cancelled) exit = %d (%v), want %d", code, err, command.ExitInterrupted)
	}
}

func TestRunEvaLearnSibling(t *testing.T) {
	// Naming only the problem file finds EvaLearn_Sequence.json beside it.
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", "--limit", "3", "testdata/EvaLearn_Problem.json"}, nil, &stdout, &stderr)
	if err != nil {
		t.Fatalf("Run = %v; stderr %s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], `"id":"evalearn:1:3"`) {
		t.Errorf("got %d lines, last %.80s; want 3 ending with evalearn:1:3", len(lines), lines[len(lines)-1])
	}
}

func TestRunMissingFile(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", "--format", "squad", filepath.Join(t.TempDir(), "none.json")}, nil, &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitFailure || !os.IsNotExist(err) {
		t.Errorf("Run(missing file) = %v (exit %d), want a not-exist failure (exit 1)", err, code)
	}
}

func TestCSVByteOrderMark(t *testing.T) {
	in := "\ufeffid,question,answers\nx1,Why?,Because\n"
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", "--format", "csv"}, strings.NewReader(in), &stdout, &stderr)
	if err != nil || !strings.Contains(stdout.String(), `"id":"x1"`) {
		t.Errorf("Run(csv with BOM) = %v, %q; want record x1", err, stdout.String())
	}
}
