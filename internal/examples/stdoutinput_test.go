package examples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStdoutIsInput runs each built command with its stdout appended to its own input, named or
// redirected to stdin, as a shell user would (`qa-score --metrics f1 x.jsonl >> x.jsonl` read back
// the records it wrote until the disk was full): each is refused with exit 2 and a message
// naming the file, which is left as it was. The shell's file size limit stops a command that
// reads its output back at a few megabytes.
func TestStdoutIsInput(t *testing.T) {
	bin := commands(t)
	dir := t.TempDir()
	sample, err := filepath.Abs(filepath.Join(root, "testdata", "hotpotqa", "hotpotqa_sample50.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := bash(t, dir, bin, "qa-load "+shellQuote(sample)+" > records.jsonl"); err != nil {
		t.Fatalf("qa-load: %v\n%s", err, stderr)
	}
	records, err := os.ReadFile(filepath.Join(dir, "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"qa-load --format records",
		"qa-predict --provider extractive",
		"qa-judge --mode rules",
		"qa-judge agree",
		"qa-score --metrics f1",
		"qa-learncurve",
	} {
		for _, tc := range []struct{ redirect, want string }{
			{" x.jsonl >> x.jsonl", ": stdout: x.jsonl is also an input file: "},
			{" < x.jsonl >> x.jsonl", " is also the input, on stdin: "},
		} {
			script := cmd + tc.redirect
			t.Run(script, func(t *testing.T) {
				x := filepath.Join(dir, "x.jsonl")
				if err := os.WriteFile(x, records, 0o644); err != nil {
					t.Fatal(err)
				}
				stdout, stderr, err := bash(t, dir, bin, "ulimit -f 4096\n"+script+"\necho exit $?")
				if err != nil || stdout != "exit 2\n" || !strings.HasPrefix(stderr, strings.Fields(cmd)[0]) || !strings.Contains(stderr, tc.want) {
					t.Errorf("%s: %v, stdout %q, stderr %q; want exit 2, a message with %q", script, err, stdout, stderr, tc.want)
				}
				if b, err := os.ReadFile(x); err != nil || len(b) != len(records) {
					t.Errorf("%s: x.jsonl holds %d bytes (%v), want the %d it held", script, len(b), err, len(records))
				}
			})
		}
	}
}
