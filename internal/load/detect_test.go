package load

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/format"
)

func TestDetectSamples(t *testing.T) {
	tests := []struct{ file, want string }{
		{"hotpotqa_train_sample200.jsonl", "hotpotqa"},
		{"hotpotqa_array5.json", "hotpotqa"},
		{"cmrc2018_dev_sample.json", "cmrc2018"},
		{"squad_v11_synthetic.json", "squad"},
		{"squad_v20_synthetic.json", "squad"},
		{"locomo10.json", "locomo"},
		{"longmemeval_synthetic.json", "longmemeval"},
		{"EvaLearn_Problem.json", "evalearn"},
		{"EvaLearn_Sequence.json", "evalearn"},
		{"evalearn_results_edge.jsonl", "evalearn-results"},
		{"evalearn_results_edge60.json", "evalearn-results"},
		{"generic.jsonl", "jsonl"},
		{"generic.csv", "csv"},
		{"README.md", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 1<<16 {
				b = b[:1<<16]
			}
			if got := format.Detect(tt.file, b); got != tt.want {
				t.Errorf("format.Detect(%q) = %q, want %q", tt.file, got, tt.want)
			}
		})
	}
}

// TestDetectHotpotQATestItems: the 200 sample items without their answer, facts, type and level,
// as the fullwiki test file holds its items, are told HotpotQA's by their fields under a name
// that does not say it, as JSON Lines and as a JSON array (on one line or indented), and load
// without answers and without a bad item.
func TestDetectHotpotQATestItems(t *testing.T) {
	sample, err := os.ReadFile(filepath.Join("testdata", "hotpotqa_train_sample200.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]json.RawMessage
	var lines bytes.Buffer
	for line := range bytes.Lines(sample) {
		var it map[string]json.RawMessage
		if err := json.Unmarshal(line, &it); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"answer", "supporting_facts", "type", "level"} {
			delete(it, k)
		}
		b, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		lines.Write(append(b, '\n'))
		items = append(items, it)
	}
	array, _ := json.Marshal(items)
	indented, _ := json.MarshalIndent(items, "", "  ")
	dir := t.TempDir()
	for name, b := range map[string][]byte{"test.jsonl": lines.Bytes(), "test.json": array, "indented.json": indented} {
		head := b[:min(len(b), format.HeadSize)]
		if got := format.Detect(name, head); got != "hotpotqa" {
			t.Errorf("format.Detect(%q) = %q, want hotpotqa", name, got)
			continue
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		recs, bads := loadFile(t, HotpotQA, path)
		if len(bads) > 0 || len(recs) != 200 {
			t.Fatalf("%s: %d records, bad items %v; want 200", name, len(recs), bads)
		}
		for _, r := range recs {
			if len(r.Answers) > 0 || r.Type != "" || len(r.Context) == 0 {
				t.Fatalf("%s: record %s has answers %q, type %q, %d passages; want no answers, no type, its passages",
					name, r.ID, r.Answers, r.Type, len(r.Context))
			}
		}
	}
}

// TestDetectFilesOnce: without --format, each named regular file is detected once, before any is
// read, and loading it takes the format found then, not the one its text, read again, would
// give: detection reads the first object whole, up to 16 MiB, and decodes it. A file that cannot
// be read ahead (stdin, a directory, a pipe) is left to its loader, which detects it as it reads.
func TestDetectFilesOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rows.jsonl")
	if err := os.WriteFile(path, []byte(`{"id": "1", "question": "q", "answers": ["a"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &app{detected: detectFiles([]string{path, "-", dir, path})}
	if want := map[string]detection{path: {format: "jsonl"}}; !maps.Equal(a.detected, want) {
		t.Fatalf("detectFiles = %v, want %v", a.detected, want)
	}
	// The file changes after detection (a SQuAD file, which its text would be taken for).
	squad := []byte(`{"version": "v2.0", "data": [{"title": "T", "paragraphs": [{"context": "c", "qas": []}]}]}`)
	if err := os.WriteFile(path, squad, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := a.detectFormat(path, path, squad, false, nil); got != "jsonl" || err != nil {
		t.Errorf("detectFormat(rows.jsonl, after detectFiles) = %q, %v; want jsonl, the format detectFiles found", got, err)
	}
	if got, err := a.detectFormat("other.jsonl", "other.jsonl", squad, false, nil); got != "squad" || err != nil {
		t.Errorf("detectFormat(a file detectFiles left out) = %q, %v; want squad, by its head", got, err)
	}
}

// TestDetectLongRecordFile: a file of records whose first line runs past 64 kB is records by
// that line's JSON, read whole, as one with a shorter first line is: a record another program
// wrote, its id before its schema, is not taken for a generic row.
func TestDetectLongRecordFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	first := `{"id":"q1","schema":1,"question":"Where?","context":[{"text":"` + strings.Repeat("x", 70000) + `"}]}`
	if err := os.WriteFile(path, []byte(first+"\n"+`{"id":"q2","schema":1,"question":"Why?"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := detectFile(path); got.format != "records" || !ok {
		t.Errorf("detectFile(run.jsonl, a first record line of %d bytes) = %q, %v; want records", len(first), got.format, ok)
	}
}
