//go:build unix

package learncurve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/load"
)

// caseRecords returns the records of a golden case, as qa-load writes them.
func caseRecords(t *testing.T) []byte {
	t.Helper()
	var recs, loadErr bytes.Buffer
	in := "testdata/evalearn/case1_clean/results.jsonl"
	if err := load.Run(context.Background(), []string{"qa-load", "--format", "evalearn-results", in}, nil, &recs, &loadErr); err != nil {
		t.Fatalf("qa-load: %v\n%s", err, loadErr.String())
	}
	return recs.Bytes()
}

// learncurve runs qa-learncurve with args over recs, its report going to stdout.
func learncurve(t *testing.T, recs []byte, stdout io.Writer, args ...string) {
	t.Helper()
	var stderr bytes.Buffer
	if err := Run(context.Background(), append([]string{"qa-learncurve"}, args...), bytes.NewReader(recs), stdout, &stderr); err != nil {
		t.Fatalf("qa-learncurve %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
}

// TestOutputsToNamedPipes: --output and --plot write to named pipes as to files (a pipe named
// curve.png, say, for the format), all of it.
func TestOutputsToNamedPipes(t *testing.T) {
	recs := caseRecords(t)
	dir := t.TempDir()
	var report bytes.Buffer
	learncurve(t, recs, &report)
	for _, format := range []string{"png", "svg"} {
		file := filepath.Join(dir, "file."+format)
		learncurve(t, recs, io.Discard, "--plot", file)
		plot, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		outputFIFO, plotFIFO := filepath.Join(dir, "report.json"), filepath.Join(dir, "pipe."+format)
		outputGot, plotGot := clitest.ReadFIFO(t, outputFIFO), clitest.ReadFIFO(t, plotFIFO)
		learncurve(t, recs, io.Discard, "--output", outputFIFO, "--plot", plotFIFO)
		if got := outputGot(); got != report.String() {
			t.Errorf("the --output pipe carried:\n%s\nwant the report:\n%s", got, report.String())
		}
		if got := plotGot(); got != string(plot) {
			t.Errorf("the --plot pipe (%s) carried %d bytes, want the %d of the plot in a file", format, len(got), len(plot))
		}
		os.Remove(outputFIFO)
	}
}

// TestOutputIntoStdoutFile: --output /dev/stdout with stdout redirected to a file (or the file's
// own name, or /dev/fd/1) puts the JSON report before the text report: opened afresh, the file
// was truncated and written from its start, and the text report overwrote the JSON one.
func TestOutputIntoStdoutFile(t *testing.T) {
	recs := caseRecords(t)
	var doc, text bytes.Buffer
	learncurve(t, recs, &doc)
	dir := t.TempDir()
	for _, name := range []string{"", "/dev/fd/%d"} {
		out, err := os.Create(filepath.Join(dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		path := out.Name()
		if name != "" {
			path = fmt.Sprintf(name, out.Fd())
		}
		text.Reset()
		learncurve(t, recs, &text, "--format", FormatText, "--output", filepath.Join(dir, "saved.json"))
		want := doc.String() + strings.ReplaceAll(text.String(), filepath.Join(dir, "saved.json"), path)
		learncurve(t, recs, out, "--format", FormatText, "--output", path)
		out.Close()
		b, err := os.ReadFile(out.Name())
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); got != want {
			t.Errorf("--output %s: stdout's file holds\n%s\nwant the JSON report, then the text:\n%s", path, got, want)
		}
	}
}
