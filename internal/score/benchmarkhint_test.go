package score

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchmarkFileLongFirstObject: a benchmark's file given to qa-score, whose first object is
// longer than 64 kB (a long context before its questions), stops with the qa-load format that
// reads it, told as qa-load tells it, by that object whole.
func TestBenchmarkFileLongFirstObject(t *testing.T) {
	long := strings.Repeat("word ", 20000)
	dir := t.TempDir()
	for _, tt := range []struct{ name, data, want string }{
		{"dev.json", `{"version": "v2.0", "data": [{"title": "T", "paragraphs": [{"context": "` + long + `", "qas": [{"id": "q1", "question": "Where?", "answers": []}]}]}]}`,
			"its one line is not a qapipe record, so it is no file of records: stopped (qa-load --format squad turns it into records)"},
		{"rows.jsonl", strings.Repeat(`{"id": "q1", "title": "T", "context": "`+long+`", "question": "Where?", "answers": {"text": ["word"], "answer_start": [0]}}`+"\n", 3),
			"none of its 3 lines is a qapipe record, so it is no file of records: stopped (qa-load --format squad turns it into records)"},
		{"lme.json", `[{"haystack_sessions": [[{"role": "user", "content": "` + long + `"}]], "question_id": "q1", "question_type": "single-session-user", "question": "Where?", "answer": "x"}]`,
			"its one line is not a qapipe record, so it is no file of records: stopped (qa-load --format longmemeval turns it into records)"},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		err := Run(context.Background(), []string{"qa-score", path}, nil, io.Discard, &stderr)
		if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
			t.Errorf("qa-score %s = %v; want an error ending %q", tt.name, err, tt.want)
		}
	}
}
