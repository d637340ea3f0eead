package score

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/metric"
)

func TestParseBaseline(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The shape of bert_score's rescale_baseline/en/<model>.tsv (comma-separated despite the name).
	tsv := write("roberta.tsv", "LAYER,P,R,F\n0,0.9,0.9,0.9\n2,0.83,0.84,0.835\n1,0.8,0.8,0.8\n")
	tests := []struct {
		arg  string
		want metric.Baseline
		err  string
	}{
		{"0.83", metric.Baseline{Precision: 0.83, Recall: 0.83, F1: 0.83}, ""},
		{"0.8,0.7,0.6", metric.Baseline{Precision: 0.8, Recall: 0.7, F1: 0.6}, ""},
		{"-0.1", metric.Baseline{Precision: -0.1, Recall: -0.1, F1: -0.1}, ""},
		{tsv, metric.Baseline{Precision: 0.83, Recall: 0.84, F1: 0.835}, ""}, // highest layer
		{write("one.txt", "# from my own run\n0.5 0.6 0.7\n"), metric.Baseline{Precision: 0.5, Recall: 0.6, F1: 0.7}, ""},
		{"1", metric.Baseline{}, "below 1"},
		{"0.8,0.7", metric.Baseline{}, "three"},
		{"NaN", metric.Baseline{}, `want a finite number, got "NaN"`},
		{"0x1p-1", metric.Baseline{}, `want a decimal number, got "0x1p-1"`},
		{"0.5,0_5,0.5", metric.Baseline{}, `want a number, got "0_5"`},
		{"5e-1", metric.Baseline{Precision: 0.5, Recall: 0.5, F1: 0.5}, ""},
		{filepath.Join(dir, "missing.tsv"), metric.Baseline{}, "no file"},
		{write("bad.tsv", "LAYER,P,R,F\nx,0.1,0.2,0.3\n"), metric.Baseline{}, "layer"},
		{write("hdr.tsv", "L,P,R\n0,0.1,0.2\n1,0.1,0.2\n"), metric.Baseline{}, "header"},
		{write("empty.tsv", "\n"), metric.Baseline{}, "empty"},
	}
	for _, tt := range tests {
		got, err := parseBaseline(tt.arg)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("parseBaseline(%q) = %+v, %v, want %+v", tt.arg, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("parseBaseline(%q) = %+v, %v, want an error with %q", tt.arg, got, err, tt.err)
		}
	}
}

// FuzzParseBaselineFile: a baseline file's text is refused or read as three finite numbers
// below 1, and a file of one row (no header, no comment) reads as the row's numbers do on the
// command line.
func FuzzParseBaselineFile(f *testing.F) {
	for _, s := range []string{"LAYER,P,R,F\n0,0.9,0.9,0.9\n2,0.83,0.84,0.835\n1,0.8,0.8,0.8\n", "# from my own run\n0.5 0.6 0.7\n",
		"LAYER,P,R,F\nx,0.1,0.2,0.3\n", "L,P,R\n0,0.1,0.2\n", "\n", "0.83", "NaN", "0x1p-1", "1e309", "-1e308,0,0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := parseBaselineFile("baseline.tsv", s)
		if err != nil {
			return
		}
		for _, x := range []float64{b.Precision, b.Recall, b.F1} {
			if math.IsNaN(x) || math.IsInf(x, 0) || x >= 1 {
				t.Fatalf("parseBaselineFile(%q) = %+v: want finite numbers below 1", s, b)
			}
		}
		row := strings.TrimSpace(s)
		if !strings.Contains(s, "\n") && !strings.HasPrefix(row, "#") && !strings.HasPrefix(strings.ToUpper(row), "LAYER") {
			if n, err := parseNumbers(row); err != nil || n != b {
				t.Fatalf("parseBaselineFile(%q) = %+v, but parseNumbers gives %+v, %v", s, b, n, err)
			}
		}
	})
}

// TestParseBaselineFileLine: an error about a line of a --baseline file names the file and the
// line as it is in the file, comments, blank lines, the header and CRLF ends counted.
func TestParseBaselineFileLine(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ body, want string }{
		{"# rescale baseline\n\nLAYER,P,R,F\n0,0.1,0.2,0.3\n\n\nx,0.1,0.2,0.3\n",
			`%s:7: layer "x": want a whole number from 0`},
		{"LAYER,P,R,F\n0,0.1,0.2,0.3\n-1,0.1,0.2,0.3\n", `%s:3: layer "-1": want a whole number from 0`},
		{"LAYER,P,R,F\n-1,0.1,0.2,0.3\n", `%s:2: layer "-1": want a whole number from 0`},
		{"LAYER,P,R,F\n1.5,0.1,0.2,0.3\n", `%s:2: layer "1.5": want a whole number from 0`},
		{"LAYER,P,R,F\n99999999999999999999,0.1,0.2,0.3\n", `%s:2: layer "99999999999999999999": want a whole number from 0`},
		{"LAYER,P,R,F\n0,0.1,0.2,0.3\n\n1,0.4,0.5,0.6\n1,0.4,0.5,0.7\n", `%s:5: layer 1 given twice (line 4 too)`},
		{"# c\r\n\r\nLAYER,P,R,F\r\n0,0.1,0.2,0.3\r\n\r\n1,0.1,0.2\r\n",
			`%s:6: row "1,0.1,0.2": want LAYER,P,R,F`},
		{"LAYER,P,R,F\n\n0,0.1,0.2,1.5\n", `%s:3: baseline "0.1,0.2,1.5": "1.5" is not a number below 1`},
		{"# made by hand\n\nL,P,R\n0,0.1,0.2\n", `%s:3: header "L,P,R": want LAYER,P,R,F`},
		{"\n# one row\n\n0.5 0.6\n", `%s:4: baseline "0.5 0.6": want one number or three (P,R,F)`},
		{"# nothing\n\n", `%s: empty file`},
		{"\nLAYER,P,R,F\n# none\n", `%s:2: no rows after the header`},
	}
	for i, tt := range tests {
		p := filepath.Join(dir, fmt.Sprintf("b%d.tsv", i))
		if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		want := "--baseline: " + fmt.Sprintf(tt.want, p)
		if _, err := parseBaseline(p); err == nil || err.Error() != want {
			t.Errorf("parseBaseline(%q) error = %v, want %s", tt.body, err, want)
		}
	}
}
