package learncurve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/load"
)

// TestPipeline runs qa-load --format evalearn-results | qa-learncurve in process on every golden
// case, as ../shared/tools/check-learncurve does with the binaries.
func TestPipeline(t *testing.T) {
	for _, g := range goldenReports(t) {
		t.Run(g.name, func(t *testing.T) {
			var recs, loadErr bytes.Buffer
			err := load.Run(context.Background(), []string{"qa-load", "--format", "evalearn-results", g.results}, nil, &recs, &loadErr)
			if err != nil {
				t.Fatalf("qa-load: exit %d: %v\n%s", command.ExitCode(err), err, loadErr.String())
			}
			var out, stderr bytes.Buffer
			args := []string{"qa-learncurve", "--problems", fmt.Sprint(g.m), "--warmup", fmt.Sprint(g.k)}
			err = Run(context.Background(), args, &recs, &out, &stderr)
			// The results EvaLearn skips, without a sequence or a position, are counted and make
			// the exit code 3; nothing else does.
			n, wantCode := unsequenced(t, g.results), 0
			if n > 0 {
				wantCode = command.ExitBadRecords
			}
			if code := command.ExitCode(err); code != wantCode {
				t.Fatalf("qa-learncurve: exit %d (%v), want %d: %d results without a sequence\n%s", code, err, wantCode, n, stderr.String())
			}
			if skipped := english.Count(n, "record", "records") + " without a sequence id or position skipped"; n > 0 && err.Error() != skipped {
				t.Errorf("qa-learncurve: %q, want %q", err, skipped)
			}
			want, err := os.ReadFile(g.name)
			if err != nil {
				t.Fatal(err)
			}
			if diffs := compareJSON(t, out.Bytes(), want, 1e-9); len(diffs) > 0 {
				t.Errorf("pipeline report differs from %s in %d places:\n%v", g.name, len(diffs), diffs[:min(len(diffs), 10)])
			}
		})
	}
}

// TestPlotFiles writes the plot of a golden case as PNG and SVG through the command.
func TestPlotFiles(t *testing.T) {
	dir := t.TempDir()
	var recs, loadErr bytes.Buffer
	in := "testdata/evalearn/case1_clean/results.jsonl"
	if err := load.Run(context.Background(), []string{"qa-load", "--format", "evalearn-results", in}, nil, &recs, &loadErr); err != nil {
		t.Fatalf("qa-load: %v\n%s", err, loadErr.String())
	}
	for _, name := range []string{"curve.png", "curve.svg"} {
		file := filepath.Join(dir, name)
		var out, stderr bytes.Buffer
		if err := Run(context.Background(), []string{"qa-learncurve", "--plot", file}, bytes.NewReader(recs.Bytes()), &out, &stderr); err != nil {
			t.Fatalf("qa-learncurve --plot %s: %v\n%s", name, err, stderr.String())
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".svg") {
			if len(b) < 1000 || !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("Position in sequence")) {
				t.Errorf("%s: %d bytes, want an SVG document with the axis label", name, len(b))
			}
			continue
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s does not decode as PNG: %v", name, err)
		}
		wantW, wantH := int(PlotWidth/vg.Inch*PlotDPI), int(PlotHeight/vg.Inch*PlotDPI) // 960x480
		if got := img.Bounds().Size(); got.X != wantW || got.Y != wantH {
			t.Errorf("%s is %dx%d, want %dx%d", name, got.X, got.Y, wantW, wantH)
		}
	}
}

// TestPlotLegendFits: a type whose name is too long for the legend column keeps its "(n=…,
// k=…)", the middle of the name left out ("…") to fit; the label ran off the picture's right edge, losing
// the count and slope. Names that fit are written whole.
func TestPlotLegendFits(t *testing.T) {
	long := "A rather long task type name of a sequential benchmark"
	rep := Compute([]Sequence{
		{ID: "1", Type: NamedType(long), Y: []int{0, 1, 1}},
		{ID: "2", Type: NamedType("Extraction"), Y: []int{1, 0, 1}},
	}, 3, 1)
	_, legend, _, err := newPlot(rep, "svg")
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if _, err := WritePlot(&svg, "svg", rep); err != nil {
		t.Fatal(err)
	}
	// The legend's entries, where they start and what they say.
	texts := regexp.MustCompile(`<text x="([0-9.]+)"[^>]*>([^<]*\(n=[^<]*)</text>`).FindAllStringSubmatch(svg.String(), -1)
	var labels []string
	for _, m := range texts {
		x, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		label := html.UnescapeString(m[2])
		labels = append(labels, label)
		if end := vg.Length(x) + legend.TextStyle.Width(label); end > PlotWidth {
			t.Errorf("legend label %q ends at %v, past the picture's width %v", label, end, PlotWidth)
		}
	}
	if len(labels) != 2 {
		t.Fatalf("legend labels %q, want one per type", labels)
	}
	if !strings.HasPrefix(labels[0], "A rather ") || !strings.Contains(labels[0], "…") || !strings.HasSuffix(labels[0], "benchmark (n=1, k=+0.500)") {
		t.Errorf("label of the long type = %q, want its name's start and end, … between, then (n=1, k=+0.500)", labels[0])
	}
	if labels[1] != "Extraction (n=1, k=+0.000)" {
		t.Errorf("label of a short type = %q, want it whole", labels[1])
	}
}

// TestSlopeText: a legend's slope is signed with three decimals, and one that rounds to zero
// (a slope of -1e-17 from the fit's noise, or -0.0004) reads +0.000, not -0.000.
func TestSlopeText(t *testing.T) {
	for _, tc := range []struct {
		k    float64
		want string
	}{
		{0.5, "+0.500"}, {-0.25, "-0.250"}, {0, "+0.000"}, {math.Copysign(0, -1), "+0.000"},
		{-1e-17, "+0.000"}, {-0.0004, "+0.000"}, {-0.0006, "-0.001"}, {0.0004, "+0.000"},
	} {
		if got := slopeText(tc.k); got != tc.want {
			t.Errorf("slopeText(%g) = %q, want %q", tc.k, got, tc.want)
		}
	}
}

// unsequenced counts the results in file (EvaLearn's results, JSON lines or one JSON array) that
// have no sequence_id or no position_in_sequence, or null, which EvaLearn's metrics skip.
func unsequenced(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var results []map[string]json.RawMessage // numbers such as 1e400 kept as written
	if err := json.Unmarshal(data, &results); err != nil {
		results = nil
		for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var r map[string]json.RawMessage
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatalf("%s:%d: %v", file, i+1, err)
			}
			results = append(results, r)
		}
	}
	n := 0
	for _, r := range results {
		if null := func(k string) bool { v, ok := r[k]; return !ok || string(v) == "null" }; null("sequence_id") || null("position_in_sequence") {
			n++
		}
	}
	return n
}
