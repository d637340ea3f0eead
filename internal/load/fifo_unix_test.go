//go:build unix

package load

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/textfile"
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

// TestNamedPipeAsItComes: a named pipe named without --format gives its first record once its
// first line, or its first item, is in and its format can be told from it, not once 64 kB of it
// have come or the writer has closed it: a writer that sends one record and waits sees it come
// out, as JSON Lines and as a JSON array written on one line.
func TestNamedPipeAsItComes(t *testing.T) {
	// Each item is longer than the bytes textfile.NewReader looks at before its first Read returns.
	q := "Where? " + strings.Repeat("x", textfile.HeadSize)
	line := func(n int) string {
		return fmt.Sprintf(`{"_id":"q%d","question":%q,"answer":"Paris","context":[],"supporting_facts":[["T",0]]}`, n, q)
	}
	for _, tc := range []struct {
		name   string
		chunks []string
	}{
		{"lines.jsonl", []string{line(0) + "\n", line(1) + "\n", line(2) + "\n"}},
		{"array.json", []string{"[" + line(0), "," + line(1), "," + line(2) + "]\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), tc.name)
			out := clitest.FIFOChunksAsTheyCome(t, Run, []string{"qa-load", fifo}, fifo, tc.chunks, []int{1, 2, 3})
			if n := strings.Count(out, `"id":"hotpotqa:q`); n != 3 {
				t.Errorf("qa-load %s (a named pipe): %d records, want 3:\n%s", tc.name, n, out)
			}
		})
	}
}
