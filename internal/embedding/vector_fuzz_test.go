package embedding

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
)

// FuzzVectorUnmarshal holds the embedding reader to encoding/json: wherever encoding/json reads a
// document as an array of numbers, with no null, into []float32, vector reads the same values (bit
// for bit); wherever it cannot, or the array holds a null, vector refuses it (null itself, no
// embedding at all, is read as nil by both).
func FuzzVectorUnmarshal(f *testing.F) {
	for _, s := range []string{`[1, 2.5e-1 ,-3]`, `[]`, `null`, `[1e-50, -0]`, `[1, null]`, `[1e39]`, `["1"]`,
		`[[1]]`, `{"a":1}`, `[0.1,0.2,-0.30000000000000004]`, `[ 1 , 2 ]`, "[\n1,\t2\r]", `[1,]`, `[,]`, `[-]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var v vector
		err := json.Unmarshal([]byte(doc), &v)
		var ptrs []*float64
		perr := json.Unmarshal([]byte(doc), &ptrs)
		var want []float32
		werr := json.Unmarshal([]byte(doc), &want)
		hasNull := perr == nil && slices.Contains(ptrs, nil)
		switch {
		case werr != nil || hasNull:
			if err == nil && !(doc != "" && isNullDoc(doc)) {
				t.Fatalf("vector read %q as %v; encoding/json: %v, null component %v", doc, v, werr, hasNull)
			}
		case err != nil:
			t.Fatalf("vector refused %q (%v); encoding/json reads %v", doc, err, want)
		case len(v) != len(want):
			t.Fatalf("vector read %q as %v, encoding/json as %v", doc, v, want)
		default:
			for i := range want {
				if math.Float32bits(v[i]) != math.Float32bits(want[i]) {
					t.Fatalf("vector read %q as %v, encoding/json as %v", doc, v, want)
				}
			}
		}
	})
}

// isNullDoc reports whether doc is the JSON null (with blanks), which both read as no vector.
func isNullDoc(doc string) bool {
	var x any
	return json.Unmarshal([]byte(doc), &x) == nil && x == nil
}
