package learncurve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/load"
	"github.com/qapipe/qapipe/pkg/record"
)

// readResults reads an EvaLearn results file (a JSON array, or JSON lines) with qa-load's own
// loader, as qa-load --format evalearn-results does; bad items fail the test.
func readResults(t testing.TB, path string) []*record.Record {
	t.Helper()
	recs, err := load.ReadFile(load.EvaLearnResults, path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// goldenReport is one EvaLearn report with the arguments that produced it.
type goldenReport struct {
	dir, name, results string
	m, k               int
}

func goldenReports(t testing.TB) []goldenReport {
	t.Helper()
	re := regexp.MustCompile(`report_M(\d+)_K(\d+)\.json$`)
	files, err := filepath.Glob("testdata/evalearn/*/report_M*_K*.json")
	random, _ := filepath.Glob("testdata/evalearn/random/*/report_M*_K*.json")
	if err != nil || len(files) == 0 || len(random) == 0 {
		t.Fatalf("no golden reports: %v", err)
	}
	files = append(files, random...)
	var out []goldenReport
	for _, f := range files {
		sub := re.FindStringSubmatch(f)
		m, _ := strconv.Atoi(sub[1])
		k, _ := strconv.Atoi(sub[2])
		dir := filepath.Dir(f)
		results := filepath.Join(dir, "results.jsonl")
		if _, err := os.Stat(results); err != nil {
			results = filepath.Join(dir, "results_from_evaluate_py.json")
		}
		out = append(out, goldenReport{dir: dir, name: f, results: results, m: m, k: k})
	}
	return out
}

func reportFromItems(t testing.TB, recs []*record.Record, m, k int) (Report, []Sequence) {
	t.Helper()
	g := NewGrouper(m)
	for _, r := range recs {
		o, err := Observe(r)
		if err != nil {
			continue
		}
		g.Add(o)
	}
	seqs, _ := g.Sequences()
	return Compute(seqs, m, k), seqs
}

func TestGoldenReports(t *testing.T) {
	for _, g := range goldenReports(t) {
		t.Run(g.name, func(t *testing.T) {
			rep, _ := reportFromItems(t, readResults(t, g.results), g.m, g.k)
			want, err := os.ReadFile(g.name)
			if err != nil {
				t.Fatal(err)
			}
			got := rep.JSON(nil)
			if diffs := compareJSON(t, got, want, 1e-9); len(diffs) > 0 {
				t.Errorf("report differs from %s in %d places:\n%v", g.name, len(diffs), diffs[:min(len(diffs), 10)])
			}
			var text bytes.Buffer
			if err := rep.WriteText(&text, filepath.Base(g.name)); err != nil {
				t.Fatal(err)
			}
			wantText, err := os.ReadFile(g.name[:len(g.name)-len(".json")] + ".stdout.txt")
			if err != nil {
				t.Fatal(err)
			}
			if !sameText(text.String(), string(wantText), slopes(t, want)) {
				t.Errorf("text report =\n%s\nwant\n%s", text.String(), wantText)
			}
		})
	}
}

// TestGoldenOutcomes checks the 0/1 matrix against the outcomes EvaLearn derived.
func TestGoldenOutcomes(t *testing.T) {
	files, _ := filepath.Glob("testdata/evalearn/*/outcomes_M*.json")
	if len(files) == 0 {
		t.Fatal("no golden outcomes")
	}
	re := regexp.MustCompile(`outcomes_M(\d+)\.json$`)
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			m, _ := strconv.Atoi(re.FindStringSubmatch(f)[1])
			_, seqs := reportFromItems(t, readResults(t, filepath.Join(filepath.Dir(f), "results.jsonl")), m, 0)
			var want []struct {
				SequenceID json.RawMessage `json:"sequence_id"`
				Type       string          `json:"type"`
				Outcomes   []int           `json:"outcomes"`
			}
			b, _ := os.ReadFile(f)
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			if len(seqs) != len(want) {
				t.Fatalf("%d sequences, want %d", len(seqs), len(want))
			}
			for i, w := range want {
				got := seqs[i]
				if got.ID != string(w.SequenceID) || got.Type.Name != w.Type || fmt.Sprint(got.Y) != fmt.Sprint(w.Outcomes) {
					t.Errorf("sequence %d = %s %q %v, want %s %q %v", i, got.ID, got.Type.Name, got.Y, w.SequenceID, w.Type, w.Outcomes)
				}
			}
		})
	}
}

// compareJSON lists the differences between two JSON documents: keys in the same order, numbers
// within tol, everything else equal.
func compareJSON(t testing.TB, got, want []byte, tol float64) []string {
	t.Helper()
	g, err := decodeOrdered(got)
	if err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, got)
	}
	w, err := decodeOrdered(want)
	if err != nil {
		t.Fatal(err)
	}
	var diffs []string
	diffValue(g, w, "", tol, &diffs)
	return diffs
}

type orderedObject struct {
	keys []string
	vals map[string]any
}

func decodeOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return decodeValue(dec)
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := orderedObject{vals: map[string]any{}}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, k.(string))
			o.vals[k.(string)] = v
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		var a []any
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

func diffValue(got, want any, path string, tol float64, diffs *[]string) {
	switch w := want.(type) {
	case orderedObject:
		g, ok := got.(orderedObject)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %v, want an object", path, got))
			return
		}
		if fmt.Sprint(g.keys) != fmt.Sprint(w.keys) {
			gk, wk := append([]string(nil), g.keys...), append([]string(nil), w.keys...)
			sort.Strings(gk)
			sort.Strings(wk)
			what := "key order"
			if fmt.Sprint(gk) != fmt.Sprint(wk) {
				what = "keys"
			}
			*diffs = append(*diffs, fmt.Sprintf("%s: %s %q, want %q", path, what, g.keys, w.keys))
		}
		for _, k := range w.keys {
			if gv, ok := g.vals[k]; ok {
				diffValue(gv, w.vals[k], path+"."+k, tol, diffs)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %v, want %v", path, got, want))
			return
		}
		for i := range w {
			diffValue(g[i], w[i], fmt.Sprintf("%s[%d]", path, i), tol, diffs)
		}
	case json.Number:
		g, ok := got.(json.Number)
		gf, err1 := g.Float64()
		wf, err2 := w.Float64()
		if !ok || err1 != nil || err2 != nil || math.Abs(gf-wf) > tol {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %v, want %v", path, got, want))
		}
	default:
		if got != want {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %v, want %v", path, got, want))
		}
	}
}

// sameText compares a console report with EvaLearn's. The one difference allowed is in a slope
// line at a rounding tie: EvaLearn's slope comes from lstsq and carries noise of ~1e-16, so an
// exact slope of 0 or 0.21875 prints as -0.0000 or 0.2187 there, and as 0.0000 or 0.2188 here.
// slopes are the report's accuracy slopes, from its JSON: a line may differ only where one of
// them is such a tie and the two lines print its two roundings.
func sameText(got, want string, slopes []float64) bool {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(g) != len(w) {
		return false
	}
	const label = "Accuracy Slope (k): "
	for i := range g {
		if g[i] == w[i] {
			continue
		}
		gi, gok := strings.CutPrefix(strings.TrimSpace(g[i]), label)
		wi, wok := strings.CutPrefix(strings.TrimSpace(w[i]), label)
		gv, gerr := strconv.ParseFloat(gi, 64)
		wv, werr := strconv.ParseFloat(wi, 64)
		if !gok || !wok || gerr != nil || werr != nil || !slices.ContainsFunc(slopes, func(s float64) bool { return tiePrints(s, gv, wv) }) {
			return false
		}
	}
	return true
}

// tiePrints reports whether slope s, printed to four decimals, is 0 or a rounding tie to within
// noise, and a and b are its two roundings, in either order.
func tiePrints(s, a, b float64) bool {
	const noise = 1e-12
	if math.Abs(s) < noise {
		return a == 0 && b == 0 // 0.0000 and -0.0000
	}
	x := s * 1e4
	if math.Abs(x-math.Floor(x)-0.5) > noise*1e4 {
		return false
	}
	lo, hi := math.Floor(x)/1e4, math.Ceil(x)/1e4
	near := func(u, v float64) bool { return math.Abs(u-v) < noise }
	return near(a, lo) && near(b, hi) || near(a, hi) && near(b, lo)
}

// slopes returns every number under an "accuracy_slope" key of the JSON report.
func slopes(t *testing.T, report []byte) []float64 {
	t.Helper()
	var v any
	if err := json.Unmarshal(report, &v); err != nil {
		t.Fatal(err)
	}
	var out []float64
	var walk func(v any, under bool)
	walk = func(v any, under bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(x, under || k == "accuracy_slope")
			}
		case []any:
			for _, x := range v {
				walk(x, under)
			}
		case float64:
			if under {
				out = append(out, v)
			}
		}
	}
	walk(v, false)
	if len(out) == 0 {
		t.Fatal("no accuracy_slope in the report")
	}
	return out
}

// TestSameText: the slope lines of a text report may differ only where the slope is a tie.
func TestSameText(t *testing.T) {
	line := func(v string) string { return "Overall\nAccuracy Slope (k): " + v + "\n" }
	for _, tc := range []struct {
		got, want string
		slopes    []float64
		same      bool
	}{
		{"0.0000", "-0.0000", []float64{-5.9e-17}, true},
		{"0.2188", "0.2187", []float64{0.21874999999999997}, true},
		{"0.2188", "0.2187", []float64{0.2187}, false}, // no tie: a real difference
		{"0.2188", "0.2187", []float64{0.1, 0.21875}, true},
		{"0.2189", "0.2187", []float64{0.21875}, false},
		{"0.0001", "0.0000", []float64{-5.9e-17}, false},
		{"0.3000", "0.3000", nil, true},
	} {
		if got := sameText(line(tc.got), line(tc.want), tc.slopes); got != tc.same {
			t.Errorf("sameText(%s, %s, slopes %v) = %v, want %v", tc.got, tc.want, tc.slopes, got, tc.same)
		}
	}
}

// TestTextSlope: rounding noise around 0 prints as 0.0000, a real slope as it is.
func TestTextSlope(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{-1.586e-17, "0.0000"}, {1e-13, "0.0000"}, {-0.00004, "-0.0000"}, {-0.2, "-0.2000"}, {0.21875, "0.2188"}} {
		if got := fmt.Sprintf("%.4f", textSlope(tt.v)); got != tt.want {
			t.Errorf("textSlope(%v) prints %s, want %s", tt.v, got, tt.want)
		}
	}
}
