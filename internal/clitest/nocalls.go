package clitest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/interrupt"
)

// NoCallsOnFiles runs run with args (a run that can make no model call, the program name first)
// over a file of one record, over stdin, and over both, and checks that it declares that it makes
// no call (interrupt.NoCalls, under the program's name) over the file alone: a first signal then
// stops it rather than letting it work through every record left. Over stdin, which a stage
// before may still be writing, it must not, so that it passes on every record that stage writes
// as it finishes. rec is the record, one JSON line.
func NoCallsOnFiles(t *testing.T, run command.RunFunc, args []string, rec string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(file, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		args  []string
		stdin io.Reader
		want  bool
	}{
		{"a file", append(args[:len(args):len(args)], file), strings.NewReader(""), true},
		{"stdin", args, strings.NewReader(rec), false},
		{"a file and stdin", append(args[:len(args):len(args)], file, "-"), strings.NewReader(rec), false},
	} {
		ctx, _ := interrupt.WithFinish(context.Background())
		var stdout, stderr bytes.Buffer
		if err := run(ctx, tt.args, tt.stdin, &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v\n%s", tt.name, err, stderr.String())
		}
		if name, ok := interrupt.NoCallsName(ctx); ok != tt.want || ok && name != args[0] {
			t.Errorf("%s: interrupt.NoCallsName = %q, %v; want %s, %v", tt.name, name, ok, args[0], tt.want)
		}
	}
}
