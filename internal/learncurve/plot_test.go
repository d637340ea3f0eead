package learncurve

import (
	"bytes"
	"fmt"
	"image/color"
	"regexp"
	"testing"

	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg/draw"
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
	if err := WritePlot(&svg, "svg", Compute(seqs, 3, 1)); err != nil {
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
