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
	"syscall"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
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

// TestOutputsIntoStdoutFile: an output flag naming, by its own name, the file stdout was
// redirected to is taken for stdout (`--plot c.svg > c.svg`): the report and the image, or the
// JSON report twice, would otherwise be written into one file, which would then be neither. So
// --plot there is --plot -, with its rules, and one that follows them writes the image alone;
// --output there is refused where stdout carries the image or the JSON report.
func TestOutputsIntoStdoutFile(t *testing.T) {
	recs := caseRecords(t)
	dir := t.TempDir()
	var report bytes.Buffer
	learncurve(t, recs, &report)
	for _, tc := range []struct {
		args []string // $OUT: the file stdout writes to
		want string   // the usage error
	}{
		{[]string{"--plot", "$OUT"}, "--plot $OUT: the image would go to stdout after the report: write the report to a file with --output FILE (then stdout carries the image only)"},
		{[]string{"--output", "$OUT", "--plot", "-", "--plot-format", "svg"}, "--output $OUT: stdout carries the image of --plot -: name a file for the report"},
		{[]string{"--output", "$OUT"}, "--output $OUT: is where stdout writes, which carries the JSON report anyway: name another file"},
	} {
		out, err := os.Create(filepath.Join(dir, "out.svg"))
		if err != nil {
			t.Fatal(err)
		}
		args := make([]string, len(tc.args))
		for i, a := range tc.args {
			args[i] = strings.ReplaceAll(a, "$OUT", out.Name())
		}
		var stderr bytes.Buffer
		err = Run(context.Background(), append([]string{"qa-learncurve"}, args...), bytes.NewReader(recs), out, &stderr)
		out.Close()
		want := strings.ReplaceAll(tc.want, "$OUT", out.Name())
		if code := command.ExitCode(err); code != command.ExitUsage || err.Error() != want {
			t.Errorf("%s: exit %d, error %v; want exit %d, %q", strings.Join(args, " "), code, err, command.ExitUsage, want)
		}
		if b, _ := os.ReadFile(out.Name()); len(b) != 0 {
			t.Errorf("%s: stdout's file holds %d bytes, want none", strings.Join(args, " "), len(b))
		}
	}

	// Following --plot -'s rules, the file gets the image alone and --output the report.
	out, err := os.Create(filepath.Join(dir, "curve.svg"))
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "report.json")
	learncurve(t, recs, out, "--plot", out.Name(), "--output", saved)
	out.Close()
	img, _ := os.ReadFile(out.Name())
	if !bytes.HasPrefix(img, []byte("<?xml")) || bytes.Contains(img, []byte("model_evaluation")) {
		t.Errorf("--plot %s > itself: the file holds %.60q…, want the SVG image alone", out.Name(), img)
	}
	if doc, _ := os.ReadFile(saved); !bytes.Equal(doc, report.Bytes()) {
		t.Errorf("--output %s holds %d bytes, want the %d of the report", saved, len(doc), report.Len())
	}
}

// TestUnwritableOutputs: an --output or --plot file that cannot be written, in a folder the file
// system makes no file in (/proc, even for root), fails before the report is written (exit 1):
// --plot, written after the report, printed the whole report to stdout first.
func TestUnwritableOutputs(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no /proc")
	}
	recs := caseRecords(t)
	for _, args := range [][]string{{"--plot", "/proc/qapipe-curve.svg"}, {"--output", "/proc/qapipe-report.json"}} {
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), append([]string{"qa-learncurve"}, args...), bytes.NewReader(recs), &stdout, &stderr)
		if code := command.ExitCode(err); code != 1 {
			t.Errorf("qa-learncurve %s: exit %d (%v), want 1", strings.Join(args, " "), code, err)
		}
		if stdout.Len() > 0 {
			t.Errorf("qa-learncurve %s wrote %d bytes to stdout, want none", strings.Join(args, " "), stdout.Len())
		}
		if want := args[0] + ": cannot write " + args[1] + ": "; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("qa-learncurve %s: error %v, want one starting %q", strings.Join(args, " "), err, want)
		}
	}
}

// fullWriter is a stdout on a full disk: every write fails as a write to a file there does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
}

// TestPlotOnFullDisk: a --plot that cannot be written for a full disk fails the run (exit 1) with
// the flag and the write's error, which names the file once: it said "--plot /dev/full: write
// /dev/full: …".
func TestPlotOnFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here:", err)
	}
	recs := caseRecords(t)
	report := filepath.Join(t.TempDir(), "report.json")
	tests := []struct {
		args   []string
		stdout io.Writer
		want   string
	}{
		{[]string{"--plot", "/dev/full", "--plot-format", "svg"}, io.Discard, "--plot: write /dev/full: no space left on device"},
		{[]string{"--plot", "-", "--plot-format", "png", "--output", report}, fullWriter{}, "--plot: write /dev/stdout: no space left on device"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		err := Run(context.Background(), append([]string{"qa-learncurve"}, tt.args...), bytes.NewReader(recs), tt.stdout, &stderr)
		if code := command.ExitCode(err); code != command.ExitFailure || err == nil || err.Error() != tt.want {
			t.Errorf("qa-learncurve %s: exit %d, %v; want exit 1, %q", strings.Join(tt.args, " "), code, err, tt.want)
		}
	}
}

// TestFailedRunLeavesOutputs: a run that fails on one of its outputs (stdout on a full disk, a
// --plot that cannot be written) leaves the --output and --plot files as they were, or none, as
// a failed qa-score leaves its --summary: --output was put in place before the report went to
// stdout and before the plot was written, so a failed run left a new report file, which make
// takes as up to date.
func TestFailedRunLeavesOutputs(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here:", err)
	}
	recs := caseRecords(t)
	tests := []struct {
		args   []string // $DIR: a folder of the test's
		stdout io.Writer
		want   string // the error
	}{
		{[]string{"--output", "$DIR/report.json", "--plot", "/dev/full", "--plot-format", "svg"}, io.Discard, "--plot: write /dev/full: no space left on device"},
		{[]string{"--output", "$DIR/report.json", "--plot", "$DIR/curve.svg"}, fullWriter{}, "write /dev/stdout: no space left on device"},
		{[]string{"--output", "$DIR/report.json", "--plot", "$DIR/curve.svg", "--format", FormatText}, fullWriter{}, "write /dev/stdout: no space left on device"},
		{[]string{"--output", "$DIR/report.json", "--plot", "-", "--plot-format", "png"}, fullWriter{}, "--plot: write /dev/stdout: no space left on device"},
	}
	for _, tt := range tests {
		for _, before := range []string{"", "old\n"} {
			dir := t.TempDir()
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "$DIR", dir)
			}
			files := []string{filepath.Join(dir, "report.json"), filepath.Join(dir, "curve.svg")}
			if before != "" {
				for _, f := range files {
					if err := os.WriteFile(f, []byte(before), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			var stderr bytes.Buffer
			err := Run(context.Background(), append([]string{"qa-learncurve"}, args...), bytes.NewReader(recs), tt.stdout, &stderr)
			if code := command.ExitCode(err); code != command.ExitFailure || err == nil || err.Error() != tt.want {
				t.Errorf("qa-learncurve %s: exit %d, %v; want exit 1, %q", strings.Join(args, " "), code, err, tt.want)
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				switch {
				case before == "" && err == nil:
					t.Errorf("qa-learncurve %s failed, but left %s (%d bytes), want none", strings.Join(args, " "), f, len(b))
				case before != "" && string(b) != before:
					t.Errorf("qa-learncurve %s failed, but replaced %s (%d bytes), want it as it was", strings.Join(args, " "), f, len(b))
				}
			}
			want := 0 // no file of its own left beside them either
			if before != "" {
				want = len(files)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != want {
				t.Errorf("qa-learncurve %s: the folder holds %d files, want %d", strings.Join(args, " "), len(entries), want)
			}
		}
	}
}
