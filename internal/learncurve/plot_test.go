package learncurve

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg/draw"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestTypeStyles: every type's curve is told apart from every other's, for 20 types and up to
// 104, by its colour and its points' glyph together, and by colour alone for the first 13;
// plotutil's palette gave the 8th type the 1st one's colour. The first seven types keep
// plotutil's colours, as before, and none is the averaged curve's black.
func TestTypeStyles(t *testing.T) {
	type style struct {
		c     color.RGBA
		glyph draw.GlyphDrawer
	}
	rgba := func(c color.Color) color.RGBA {
		r, g, b, a := c.RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
	}
	for _, n := range []int{20, 104} {
		seen := map[style]int{}
		for i := range n {
			c, glyph := typeStyle(i)
			s := style{rgba(c), glyph}
			if j, ok := seen[s]; ok {
				t.Errorf("%d types: type %d has the style of type %d (%v, %T)", n, i, j, s.c, s.glyph)
			}
			seen[s] = i
		}
	}
	colors := map[color.RGBA]int{}
	for i := range 13 {
		c, _ := typeStyle(i)
		if j, ok := colors[rgba(c)]; ok {
			t.Errorf("type %d has the colour of type %d, %v", i, j, rgba(c))
		}
		colors[rgba(c)] = i
		if rgba(c) == rgba(color.Black) {
			t.Errorf("type %d is black, the averaged curve's colour", i)
		}
	}
	for i, want := range plotutil.SoftColors {
		if c, _ := typeStyle(i); rgba(c) != rgba(want) {
			t.Errorf("type %d: colour %v, want plotutil's %v as before", i, rgba(c), rgba(want))
		}
	}
}

// TestPlotManyTypes: a plot of 20 types draws them in 13 colours (and black for the average).
func TestPlotManyTypes(t *testing.T) {
	var seqs []Sequence
	for i := range 20 {
		seqs = append(seqs, Sequence{ID: fmt.Sprint(i), Type: NamedType(fmt.Sprintf("type %02d", i)), Y: []int{i % 2, 1, 0}})
	}
	var svg bytes.Buffer
	if _, err := WritePlot(&svg, "svg", Compute(seqs, 3, 1)); err != nil {
		t.Fatal(err)
	}
	strokes := map[string]bool{}
	for _, m := range regexp.MustCompile(`stroke:(#[0-9A-F]{6})`).FindAllStringSubmatch(svg.String(), -1) {
		strokes[m[1]] = true
	}
	for i := range 13 {
		c, _ := typeStyle(i)
		r, g, b, _ := c.RGBA()
		if hex := fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8); !strokes[hex] {
			t.Errorf("the plot of 20 types draws no curve in type %d's colour %s; strokes %v", i, hex, strokes)
		}
	}
	// The types' 13, black for the average, and the grid's and the fit entry's greys.
	if len(strokes) != 16 {
		t.Errorf("the plot of 20 types strokes in %d colours, want 16 (13 for the types); strokes %v", len(strokes), strokes)
	}
}

// TestPlotLegendAllEntries: every legend entry is drawn inside the picture, however many types:
// past about 30 the picture grows taller for them, where the entries past its bottom edge, the
// averaged curve's and the fit's among them, were drawn off it. With few types the picture keeps
// its size.
func TestPlotLegendAllEntries(t *testing.T) {
	for _, tc := range []struct {
		types  int
		height float64 // points; 0: more than PlotHeight
	}{
		{6, float64(PlotHeight)},
		{28, float64(PlotHeight)},
		{40, 0},
		{100, 0},
	} {
		var seqs []Sequence
		for i := range tc.types {
			seqs = append(seqs, Sequence{ID: fmt.Sprint(i), Type: NamedType(fmt.Sprintf("type %03d", i)), Y: []int{i % 2, 1, 0}})
		}
		var svg bytes.Buffer
		if _, err := WritePlot(&svg, "svg", Compute(seqs, 3, 1)); err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`viewBox="0 0 ([0-9.]+) ([0-9.]+)"`).FindStringSubmatch(svg.String())
		if m == nil {
			t.Fatalf("%d types: no viewBox in the SVG", tc.types)
		}
		height, _ := strconv.ParseFloat(m[2], 64)
		if tc.height > 0 && height != tc.height || tc.height == 0 && height <= float64(PlotHeight) {
			t.Errorf("%d types: the picture is %vpt tall, want %v (0: taller than %v)", tc.types, height, tc.height, float64(PlotHeight))
		}
		// The text is drawn flipped: a baseline at y="-b" is b points above the bottom edge.
		entries := 0
		for _, e := range regexp.MustCompile(`<text x="[0-9.]+" y="(-?[0-9.]+)"[^>]*>\s*([^<]*)</text>`).FindAllStringSubmatch(svg.String(), -1) {
			if !strings.Contains(e[2], "(n=") && !strings.HasPrefix(e[2], "all types") && !strings.HasPrefix(e[2], "dashed") {
				continue
			}
			entries++
			y, _ := strconv.ParseFloat(e[1], 64)
			if base := -y; base < 3 || base > height {
				t.Errorf("%d types: legend entry %q has its baseline %vpt above the bottom edge of a picture %vpt tall", tc.types, e[2], base, height)
			}
		}
		if entries != tc.types+2 {
			t.Errorf("%d types: %d legend entries, want %d", tc.types, entries, tc.types+2)
		}
	}
}

// TestPlotToStdout: --plot - (or /dev/stdout) with --plot-format writes a whole, valid image to
// stdout and nothing else, the report going to --output only: a PNG that decodes to the plot's
// size, an SVG document whose root is an svg element of the plot's size in points.
func TestPlotToStdout(t *testing.T) {
	recs := []byte(`{"schema":1,"id":"a","question":"q","answers":["x"],"type":"T","sequence":{"id":"s","position":1},"judgments":{"evalearn":{"score":1}}}
{"schema":1,"id":"b","question":"q","answers":["x"],"type":"T","sequence":{"id":"s","position":2},"judgments":{"evalearn":{"score":0}}}
`)
	for _, tc := range []struct{ plot, format string }{{"-", "png"}, {"-", "svg"}, {"/dev/stdout", "png"}, {"/dev/stdout", "svg"}} {
		t.Run(tc.plot+" "+tc.format, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "report.json")
			var stdout, stderr bytes.Buffer
			args := []string{"qa-learncurve", "--problems", "2", "--warmup", "1", "--plot", tc.plot, "--plot-format", tc.format, "--output", report}
			if err := Run(context.Background(), args, bytes.NewReader(recs), &stdout, &stderr); err != nil {
				t.Fatalf("%v: %v\n%s", args, err, stderr.String())
			}
			b := stdout.Bytes()
			switch tc.format {
			case "png":
				if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
					t.Fatalf("stdout starts %.16q, want the PNG signature", b)
				}
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("png.Decode(stdout): %v", err)
				}
				if got, want := img.Bounds().Size(), image.Pt(int(PlotWidth.Dots(PlotDPI)), int(PlotHeight.Dots(PlotDPI))); got != want {
					t.Errorf("PNG size = %v, want %v", got, want)
				}
			case "svg":
				root, err := svgRoot(b)
				if err != nil {
					t.Fatalf("stdout is no SVG document: %v\n%.200s", err, b)
				}
				w, h := attr(root, "width"), attr(root, "height")
				if want := fmt.Sprintf("%gpt", PlotWidth.Points()); w != want {
					t.Errorf("svg width = %q, want %q", w, want)
				}
				if want := fmt.Sprintf("%gpt", PlotHeight.Points()); h != want {
					t.Errorf("svg height = %q, want %q", h, want)
				}
			}
			if bytes.Contains(b, []byte(`"model_evaluation"`)) {
				t.Errorf("stdout holds the report besides the image")
			}
			if rep, err := os.ReadFile(report); err != nil || !bytes.HasPrefix(rep, []byte("{\n  \"model_evaluation\"")) {
				t.Errorf("--output file = %.40q, %v; want the JSON report", rep, err)
			}
		})
	}
}

// TestPlotLegendApart: type names too long for the legend column that share their start and
// their end are cut again where they differ, so that no two curves are named alike: the
// symmetric cut gave both "Reasoning ov…d-out split", and six names "Type number…long name";
// with counts of other widths, it gave "Reasoning ov…d-out split (n=1, …)" and "Reasoning
// o…d-out split (n=12, …)", apart but naming neither. Every label still fits the column and
// keeps its count and slope.
func TestPlotLegendApart(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  []string // a part each label must hold
		count []int    // sequences of each name (1 when nil)
	}{
		{[]string{"Reasoning over tables, subset 1, from the held-out split", "Reasoning over tables, subset 2, from the held-out split"},
			[]string{"subset 1", "subset 2"}, nil},
		{[]string{"Type number 1 with a rather long name", "Type number 2 with a rather long name", "Type number 3 with a rather long name",
			"Type number 4 with a rather long name", "Type number 5 with a rather long name", "Type number 6 with a rather long name"},
			[]string{"number 1", "number 2", "number 3", "number 4", "number 5", "number 6"}, nil},
		{[]string{"A long name that only differs in its very last word: alpha", "A long name that only differs in its very last word: beta"},
			[]string{"alpha", "beta"}, nil},
		{[]string{"Extraction", "A rather long task type name of a sequential benchmark"},
			[]string{"Extraction", "benchmark"}, nil},
		{[]string{"Reasoning over tables, subset 1, from the held-out split", "Reasoning over tables, subset 2, from the held-out split"},
			[]string{"subset 1", "subset 2"}, []int{1, 12}},
		{[]string{"Type number 1 with a rather long name", "Type number 2 with a rather long name", "Type number 3 with a rather long name"},
			[]string{"number 1", "number 2", "number 3"}, []int{1, 100, 10}},
	} {
		var seqs []Sequence
		for i, n := range tc.names {
			count := 1
			if tc.count != nil {
				count = tc.count[i]
			}
			for j := range count {
				seqs = append(seqs, Sequence{ID: fmt.Sprint(i, "-", j), Type: NamedType(n), Y: []int{1, 0, 1}})
			}
		}
		rep := Compute(seqs, 3, 1)
		labels, warning := typeLabels(plot.NewLegend(), rep.Types, false)
		if warning != "" {
			t.Errorf("%q: warning %q, want none", tc.names, warning)
		}
		seen := map[string]bool{}
		room := legendTextRoom(plot.NewLegend())
		for i, l := range labels {
			name := rep.Types[i].Type.Name
			k := slices.Index(tc.names, name)
			suffix := fmt.Sprintf(" (n=%d, k=+0.000)", rep.Types[i].Sequences)
			if !strings.Contains(l, tc.want[k]) || !strings.HasSuffix(l, suffix) {
				t.Errorf("label of %q = %q, want it to hold %q and end in its count and slope", name, l, tc.want[k])
			}
			if seen[l] {
				t.Errorf("%q: two types labelled %q", tc.names, l)
			}
			seen[l] = true
			if w := plot.NewLegend().TextStyle.Width(l); w > room {
				t.Errorf("label %q is %v wide, more than the column's %v", l, w, room)
			}
		}
	}
}

// TestPlotLegendNumbered: types whose names are the same text (the number 1 and the string
// "1", say) are told apart by their place in the legend.
func TestPlotLegendNumbered(t *testing.T) {
	types := []TypeMetrics{{Type: NamedType("Same"), Sequences: 1}, {Type: NamedType("Same"), Sequences: 2}}
	labels, _ := typeLabels(plot.NewLegend(), types, false)
	if want := []string{"#1 Same (n=1, k=+0.000)", "#2 Same (n=2, k=+0.000)"}; !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
}

// TestPlotPNGUndrawable: the PNG's font has no Chinese characters, so a PNG names such a type
// by its place in the legend, and the warning says which name that is; the SVG keeps the names
// (the viewer's fonts draw them), measured as an em a character so that a long one is still cut
// to fit. The warning reaches stderr through the command, which still exits 0.
func TestPlotPNGUndrawable(t *testing.T) {
	seqs := []Sequence{
		{ID: "1", Type: NamedType("数学推理"), Y: []int{1, 0}},
		{ID: "2", Type: NamedType("Logic"), Y: []int{1, 1}},
		{ID: "3", Type: NamedType("逻辑推理"), Y: []int{0, 1}},
	}
	rep := Compute(seqs, 2, 1)
	labels, warning := typeLabels(plot.NewLegend(), rep.Types, true)
	want := []string{"Logic (n=1, k=+0.000)", "type #2 (n=1, k=-1.000)", "type #3 (n=1, k=+1.000)"}
	if !slices.Equal(labels, want) {
		t.Errorf("PNG labels %q, want %q", labels, want)
	}
	if wantW := `the PNG's font has no characters for 2 type names, so the legend names those types by their place: type #2 is "数学推理", type #3 is "逻辑推理" (an SVG plot, drawn with the viewer's fonts, shows the names)`; warning != wantW {
		t.Errorf("warning\n%s\nwant\n%s", warning, wantW)
	}
	labels, warning = typeLabels(plot.NewLegend(), rep.Types, false)
	if want := []string{"Logic (n=1, k=+0.000)", "数学推理 (n=1, k=-1.000)", "逻辑推理 (n=1, k=+1.000)"}; !slices.Equal(labels, want) || warning != "" {
		t.Errorf("SVG labels %q, warning %q; want %q, none", labels, warning, want)
	}
	long := strings.Repeat("推", 40)
	labels, _ = typeLabels(plot.NewLegend(), []TypeMetrics{{Type: NamedType(long), Sequences: 1}}, false)
	lb := newLabeller(plot.NewLegend())
	if !strings.Contains(labels[0], "…") || lb.width(labels[0]) > lb.room || lb.width(labels[0]) < lb.room*3/4 {
		t.Errorf("SVG label of 40 Chinese characters = %q, %v wide; want it cut to fit the column's %v", labels[0], lb.width(labels[0]), lb.room)
	}

	recs := `{"schema":1,"id":"a","type":"逻辑推理","sequence":{"id":"s","position":1},"judgments":{"evalearn":{"score":1}}}` + "\n"
	png := filepath.Join(t.TempDir(), "c.png")
	var stdout, stderr bytes.Buffer
	args := []string{"qa-learncurve", "--problems", "1", "--warmup", "0", "--plot", png}
	if err := Run(context.Background(), args, strings.NewReader(recs), &stdout, &stderr); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, stderr.String())
	}
	if want := `qa-learncurve: warning: --plot ` + png + `: the PNG's font has no characters for 1 type name, so the legend names that type by its place: type #1 is "逻辑推理"`; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr\n%s\nwant it to hold\n%s", stderr.String(), want)
	}
}

// TestPlotControlCharacters: a type name with control characters (which XML cannot hold, or
// which break the entry's line) is Go-quoted, as qa-score's summary names a group, so that the
// SVG stays a document a viewer opens and the entry one line, and an empty name shows as "":
// an \x01 in a name made the whole SVG ill-formed, and the PNG named such a type by its place
// alone. The text report keeps the name as it is (EvaLearn's console prints it so).
func TestPlotControlCharacters(t *testing.T) {
	names := []string{"A\x01B", "Line one\nLine two", "", "\x1b[31mred", "Tab\there", "end\uffff", "Spaced "}
	want := []string{`"A\x01B"`, `"Line one\nLine two"`, `""`, `"\x1b[31mred"`, `"Tab\there"`, `"end\uffff"`, `"Spaced "`}
	var seqs []Sequence
	for i, n := range names {
		seqs = append(seqs, Sequence{ID: fmt.Sprint(i), Type: NamedType(n), Y: []int{1, 0}})
	}
	rep := Compute(seqs, 2, 1)
	var svg bytes.Buffer
	if _, err := WritePlot(&svg, "svg", rep); err != nil {
		t.Fatal(err)
	}
	if _, err := svgRoot(svg.Bytes()); err != nil {
		t.Fatalf("the SVG is no well-formed document: %v", err)
	}
	var texts []string
	d := xml.NewDecoder(bytes.NewReader(svg.Bytes()))
	inText := false
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
	for i, t0 := range rep.Types {
		k := slices.Index(names, t0.Type.Name)
		label := want[k] + " (n=1, k=-1.000)"
		if !slices.Contains(texts, label) {
			t.Errorf("type %q (#%d): no legend text %q in the SVG; texts %q", t0.Type.Name, i+1, label, texts)
		}
	}
	labels, warning := typeLabels(plot.NewLegend(), rep.Types, true)
	if warning != "" {
		t.Errorf("PNG warning %q, want none: every escaped name is drawable", warning)
	}
	for i, l := range labels {
		k := slices.Index(names, rep.Types[i].Type.Name)
		if want := want[k] + " (n=1, k=-1.000)"; l != want {
			t.Errorf("PNG label of %q = %q, want %q", rep.Types[i].Type.Name, l, want)
		}
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text, "-"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "\nType: A\x01B (Sequences: 1)\n") {
		t.Errorf("text report lost the name as it is:\n%q", text.String())
	}
}

// TestPlotGzipName: a --plot file whose name ends in .gz is drawn in the format the extension
// before it names and written gzip-compressed, as the same name without .gz is drawn and as
// --output is compressed: curve.svg.gz holds SVG. One whose extension before .gz names no format
// is refused by that extension, not by ".gz".
func TestPlotGzipName(t *testing.T) {
	recs := []byte(`{"schema":1,"id":"a","question":"q","answers":["x"],"type":"T","sequence":{"id":"s","position":1},"judgments":{"evalearn":{"score":1}}}
{"schema":1,"id":"b","question":"q","answers":["x"],"type":"T","sequence":{"id":"s","position":2},"judgments":{"evalearn":{"score":0}}}
`)
	for _, tc := range []struct {
		name   string
		prefix string // of the file's text once decompressed; "" for a usage error
		err    string // the error's text, when it is one
	}{
		{"curve.svg.gz", "<?xml", ""},
		{"curve.PNG.GZ", "\x89PNG\r\n\x1a\n", ""},
		{"curve.jpg.gz", "", `unsupported plot format ".jpg"`},
		{"curve.gz", "", "no extension names the image format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name)
			var stdout, stderr bytes.Buffer
			args := []string{"qa-learncurve", "--problems", "2", "--warmup", "1", "--plot", path}
			err := Run(context.Background(), args, bytes.NewReader(recs), &stdout, &stderr)
			if tc.prefix == "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("--plot %s: Run = %v, want an error holding %q", tc.name, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("--plot %s: %v\n%s", tc.name, err, stderr.String())
			}
			b := clitest.Gunzip(t, path)
			if !bytes.HasPrefix(b, []byte(tc.prefix)) {
				t.Errorf("--plot %s: the image starts %.16q, want %q", tc.name, b, tc.prefix)
			}
		})
	}
}

// TestCanRead: a legend entry could be another type's when it is that name whole, or, cut, its
// pieces around the ellipses are that name's start, parts in order and end; an ellipsis in a
// name is one more cut that the pieces may skip.
func TestCanRead(t *testing.T) {
	for _, tc := range []struct {
		label, name, other string
		want               bool
	}{
		{"Logic", "Logic", "Logic", true},
		{"Logic", "Logic", "Logical", false},
		{"#1 Same", "Same", "Same", false},
		{"Reasoning ov…d-out split", "Reasoning over, subset 1, held-out split", "Reasoning over, subset 2, held-out split", true},
		{"…subset 1, he…", "Reasoning over, subset 1, held-out split", "Reasoning over, subset 2, held-out split", false},
		{"ab…bc", "ab x bc", "abc", false}, // the pieces cannot overlap
		{"Reasoning…split", "Reasoning over a split", "Reasoning a split", true},
		{"a…b…c", "a…b x c", "a y b z c", true},
		{"a…b…c", "a…b x c", "a y c", false},
	} {
		if got := canRead(tc.label, tc.name, tc.other); got != tc.want {
			t.Errorf("canRead(%q, %q, %q) = %v, want %v", tc.label, tc.name, tc.other, got, tc.want)
		}
	}
}

// TestPlotSVGBackground: an SVG plot is white under its legend too, as a PNG is: the plot filled
// its own part alone, so the legend's black text stood on a transparent column, unreadable in a
// viewer with a dark background. The first shape painted covers the whole picture in white, for
// few types and for a picture made taller by many.
func TestPlotSVGBackground(t *testing.T) {
	for _, n := range []int{2, 40} {
		var seqs []Sequence
		for i := range n {
			seqs = append(seqs, Sequence{ID: fmt.Sprint(i), Type: NamedType(fmt.Sprintf("type %02d", i)), Y: []int{i % 2, 1, 0}})
		}
		var svg bytes.Buffer
		if _, err := WritePlot(&svg, "svg", Compute(seqs, 3, 1)); err != nil {
			t.Fatal(err)
		}
		box := regexp.MustCompile(`viewBox="0 0 ([0-9.]+) ([0-9.]+)"`).FindStringSubmatch(svg.String())
		first := regexp.MustCompile(`<path d="([^"]*)" style="([^"]*)"`).FindStringSubmatch(svg.String())
		if box == nil || first == nil {
			t.Fatalf("%d types: no viewBox or no path in the SVG:\n%.600s", n, svg.String())
		}
		want := fmt.Sprintf("M0,0L%[1]s,0L%[1]s,%[2]sL0,%[2]sZ", box[1], box[2])
		if first[1] != want || first[2] != "fill:#FFFFFF" {
			t.Errorf("%d types: first shape %q (%s), want the whole picture %q in white", n, first[1], first[2], want)
		}
	}
}

// TestPlotLegendCharacters: a long name loses whole characters as a reader sees them (grapheme
// clusters), never a letter's mark: cut between code points, the Hindi name kept a vowel sign
// without its letter ("तर्क…िट"), drawn on the ellipsis, and the emoji a lone skin tone.
func TestPlotLegendCharacters(t *testing.T) {
	names := []string{
		"गणितीय तर्क और समस्या समाधान के लिए एक बहुत लंबा नाम जो फिट नहीं होता",
		strings.Repeat("👍🏽", 40),
		"Tiếng Việt: suy luận toán học với một tên rất dài không vừa chỗ",
	}
	var seqs []Sequence
	for i, n := range names {
		seqs = append(seqs, Sequence{ID: fmt.Sprint(i), Type: NamedType(n), Y: []int{1, 0, 1}})
	}
	labels, _ := typeLabels(plot.NewLegend(), Compute(seqs, 3, 1).Types, false)
	for _, l := range labels {
		if !strings.Contains(l, "…") {
			t.Errorf("label %q is not cut; want a name too long for the column", l)
		}
		for _, c := range characters(l) {
			if strings.Contains(c, "…") && c != "…" {
				t.Errorf("label %q holds %q: a character cut apart, its mark on the ellipsis", l, c)
			}
		}
	}
}
