package learncurve

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

var update = flag.Bool("update", false, "rewrite the expected output of the txtar CLI tests")

// TestCLI runs every testdata/cli/*.txtar archive through Run in-process (see package clitest for
// the sections); go test -update rewrites the expected sections. A case that writes --output
// $TMP/report.json must leave EvaLearn's JSON report there.
func TestCLI(t *testing.T) {
	check := func(t *testing.T, tmp string, _ map[string][]byte) {
		out := filepath.Join(tmp, "report.json")
		if _, err := os.Stat(out); err != nil {
			return
		}
		if b, err := os.ReadFile(out); err != nil || !bytes.HasPrefix(b, []byte("{\n  \"model_evaluation\"")) {
			t.Errorf("--output file = %.40q, %v; want the JSON report", b, err)
		}
	}
	clitest.Config{Prog: "qa-learncurve", Run: Run, Update: *update, Check: check, Filter: describeImage}.RunDir(t, "testdata/cli")
}

// describeImage replaces an output that is an image, on stdout or in a file, by one line that
// says what it is, once it is read whole: "[png image 960x480]", "[svg image 720pt x 360pt]", or
// what is wrong with it. Other outputs are kept.
func describeImage(_ string, b []byte) []byte {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			return fmt.Appendf(nil, "[invalid png image: %v]\n", err)
		}
		return fmt.Appendf(nil, "[png image %dx%d]\n", img.Bounds().Dx(), img.Bounds().Dy())
	case bytes.HasPrefix(b, []byte("<?xml")):
		root, err := svgRoot(b)
		if err != nil {
			return fmt.Appendf(nil, "[invalid svg image: %v]\n", err)
		}
		return fmt.Appendf(nil, "[svg image %s x %s]\n", attr(root, "width"), attr(root, "height"))
	}
	return b
}

// svgRoot reads b whole as XML and returns its root element, which must be an SVG document's.
func svgRoot(b []byte) (xml.StartElement, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	var root xml.StartElement
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return root, err
		}
		if el, ok := tok.(xml.StartElement); ok && root.Name.Local == "" {
			root = el.Copy()
		}
	}
	if root.Name.Local != "svg" || root.Name.Space != "http://www.w3.org/2000/svg" {
		return root, fmt.Errorf("root element %s %s, want svg", root.Name.Space, root.Name.Local)
	}
	return root, nil
}

func attr(el xml.StartElement, name string) string {
	for _, a := range el.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return "(no " + name + ")"
}
