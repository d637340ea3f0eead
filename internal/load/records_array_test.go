package load

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordsArray: records saved as one JSON array, on one line or indented, load as the same
// lines as the JSON Lines file they came from: every benchmark's records, whole.
func TestRecordsArray(t *testing.T) {
	var lines bytes.Buffer
	for _, f := range []string{"hotpotqa/hotpotqa_sample50.jsonl", "locomo/locomo_conv26.json", "longmemeval/longmemeval_synthetic.json"} {
		var stderr bytes.Buffer
		if err := Run(context.Background(), []string{"qa-load", "--limit", "40", filepath.Join("..", "..", "testdata", f)}, nil, &lines, &stderr); err != nil {
			t.Fatalf("qa-load %s: %v\n%s", f, err, stderr.String())
		}
	}
	items := strings.Split(strings.TrimSuffix(lines.String(), "\n"), "\n")
	oneLine := "[" + strings.Join(items, ", ") + "]"
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(oneLine), "", "  "); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"jsonl.jsonl": lines.String(), "one.json": oneLine, "indented.json": indented.String()} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o644)
		for _, args := range [][]string{{"qa-load", "--format", "records", path}, {"qa-load", path}} {
			var out, stderr bytes.Buffer
			err := Run(context.Background(), args, nil, &out, &stderr)
			if err != nil || out.String() != lines.String() || stderr.Len() > 0 {
				t.Errorf("%q: %v, %d bytes (stderr %q); want the %d records as they were written, %d bytes",
					args, err, out.Len(), stderr.String(), len(items), lines.Len())
			}
		}
	}
}
