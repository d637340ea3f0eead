package learncurve

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected output of the txtar CLI tests")

// TestCLI runs every testdata/cli/*.txtar archive through Run in-process, then reports the error
// as main does. Sections: a comment (what the case shows), env (KEY=VALUE lines), args (split on
// blanks; $TMP is the test's temporary folder), stdin, and the expected stdout, stderr and exit
// (the exit code). go test -update rewrites the expected sections.
func TestCLI(t *testing.T) {
	files, err := filepath.Glob("testdata/cli/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no CLI tests: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runArchive(t, file)
		})
	}
}

func runArchive(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	sections := map[string][]byte{}
	for _, f := range ar.Files {
		sections[f.Name] = f.Data
	}
	for _, kv := range strings.Split(strings.TrimSpace(string(sections["env"])), "\n") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			t.Setenv(k, v)
		}
	}
	args := append([]string{"qa-learncurve"}, strings.Fields(strings.ReplaceAll(string(sections["args"]), "$TMP", tmp))...)
	var stdout, stderr bytes.Buffer
	err = Run(context.Background(), args, bytes.NewReader(sections["stdin"]), &stdout, &stderr)
	command.Report(&stderr, "qa-learncurve", err)
	got := map[string][]byte{
		"stdout": bytes.ReplaceAll(stdout.Bytes(), []byte(tmp), []byte("$TMP")),
		"stderr": bytes.ReplaceAll(stderr.Bytes(), []byte(tmp), []byte("$TMP")),
		"exit":   []byte(strconv.Itoa(command.ExitCode(err)) + "\n"),
	}
	if *update {
		rewrite(t, file, ar, got)
		return
	}
	for _, name := range []string{"stdout", "stderr", "exit"} {
		if want := sections[name]; !bytes.Equal(got[name], want) {
			t.Errorf("%s:\n--- got ---\n%s\n--- want ---\n%s", name, got[name], want)
		}
	}
	if out := filepath.Join(tmp, "report.json"); strings.Contains(string(sections["args"]), "$TMP/report.json") {
		if b, err := os.ReadFile(out); err != nil || !bytes.HasPrefix(b, []byte("{\n  \"model_evaluation\"")) {
			t.Errorf("--output file = %.40q, %v; want the JSON report", b, err)
		}
	}
}

// rewrite replaces the expected sections of ar with got, dropping empty ones, and saves it.
func rewrite(t *testing.T, file string, ar *txtar.Archive, got map[string][]byte) {
	var files []txtar.File
	for _, f := range ar.Files {
		if _, ok := got[f.Name]; !ok {
			files = append(files, f)
		}
	}
	for _, name := range []string{"stdout", "stderr", "exit"} {
		if len(got[name]) > 0 {
			files = append(files, txtar.File{Name: name, Data: got[name]})
		}
	}
	ar.Files = files
	if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}
