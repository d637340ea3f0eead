package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// benchOut reads the file scripts/bench.sh writes unless BENCH_OUT names another.
var benchOut = regexp.MustCompile(`\$\{BENCH_OUT:-([^}]+)\}`)

// TestMakeClean runs `make clean` with the Makefile in a folder of its own: it removes what the
// make targets leave in the tree, the commands (bin), the tools (.tools) and `make bench`'s raw
// output (bench.out), and nothing else.
func TestMakeClean(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	script, err := os.ReadFile(filepath.Join(root, "scripts", "bench.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := benchOut.FindSubmatch(script)
	if m == nil {
		t.Fatalf("scripts/bench.sh: no ${BENCH_OUT:-FILE} names its output")
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]bool{ // path: whether make clean removes it
		"Makefile":           false,
		"README.md":          false,
		"bin/qa-score":       true,
		".tools/staticcheck": true,
		string(m[1]):         true,
	}
	for name := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		b := []byte("x\n")
		if name == "Makefile" {
			b = makefile
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("make", "-s", "clean")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make clean: %v\n%s", err, out)
	}
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := os.IsNotExist(err); gone != removed {
			t.Errorf("make clean: %s removed = %v, want %v", name, gone, removed)
		}
	}
}
