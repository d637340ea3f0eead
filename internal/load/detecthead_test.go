package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/format"
)

// squadExportRow is a question of a Hugging Face export of SQuAD whose context is n bytes longer
// than its one sentence.
func squadExportRow(id string, n int) string {
	return fmt.Sprintf(`{"id":%q,"title":"T","context":"Paris is in France.%s","question":"Where is Paris?","answers":{"text":["France"],"answer_start":[12]}}`,
		id, strings.Repeat(" x", n/2))
}

// TestDetectLongFirstItem: a file is told by its first item whole however long it is (up to
// format.MaxHead), not by its first 64 kB: a Hugging Face export of SQuAD whose first question's
// context is longer than them is squad's, as JSON Lines and as a JSON array, named without
// --format or read with --format squad or cmrc2018.
func TestDetectLongFirstItem(t *testing.T) {
	long, short := squadExportRow("q1", 70000), squadExportRow("q2", 0)
	dir := t.TempDir()
	for _, tt := range []struct {
		name, text string
		args       []string
	}{
		{"export.jsonl", long + "\n" + short + "\n", nil},
		{"export.json", "[" + long + "," + short + "]", nil},
		{"export.jsonl", long + "\n" + short + "\n", []string{"--format", "squad"}},
		{"export.json", "[" + long + "," + short + "]", []string{"--format", "squad"}},
		{"export.json", "[" + long + "," + short + "]", []string{"--format", "cmrc2018", "--lang", "en"}},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"qa-load"}, tt.args...), path)
		err := Run(context.Background(), args, nil, &stdout, &stderr)
		ids := strings.Count(stdout.String(), `"id":"squad:q`) + strings.Count(stdout.String(), `"id":"cmrc2018:q`)
		if err != nil || ids != 2 || stderr.Len() != 0 {
			t.Errorf("qa-load %v %s = %v, %d records, stderr %q; want the 2 questions and nothing on stderr", tt.args, tt.name, err, ids, stderr.String())
		}
	}
}

// TestDetectFirstItemTooLong: a first item longer than format.MaxHead whose text does not tell
// its format is a usage error that names the file and the line the item begins on (a JSON
// array's first item's, not its '['); text longer than that which opens no JSON object or list
// has the error of any text that tells nothing.
func TestDetectFirstItemTooLong(t *testing.T) {
	long := `{"q": "` + strings.Repeat("x", format.MaxHead) + `"}`
	const tooLong = ": cannot detect the format: the first JSON object, from this line, is longer than the 16 MiB read to detect it"
	for _, tt := range []struct{ text, want string }{
		{"\n\n" + long + "\n", ":3" + tooLong},
		{"[\n  " + long + "\n]\n", ":2" + tooLong},
		{"\n[" + long + "]", ":2" + tooLong},
		{strings.Repeat("x", format.MaxHead+1) + "\n" + long + "\n", ": cannot detect the format (its first bytes hold no benchmark's fields"},
	} {
		path := filepath.Join(t.TempDir(), "rows.json")
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), []string{"qa-load", path}, nil, &stdout, &stderr)
		if want := path + tt.want; command.ExitCode(err) != command.ExitUsage || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("qa-load rows.json (%.20q…, over 16 MiB) = %v (exit %d), want a usage error holding %q", tt.text, err, command.ExitCode(err), want)
		}
	}
}

// TestOtherFormatWarningTiming: whether --format records warns that indented JSON read from a
// pipe looks like another format is decided on its first object whole, so it does not hang on
// how much of the input had come when the loader gave its first item: the same whether the
// input comes whole or a byte at a time.
func TestOtherFormatWarningTiming(t *testing.T) {
	item := "{\n" + `  "_id": "5a8b57f2",` + "\n" + `  "question": "Which?",` + "\n" + `  "answer": "x",` + "\n" +
		`  "supporting_facts": [["T", 0]],` + "\n" + `  "context": [["T", ["s."]]]` + "\n}\n"
	in := item + item
	run := func(r *strings.Reader, slow bool) string {
		var stdout, stderr bytes.Buffer
		stdin := iotestReader(r, slow)
		err := Run(context.Background(), []string{"qa-load", "--format", "records"}, stdin, &stdout, &stderr)
		return fmt.Sprintf("%v\n%s", err, stderr.String())
	}
	whole, slow := run(strings.NewReader(in), false), run(strings.NewReader(in), true)
	if whole != slow {
		t.Errorf("qa-load --format records, indented HotpotQA a byte at a time:\n%s\nwhole:\n%s", slow, whole)
	}
	if !strings.Contains(slow, "looks like a hotpotqa file by its fields") {
		t.Errorf("qa-load --format records, indented HotpotQA a byte at a time:\n%s\nwant the warning that it looks like a hotpotqa file", slow)
	}
}

// iotestReader is r, a byte a read when slow.
func iotestReader(r *strings.Reader, slow bool) io.Reader {
	if slow {
		return iotest.OneByteReader(r)
	}
	return r
}

// TestDetectDataColumn: the head ends after a top-level "data" list's first item only where that
// item is a SQuAD article (its own "paragraphs"); a JSON Lines file whose rows hold a "data" list
// of anything else is told by its first row whole, as it was by a 64 kB head: a benchmark's key
// nested in another field (meta, or the data list) leaves it generic, and one after the list
// counts.
func TestDetectDataColumn(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		row, want string // the first row; the id of the record it gives
	}{
		{`{"meta": {"gpt4res": "x"}, "data": [1, 2], "question": "q", "answer": "a"}`, `"id":"rows.jsonl:1"`},
		{`{"qid": "1", "data": [{"question_id": "x", "question_type": "single-session-user"}], "question": "q", "answer": "a"}`, `"id":"rows.jsonl:1"`},
		{`{"meta": {"_id": "x", "supporting_facts": [["T", 0]]}, "data": [null], "question": "q", "answer": "a"}`, `"id":"rows.jsonl:1"`},
		{`{"data": [{"k": 1}], "_id": "h1", "question": "q", "answer": "a", "supporting_facts": [["T", 0]], "context": [["T", ["s."]]]}`, `"id":"hotpotqa:h1"`},
	} {
		path := filepath.Join(dir, "rows.jsonl")
		if err := os.WriteFile(path, []byte(tt.row+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), []string{"qa-load", path}, nil, &stdout, &stderr)
		if err != nil || !strings.Contains(stdout.String(), tt.want) {
			t.Errorf("qa-load rows.jsonl, first row %s = %v, stdout %q, stderr %q; want a record with %s", tt.row, err, stdout.String(), stderr.String(), tt.want)
		}
	}
}

// TestDetectCutRecords: a file of records cut at its start (tail -c), its first line the end of
// one whose cut begins within a nested object, is records by its second line, as it is when the
// cut line opens with no '{'.
func TestDetectCutRecords(t *testing.T) {
	record := `{"schema":1,"id":"b","dataset":"squad","question":"q","answers":["a"]}`
	path := filepath.Join(t.TempDir(), "cut.txt")
	if err := os.WriteFile(path, []byte(`{"title":"T","text":"x"}],"meta":{}}`+"\n"+record+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", path}, nil, &stdout, &stderr)
	if command.ExitCode(err) != command.ExitBadRecords || !strings.Contains(stdout.String(), `"id":"b"`) {
		t.Errorf("qa-load cut.txt = %v (exit %d), stdout %q, stderr %q; want the record of line 2, line 1 bad", err, command.ExitCode(err), stdout.String(), stderr.String())
	}
}
