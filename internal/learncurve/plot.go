package learncurve

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/stats"
)

// Plot size: the data on the left, the legend in a column on the right.
const (
	PlotWidth   = 10 * vg.Inch
	PlotHeight  = 5 * vg.Inch
	legendWidth = 3.4 * vg.Inch
)

// PlotDPI is the resolution of PNG plots: a PNG is PlotWidth×PlotHeight inches at this DPI, or
// taller when the legend needs more room (see plotHeight).
const PlotDPI = vgimg.DefaultDPI

// legendTop is the room left above the legend column, beside the plot's title.
const legendTop = 40 // points

// plotHeight is the height of the picture: PlotHeight, or more when the legend, an entry per
// type and two more, would run past its bottom edge (about 30 types), so that every entry is
// drawn, the averaged curve's and the fit's last among them.
//
// Note: entries past the edge were drawn off the picture without a word; a smaller font, or a
// legend cut at some number of types, would leave the entries unreadable or some curves unnamed.
func plotHeight(legend plot.Legend) vg.Length {
	need := legend.Rectangle(draw.Canvas{}).Size().Y + vg.Points(legendTop+legendMargin)
	return max(PlotHeight, need)
}

// PlotFormats are the image formats of --plot, each also the file extension that names it.
//
// Note: gonum/plot also writes PDF, EPS and TeX. Its PDF (go-pdf/fpdf) and EPS carry the time
// they were made, so the same report would not give the same bytes (fpdf's date can only be set
// through a package-wide default); EPS names fonts it does not embed. They are not offered.
var PlotFormats = []string{"svg", "png"}

// extPlotFormat returns the format a file name's extension names ("png" for curve.PNG, "svg" for
// curve.svg.gz, written gzip-compressed as every output file named so), or "".
//
// Note: curve.svg.gz was read by its ".gz" alone, an unsupported format, though the file would
// have been compressed, as qa-score's summary and qa-learncurve's --output are.
func extPlotFormat(name string) string {
	ext := strings.ToLower(plotExt(name))
	if f := strings.TrimPrefix(ext, "."); ext != "" && slices.Contains(PlotFormats, f) {
		return f
	}
	return ""
}

// plotExt returns the extension of a --plot file name before a ".gz" ending: ".svg" for
// curve.svg.gz.
func plotExt(name string) string {
	if command.GzipNamed(name) {
		name = name[:len(name)-len(".gz")]
	}
	return filepath.Ext(name)
}

// drawPlot draws rep (see WritePlot) in format for the --plot file name, whole, before any of it
// is written. WritePlot's warning goes to stderr.
func drawPlot(name, format string, rep Report, stderr io.Writer) ([]byte, error) {
	var b bytes.Buffer
	warning, err := WritePlot(&b, format, rep)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		warn(stderr, []string{"--plot " + name + ": " + warning})
	}
	return b.Bytes(), nil
}

// WritePlot draws the accuracy at each position for every type (points joined by thin lines)
// with its least-squares line (dashed), and the type-averaged curve EvaLearn's overall slope is
// fitted to (black), in format "png" or "svg". It returns a warning when the legend cannot
// draw some type names as they are (see typeLabels), else "".
func WritePlot(w io.Writer, format string, rep Report) (string, error) {
	if format != "png" && format != "svg" {
		return "", fmt.Errorf("unsupported plot format %q", format)
	}
	p, legend, warning, err := newPlot(rep, format)
	if err != nil {
		return "", err
	}
	height := plotHeight(legend)
	var c vg.CanvasWriterTo = vgsvg.New(PlotWidth, height)
	if format == "png" {
		c = vgimg.PngCanvas{Canvas: vgimg.New(PlotWidth, height)}
	}
	dc := draw.New(c)
	// The plot fills its own part; the legend's column would be left transparent in an SVG
	// (a PNG starts white), its black text unreadable on a dark viewer's background.
	dc.SetColor(p.BackgroundColor)
	dc.Fill(dc.Rectangle.Path())
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	legend.Draw(draw.Crop(dc, PlotWidth-legendWidth+vg.Points(legendMargin), 0, vg.Points(-legendMargin), vg.Points(-legendTop)))
	_, err = c.WriteTo(w)
	return warning, err
}

func newPlot(rep Report, format string) (*plot.Plot, plot.Legend, string, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("EvaLearn learning curve: accuracy by position (%s, M=%d)", english.Count(rep.Sequences, "sequence", "sequences"), rep.Problems)
	p.X.Label.Text = "Position in sequence"
	p.Y.Label.Text = "Accuracy (share of sequences correct)"
	p.X.Min, p.X.Max = 0.8, float64(rep.Problems)+0.2
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	labels, warning := typeLabels(legend, rep.Types, format == "png")
	for i, t := range rep.Types {
		c, glyph := typeStyle(i)
		if err := addCurve(p, &legend, labels[i], t.Position, c, glyph, 1); err != nil {
			return nil, legend, "", err
		}
	}
	label := fmt.Sprintf("all types, averaged (k=%s)", slopeText(rep.Overall.Slope))
	if err := addCurve(p, &legend, label, rep.Overall.Position, color.Black, plotutil.Shape(len(rep.Types)), 2.5); err != nil {
		return nil, legend, "", err
	}
	dashed := plotter.NewFunction(func(float64) float64 { return -1 })
	dashed.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	dashed.Color = color.Gray{Y: 80}
	legend.Add("dashed: least-squares fit", dashed)
	p.X.Tick.Marker = positionTicks(rep.Problems)
	p.Y.Tick.Marker = plot.TickerFunc(func(float64, float64) []plot.Tick {
		var ticks []plot.Tick
		for i := 0; i <= 10; i++ {
			t := plot.Tick{Value: float64(i) / 10}
			if i%2 == 0 {
				t.Label = fmt.Sprintf("%.1f", t.Value)
			}
			ticks = append(ticks, t)
		}
		return ticks
	})
	return p, legend, warning, nil
}

// legendMargin is the room WritePlot leaves on each side of the legend column.
const legendMargin = 8 // points

// legendTextRoom is how wide a legend entry's text may be: from where it starts, after the
// column's left margin, the entry's thumbnail and a space, to two points short of the picture's
// right edge (the text may run into the column's right margin, as EvaLearn's type names do).
func legendTextRoom(l plot.Legend) vg.Length {
	return legendWidth - vg.Points(legendMargin) - l.ThumbnailWidth - l.TextStyle.Rectangle(" ").Max.X - vg.Points(2)
}

// slopeText is a slope as the legend shows it, signed with three decimals; one that rounds to
// zero is +0.000 whatever its sign, as a flat curve is neither rising nor falling.
func slopeText(k float64) string {
	if s := fmt.Sprintf("%+.3f", k); s != "-0.000" {
		return s
	}
	return "+0.000"
}

// typeColors are the colours of the types' curves: plotutil's seven soft colours (its default
// palette), then six of other hues, none near black (the averaged curve) or grey (the fit's
// legend entry). Their number, 13, is prime to the 8 of plotutil's glyph shapes, which the
// curves' points cycle through, so no two of the first 104 types share both colour
// and glyph, and no two of the first 13 share a colour.
//
// Note: plotutil's palette alone gave the 8th type the 1st one's colour, told apart only by
// its points' glyph. Dash patterns, the other usual cue, already mean the least-squares fit.
var typeColors = [...]color.RGBA{
	{241, 90, 96, 255},   // red
	{122, 195, 106, 255}, // green
	{90, 155, 212, 255},  // blue
	{250, 167, 91, 255},  // orange
	{158, 103, 171, 255}, // purple
	{206, 112, 88, 255},  // brick
	{215, 127, 180, 255}, // pink
	{23, 190, 207, 255},  // teal
	{188, 189, 34, 255},  // olive
	{140, 86, 75, 255},   // brown
	{44, 62, 140, 255},   // navy
	{27, 120, 55, 255},   // dark green
	{204, 163, 0, 255},   // gold
}

// typeStyle is the colour of the i-th type's curve and the glyph of its points.
func typeStyle(i int) (color.Color, draw.GlyphDrawer) {
	return typeColors[i%len(typeColors)], plotutil.Shape(i)
}

// addCurve adds one accuracy curve and its fitted line.
func addCurve(p *plot.Plot, legend *plot.Legend, label string, acc []float64, c color.Color, glyph draw.GlyphDrawer, width vg.Length) error {
	pts := make(plotter.XYs, len(acc))
	x := make([]float64, len(acc))
	for i, v := range acc {
		x[i] = float64(i + 1)
		pts[i] = plotter.XY{X: x[i], Y: v}
	}
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	line.Color, line.Width = c, width*vg.Points(0.5)
	points.Color, points.Shape = c, glyph
	fit := stats.FitLine(x, acc)
	fitted := plotter.NewFunction(func(x float64) float64 { return fit.Intercept + float64(fit.Slope*x) })
	fitted.XMin, fitted.XMax = 1, float64(len(acc))
	fitted.Color, fitted.Width = c, width*vg.Points(0.6)
	fitted.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	p.Add(line, points, fitted)
	legend.Add(label, line, points)
	return nil
}

// positionTicks labels every integer position (or every few when there are many).
func positionTicks(m int) plot.Ticker {
	step := max(1, m/12)
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ticks []plot.Tick
		for i := 1; i <= m; i += step {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: fmt.Sprint(i)})
		}
		return ticks
	})
}
