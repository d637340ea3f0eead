package score

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
// split on spaces; $TMP is the test's temporary folder), stdin, stdout, stderr, exit (the exit
// code), "file NAME" (written to $TMP/NAME before the run) and "out NAME" (the expected content of
// $TMP/NAME after it). $OPENAI_URL and $TEI_URL in args are loopback embedding servers (see
// embed_server_test.go); QA_EMBED_API_KEY is cleared so that no real key is used.
func TestCLI(t *testing.T) {
	t.Setenv("QA_EMBED_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	servers := map[string]string{"$OPENAI_URL": newOpenAIServer(t, nil).URL + "/v1", "$TEI_URL": newTEIServer(t).URL}
	files, err := filepath.Glob("testdata/cli/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no CLI tests: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runArchive(t, file, servers)
		})
	}
}

func runArchive(t *testing.T, file string, servers map[string]string) {
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
	args := append([]string{"qa-score"}, strings.Fields(expand(string(sections["args"]), tmp, servers))...)
	var stdout, stderr bytes.Buffer
	err = Run(context.Background(), args, bytes.NewReader(sections["stdin"]), &stdout, &stderr)
	got := map[string][]byte{
		"stdout": stdout.Bytes(),
		"stderr": unexpand(stderr.Bytes(), tmp, servers),
		"exit":   []byte(strconv.Itoa(command.ExitCode(err)) + "\n"),
	}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "out "); ok {
			b, err := os.ReadFile(filepath.Join(tmp, name))
			if err != nil {
				t.Errorf("output file %s: %v", name, err)
			}
			got[f.Name] = b
		}
	}
	if *update {
		for i, f := range ar.Files {
			if b, ok := got[f.Name]; ok {
				ar.Files[i].Data = b
				delete(got, f.Name)
			}
		}
		for _, name := range []string{"stdout", "stderr", "exit"} {
			if b, ok := got[name]; ok && len(b) > 0 {
				ar.Files = append(ar.Files, txtar.File{Name: name, Data: b})
			}
		}
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for name, b := range got {
		if want := sections[name]; !bytes.Equal(b, want) {
			t.Errorf("%s:\n--- got ---\n%s\n--- want ---\n%s", name, b, want)
		}
	}
}

// expand replaces $TMP and the server names in args.
func expand(args, tmp string, servers map[string]string) string {
	args = strings.ReplaceAll(args, "$TMP", tmp)
	for name, url := range servers {
		args = strings.ReplaceAll(args, name, url)
	}
	return args
}

// unexpand puts the names back into output, so that it does not depend on ports or folders.
func unexpand(b []byte, tmp string, servers map[string]string) []byte {
	b = bytes.ReplaceAll(b, []byte(tmp), []byte("$TMP"))
	for name, url := range servers {
		b = bytes.ReplaceAll(b, []byte(url), []byte(name))
	}
	return b
}
