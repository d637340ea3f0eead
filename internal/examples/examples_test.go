package examples

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// root is the repository root, two folders up from this package.
const root = "../.."

// runMarker is the comment that marks a README example as runnable without a key or a server.
const runMarker = "# runs as written"

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// commands builds the five commands once per test binary and returns their folder.
func commands(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the commands")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "qapipe-examples-"); buildErr != nil {
			return
		}
		cmd := exec.Command(goBin, "build", "-o", binDir+string(filepath.Separator), "./cmd/...")
		cmd.Dir = root
		var out []byte
		if out, buildErr = cmd.CombinedOutput(); buildErr != nil {
			buildErr = &buildError{buildErr, out}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string {
	return "go build ./cmd/...: " + e.err.Error() + "\n" + string(e.out)
}

// environ is the environment the examples run in: the built commands first on PATH, and no
// QA_* setting or API key of the person running the tests.
func environ(bin string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "QA_") || strings.HasSuffix(k, "_API_KEY") || k == "PATH" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// shellBlocks returns the ```sh blocks of a Markdown file with the line each starts on.
func shellBlocks(t *testing.T, name string) (blocks []string, lines []int) {
	t.Helper()
	return codeBlocks(t, name, "sh")
}

// codeBlocks returns the blocks of a Markdown file fenced as one of langs (```sh, ```make), with
// the line each starts on.
func codeBlocks(t *testing.T, name string, langs ...string) (blocks []string, lines []int) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var cur *strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```") && slices.Contains(langs, line[3:]):
			cur = new(strings.Builder)
			lines = append(lines, n+1)
		case cur != nil && line == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	if cur != nil {
		t.Fatalf("%s: the block at line %d is not closed", name, lines[len(lines)-1])
	}
	return blocks, lines
}

// TestREADME runs each README example marked "runs as written" with bash (errexit, nounset,
// pipefail) in a fresh folder that sees the repository's testdata, internal and scripts folders
// and a bin folder of freshly built commands, as the README's readers see them from the root.
// Each must exit 0 and write something: to stdout, or to the files it names.
func TestREADME(t *testing.T) {
	bin := commands(t)
	blocks, lines := shellBlocks(t, filepath.Join(root, "README.md"))
	ran := 0
	for k, block := range blocks {
		if !strings.HasPrefix(block, runMarker+"\n") && !strings.HasPrefix(block, runMarker+":") {
			continue // a marker may be followed by what the block shows ("# runs as written: …")
		}
		ran++
		t.Run("line"+strconv.Itoa(lines[k]), func(t *testing.T) {
			dir := t.TempDir()
			abs, err := filepath.Abs(root)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"testdata", "internal", "scripts"} {
				if err := os.Symlink(filepath.Join(abs, name), filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(bin, filepath.Join(dir, "bin")); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, err := bash(t, dir, bin, "set -euo pipefail\n"+block)
			if err != nil {
				t.Fatalf("README.md:%d: %v\n%s\nstderr:\n%s", lines[k], err, block, stderr)
			}
			wrote := len(stdout) > 0
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if !e.Type().IsRegular() {
					continue
				}
				info, err := e.Info()
				if err != nil {
					t.Fatal(err)
				}
				if info.Size() == 0 {
					t.Errorf("README.md:%d wrote an empty %s", lines[k], e.Name())
				}
				wrote = true
			}
			if !wrote {
				t.Errorf("README.md:%d wrote nothing\nstderr:\n%s", lines[k], stderr)
			}
		})
	}
	if ran == 0 {
		t.Fatalf("no README example is marked %q", runMarker)
	}
}

// TestDemo runs scripts/demo.sh, what `make demo` runs, over the built commands and checks what
// it leaves behind: every loaded record comes out of the pipeline scored, the EvaLearn report
// (JSON and console text) and its plot are written, and the LoCoMo summary covers the sample's
// 199 questions.
func TestDemo(t *testing.T) {
	bin := commands(t)
	out := t.TempDir()
	cmd := "BIN=" + shellQuote(bin) + " OUT=" + shellQuote(out) + " bash scripts/demo.sh"
	stdout, stderr, err := bash(t, root, bin, cmd)
	if err != nil {
		t.Fatalf("demo: %v\nstderr:\n%s", err, stderr)
	}
	for _, name := range []string{"hotpotqa", "locomo"} {
		in := readLines(t, filepath.Join(out, name+".jsonl"))
		scored := readLines(t, filepath.Join(out, name+".scored.jsonl"))
		if len(in) == 0 || len(scored) != len(in) {
			t.Errorf("%s: %d records loaded, %d scored", name, len(in), len(scored))
		}
		for i, line := range scored {
			if !strings.Contains(line, `"scores":{`) {
				t.Errorf("%s: scored record %d has no scores: %.200s", name, i+1, line)
				break
			}
		}
	}
	for _, want := range []string{
		"===== EvaLearn Evaluation Report =====",
		"| locomo overall (micro) | locomo_f1 | 199 |",
		"hotpotqa: qa-load | qa-predict --provider extractive | qa-judge --mode rules | qa-score",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "learncurve.png")); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("learncurve.png is not a PNG (%v)", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "learncurve.json")); err != nil || !bytes.Contains(b, []byte(`"overall_accuracy"`)) {
		t.Errorf("learncurve.json has no overall accuracy (%v): %.200s", err, b)
	}
	// The console report is shown up to its per-type sections, which stay in learncurve.txt: a
	// cut by line count had ended the output inside the first type's figures.
	if strings.Contains(stdout, "=== METRICS BY TASK TYPE ===") || strings.Contains(stdout, "Type: ") {
		t.Errorf("demo output shows part of the per-type sections:\n%s", stdout)
	}
	if b, err := os.ReadFile(filepath.Join(out, "learncurve.txt")); err != nil || !bytes.Contains(b, []byte("\nType: Classification (Sequences: 13)\n")) {
		t.Errorf("learncurve.txt has no per-type section (%v): %.200s", err, b)
	}
}

// TestDemoTemporary: scripts/demo.sh run without OUT, as `make demo` runs it, writes to a
// temporary folder that it removes when it ends, and when it fails too (here for want of the
// commands); the output says the files are gone and how to keep them. Every run left a
// qapipe-demo.* folder behind.
func TestDemoTemporary(t *testing.T) {
	bin := commands(t)
	for _, tc := range []struct {
		name, bin string
		fail      bool
	}{
		{"run", bin, false},
		{"failed", t.TempDir(), true}, // no commands there
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd := "unset OUT; TMPDIR=" + shellQuote(tmp) + " BIN=" + shellQuote(tc.bin) + " bash scripts/demo.sh"
			stdout, stderr, err := bash(t, root, bin, cmd)
			if (err != nil) != tc.fail {
				t.Fatalf("demo: %v, want failed %v\nstderr:\n%s", err, tc.fail, stderr)
			}
			if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
				t.Errorf("demo left %v in TMPDIR (%v), want nothing", left, err)
			}
			if want := "removed at the end; OUT=DIR make demo keeps them in DIR"; !tc.fail && !strings.Contains(stdout, want) {
				t.Errorf("demo output does not say %q:\n%s", want, stdout)
			}
		})
	}
}

// bash runs script with bash -c in dir, the environment of environ(bin), within two minutes.
func bash(t *testing.T, dir, bin, script string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = environ(bin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

func readLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// readmeOutput is a file a README command line writes into the folder it runs in: stdout
// redirected to it, or a flag's output or cache file, named without a folder.
var readmeOutput = regexp.MustCompile(`(?:>>?|--cache|--plot|--output|--summary|--mismatches)\s+([A-Za-z0-9_][A-Za-z0-9_.-]*)(?:\s|$)`)

// TestREADMEOutputsIgnored: the README's examples run from the repository root, so the files they
// write (preds.jsonl, curve.png, qa.sqlite, …) land in the checkout. Each must be one git ignores:
// an untracked file there made the next `make build` stamp every command's version "+dirty", as
// the go command counts untracked files as changes, and a results file's notes then named a
// changed tree that was not.
func TestREADMEOutputsIgnored(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git command on PATH")
	}
	if err := exec.Command(git, "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	blocks, lines := shellBlocks(t, filepath.Join(root, "README.md"))
	checked := 0
	for k, block := range blocks {
		for _, m := range readmeOutput.FindAllStringSubmatch(block, -1) {
			name := m[1]
			checked++
			cmd := exec.Command(git, "-C", root, "check-ignore", "-q", "--no-index", name)
			switch err := cmd.Run(); {
			case err == nil:
			case cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 1:
				t.Errorf("README.md:%d writes %s into the checkout, which git does not ignore", lines[k], name)
			default:
				t.Fatalf("git check-ignore %s: %v", name, err)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no README example writes a file")
	}
}
