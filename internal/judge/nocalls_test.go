package judge

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/interrupt"
)

// TestNoCallsOnFiles: a run that can make no model call (the rules judge) over files
// alone says so (interrupt.NoCalls), so that a first signal stops it rather than letting it
// work through every record left; over stdin, which a stage before may still be writing, it
// does not, so that it passes on every record that stage writes as it finishes.
func TestNoCallsOnFiles(t *testing.T) {
	const rec = `{"schema":1,"id":"a","question":"Who wrote Hamlet?","answers":["Shakespeare"],"context":[{"title":"Hamlet","text":"Hamlet was written by Shakespeare."}],"prediction":{"text":"Shakespeare"}}` + "\n"
	file := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(file, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"qa-judge", "--mode", "rules"}
	for _, tt := range []struct {
		name  string
		args  []string
		stdin io.Reader
		want  bool
	}{
		{"a file", append(args, file), strings.NewReader(""), true},
		{"stdin", args, strings.NewReader(rec), false},
		{"a file and stdin", append(args, file, "-"), strings.NewReader(rec), false},
	} {
		ctx, _ := interrupt.WithFinish(context.Background())
		var stdout, stderr bytes.Buffer
		if err := Run(ctx, tt.args, tt.stdin, &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v\n%s", tt.name, err, stderr.String())
		}
		if name, ok := interrupt.NoCallsName(ctx); ok != tt.want || ok && name != "qa-judge" {
			t.Errorf("%s: interrupt.NoCallsName = %q, %v; want qa-judge, %v", tt.name, name, ok, tt.want)
		}
	}
}
