package score

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// FuzzParseWeights: --bleu-weights reads as 1 to 4 finite, non-negative weights, one per comma-
// separated item, or is refused.
func FuzzParseWeights(f *testing.F) {
	for _, s := range []string{"0.25,0.25,0.25,0.25", "1", "0.5,0.5", " .5 , 5e-1 ", "1,1,1,1,1", "", ",", "-1",
		"NaN", "inf", "0x1p-1", "1_0", "1e400", "2,-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ws, err := parseWeights(s)
		if err != nil {
			return
		}
		if len(ws) < 1 || len(ws) > 4 || len(ws) != strings.Count(s, ",")+1 {
			t.Fatalf("parseWeights(%q) = %v, want one weight per item, 1 to 4", s, ws)
		}
		for _, w := range ws {
			if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
				t.Fatalf("parseWeights(%q) = %v, want finite weights of at least 0", s, ws)
			}
		}
	})
}

// FuzzParseClasses: --labels reads as its comma-separated items, as written, or, when it starts
// with "[", as a non-empty JSON list of strings and numbers, or is refused.
func FuzzParseClasses(f *testing.F) {
	for _, s := range []string{"0,1", "yes,no", "", ",", `["", "a,b"]`, `[1, 2.0, "x"]`, " [1]", "[]", "[null]",
		`[true]`, `[{"a":1}]`, "[1", `["\ud800"]`, "a, b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cls, err := parseClasses(s)
		if err != nil {
			if !strings.HasPrefix(strings.TrimSpace(s), "[") {
				t.Fatalf("parseClasses(%q): %v, want a comma-separated list read as it is", s, err)
			}
			return
		}
		if len(cls) == 0 {
			t.Fatalf("parseClasses(%q) = %q, want at least one class", s, cls)
		}
		if !strings.HasPrefix(strings.TrimSpace(s), "[") && strings.Join(cls, ",") != s {
			t.Fatalf("parseClasses(%q) = %q, want the items as written", s, cls)
		}
	})
}

// TestParseWeights: --bleu-weights reads each item as written, around white space; a zero weight
// is one (NLTK's weights=(1, 0, 0, 0) is BLEU-1), and only a negative one is refused.
func TestParseWeights(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []float64
		wantErr string
	}{
		{"0.25,0.25,0.25,0.25", []float64{0.25, 0.25, 0.25, 0.25}, ""},
		{"1,0,0,0", []float64{1, 0, 0, 0}, ""},
		{" 0.5 , 0.5", []float64{0.5, 0.5}, ""},
		{"0", []float64{0}, ""},
		{"1,-0.5", nil, `want a non-negative number, got "-0.5"`},
		{"1,1,1,1,1", nil, "want 1 to 4 weights, got 5"},
	} {
		got, err := parseWeights(tc.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("parseWeights(%q) = %v, %q; want %v, %q", tc.in, got, gotErr, tc.want, tc.wantErr)
		}
	}
}
