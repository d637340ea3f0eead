package judge

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/qapipe/qapipe/internal/command"
)

var update = flag.Bool("update", false, "rewrite the txtar CLI tests' expected output")

// TestCLI runs every testdata/cli/*.txtar archive through Run in-process. Sections: args (one line,
// split on spaces; $TMP is the test's temporary folder), stdin, stdout, stderr, exit, and
// "file NAME" (written to $TMP/NAME before the run). No test here needs a network.
func TestCLI(t *testing.T) {
	files, err := filepath.Glob("testdata/cli/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no CLI tests: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			sections := map[string][]byte{}
			for _, f := range ar.Files {
				sections[f.Name] = f.Data
				if name, ok := strings.CutPrefix(f.Name, "file "); ok {
					if err := os.WriteFile(filepath.Join(tmp, name), f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			args := append([]string{"qa-judge"}, strings.Fields(strings.ReplaceAll(string(sections["args"]), "$TMP", tmp))...)
			var stdout, stderr bytes.Buffer
			err = Run(context.Background(), args, bytes.NewReader(sections["stdin"]), &stdout, &stderr)
			got := map[string][]byte{
				"stdout": stdout.Bytes(),
				"stderr": bytes.ReplaceAll(stderr.Bytes(), []byte(tmp), []byte("$TMP")),
				"exit":   []byte(strconv.Itoa(command.ExitCode(err)) + "\n"),
			}
			if *update {
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
				return
			}
			for _, name := range []string{"stdout", "stderr", "exit"} {
				if want := sections[name]; !bytes.Equal(got[name], want) {
					t.Errorf("%s:\n%s\nwant:\n%s", name, got[name], want)
				}
			}
		})
	}
}
