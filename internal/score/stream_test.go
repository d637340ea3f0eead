package score

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestOrderAcrossJobs scores the same input with one worker and with several: the output (records
// in input order, summary) must be byte-identical.
func TestOrderAcrossJobs(t *testing.T) {
	var in strings.Builder
	for i := range 600 {
		fmt.Fprintf(&in, `{"schema":1,"id":"r%d","type":"t%d","question":"q","answers":["w%d x y"],"prediction":{"text":"w%d x z"}}`+"\n", i, i%3, i%17, i%5)
		if i%97 == 0 {
			in.WriteString("not json\n")
		}
	}
	run := func(jobs string, summary bool) []byte {
		args := []string{"qa-score", "--jobs", jobs, "--metrics", "em,f1,rouge1,bleu1", "--bootstrap", "50"}
		if summary {
			args = append(args, "--summary", "-")
		}
		var out, errs bytes.Buffer
		err := Run(context.Background(), args, strings.NewReader(in.String()), &out, &errs)
		var want = "7 bad input lines skipped"
		if err == nil || err.Error() != want {
			t.Fatalf("Run(--jobs %s) = %v, want %q", jobs, err, want)
		}
		return out.Bytes()
	}
	for _, summary := range []bool{false, true} {
		one, many := run("1", summary), run("7", summary)
		if !bytes.Equal(one, many) {
			t.Errorf("--jobs 1 and --jobs 7 differ (summary %v):\n%s\n---\n%s", summary, head(one), head(many))
		}
		if !summary {
			if n := bytes.Count(one, []byte("\n")); n != 600 {
				t.Errorf("--jobs 1 wrote %d records, want 600", n)
			}
			if !bytes.HasPrefix(one, []byte(`{"schema":1,"id":"r0",`)) {
				t.Errorf("first record = %s, want r0", head(one))
			}
		}
	}
}

func head(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// TestInterrupted: a cancelled run reports context.Canceled (exit 130).
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := strings.Repeat(`{"schema":1,"id":"a","question":"q","answers":["a"],"prediction":{"text":"a"}}`+"\n", 1000)
	var out, errs bytes.Buffer
	err := Run(ctx, []string{"qa-score", "--metrics", "em"}, strings.NewReader(in), &out, &errs)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run(cancelled) = %v, want context.Canceled", err)
	}
	if got := errs.String(); got != "" {
		t.Errorf("Run(cancelled) stderr = %q, want nothing (main reports the error)", got)
	}
	command.Report(&errs, "qa-score", err)
	if got := errs.String(); got != "qa-score: interrupted\n" {
		t.Errorf("reported stderr = %q, want %q", got, "qa-score: interrupted\n")
	}
}

// TestDecodedValuesOwnTheirBytes: the line buffers are recycled once a record is decoded and
// encoded (bufPool), which is safe only while nothing decoded refers to the line's bytes.
func TestDecodedValuesOwnTheirBytes(t *testing.T) {
	data := []byte(`{"schema":1,"id":"r1","type":"multi_hop","question":"Who?","answers":["Ann Lee","A. Lee"],` +
		`"meta":{"category":1,"abstention":false,"supporting_facts":[["T",0]]},` +
		`"prediction":{"text":"Ann","error":"","supporting_facts":[["T",1]]}}`)
	rec, bad := decodeView(line{file: "in.jsonl", no: 1, data: data}, true)
	if bad != nil {
		t.Fatal(bad)
	}
	for i := range data {
		data[i] = 'x'
	}
	got, err := record.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema":1,"id":"r1","type":"multi_hop","question":"Who?","answers":["Ann Lee","A. Lee"],` +
		`"meta":{"abstention":false,"category":1,"supporting_facts":[["T",0]]},` +
		`"prediction":{"text":"Ann","supporting_facts":[["T",1]]}}`
	if string(got) != want {
		t.Errorf("record after its line was overwritten:\n got %s\nwant %s", got, want)
	}
}

// TestRecycledBuffers runs lines of many lengths through several workers, with and without a
// scores member already there and with records no metric applies to (written back as they
// came): every output line must be its input line with the scores added, whatever buffer it was
// built in.
func TestRecycledBuffers(t *testing.T) {
	var in strings.Builder
	var inputs []string
	for i := range 3000 {
		pad := strings.Repeat("w ", i%400)
		var l string
		switch i % 4 {
		case 0, 1:
			l = fmt.Sprintf(`{"schema":1,"id":"r%d","question":"%s","answers":["a%d b"],"prediction":{"text":"a%d c"}}`, i, pad, i%7, i%5)
		case 2:
			l = fmt.Sprintf(`{"schema":1,"id":"r%d","question":"%s","answers":["x y"],"prediction":{"text":"x"},"scores":{"old":0.5}}`, i, pad)
		default:
			l = fmt.Sprintf(`{"schema":1,"id":"r%d","question":"%s","answers":["a"],"prediction":{"error":"timeout"}}`, i, pad)
		}
		inputs = append(inputs, l)
		in.WriteString(l + "\n")
	}
	var out, errs bytes.Buffer
	err := Run(context.Background(), []string{"qa-score", "--jobs", "8", "--metrics", "em,f1"}, strings.NewReader(in.String()), &out, &errs)
	if want := "750 records with prediction or judge errors"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Run = %v, want an error about %q", err, want)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(inputs) {
		t.Fatalf("%d lines out, want %d", len(lines), len(inputs))
	}
	for i, l := range lines {
		want := inputs[i]
		switch i % 4 {
		case 0, 1:
			if k := strings.LastIndex(l, `,"scores":{`); k < 0 || l[:k]+"}" != want {
				t.Fatalf("line %d = %.120s…, want its input with scores added", i+1, l)
			}
		case 2:
			want = strings.Replace(want, `"scores":{"old":0.5}`, `"scores":{"em":0,"f1":0.6666666666666666,"old":0.5}`, 1)
		}
		if i%4 >= 2 && l != want {
			t.Fatalf("line %d:\n got %.160s\nwant %.160s", i+1, l, want)
		}
	}
}

// TestGzipInput: qa-score reads a gzip-compressed file as the lines it holds (textfile.NewReader).
func TestGzipInput(t *testing.T) {
	line := `{"schema":1,"id":"a","question":"q","answers":["x y"],"prediction":{"text":"x"}}`
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(line + "\n"))
	zw.Close()
	path := filepath.Join(t.TempDir(), "run.jsonl.gz")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	err := Run(context.Background(), []string{"qa-score", "--metrics", "em,f1", path}, nil, &out, &errs)
	want := strings.TrimSuffix(line, "}") + `,"scores":{"em":0,"f1":0.6666666666666666}}` + "\n"
	if err != nil || out.String() != want {
		t.Errorf("Run(gzip file) = %v, %q; stderr %q; want %q", err, out.String(), errs.String(), want)
	}
}

// TestCutDocument: a gzip-compressed JSON document cut short before its twentieth line has each
// message of the lines read reported once, then the cut: the lines held while it could still be a
// document are not lost with the read error.
func TestCutDocument(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("[\n"))
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 18 {
		fmt.Fprintf(zw, "  \"%x", rnd.Uint64())
		for range 60 {
			fmt.Fprintf(zw, "%x", rnd.Uint64()) // text gzip cannot shrink much, so the cut falls early
		}
		zw.Write([]byte("\",\n"))
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), "doc.json.gz")
	if err := os.WriteFile(path, b.Bytes()[:b.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	err := Run(context.Background(), []string{"qa-score", "--metrics", "em", path}, nil, &out, &errs)
	lines := strings.Split(strings.TrimSuffix(errs.String(), "\n"), "\n")
	if err == nil || !strings.Contains(err.Error(), "gzip data ends early") || len(lines) != 2 ||
		lines[0] != "qa-score: "+path+":1: invalid record: unexpected end of JSON input" ||
		lines[len(lines)-1] != fmt.Sprintf("qa-score: %s:%d: invalid record: invalid character ',' after top-level value", path, len(lines)) {
		t.Errorf("Run(cut document) = %v; stderr %q; want lines 1 and 2 reported, then the cut", err, errs.String())
	}
}

// TestSummaryGzipFormat: a --summary file whose name ends in .gz is written gzip-compressed in the
// format the extension before it names, as the same name without .gz would be: s.csv.gz holds
// csv, not JSON; --format wins over it, as over any extension.
func TestSummaryGzipFormat(t *testing.T) {
	in := `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\n"
	for _, tc := range []struct {
		name   string
		format string // --format, if given
		want   string // a line that tells the summary's format
	}{
		{"s.json.gz", "", "\n  \"records\": 1,\n"},
		{"s.csv.gz", "", "\noverall,em,1,1,,\n"},
		{"s.CSV.GZ", "", "\noverall,em,1,1,,\n"},
		{"s.md.gz", "", "\n| overall | em | 1 | 1.0000 |\n"},
		{"s.txt.gz", "", "\noverall  em      1      1.0000\n"},
		{"s.gz", "", "\n  \"records\": 1,\n"},
		{"s.csv.gz", "json", "\n  \"records\": 1,\n"},
		{"s.json.gz", "markdown", "\n| overall | em | 1 | 1.0000 |\n"},
	} {
		t.Run(tc.name+"/"+tc.format, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name)
			args := []string{"qa-score", "--metrics", "em", "--bootstrap", "0", "--summary", path}
			if tc.format != "" {
				args = append(args, "--format", tc.format)
			}
			var out, errs bytes.Buffer
			if err := Run(context.Background(), args, strings.NewReader(in), &out, &errs); err != nil {
				t.Fatalf("Run(%q) = %v; stderr %q", args[1:], err, errs.String())
			}
			got := bytes.NewBuffer(clitest.Gunzip(t, path))
			if !strings.Contains(got.String(), tc.want) {
				t.Errorf("--summary %s --format %q: summary %q, want it to hold %q", tc.name, tc.format, got.String(), tc.want)
			}
		})
	}
}

// TestProgressBar: on a terminal qa-score draws a bar of the bytes it has read against the input
// files' sizes (here a gzip file's stored bytes); the records on stdout are as without it.
func TestProgressBar(t *testing.T) {
	var plain bytes.Buffer
	zw := gzip.NewWriter(&plain)
	for i := range 2000 {
		fmt.Fprintf(zw, `{"schema":1,"id":"q%d","question":"q","answers":["x y"],"prediction":{"text":"x"}}`+"\n", i)
	}
	zw.Close()
	path := clitest.TempFile(t, "run.jsonl.gz", plain.Bytes())
	clitest.ProgressBar(t, Run, []string{"qa-score", "--metrics", "f1", "--summary", "-", path}, "B/s)")
}

// TestFailedRunLeavesNoSummary: the summary file is made before the work (so that a bad path
// fails at once) under a name of its own, and put in place only when the run gets to its end: a
// failed run leaves no summary where there was none, and the files there were (a summary of an
// earlier run, mismatches; a file of records named by mistake) as they were.
func TestFailedRunLeavesNoSummary(t *testing.T) {
	dir := t.TempDir()
	path, mismatches := filepath.Join(dir, "summary.json"), filepath.Join(dir, "low.jsonl")
	in := `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"y"}}` + "\nnot json\n"
	var out, errs bytes.Buffer
	if err := Run(context.Background(), []string{"qa-score", "--strict", "--summary", path}, strings.NewReader(in), &out, &errs); err == nil {
		t.Fatal("Run(--strict, bad line) succeeded")
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("files after a failed run: %v, want none", names)
	}
	old := map[string]string{path: "earlier summary\n", mismatches: "earlier mismatches\n"}
	for p, text := range old {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Run(context.Background(), []string{"qa-score", "--strict", "--summary", path, "--mismatches", mismatches},
		strings.NewReader(in), &out, &errs); err == nil {
		t.Fatal("Run(--strict, bad line) succeeded")
	}
	for p, text := range old {
		if b, err := os.ReadFile(p); err != nil || string(b) != text {
			t.Errorf("%s after a failed run: %q, %v; want %q", p, b, err, text)
		}
	}
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("files after a failed run: %v, want the two there were", names)
	}
	// Bad lines without --strict still end with a summary and mismatches (and exit 3).
	if err := Run(context.Background(), []string{"qa-score", "--summary", path, "--mismatches", mismatches},
		strings.NewReader(in), &out, &errs); err == nil {
		t.Fatal("Run(bad line) = nil, want exit 3")
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Contains(b, []byte(`"records": 1`)) {
		t.Errorf("summary after a run with a bad line: %v, %.100s; want one with records 1", err, b)
	}
	if b, err := os.ReadFile(mismatches); err != nil || !bytes.Contains(b, []byte(`"id":"a"`)) {
		t.Errorf("mismatches after a run with a bad line: %v, %.100s; want record a's", err, b)
	}
}

// dirNames lists the names of the files in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestLaterInputUnreadable: an input that fails while it is read (here a damaged gzip file) ends
// the run with its error, but every record of the inputs read before it is written first,
// whatever the number of workers. A missing file is refused before any reading (CheckInputs).
func TestLaterInputUnreadable(t *testing.T) {
	var in strings.Builder
	for i := range 400 {
		fmt.Fprintf(&in, `{"schema":1,"id":"r%d","question":"q","answers":["a b"],"prediction":{"text":"a c"}}`+"\n", i)
	}
	first := clitest.TempFile(t, "first.jsonl", []byte(in.String()))
	// gzip's magic bytes, then a compression method that is not deflate: fails at once.
	second := clitest.TempFile(t, "second.jsonl.gz", []byte{0x1f, 0x8b, 0x01, 0, 0, 0, 0, 0, 0, 0xff})
	for _, jobs := range []string{"1", "4"} {
		var out, errs bytes.Buffer
		err := Run(context.Background(), []string{"qa-score", "--jobs", jobs, "--metrics", "f1", first, second}, nil, &out, &errs)
		if err == nil || !strings.Contains(err.Error(), "second.jsonl.gz") {
			t.Errorf("--jobs %s: Run = %v, want the damaged file's error", jobs, err)
		}
		if n := bytes.Count(out.Bytes(), []byte("\n")); n != 400 {
			t.Errorf("--jobs %s: %d records written, want the first file's 400", jobs, n)
		}
	}
	var out, errs bytes.Buffer
	err := Run(context.Background(), []string{"qa-score", "--metrics", "f1", first, filepath.Join(t.TempDir(), "missing.jsonl")}, nil, &out, &errs)
	if err == nil || out.Len() != 0 {
		t.Errorf("missing second file: Run = %v with %d bytes written, want an error before any", err, out.Len())
	}
}

// TestCutLastLine: qa-score's own line reader says, as record.Reader does, that an input ends
// inside its last line when that line has no line end and is no whole JSON value.
func TestCutLastLine(t *testing.T) {
	in := `{"schema":1,"id":"a","question":"q","answers":["a"],"prediction":{"text":"a"}}` + "\n" + `{"schema":1,"id":"b","quest`
	var out, errs bytes.Buffer
	err := Run(context.Background(), []string{"qa-score", "--metrics", "em"}, strings.NewReader(in), &out, &errs)
	want := `qa-score: stdin:2 (id "b"): invalid record: unexpected end of JSON input (the input ends inside this line, which has no line end: was it cut short, or did its writer stop?)`
	if err == nil || !strings.Contains(errs.String(), want+"\n") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("Run = %v, %d lines out; stderr:\n%s\nwant the line %q", err, strings.Count(out.String(), "\n"), errs.String(), want)
	}
}

// TestRecordsAsTheyCome: a scored record is written out before the next input line comes (as
// from qa-predict, a record at a time), not held in the output buffer until the input ends.
func TestRecordsAsTheyCome(t *testing.T) {
	var lines []string
	for i := range 3 {
		lines = append(lines, fmt.Sprintf(`{"schema":1,"id":"q%d","question":"Where?","answers":["Paris"],"prediction":{"text":"Paris"}}`, i))
	}
	out := clitest.RecordsAsTheyCome(t, Run, []string{"qa-score", "--metrics", "em"}, lines)
	if n := strings.Count(out, `"scores":{"em":1}`); n != 3 {
		t.Errorf("%d scored records, want 3:\n%s", n, out)
	}
}

// TestInterruptedInSummary: a signal while the summary's intervals are computed, every record
// written, stops the run there (exit 130, no --summary file), as a signal while records are
// read does: the resampling went on to its end, the summary was written and the exit code was 0,
// or, with more resamples than 10 s let it finish, the process was ended by the grace period
// ("still running 10s later").
func TestInterruptedInSummary(t *testing.T) {
	t.Cleanup(command.WaitComputed) // the resamples left running end before the next test
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var in strings.Builder
	for i := range 200 {
		pred := "a"
		if i%3 == 0 {
			pred = "b"
		}
		fmt.Fprintf(&in, `{"schema":1,"id":"r%d","question":"q","answers":["a"],"prediction":{"text":%q}}`+"\n", i, pred)
	}
	summary := filepath.Join(t.TempDir(), "summary.json")
	// Half a million resamples of 200 records take a good part of a second; the signal comes as they begin.
	stdin := clitest.ThenAtEOF(strings.NewReader(in.String()), func() { time.AfterFunc(50*time.Millisecond, cancel) })
	var out, errs bytes.Buffer
	start := time.Now()
	err := Run(ctx, []string{"qa-score", "--metrics", "em", "--bootstrap", "500000", "--summary", summary}, stdin, &out, &errs)
	if code := command.ExitCode(err); code != command.ExitInterrupted {
		t.Errorf("Run(interrupted in the summary) exit = %d (%v) after %v, want %d", code, err, time.Since(start), command.ExitInterrupted)
	}
	if _, err := os.Stat(summary); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("--summary %s: %v; want no file", summary, err)
	}
}

// TestStrictStopsLongInput: --strict stops at a bad line followed by more lines than the stream
// holds waiting for the emitter (4 × --jobs): the reader, blocked handing those on, is released
// and the run ends with the bad line's error, not hanging.
func TestStrictStopsLongInput(t *testing.T) {
	in := "not json\n" + strings.Repeat(`{"schema":1,"id":"a","question":"q","answers":["a"],"prediction":{"text":"a"}}`+"\n", 200)
	var out, errs bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), []string{"qa-score", "--metrics", "em", "--strict", "--jobs", "1"}, strings.NewReader(in), &out, &errs)
	}()
	select {
	case err := <-done:
		want := "stdin:1: not JSON at column 1: invalid character 'o' in literal null (expecting 'u')"
		if err == nil || err.Error() != want || command.ExitCode(err) != 1 {
			t.Errorf("Run = %v (exit %d), want %q (exit 1)", err, command.ExitCode(err), want)
		}
		if out.Len() != 0 {
			t.Errorf("stdout %q, want nothing: the bad line came first", out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run still running 20 s after its first line, a bad one under --strict")
	}
}
