package load

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/pkg/record"
)

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	err := Run(ctx, []string{"qa-load", "testdata/hotpotqa_array5.json"}, nil, &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitInterrupted {
		t.Errorf("Run(cancelled) exit = %d (%v), want %d", code, err, command.ExitInterrupted)
	}
}

func TestRunEvaLearnSibling(t *testing.T) {
	// Naming only the problem file finds EvaLearn_Sequence.json beside it.
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", "--limit", "3", "testdata/EvaLearn_Problem.json"}, nil, &stdout, &stderr)
	if err != nil {
		t.Fatalf("Run = %v; stderr %s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], `"id":"evalearn:1:3"`) {
		t.Errorf("got %d lines, last %.80s; want 3 ending with evalearn:1:3", len(lines), lines[len(lines)-1])
	}
}

func TestRunMissingFile(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", "--format", "squad", filepath.Join(t.TempDir(), "none.json")}, nil, &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitFailure || !os.IsNotExist(err) {
		t.Errorf("Run(missing file) = %v (exit %d), want a not-exist failure (exit 1)", err, code)
	}
}

func TestCSVByteOrderMark(t *testing.T) {
	in := "\ufeffid,question,answers\nx1,Why?,Because\n"
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-load", "--format", "csv"}, strings.NewReader(in), &stdout, &stderr)
	if err != nil || !strings.Contains(stdout.String(), `"id":"x1"`) {
		t.Errorf("Run(csv with BOM) = %v, %q; want record x1", err, stdout.String())
	}
}

// gzipFile writes the gzip compression of the file src to dir/name.
// inUTF16 returns s in UTF-16, without a byte order mark.
func inUTF16(s string, big bool) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		if big {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return string(b)
}

// inUTF32 returns s in UTF-32, without a byte order mark.
func inUTF32(s string, big bool) string {
	var b []byte
	for _, r := range s {
		if big {
			b = append(b, byte(r>>24), byte(r>>16), byte(r>>8), byte(r))
		} else {
			b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
		}
	}
	return string(b)
}

// A file in UTF-16 or UTF-32 without a byte order mark fails, saying so, in every format: read
// as UTF-8, every line was a bad item for its NUL bytes, or a CSV header's names read
// " a n s w e r s", or, in CJK characters, a line that is not UTF-8 with the advice to convert it
// from Latin-1; one with the mark is decoded. UTF-8 text is never taken for it.
func TestUTF16WithoutByteOrderMark(t *testing.T) {
	const csv = "id,question,answers\n1,Why?,Because\n"
	const jsonl = `{"id":"1","question":"Why?","answers":"Because"}` + "\n"
	const cjk = "问题,答案\n谁?,我\n"
	const nul = "stdin: NUL bytes at its start, which no UTF-8 text holds: text in UTF-16 or UTF-32 without a byte order mark? convert it first (iconv -f UTF-16LE -t UTF-8 FILE, or from UTF-16BE, UTF-32LE or UTF-32BE)"
	for _, tt := range []struct {
		name, format, in string
		want             string // the error, "" for record 1
	}{
		{"csv LE", "csv", inUTF16(csv, false), "stdin: UTF-16LE text without a byte order mark, not UTF-8: convert it first (iconv -f UTF-16LE -t UTF-8 FILE)"},
		{"jsonl BE", "jsonl", inUTF16(jsonl, true), "stdin: UTF-16BE text without a byte order mark, not UTF-8: convert it first (iconv -f UTF-16BE -t UTF-8 FILE)"},
		{"squad LE", "squad", inUTF16(`{"data": []}`, false), "stdin: UTF-16LE text without a byte order mark, not UTF-8: convert it first (iconv -f UTF-16LE -t UTF-8 FILE)"},
		{"csv UTF-32LE", "csv", inUTF32(csv, false), "stdin: UTF-32LE text without a byte order mark, not UTF-8: convert it first (iconv -f UTF-32LE -t UTF-8 FILE)"},
		{"jsonl UTF-32BE", "jsonl", inUTF32(jsonl, true), "stdin: UTF-32BE text without a byte order mark, not UTF-8: convert it first (iconv -f UTF-32BE -t UTF-8 FILE)"},
		{"csv CJK LE", "csv", inUTF16(cjk, false), nul},
		{"csv CJK BE", "csv", inUTF16(cjk, true), nul},
		{"csv CJK UTF-32LE", "csv", inUTF32(cjk, false), nul},
		{"csv CJK LE, 0A in its first character", "csv", inUTF16("上海,答案\n谁?,我\n", false), nul}, // 上 is U+4E0A
		{"csv CJK BE, 0A in its first character", "csv", inUTF16("上海,答案\n谁?,我\n", true), nul},
		{"csv UTF-8, a NUL past the first line", "csv", "id,question,answers\n1,Why?,Because\n2,a\x00b,c\n", ""},
		{"csv with the mark", "csv", inUTF16("\ufeff"+csv, false), ""},
		{"csv with the UTF-32 mark", "csv", inUTF32("\ufeff"+csv, false), ""},
		{"jsonl with the UTF-32 mark", "jsonl", inUTF32("\ufeff"+jsonl, true), ""},
		{"csv UTF-8", "csv", csv, ""},
		{"jsonl UTF-8", "jsonl", jsonl, ""},
		{"csv one column", "csv", "question\nWhy?\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), []string{"qa-load", "--format", tt.format}, strings.NewReader(tt.in), &stdout, &stderr)
			switch {
			case tt.want == "" && (err != nil || !strings.Contains(stdout.String(), `"question":"Why?"`)):
				t.Errorf("Run(%q) = %v, %q, stderr %q; want a record", tt.in, err, stdout.String(), stderr.String())
			case tt.want != "" && (err == nil || err.Error() != tt.want || command.ExitCode(err) != command.ExitFailure || stdout.Len() > 0):
				t.Errorf("Run(%q) = %v (exit %d), %q; want %q (exit 1)", tt.in, err, command.ExitCode(err), stdout.String(), tt.want)
			}
		})
	}
}

// TestEvaLearnPairUTF16: EvaLearn's two files are checked for UTF-16 without a byte order mark
// as every other file is, each named: they failed as JSON that is no JSON.
func TestEvaLearnPairUTF16(t *testing.T) {
	for _, bad := range []string{"EvaLearn_Problem.json", "EvaLearn_Sequence.json"} {
		dir := t.TempDir()
		for _, name := range []string{"EvaLearn_Problem.json", "EvaLearn_Sequence.json"} {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			if name == bad {
				data = []byte(inUTF16(string(data), false))
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), []string{"qa-load", filepath.Join(dir, "EvaLearn_Problem.json"), filepath.Join(dir, "EvaLearn_Sequence.json")}, strings.NewReader(""), &stdout, &stderr)
		want := filepath.Join(dir, bad) + ": UTF-16LE text without a byte order mark, not UTF-8: convert it first (iconv -f UTF-16LE -t UTF-8 FILE)"
		if err == nil || err.Error() != want || command.ExitCode(err) != command.ExitFailure || stdout.Len() > 0 {
			t.Errorf("%s in UTF-16: %v (exit %d), %d bytes out; want %q, exit 1", bad, err, command.ExitCode(err), stdout.Len(), want)
		}
	}
}

// TestEvaLearnBeside: of the other file beside the one given, found both plain and gzipped, the one
// compressed as the given file is is taken, and the error of neither names the two looked for in
// that order.
func TestEvaLearnBeside(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"EvaLearn_Problem.json", "EvaLearn_Problem.json.gz"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "EvaLearn_Problem.json")
	for given, want := range map[string]string{"EvaLearn_Sequence.json": p, "EvaLearn_Sequence.json.gz": p + ".gz"} {
		if got, err := evaLearnBeside(filepath.Join(dir, given), "sequence", "problem", "EvaLearn_Problem.json"); err != nil || got != want {
			t.Errorf("beside %s: %q, %v; want %q", given, got, err, want)
		}
	}
	s := filepath.Join(dir, "EvaLearn_Sequence.json")
	_, err := evaLearnBeside(p+".gz", "problem", "sequence", "EvaLearn_Sequence.json")
	want := p + ".gz is an EvaLearn problem file, and its sequence file was neither given nor found beside it as " + s + ".gz (or " + s + "): name both files"
	if err == nil || err.Error() != want {
		t.Errorf("beside %s.gz alone: %v; want %q", p, err, want)
	}
}

func gzipFile(t *testing.T, src, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGzipInputs: a gzip-compressed file loads as the file it holds, its format detected from the
// decompressed text and from its name without ".gz"; EvaLearn's pair is found in gzip files too.
func TestGzipInputs(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := Run(context.Background(), append([]string{"qa-load", "--context", "none"}, args...), nil, &stdout, &stderr); err != nil {
			t.Fatalf("Run(%v) = %v; stderr %s", args, err, stderr.String())
		}
		return stdout.String()
	}
	for _, tc := range []struct {
		src, name string
		flags     []string
	}{
		{"testdata/hotpotqa_array5.json", "dev.json.gz", nil}, // detected from the content
		{"testdata/hotpotqa_train_sample200.jsonl", "train.jsonl.gz", nil},
		{"testdata/squad_v11_synthetic.json", "s.gz", nil},
		{"testdata/generic.jsonl", "generic.jsonl.gz", []string{"--map", "question=q,answers=gold,id=qid"}}, // from the name
		{"testdata/generic.jsonl", "GENERIC.JSONL.GZ", []string{"--map", "question=q,answers=gold,id=qid"}}, // .GZ too, as outputs are named
	} {
		want := run(append(tc.flags, tc.src)...)
		if got := run(append(tc.flags, gzipFile(t, tc.src, dir, tc.name))...); got != want || got == "" {
			t.Errorf("%s: gzip input gave\n%.200s\nwant\n%.200s", tc.name, got, want)
		}
	}
	// A generic row without an id is FILE:LINE by the name without its .gz ending, in any case.
	csv := filepath.Join(dir, "ROWS.CSV")
	if err := os.WriteFile(csv, []byte("question,answers\nq?,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(gzipFile(t, csv, dir, "ROWS.CSV.GZ")); !strings.Contains(got, `"id":"ROWS.CSV:2"`) {
		t.Errorf("ROWS.CSV.GZ gave %s, want the id ROWS.CSV:2", got)
	}
	// A damaged gzip file is a read error, not a format that cannot be told; one cut short within
	// the head its format is told from is read up to the cut, and the error names its line.
	whole, err := os.ReadFile(filepath.Join(dir, "dev.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.json.gz")
	if err := os.WriteFile(cut, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = Run(context.Background(), []string{"qa-load", cut}, nil, &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitFailure || !strings.HasPrefix(err.Error(), cut+":") ||
		!strings.HasSuffix(err.Error(), ": gzip data ends early: the file was cut short (a download or copy that did not finish?)") {
		t.Errorf("Run(cut gzip file) = %v (exit %d), want the read error (exit 1)", err, code)
	}
	p := gzipFile(t, "testdata/EvaLearn_Problem.json", dir, "EvaLearn_Problem.json")
	s := gzipFile(t, "testdata/EvaLearn_Sequence.json", dir, "EvaLearn_Sequence.json")
	if got, want := run("--limit", "3", p, s), run("--limit", "3", "testdata/EvaLearn_Problem.json", "testdata/EvaLearn_Sequence.json"); got != want {
		t.Errorf("EvaLearn from gzip files gave\n%.200s\nwant\n%.200s", got, want)
	}
}

// TestGzipCutLines: a gzip file of JSON Lines or CSV cut short is read up to the cut, and the
// error names the file and the last line read whole, so that how many of its records came out
// is known: the lines before the cut are all written (a CSV's header is its line 1, and a
// quoted cell spanning lines ends its row on its last line). So is a file whose text up to the cut
// is shorter than the head its format is detected from.
func TestGzipCutLines(t *testing.T) {
	dir := t.TempDir()
	texts := func(n int) (jsonl, csvText string) {
		var j, c bytes.Buffer
		c.WriteString("id,question,answers\n")
		for i := range n {
			fmt.Fprintf(&j, `{"id":"q%d","question":"question %d","answers":["%d"]}`+"\n", i, i, i)
			if i == 3 {
				fmt.Fprintf(&c, "%d,\"question\non two lines\",%d\n", i, i)
				continue
			}
			fmt.Fprintf(&c, "%d,question %d,%d\n", i, i, i)
		}
		return j.String(), c.String()
	}
	jsonl, csvText := texts(20000)
	smallJSONL, smallCSV := texts(600) // under 64 kB, the detection head, before the cut
	for _, tc := range []struct {
		name, text, prefix string                // prefix: of the ids, the row number after it
		lines              func(records int) int // the last line read whole, after so many records
		least              int                   // records written at least
	}{
		{"cut.jsonl.gz", jsonl, "q", func(n int) int { return n }, 1000},
		{"cut.csv.gz", csvText, "", func(n int) int { return n + 2 }, 1000}, // the header, row 3's second line
		{"small.jsonl.gz", smallJSONL, "q", func(n int) int { return n }, 100},
		{"small.csv.gz", smallCSV, "", func(n int) int { return n + 2 }, 100},
	} {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(tc.text))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, b.Bytes()[:b.Len()/2], 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), []string{"qa-load", path}, nil, &stdout, &stderr)
		records := strings.Count(stdout.String(), "\n")
		want := fmt.Sprintf("read %s after line %d: gzip data ends early: the file was cut short (a download or copy that did not finish?)", path, tc.lines(records))
		if code := command.ExitCode(err); code != command.ExitFailure || err == nil || err.Error() != want || records < tc.least {
			t.Errorf("%s: %d records, error %v (exit %d); want %d or more and %q (exit 1)", tc.name, records, err, code, tc.least, want)
		}
		if last := fmt.Sprintf(`"id":"%s%d"`, tc.prefix, records-1); !strings.Contains(stdout.String(), last) {
			t.Errorf("%s: no record %s among the %d written", tc.name, last, records)
		}
	}
}

// TestNotUTF8: text that is not UTF-8 is named by file, line and column wherever qa-load reads
// it, never turned into U+FFFD: a JSONL line or a CSV row is a bad item (the rest go on, exit 3);
// in a JSON document, as in Python's json.load, the file fails (exit 1).
// A bad line is named by the id its format reads (HotpotQA's _id, the --map id source).
func TestNotUTF8(t *testing.T) {
	dir := t.TempDir()
	const hint = " (convert the file to UTF-8, e.g. iconv -f latin1 -t utf-8)"
	for _, tc := range []struct {
		name, content string
		flags         []string
		code          int
		stdout        string // ids of the records written
		stderr        string // the message, first line
	}{
		{"a.jsonl", "{\"id\":\"a\",\"question\":\"x\"}\n{\"id\":\"b\",\"question\":\"Ren\xe9e\"}\n{\"id\":\"c\",\"question\":\"Renée\"}\n",
			nil, command.ExitBadRecords, "a c", `a.jsonl:2 (id "b"): not UTF-8 text: byte 0xE9 at column 26` + hint},
		{"hotpot.jsonl", "{\"_id\":\"h1\",\"question\":\"Ren\xe9e?\",\"answer\":\"x\",\"context\":[]}\n",
			[]string{"--format", "hotpotqa"}, command.ExitBadRecords, "", `hotpot.jsonl:1 (id "hotpotqa:h1"): not UTF-8 text: byte 0xE9 at column 28` + hint},
		{"mapped.jsonl", "{\"qid\":\"A2\",\"id\":\"no\",\"q\":\"caf\xe9\",\"gold\":\"x\"}\n",
			[]string{"--map", "id=qid,question=q,answers=gold"}, command.ExitBadRecords, "", `mapped.jsonl:1 (id "A2"): not UTF-8 text: byte 0xE9 at column 31` + hint},
		{"a.csv", "id,question\n1,x\n2,Ren\xe9e\n3,Renée\n",
			nil, command.ExitBadRecords, "1 3", `a.csv:3 (id "2"): field "question": not UTF-8 text: byte 0xE9 at byte 4 of the cell` + hint},
		{"h.csv", "id,qu\xe9stion\n1,x\n", nil, command.ExitFailure, "", "h.csv:1: header field 2: not UTF-8 text: byte 0xE9 at byte 3 of the name" + hint},
		{"arr.json", "[{\"id\":\"a\",\"question\":\"x\"},\n {\"id\":\"b\",\n  \"question\":\"R\xe9\"}]\n",
			[]string{"--format", "jsonl"}, command.ExitFailure, "a", "arr.json:3: not UTF-8 text: byte 0xE9 at column 16" + hint},
		{"cut.json", "[{\"id\":\"a\",\"question\":\"x\xe2\x82", []string{"--format", "jsonl"}, command.ExitFailure, "",
			"cut.json:1: not UTF-8 text: byte 0xE2 at column 25" + hint}, // a character cut by the end of the file
		{"squad.json", "{\"version\": \"1.1\", \"data\": [{\"title\": \"T\xe9\", \"paragraphs\": []}]}",
			[]string{"--format", "squad"}, command.ExitFailure, "", "squad.json:1: not UTF-8 text: byte 0xE9 at column 41" + hint},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), append(append([]string{"qa-load"}, tc.flags...), path), nil, &stdout, &stderr)
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			var r struct{ ID string }
			if json.Unmarshal([]byte(l), &r) == nil {
				ids = append(ids, strings.TrimPrefix(r.ID, "squad:"))
			}
		}
		msg := strings.TrimPrefix(strings.SplitN(stderr.String(), "\n", 2)[0], "qa-load: ")
		if code := command.ExitCode(err); code == command.ExitFailure {
			msg = err.Error()
		}
		msg = strings.ReplaceAll(msg, dir+string(filepath.Separator), "")
		if code := command.ExitCode(err); code != tc.code || strings.Join(ids, " ") != tc.stdout || msg != tc.stderr {
			t.Errorf("%s: exit %d, records %q, message %q; want %d, %q, %q", tc.name, code, ids, msg, tc.code, tc.stdout, tc.stderr)
		}
	}
}

// TestNotUTF8KeepsItemsBefore: a JSON document that fails on a byte that is not UTF-8 writes
// every item it holds before that byte, as it does those before a syntax error, wherever the
// byte falls in what the decoder reads at a time: none of them is lost with the failure.
func TestNotUTF8KeepsItemsBefore(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		format string
		items  int // good items before the bad one
		line   func(i int) string
	}{
		{"records", 1, recordItemLine},
		{"records", 3000, recordItemLine},
		{"jsonl", 2, func(i int) string { return fmt.Sprintf(`{"id":"r%d","question":"q","answers":["a"]}`, i) }},
		{"jsonl", 5000, func(i int) string { return fmt.Sprintf(`{"id":"r%d","question":"q","answers":["a"]}`, i) }},
	} {
		var b strings.Builder
		b.WriteString("[\n")
		for i := range tc.items {
			b.WriteString(tc.line(i) + ",\n")
		}
		b.WriteString("{\"id\":\"bad\",\"question\":\"Ren\xe9e\",\"answers\":[\"a\"]},\n" + tc.line(tc.items+1) + "\n]\n")
		path := filepath.Join(dir, fmt.Sprintf("%s%d.json", tc.format, tc.items))
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), []string{"qa-load", "--format", tc.format, path}, nil, &stdout, &stderr)
		got := strings.Count(stdout.String(), "\n")
		want := fmt.Sprintf("%s:%d: not UTF-8 text", path, tc.items+2)
		if code := command.ExitCode(err); code != command.ExitFailure || err == nil || !strings.HasPrefix(err.Error(), want) || got != tc.items {
			t.Errorf("%s, %d items before the bad one: %d records, error %v (exit %d); want %d and %q... (exit 1)", tc.format, tc.items, got, err, code, tc.items, want)
		}
	}
}

func recordItemLine(i int) string {
	return fmt.Sprintf(`{"schema":1,"id":"r%d","question":"q","answers":["a"],"zz":{"n":%d}}`, i, i)
}

// TestUTF8Stream holds the piecewise check to the check of the whole stream, wherever the pieces
// are cut: through characters, and into pieces of one byte.
func TestUTF8Stream(t *testing.T) {
	texts := []string{"", "plain", "é€😀中", "a\xe9b", "€\x82", "ok\xf0\x9f\x98", "\xf0\x9f\x98\x80\xf0", "x\xed\xa0\x80", "\xc0\xaf", "😀😀😀\xff"}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("a\n\x80\xbf\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\xed\xa0\xff")
	for range 3000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		checkUTF8Stream(t, []byte(text), rng)
	}
}

func checkUTF8Stream(t *testing.T, b []byte, rng *rand.Rand) {
	t.Helper()
	wantOff, wantByte := int64(-1), byte(0)
	if e := record.CheckUTF8(b); e != nil {
		wantOff, wantByte = int64(e.Column-1), e.Byte
	}
	for _, maxPiece := range []int{1, 2, 3, 5, len(b) + 1} {
		var u utf8Stream
		gotOff, gotByte := int64(-1), byte(0)
		for off := 0; ; {
			n := min(1+rng.IntN(maxPiece), len(b)-off)
			eof := off+n == len(b)
			if o, c, ok := u.check(b[off:off+n], int64(off), eof); !ok {
				gotOff, gotByte = o, c
				break
			}
			if off += n; eof {
				break
			}
		}
		if gotOff != wantOff || gotByte != wantByte {
			t.Fatalf("%q in pieces of up to %d: first bad byte %#x at %d, want %#x at %d", b, maxPiece, gotByte, gotOff, wantByte, wantOff)
		}
	}
}

func FuzzUTF8Stream(f *testing.F) {
	for _, s := range []string{"é€😀中", "a\xe9b", "ok\xf0\x9f\x98", "x\xed\xa0\x80"} {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, seed uint64) {
		checkUTF8Stream(t, b, rand.New(rand.NewPCG(seed, 0)))
	})
}

// TestRunRecordsLongLine: a saved LongMemEval run, whose first line (a record with its history)
// is longer than what format detection reads, is loaded as records and passes through whole.
func TestRunRecordsLongLine(t *testing.T) {
	rec := &record.Record{Schema: 1, ID: "longmemeval:q1", Dataset: "longmemeval", Question: "Where?", Answers: []string{"Acme"},
		Context:    []record.Passage{{Date: "2023/05/01 (Mon) 09:00", Text: strings.Repeat("user: I work at Acme. ", 5000)}},
		Meta:       map[string]json.RawMessage{"haystack_session_ids": json.RawMessage(`["s1"]`)},
		Prediction: &record.Prediction{Text: "Acme", Model: "gpt-4o"}, Scores: map[string]float64{"em": 1}}
	line, err := rec.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), []string{"qa-load", path}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("Run = %v; stderr %s", err, stderr.String())
	}
	if got := strings.TrimSuffix(stdout.String(), "\n"); got != string(line) || len(line) <= format.HeadSize {
		t.Errorf("a %d-byte record line came out as %.200q", len(line), got)
	}
}

// TestItemLines: each item gets the line it starts on, identical items included, and whether it
// begins that line.
func TestItemLines(t *testing.T) {
	parent := []byte("{\"qa\": [\n  {\"q\": 1},\n  {\"q\": 1},\n  {\"q\":\n 2}, {\"q\": 3}\n]}")
	items := []jsonRaw{jsonRaw(`{"q": 1}`), jsonRaw(`{"q": 1}`), jsonRaw("{\"q\":\n 2}"), jsonRaw(`{"q": 3}`)}
	if got, want := itemLines(parent, 5, items), []int{6, 7, 8, 9}; !slices.Equal(got, want) {
		t.Errorf("itemLines = %v, want %v", got, want)
	}
	// The last item follows another on its line, which then does not find it.
	if _, got := itemStarts(parent, 5, items); !slices.Equal(got, []bool{true, true, true, false}) {
		t.Errorf("itemStarts own = %v, want %v", got, []bool{true, true, true, false})
	}
	// On one line no item begins it: the '{' that opens their parent comes first.
	one := []byte(`{"qa": [{"q": 1}, {"q": 2}]}`)
	if _, got := itemStarts(one, 1, []jsonRaw{jsonRaw(`{"q": 1}`), jsonRaw(`{"q": 2}`)}); !slices.Equal(got, []bool{false, false}) {
		t.Errorf("itemStarts own (one line) = %v, want %v", got, []bool{false, false})
	}
	// Tabs and carriage returns are blanks before an item; any other byte is not.
	crlf := []byte("{\"qa\": [\r\n\t {\"q\": 1},\r\n x{\"q\": 2}]}")
	if _, got := itemStarts(crlf, 1, []jsonRaw{jsonRaw(`{"q": 1}`), jsonRaw(`{"q": 2}`)}); !slices.Equal(got, []bool{true, false}) {
		t.Errorf("itemStarts own (CRLF, tab) = %v, want %v", got, []bool{true, false})
	}
}

// BenchmarkItemStarts times itemStarts over a LoCoMo conversation of 20,000 questions written on
// one line: each item's own line was once searched for back to the file's start, quadratic in
// the items (5.6 s for the load of such a conversation, 0.2 s since).
func BenchmarkItemStarts(b *testing.B) {
	var parent bytes.Buffer
	items := make([]jsonRaw, 20000)
	parent.WriteString(`{"qa": [`)
	for i := range items {
		items[i] = jsonRaw(fmt.Sprintf(`{"question": "q%d?", "answer": "a", "category": 1}`, i))
		if i > 0 {
			parent.WriteString(", ")
		}
		parent.Write(items[i])
	}
	parent.WriteString("]}")
	b.ReportAllocs()
	for b.Loop() {
		itemStarts(parent.Bytes(), 1, items)
	}
}

// TestRunInterruptedAtLastRead checks that a signal during the last read is not lost when the
// input then ends: the run exits 130, as at any other read, instead of 0.
func TestRunInterruptedAtLastRead(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := clitest.ThenAtEOF(strings.NewReader(`{"schema":1,"id":"a","question":"q","answers":["x"]}`+"\n"), cancel)
	var stdout, stderr bytes.Buffer
	err := Run(ctx, []string{"qa-load", "--format", "records"}, in, &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitInterrupted {
		t.Errorf("Run(signal at the last read) exit = %d (%v), want %d", code, err, command.ExitInterrupted)
	}
}

// TestRepeatedIDsEveryFormat: in every format, records that repeat an earlier record's id (a file
// given beside a copy of it, two files that overlap) are counted in one warning that names the
// first of them by the file and line of its item and its id, and guesses the causes a command
// still lets through (one file named twice is refused).
func TestRepeatedIDsEveryFormat(t *testing.T) {
	dir := t.TempDir()
	// cp copies file to the folder copy in dir, under its path there, and returns the copy's path:
	// one file named twice is refused
	cp := func(file string) string {
		to := filepath.Join(dir, "copy", file)
		data, err := os.ReadFile(file)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(to), 0o755)
		}
		if err == nil {
			err = os.WriteFile(to, data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return to
	}
	// twice is the args that name file and a copy of it
	twice := func(file string) []string { return []string{file, cp(file)} }
	saved := filepath.Join(dir, "run.jsonl")
	run := `{"schema":1,"id":"r1","question":"q1","answers":["a"]}` + "\n" + `{"schema":1,"id":"r2","question":"q2","answers":["b"]}` + "\n"
	if err := os.WriteFile(saved, []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	const warning = "qa-load: warning: %s the id of an earlier record (the first: %s): an id names one question, and qa-score warns of repeats " +
		"(a file beside a copy of it, files that overlap, or an id field that is not unique?); "
	tests := []struct {
		name  string
		args  []string
		count string // "N of M records repeat"
		first string // FILE:LINE (id "ID")
	}{
		{"squad v1.1", twice("testdata/squad_v11_synthetic.json"), "2 of 4 records repeat", cp("testdata/squad_v11_synthetic.json") + `:10 (id "squad:syn-q1")`},
		{"squad v2.0", twice("testdata/squad_v20_synthetic.json"), "3 of 6 records repeat", cp("testdata/squad_v20_synthetic.json") + `:10 (id "squad:syn-q3")`},
		{"cmrc2018", twice("testdata/cmrc2018_dev_sample.json"), "301 of 602 records repeat", cp("testdata/cmrc2018_dev_sample.json") + `:1 (id "cmrc2018:DEV_0_QUERY_0")`},
		{"hotpotqa array", twice("testdata/hotpotqa_array5.json"), "5 of 10 records repeat", cp("testdata/hotpotqa_array5.json") + `:2 (id "hotpotqa:5ab4435b5542990594ba9bdf")`},
		{"hotpotqa jsonl", twice("testdata/hotpotqa_train_sample200.jsonl"), "200 of 400 records repeat", cp("testdata/hotpotqa_train_sample200.jsonl") + `:1 (id "hotpotqa:5ab4435b5542990594ba9bdf")`},
		{"locomo", twice("testdata/locomo10.json"), "1986 of 3972 records repeat", cp("testdata/locomo10.json") + `:4 (id "locomo:conv-26:0")`},
		{"longmemeval", twice("testdata/longmemeval_synthetic.json"), "7 of 14 records repeat", cp("testdata/longmemeval_synthetic.json") + `:1 (id "longmemeval:syn_ssu_1")`},
		{"evalearn-results", twice("testdata/evalearn_results_edge60.json"), "60 of 120 records repeat", cp("testdata/evalearn_results_edge60.json") + `:2 (id "evalearn:19:2")`},
		// EvaLearn's pair cannot be given twice; its results name the same (sequence, position)s
		{"evalearn and its results", []string{"testdata/EvaLearn_Problem.json", "testdata/EvaLearn_Sequence.json", "testdata/evalearn_results_edge60.json"},
			"59 of 1334 records repeat", `testdata/evalearn_results_edge60.json:2 (id "evalearn:19:2")`},
		{"records", twice(saved), "2 of 4 records repeat", cp(saved) + `:1 (id "r1")`},
		{"jsonl", append([]string{"--map", "question=q,answers=gold,id=qid"}, twice("testdata/generic.jsonl")...), "3 of 6 records repeat", cp("testdata/generic.jsonl") + `:1 (id "g1")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), append([]string{"qa-load", "--context", "none"}, tc.args...), nil, &stdout, &stderr)
			if err != nil {
				t.Fatalf("Run = %v; stderr %s", err, stderr.String())
			}
			if want := fmt.Sprintf(warning, tc.count, tc.first); !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr:\n%s\nwant it to hold\n%s", stderr.String(), want)
			}
		})
	}
}

// TestNoRepeatedIDs: files that share no id get no warning, nor does one file read once.
func TestNoRepeatedIDs(t *testing.T) {
	for _, args := range [][]string{
		{"testdata/locomo10.json"},
		{"testdata/squad_v11_synthetic.json", "testdata/squad_v20_synthetic.json"},
	} {
		var stdout, stderr bytes.Buffer
		if err := Run(context.Background(), append([]string{"qa-load", "--context", "none"}, args...), nil, &stdout, &stderr); err != nil {
			t.Fatalf("Run(%v) = %v; stderr %s", args, err, stderr.String())
		}
		if strings.Contains(stderr.String(), "repeat") {
			t.Errorf("Run(%v): stderr %s, want no warning of repeats", args, stderr.String())
		}
	}
}

// TestLongLineID: a JSON Lines line too long to load is named by the id its format reads, found
// in the line's first 4 kB (HotpotQA's _id, the --map id source), not by a member named "id".
func TestLongLineID(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 6000)
	for _, tc := range []struct {
		name, content string
		flags         []string
		want          string
	}{
		{"h.jsonl", `{"_id":"h1","question":"` + long + `","answer":"x","context":[]}` + "\n", []string{"--format", "hotpotqa"},
			`h.jsonl:1 (id "hotpotqa:h1"): line too long (more than 5000 bytes): --max-line, or QA_MAX_LINE, raises the limit`},
		{"g.jsonl", `{"qid":"A2","id":"no","q":"` + long + `","gold":"x"}` + "\n", []string{"--map", "id=qid,question=q,answers=gold"},
			`g.jsonl:1 (id "A2"): line too long (more than 5000 bytes): --max-line, or QA_MAX_LINE, raises the limit`},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), append(append([]string{"qa-load", "--max-line", "5000"}, tc.flags...), path), nil, &stdout, &stderr)
		msg := strings.ReplaceAll(strings.SplitN(strings.TrimPrefix(stderr.String(), "qa-load: "), "\n", 2)[0], dir+string(filepath.Separator), "")
		if code := command.ExitCode(err); code != command.ExitBadRecords || msg != tc.want {
			t.Errorf("%s: exit %d, message %q; want %d, %q", tc.name, code, msg, command.ExitBadRecords, tc.want)
		}
	}
}

func TestTypesBlankIsUsageError(t *testing.T) {
	// A --types value of blanks names no type, as "," does: a usage error, not a run that keeps
	// every record as if --types were not given.
	in := `{"id": "r1", "question": "q1", "answers": ["1"], "type": "a"}` + "\n"
	for _, v := range []string{" ", "\t", " , "} {
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), []string{"qa-load", "--format", "jsonl", "--types", v}, strings.NewReader(in), &stdout, &stderr)
		if code := command.ExitCode(err); code != command.ExitUsage || stdout.Len() != 0 || !strings.Contains(err.Error(), "names no type") {
			t.Errorf("--types %q: exit %d (%v), %d bytes written; want a usage error (exit 2) that names no type, no record", v, code, err, stdout.Len())
		}
	}
}

// TestRunEvaLearnSiblingGz: the file of the pair not given is found beside the given one
// gzip-compressed too, EvaLearn_Problem.json.gz, as a sequence file kept compressed beside it is
// read; the given file's compression is tried first.
func TestRunEvaLearnSiblingGz(t *testing.T) {
	gz := func(path string, data []byte) {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	problems, err := os.ReadFile("testdata/EvaLearn_Problem.json")
	if err != nil {
		t.Fatal(err)
	}
	sequences, err := os.ReadFile("testdata/EvaLearn_Sequence.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		write func(dir string)
		given string
	}{
		{"both compressed", func(dir string) {
			gz(filepath.Join(dir, "EvaLearn_Problem.json.gz"), problems)
			gz(filepath.Join(dir, "EvaLearn_Sequence.json.gz"), sequences)
		}, "EvaLearn_Sequence.json.gz"},
		{"the other compressed", func(dir string) {
			gz(filepath.Join(dir, "EvaLearn_Problem.json.gz"), problems)
			os.WriteFile(filepath.Join(dir, "EvaLearn_Sequence.json"), sequences, 0o644)
		}, "EvaLearn_Sequence.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.write(dir)
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), []string{"qa-load", "--limit", "3", filepath.Join(dir, tc.given)}, nil, &stdout, &stderr)
			if err != nil || strings.Count(stdout.String(), "\n") != 3 {
				t.Errorf("Run = %v, %d lines; want 3 records\n%s", err, strings.Count(stdout.String(), "\n"), stderr.String())
			}
		})
	}
}

// TestMetaTooDeep checks that an item whose field, moved to meta, would nest deeper than the
// later stages read a line is a bad item, not a record that every stage refuses, in each format
// that reads items a line each.
func TestMetaTooDeep(t *testing.T) {
	dir := t.TempDir()
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	const tooDeep = `field "src" nests 9999 levels deep, and 10001 in the record's meta: more than the 10000 the later stages read`
	evalearn := `{"id": 614, "type": "Logic", "prompt": ["p"], "rubric": "r", "canonical_answer": "", "gpt4res": "a", ` +
		`"gpt4judge": "[Grade]: 1 point", "sequence_id": 19, "position_in_sequence": 2, "src": `
	for _, tc := range []struct {
		name, content string
		flags         []string
		stdout        int // records written
		stderr        string
	}{
		// The line's object and 9998 lists: 9998 deep in meta, under the record and meta.
		{"kept.jsonl", `{"id":"1","question":"x","src":` + deep(9998) + "}\n", nil, 1, ""},
		{"deep.jsonl", `{"id":"1","question":"x","src":` + deep(9999) + "}\n", nil, 0, `deep.jsonl:1 (id "1"): ` + tooDeep},
		{"array.json", "[\n" + `{"id":"1","question":"x","src":` + deep(9998) + "}]\n", []string{"--format", "jsonl"}, 1, ""},
		{"results.jsonl", evalearn + deep(9999) + "}\n", []string{"--format", "evalearn-results"}, 0,
			`results.jsonl:1 (id "evalearn:19:2"): ` + tooDeep},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		Run(context.Background(), append(append([]string{"qa-load"}, tc.flags...), path), nil, &stdout, &stderr)
		msg := strings.TrimPrefix(strings.SplitN(stderr.String(), "\n", 2)[0], "qa-load: ")
		msg = strings.ReplaceAll(msg, dir+string(filepath.Separator), "")
		if strings.HasPrefix(msg, "warning") {
			msg = ""
		}
		if n := strings.Count(stdout.String(), "\n"); n != tc.stdout || msg != tc.stderr {
			t.Errorf("%s: %d records, message %q; want %d, %q", tc.name, n, msg, tc.stdout, tc.stderr)
		}
		for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			if l != "" && !json.Valid([]byte(l)) {
				t.Errorf("%s: a line written is no JSON the stages read: %.100s", tc.name, l)
			}
		}
	}
}

// TestLacksID: the causes (without an array item's index) that keep watching a file whose name
// picked its format, those of an item that lacks the benchmark's id field as a generic row does,
// and those that show the file holds the benchmark's items, or others that are no rows.
func TestLacksID(t *testing.T) {
	for _, tc := range []struct {
		cause, format string
		want          bool
	}{
		{`missing field "_id"`, "hotpotqa", true},
		{`missing field "sample_id"`, "locomo", true},
		{`missing field "question_id"`, "longmemeval", true},
		{`missing field "question"`, "longmemeval", false}, // its evaluation results, say
		{`missing field "_id"`, "locomo", false},
		{`missing field "_id"`, "squad", false},
		{`qa[0]: missing field "question"`, "locomo", false},
		{`question: want a string, got null`, "hotpotqa", false},
		{`missing field "_id" `, "hotpotqa", false},
	} {
		if got := lacksID(tc.cause, tc.format); got != tc.want {
			t.Errorf("lacksID(%q, %s) = %v, want %v", tc.cause, tc.format, got, tc.want)
		}
	}
}

// TestWatchedCutPrintsHeld: a file watched for being in another format than the one read (here
// generic rows whose name, hotpot_rows.jsonl.gz, picked hotpotqa) whose read fails before the
// watch decides (a gzip file cut short within its first 20 items) prints every bad item it held,
// as an unwatched file would have, before the read error: all but the first were lost.
func TestWatchedCutPrintsHeld(t *testing.T) {
	var text bytes.Buffer
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		fmt.Fprintf(&text, `{"id":"q%d","question":"%x","answers":["%x"]}`+"\n", i, rng.Uint64(), rng.Uint64())
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(text.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hotpot_rows.jsonl.gz")
	for cut := 100; cut < b.Len(); cut += 20 {
		if err := os.WriteFile(path, b.Bytes()[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), []string{"qa-load", path}, nil, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "gzip data ends early") {
			break // cut past the 20th item: the watch stopped the load
		}
		bad := strings.Count(stderr.String(), "\n")
		if bad == 0 {
			continue // cut within the first line
		}
		if lines := strings.Count(stderr.String(), `missing field "_id"`); lines != bad || !strings.Contains(err.Error(), fmt.Sprintf("after line %d:", bad)) {
			t.Errorf("cut at %d: %d messages of a missing _id, error %v; want one for each of the lines read:\n%s", cut, lines, err, stderr.String())
		}
	}
}
