package learncurve

import (
	"fmt"
	"strings"

	"github.com/rivo/uniseg"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/english"
)

// The types' legend entries.
//
// Each entry is "name (n=…, k=…)". A name too long for the legend column loses its middle
// ("…"), the count and the slope being what the entry is for. A name cut so that its entry
// could be another type's is cut again where the two differ, so that every curve stays named
// apart. A PNG is drawn with the plot's own font (Liberation), which has no Chinese, Japanese
// or Korean characters, among others: such a name would lose them without a word, so the PNG
// names that type by its place in the legend ("type #2"), and a warning says which name that
// is. A name is written as qa-score's summary
// names a group (cell.Value): Go-quoted when it is empty, has white space at an end, or holds
// a character that is not printable, which the quotes show escaped ("A\x01B").
//
// Note: a control character went into an SVG's text as it was, which XML cannot hold: the
// whole image was a document that no viewer opens; a line break split the entry in two, and
// an empty name left the entry its count and slope alone.
//
// Note: embedding a font with CJK characters would add megabytes to the binary for the PNG
// legend alone; an SVG is drawn by the viewer's fonts and shows every name.

// maxNamedWarning is how many undrawable names the PNG warning spells out.
const maxNamedWarning = 10

// labeller measures legend text.
type labeller struct {
	legend plot.Legend
	face   font.Face
	buf    sfnt.Buffer
	room   vg.Length
}

func newLabeller(l plot.Legend) *labeller {
	return &labeller{
		legend: l,
		face:   l.TextStyle.Handler.Cache().Lookup(l.TextStyle.Font, l.TextStyle.Font.Size),
		room:   legendTextRoom(l),
	}
}

// has reports whether the legend's font has a glyph for r.
func (lb *labeller) has(r rune) bool {
	g, err := lb.face.Face.GlyphIndex(&lb.buf, r)
	return err == nil && g != 0
}

// drawable reports whether the legend's font has a glyph for every character of s.
func (lb *labeller) drawable(s string) bool {
	for _, r := range s {
		if !lb.has(r) {
			return false
		}
	}
	return true
}

// width is how wide s is drawn: by the font's measure, with each character it lacks taken as
// wide as the viewer's font will draw it, half an em a terminal column (an SVG viewer draws
// a Chinese character an em wide, where the font's measure gives its missing-glyph box, 0.78).
func (lb *labeller) width(s string) vg.Length {
	if lb.drawable(s) {
		return lb.legend.TextStyle.Width(s)
	}
	var kept strings.Builder
	var missing vg.Length
	for _, r := range s {
		if lb.has(r) {
			kept.WriteRune(r)
		} else {
			missing += vg.Length(vg.Length(uniseg.StringWidth(string(r))) * lb.legend.TextStyle.Font.Size / 2)
		}
	}
	return lb.legend.TextStyle.Width(kept.String()) + missing
}

// characters splits s into the characters a reader sees (Unicode's grapheme clusters), which a
// cut keeps or drops whole.
//
// Note: cut between code points, a name lost the letter a Devanagari vowel sign or an emoji's
// skin tone belongs to, the mark drawn on the ellipsis ("…ि", "…🏽").
func characters(s string) []string {
	var cs []string
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		cs = append(cs, g.Str())
	}
	return cs
}

// cutter shortens a name, split into characters, to keep of them and an ellipsis or two.
type cutter func(name []string, keep int) string

// join is name[:head] … name[len(name)-tail:], without the spaces beside the ellipsis.
func join(name []string, head, tail int) string {
	if tail == 0 {
		return strings.TrimRight(strings.Join(name[:head], ""), " ") + "…"
	}
	return strings.TrimRight(strings.Join(name[:head], ""), " ") + "…" + strings.TrimLeft(strings.Join(name[len(name)-tail:], ""), " ")
}

// middle keeps the name's start and end, as many characters of each.
func middle(name []string, keep int) string {
	head := (keep + 1) / 2
	return join(name, head, keep-head)
}

// headThrough keeps the start through the character at d, the rest from the end.
func headThrough(d int) cutter {
	return func(name []string, keep int) string {
		head := min(keep, d+1)
		return join(name, head, keep-head)
	}
}

// tailThrough keeps the end through the character d from it, the rest from the start.
func tailThrough(d int) cutter {
	return func(name []string, keep int) string {
		tail := min(keep, d+1)
		return join(name, keep-tail, tail)
	}
}

// around keeps the characters around the one at d, with an ellipsis on each side cut.
func around(d int) cutter {
	return func(name []string, keep int) string {
		lo := max(0, d-keep/2)
		hi := min(len(name), lo+keep)
		lo = max(0, hi-keep)
		s := strings.TrimSpace(strings.Join(name[lo:hi], ""))
		if lo > 0 {
			s = "…" + s
		}
		if hi < len(name) {
			s += "…"
		}
		return s
	}
}

// fit returns name as the entry shows it before suffix: whole when the two fit the legend
// column, else cut by cut to as many characters as fit (two at least).
func (lb *labeller) fit(name []string, suffix string, cut cutter) string {
	shown := strings.Join(name, "")
	for keep := len(name) - 1; keep > 1 && lb.width(shown+suffix) > lb.room; keep-- {
		shown = cut(name, keep)
	}
	return shown
}

// typeLabels returns the legend entry of each type and, for a PNG (png), a warning naming the
// types whose names its font cannot draw, or "".
func typeLabels(l plot.Legend, types []TypeMetrics, png bool) ([]string, string) {
	lb := newLabeller(l)
	names := make([][]string, len(types))
	suffixes := make([]string, len(types))
	shown := make([]string, len(types))
	var undrawn []string
	for i, t := range types {
		name := cell.Value(t.Type.Name)
		if png && !lb.drawable(name) {
			undrawn = append(undrawn, fmt.Sprintf("type #%d is %q", i+1, t.Type.Name))
			name = fmt.Sprintf("type #%d", i+1)
		}
		names[i] = characters(name)
		suffixes[i] = fmt.Sprintf(" (n=%d, k=%s)", t.Sequences, slopeText(t.Slope))
		shown[i] = lb.fit(names[i], suffixes[i], middle)
	}
	lb.cutApart(names, suffixes, shown)
	labels := make([]string, len(types))
	for i := range types {
		labels[i] = shown[i] + suffixes[i]
	}
	return labels, undrawnWarning(undrawn)
}

// cutApart cuts again the names whose entries could be read as another's (shown holds each
// entry before its suffix; see confusable) to keep the character where each first differs from
// those others, from the start, else from the end, else around it; failing those, each is
// numbered by its place.
//
// Note: only entries shown alike were cut again, but the suffix's width sets how much of a name
// is kept, so "Reasoning ov…d-out split (n=1, …)" and "Reasoning o…d-out split (n=12, …)" were
// two entries, neither saying which of "…subset 1…" and "…subset 2…" it is.
func (lb *labeller) cutApart(names [][]string, suffixes, shown []string) {
	for try := range 4 {
		others := confusable(names, shown)
		if len(others) == 0 {
			break
		}
		for i, group := range others {
			pre, suf := 0, 0
			for _, j := range group {
				pre = max(pre, commonPrefix(names[i], names[j]))
				suf = max(suf, commonSuffix(names[i], names[j]))
			}
			switch try {
			case 0:
				shown[i] = lb.fit(names[i], suffixes[i], headThrough(pre))
			case 1:
				shown[i] = lb.fit(names[i], suffixes[i], tailThrough(suf))
			case 2:
				shown[i] = lb.fit(names[i], suffixes[i], around(pre))
			default:
				numbered := characters(fmt.Sprintf("#%d %s", i+1, strings.Join(names[i], "")))
				shown[i] = lb.fit(numbered, suffixes[i], headThrough(len(fmt.Sprint(i+1))))
			}
		}
	}
}

// confusable returns, for each type whose entry (shown, before its suffix) could be that of
// another type's name as well (see canRead), those other types, in order.
func confusable(names [][]string, shown []string) map[int][]int {
	whole := make([]string, len(names))
	for i, n := range names {
		whole[i] = strings.Join(n, "")
	}
	others := map[int][]int{}
	for i := range shown {
		read := reader(shown[i], whole[i])
		for j := range names {
			if j != i && read(whole[j]) {
				others[i] = append(others[i], j)
			}
		}
	}
	return others
}

// canRead reports whether label, the entry of name, could be read as the entry of other: it
// is other whole, or, cut, the pieces around its ellipses are other's start, parts in order and
// end.
func canRead(label, name, other string) bool { return reader(label, name)(other) }

// reader is canRead of label and name, for any other.
func reader(label, name string) func(other string) bool {
	if label == name || !strings.Contains(label, "…") {
		return func(other string) bool { return label == other }
	}
	pieces := strings.Split(label, "…")
	first, last := pieces[0], pieces[len(pieces)-1]
	return func(other string) bool {
		if !strings.HasPrefix(other, first) {
			return false
		}
		s := other[len(first):]
		for _, p := range pieces[1 : len(pieces)-1] {
			k := strings.Index(s, p)
			if k < 0 {
				return false
			}
			s = s[k+len(p):]
		}
		return strings.HasSuffix(s, last)
	}
}

func commonPrefix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// undrawnWarning is the PNG's warning for the type names its font cannot draw, or "".
func undrawnWarning(undrawn []string) string {
	if len(undrawn) == 0 {
		return ""
	}
	listed := undrawn[:min(len(undrawn), maxNamedWarning)]
	more := ""
	if n := len(undrawn) - len(listed); n > 0 {
		more = fmt.Sprintf(", and %d more", n)
	}
	return fmt.Sprintf("the PNG's font has no characters for %s, so the legend names %s by %s place: %s%s (an SVG plot, drawn with the viewer's fonts, shows the names)",
		english.Count(len(undrawn), "type name", "type names"), english.Form(len(undrawn), "that type", "those types"),
		english.Form(len(undrawn), "its", "their"), strings.Join(listed, ", "), more)
}
