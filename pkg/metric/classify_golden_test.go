package metric

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
)

// classCase is a case of the classification goldens.
type classCase = vectors.ClassCase

// loadCases reads the cases of testdata/classification/name (or of name, a path from /) and fails
// unless it holds want of them; want < 0 accepts any count but none.
func loadCases(t *testing.T, name string, want int) []classCase {
	t.Helper()
	path := name
	if !strings.HasPrefix(name, "/") {
		path = "testdata/classification/" + name
	}
	return vectors.ReadClassCases(t, path, name, want)
}

// goldenCases returns the golden cases in testdata/classification/name, then the random ones of the
// same name in testdata/classification/random (scripts/random-classification.py's, committed),
// then those in the file of the same name in the folder $QA_CLASSIFICATION_GOLDEN names, if set:
// more cases in the golden format, such as that script writes with another seed or --n. The first
// two must hold their documented counts; the last, any but none.
func goldenCases(t *testing.T, name string) []classCase {
	t.Helper()
	want, ok := vectors.ClassificationCounts[name]
	if !ok {
		t.Fatalf("no golden count for %s", name)
	}
	cases := append(loadCases(t, name, want), loadCases(t, "random/"+name, vectors.ClassificationRandomCount)...)
	if dir := os.Getenv("QA_CLASSIFICATION_GOLDEN"); dir != "" {
		abs, err := filepath.Abs(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, loadCases(t, abs, -1)...)
	}
	return cases
}

// checkCases runs each case as a subtest and compares every expected field with the one got
// computes for it, numbers within 1e-9. The two must name the same fields.
func checkCases(t *testing.T, cases []classCase, got func(t *testing.T, c classCase) map[string]any) {
	t.Helper()
	checkCasesWithin(t, 1e-9, cases, got)
}

// checkCasesWithin is checkCases with numbers within tol: 0 for the figures that are
// scikit-learn's to the last bit.
func checkCasesWithin(t *testing.T, tol float64, cases []classCase, got func(t *testing.T, c classCase) map[string]any) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			g := got(t, c)
			for k, want := range c.Expected {
				v, ok := g[k]
				if !ok {
					t.Errorf("%s: expected, but the test computes no such field", k)
					continue
				}
				compare(t, k, v, want, tol)
			}
			for k := range g {
				if _, ok := c.Expected[k]; !ok {
					t.Errorf("%s: computed, but the case expects no such field", k)
				}
			}
		})
	}
}

// decode decodes a JSON value of a case, failing the test when it is missing or malformed.
func decode(t *testing.T, what string, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// labelList decodes a JSON list of integer or string labels into strings, reporting whether they
// were numbers.
func labelList(t *testing.T, raw json.RawMessage) ([]string, bool) {
	t.Helper()
	var vals []any
	d := json.NewDecoder(bytesReader(raw))
	d.UseNumber()
	if err := d.Decode(&vals); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(vals))
	numeric := false
	for i, v := range vals {
		switch x := v.(type) {
		case json.Number:
			out[i], numeric = x.String(), true
		case string:
			out[i] = x
		default:
			t.Fatalf("label %v is neither number nor string", v)
		}
	}
	return out, numeric
}

func labelValue(t *testing.T, raw json.RawMessage) *string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	l, _ := labelList(t, json.RawMessage("["+string(raw)+"]"))
	return &l[0]
}

func floats(t *testing.T, raw json.RawMessage) []float64 {
	t.Helper()
	var v []float64
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// compare checks got against the expected JSON value: numbers within tol (integers exactly),
// null against nil, and lists and objects element by element.
func compare(t *testing.T, where string, got any, want json.RawMessage, tol float64) {
	t.Helper()
	w, err := decodeNumbers(want)
	if err != nil {
		t.Fatal(err)
	}
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("%s: marshal %v: %v", where, got, err)
	}
	gv, _ := decodeNumbers(g)
	if msg := diffJSON(gv, w, tol); msg != "" {
		t.Errorf("%s: got %s, want %s (%s)", where, g, want, msg)
	}
}

// decodeNumbers decodes JSON keeping numbers as their text, so that integers beyond 2^53 (labels,
// query ids) are compared exactly, not as the float64 they round to.
func decodeNumbers(raw []byte) (any, error) {
	var v any
	d := json.NewDecoder(bytesReader(raw))
	d.UseNumber()
	err := d.Decode(&v)
	return v, err
}

func diffJSON(got, want any, tol float64) string {
	switch w := want.(type) {
	case nil:
		if got != nil {
			return "want null"
		}
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return fmt.Sprintf("%v != %v", got, w)
		}
		wi, wInt := new(big.Int).SetString(w.String(), 10)
		gi, gInt := new(big.Int).SetString(g.String(), 10)
		if wInt && gInt {
			if gi.Cmp(wi) != 0 {
				return fmt.Sprintf("%v != %v", g, w)
			}
			return ""
		}
		wf, _ := w.Float64()
		gf, err := g.Float64()
		if err != nil || math.Abs(gf-wf) > tol {
			return fmt.Sprintf("%v != %v", g, w)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return "length differs"
		}
		for i := range w {
			if m := diffJSON(g[i], w[i], tol); m != "" {
				return "[" + strconv.Itoa(i) + "] " + m
			}
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return "want object"
		}
		for k := range w {
			if m := diffJSON(g[k], w[k], tol); m != "" {
				return k + ": " + m
			}
		}
		if len(g) != len(w) {
			return "extra keys"
		}
	default:
		if fmt.Sprint(got) != fmt.Sprint(w) {
			return fmt.Sprintf("%v != %v", got, w)
		}
	}
	return ""
}
