package load

import (
	"bytes"
	"compress/gzip"
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

// gzipFile writes the gzip compression of the file src to dir/name.
func gzipFile(t *testing.T, src, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGzipInputs: a gzip-compressed file loads as the file it holds, its format detected from the
// decompressed text and from its name without ".gz"; EvaLearn's pair is found in gzip files too.
func TestGzipInputs(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := Run(context.Background(), append([]string{"qa-load"}, args...), nil, &stdout, &stderr); err != nil {
			t.Fatalf("Run(%v) = %v; stderr %s", args, err, stderr.String())
		}
		return stdout.String()
	}
	for _, tc := range []struct {
		src, name string
		flags     []string
	}{
		{"testdata/hotpotqa_array5.json", "dev.json.gz", nil}, // detected from the content
		{"testdata/hotpotqa_train_sample200.jsonl", "train.jsonl.gz", nil},
		{"testdata/squad_v11_synthetic.json", "s.gz", nil},
		{"testdata/generic.jsonl", "generic.jsonl.gz", []string{"--map", "question=q,answers=gold,id=qid"}}, // from the name
	} {
		want := run(append(tc.flags, tc.src)...)
		if got := run(append(tc.flags, gzipFile(t, tc.src, dir, tc.name))...); got != want || got == "" {
			t.Errorf("%s: gzip input gave\n%.200s\nwant\n%.200s", tc.name, got, want)
		}
	}
	// A damaged gzip file is a read error, not a format that cannot be told.
	whole, err := os.ReadFile(filepath.Join(dir, "dev.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.json.gz")
	if err := os.WriteFile(cut, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = Run(context.Background(), []string{"qa-load", cut}, nil, &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitFailure || err.Error() != "read "+cut+": unexpected EOF" {
		t.Errorf("Run(cut gzip file) = %v (exit %d), want the read error (exit 1)", err, code)
	}
	p := gzipFile(t, "testdata/EvaLearn_Problem.json", dir, "EvaLearn_Problem.json")
	s := gzipFile(t, "testdata/EvaLearn_Sequence.json", dir, "EvaLearn_Sequence.json")
	if got, want := run("--limit", "3", p, s), run("--limit", "3", "testdata/EvaLearn_Problem.json", "testdata/EvaLearn_Sequence.json"); got != want {
		t.Errorf("EvaLearn from gzip files gave\n%.200s\nwant\n%.200s", got, want)
	}
}
