//go:build unix

package load

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// fifoOf returns a named pipe that a goroutine fills with the file src once a reader opens it:
// what bash's <(cat src) gives a command.
func fifoOf(t *testing.T, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "input.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.Write(data) //nolint:errcheck // the reader checks what came
	}()
	return fifo
}

// TestNamedPipeInput: a named pipe is read once, by its loader. Detecting its format by opening
// it first ate the start of the stream: qa-load <(cat hotpotqa_sample50.jsonl) wrote 37 of the
// 50 records and a bad line.
func TestNamedPipeInput(t *testing.T) {
	const src = "../../testdata/hotpotqa/hotpotqa_sample50.jsonl"
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", fifoOf(t, src)}, nil, &stdout, &stderr)
	if err != nil {
		t.Fatalf("Run(named pipe) = %v; stderr %s", err, stderr.String())
	}
	if n := strings.Count(stdout.String(), "\n"); n != 50 || stderr.Len() != 0 {
		t.Errorf("Run(named pipe) wrote %d records and stderr %q, want the sample's 50 and nothing", n, stderr.String())
	}
}

// TestNamedPipeMap: --map over a pipe whose format turns out to be a benchmark's is the same
// usage error as for a file, once the loader has seen the format.
func TestNamedPipeMap(t *testing.T) {
	const src = "../../testdata/hotpotqa/hotpotqa_sample50.jsonl"
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", "--map", "question=q", fifoOf(t, src)}, nil, &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitUsage || !strings.Contains(err.Error(), "is read as hotpotqa") {
		t.Errorf("Run(--map, hotpotqa pipe) = %v (exit %d), want the usage error that it is read as hotpotqa", err, code)
	}
}

// TestNamedPipeEvaLearn: an EvaLearn file is read with its pair by name, so a pipe of one is a
// usage error that says so, not one about a --format never given.
func TestNamedPipeEvaLearn(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", fifoOf(t, "testdata/EvaLearn_Problem.json")}, nil, &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitUsage || !strings.Contains(err.Error(), "is an EvaLearn file, read with its pair by name") {
		t.Errorf("Run(EvaLearn pipe) = %v (exit %d), want the usage error that it is read with its pair", err, code)
	}
}

// TestNamedPipeLoCoMoModel: --locomo-model over a pipe of evaluate_qa.py's output, whose format
// is known only once the loader reads it, takes the model's answers as over the file named; over
// a pipe of another benchmark's file it is the usage error it is over that file.
func TestNamedPipeLoCoMoModel(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", "--locomo-model", "model-a", fifoOf(t, "../../testdata/locomo/locomo_conv26_qa.json")}, nil, &stdout, &stderr)
	if err != nil {
		t.Fatalf("Run(--locomo-model, LoCoMo pipe) = %v; stderr %s", err, stderr.String())
	}
	if n, p := strings.Count(stdout.String(), "\n"), strings.Count(stdout.String(), `"model":"model-a"`); n != 199 || p != 199 || stderr.Len() != 0 {
		t.Errorf("Run(--locomo-model, LoCoMo pipe) wrote %d records, %d with model-a's prediction, and stderr %q, want 199, 199 and nothing", n, p, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	err = Run(context.Background(), []string{"qa-load", "--locomo-model", "model-a", fifoOf(t, "../../testdata/hotpotqa/hotpotqa_sample50.jsonl")}, nil, &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitUsage || !strings.Contains(err.Error(), "is read as hotpotqa") {
		t.Errorf("Run(--locomo-model, hotpotqa pipe) = %v (exit %d), want the usage error that it is read as hotpotqa", err, code)
	}
}
