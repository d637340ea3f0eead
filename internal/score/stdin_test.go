package score

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// TestOutputIsStdin: --summary or --mismatches naming the file redirected to stdin is refused
// before the file is truncated.
func TestOutputIsStdin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	const rec = `{"schema":1,"id":"a","answers":["x"],"prediction":{"text":"x"}}` + "\n"
	if err := os.WriteFile(path, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--summary", "--mismatches"} {
		in, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err = Run(context.Background(), []string{"qa-score", flag, path}, in, &stdout, &stderr)
		in.Close()
		if code := command.ExitCode(err); code != command.ExitUsage {
			t.Errorf("%s FILE < FILE: exit %d (%v), want %d", flag, code, err, command.ExitUsage)
		}
		if b, _ := os.ReadFile(path); string(b) != rec {
			t.Errorf("%s FILE < FILE: the file now holds %q", flag, b)
		}
	}
}
