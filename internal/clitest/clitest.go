// Package clitest runs a command's txtar test archives in-process, the way main would run it.
//
// An archive's comment says what the case shows. Its sections:
//   - env: KEY=VALUE lines set for the run;
//   - args: the arguments, split on blanks;
//   - stdin;
//   - "file NAME": written to $TMP/NAME (folders in NAME are made) before the run;
//   - stdout, stderr, exit (the exit code): what the run must print and return;
//   - "out NAME": the content $TMP/NAME must have after the run.
//
// $TMP (the case's temporary folder), $VERSION (command.Version) and every Config.Vars name are
// expanded in args and put back in the outputs, so archives do not depend on folders, ports or
// the Go version. `go test -update` rewrites the expected sections from what the run produced.
//
// Beside the runner, the package holds what the commands' tests share: loopback servers of the
// providers' wire formats, child processes to signal, and CPUTime for the benchmarks.
//
// Note: the five commands each had a copy of this runner; one copy keeps their archives alike.
package clitest

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/qapipe/qapipe/internal/command"
)

// Config says how to run the archives of one command.
type Config struct {
	Prog   string          // program name: argv[0] and the prefix of reported errors
	Run    command.RunFunc // the command
	Update bool            // rewrite the expected sections instead of comparing
	// Vars maps names such as "$URL" to values expanded in args and put back in the outputs.
	Vars map[string]string
	// Setup, if set, runs at the start of every case on the case's t (to start a server or clear
	// environment variables) and returns more Vars for that case.
	Setup func(t *testing.T) map[string]string
	// Filter, if set, rewrites an output section (e.g. to drop timings) before comparison.
	Filter func(section string, b []byte) []byte
	// Check, if set, sees every output of a case and its folder (e.g. to assert that no key leaked).
	Check func(t *testing.T, tmp string, got map[string][]byte)
}

// RunDir runs every dir/*.txtar archive as a subtest.
func (c Config) RunDir(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CLI tests in %s: %v", dir, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) { c.runFile(t, file) })
	}
}

// runFile runs the archive file as one case, and compares its outputs with the expected
// sections or, with Update, rewrites those.
func (c Config) runFile(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	vars := c.vars(t, tmp)
	sections := writeFiles(t, tmp, ar)
	for _, kv := range strings.Split(string(sections["env"]), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
			t.Setenv(k, expand(v, vars))
		}
	}
	got := c.run(sections, vars)
	readOutputs(t, tmp, ar, got)
	if c.Check != nil {
		c.Check(t, tmp, got)
	}
	for name, b := range got {
		b = unexpand(b, vars)
		if c.Filter != nil {
			b = c.Filter(name, b)
		}
		got[name] = b
	}
	if c.Update {
		rewrite(t, file, ar, got)
		return
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if want := sections[name]; !bytes.Equal(got[name], want) {
			t.Errorf("%s:\n--- got ---\n%s\n--- want ---\n%s", name, got[name], want)
		}
	}
}

// vars is the case's variables: $TMP (its folder tmp), $VERSION, Config.Vars and those Setup
// returns.
func (c Config) vars(t *testing.T, tmp string) map[string]string {
	vars := map[string]string{"$TMP": tmp, "$VERSION": command.Version()} // --help shows the version
	for k, v := range c.Vars {
		vars[k] = v
	}
	if c.Setup != nil {
		for k, v := range c.Setup(t) {
			vars[k] = v
		}
	}
	return vars
}

// writeFiles writes each "file NAME" section of ar to tmp/NAME, and returns every section by name.
func writeFiles(t *testing.T, tmp string, ar *txtar.Archive) map[string][]byte {
	sections := map[string][]byte{}
	for _, f := range ar.Files {
		sections[f.Name] = f.Data
		if name, ok := strings.CutPrefix(f.Name, "file "); ok {
			path := filepath.Join(tmp, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return sections
}

// run runs the command on the case's args and stdin, as main would, and returns its stdout,
// stderr (the error reported last) and exit code.
func (c Config) run(sections map[string][]byte, vars map[string]string) map[string][]byte {
	args := append([]string{c.Prog}, strings.Fields(expand(string(sections["args"]), vars))...)
	var stdout, stderr bytes.Buffer
	err := c.Run(context.Background(), args, bytes.NewReader(sections["stdin"]), &stdout, &stderr)
	command.Report(&stderr, c.Prog, err)
	return map[string][]byte{
		"stdout": stdout.Bytes(),
		"stderr": stderr.Bytes(),
		"exit":   []byte(strconv.Itoa(command.ExitCode(err)) + "\n"),
	}
}

// readOutputs adds to got the content of tmp/NAME for each "out NAME" section of ar.
func readOutputs(t *testing.T, tmp string, ar *txtar.Archive, got map[string][]byte) {
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "out "); ok {
			b, err := os.ReadFile(filepath.Join(tmp, name))
			if err != nil {
				t.Errorf("output file %s: %v", name, err)
			}
			got[f.Name] = b
		}
	}
}

func expand(s string, vars map[string]string) string {
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		s = strings.ReplaceAll(s, k, vars[k])
	}
	return s
}

// unexpand puts variable names back, longest value first so that a value containing another
// (a server URL holding a path) is replaced whole.
func unexpand(b []byte, vars map[string]string) []byte {
	keys := slices.Sorted(maps.Keys(vars))
	slices.SortStableFunc(keys, func(x, y string) int { return len(vars[y]) - len(vars[x]) })
	for _, k := range keys {
		if vars[k] != "" {
			b = bytes.ReplaceAll(b, []byte(vars[k]), []byte(k))
		}
	}
	return b
}

// rewrite stores got as the expected sections of ar (dropping empty stdout/stderr) and saves it.
func rewrite(t *testing.T, file string, ar *txtar.Archive, got map[string][]byte) {
	var files []txtar.File
	for _, f := range ar.Files {
		if b, ok := got[f.Name]; ok {
			if strings.HasPrefix(f.Name, "out ") {
				files = append(files, txtar.File{Name: f.Name, Data: b})
			}
			continue
		}
		files = append(files, f)
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
