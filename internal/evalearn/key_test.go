package evalearn

import (
	"math"
	"strconv"
	"testing"
)

// TestKey checks Key against Python's dict-key equality after json.loads (3 == 3.0 == True, etc.).
func TestKey(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		key  string
		n    int
		isIn bool
	}{
		{"3", "3", 3, true},
		{" 3 ", "3", 3, true},
		{"3.0", "3", 3, true},
		{"3e0", "3", 3, true},
		{"30e-1", "3", 3, true},
		{"3.00", "3", 3, true},
		{"true", "1", 1, true},
		{"false", "0", 0, true},
		{"-0", "0", 0, true},
		{"-0.0", "0", 0, true},
		{"-12", "-12", -12, true},
		{"-1.2e1", "-12", -12, true},
		{"2.5", "2.5", 0, false},
		{"2.50", "2.5", 0, false},
		{"25e-1", "2.5", 0, false},
		{"1e-300", "1e-300", 0, false},
		{"1e400", "inf", 0, false},
		{"-1e400", "-inf", 0, false},
		{"1e20", "100000000000000000000", 0, false},
		{"100000000000000000000", "100000000000000000000", 0, false},
		// 1e23 is the float 99999999999999991611392, not the int 10**23.
		{"1e23", "99999999999999991611392", 0, false},
		{"100000000000000000000000", "100000000000000000000000", 0, false},
		{"9007199254740993", "9007199254740993", 9007199254740993, true},
		{"9007199254740993.0", "9007199254740992", 9007199254740992, true},
		// An integral float carries its value wherever an int does: to 2**63, not past it.
		{"4611686018427387904", "4611686018427387904", 1 << 62, true},
		{"4611686018427387904.0", "4611686018427387904", 1 << 62, true},
		{"-9223372036854775808.0", "-9223372036854775808", math.MinInt64, true},
		{"-9223372036854775808", "-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808.0", "9223372036854775808", 0, false},
		{"9223372036854775808", "9223372036854775808", 0, false},
		{"2305843009213693952.0", "2305843009213693952", 1 << 61, true},
		// A float with a fraction is its own key, however large.
		{"1000000000000000.5", "1.0000000000000005e+15", 0, false},
		{`"3"`, `"3"`, 0, false},
		{`"\u0041<"`, `"A<"`, 0, false},
		{`"a\"b"`, `"a\"b"`, 0, false},
		{`[1, 2]`, `[1, 2]`, 0, false},
		{`"\ud800"`, `"\ud800"`, 0, false}, // lone surrogates stay apart, as in Python
		{`"\udc00"`, `"\udc00"`, 0, false},
		{`"é"`, `"\u00e9"`, 0, false},
		{`NaN`, `nan`, 0, false},
		{`null`, `null`, 0, false},
	} {
		key, n, ok := Key([]byte(tt.raw))
		if key != tt.key || n != tt.n || ok != tt.isIn {
			t.Errorf("Key(%s) = %q, %d, %v; want %q, %d, %v", tt.raw, key, n, ok, tt.key, tt.n, tt.isIn)
		}
	}
}

// FuzzKey checks that one float written two ways is one key, as it is one dict key in Python, and
// that an integral key carries its value.
func FuzzKey(f *testing.F) {
	for _, v := range []float64{0, 3, -12, 2.5, 1e23, 1e-300, 9007199254740993} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		e := strconv.FormatFloat(v, 'e', -1, 64)
		d := strconv.FormatFloat(v, 'f', -1, 64) // the shortest digits that read back as v
		if v == math.Trunc(v) {
			d = strconv.FormatFloat(v, 'f', 1, 64) // all the digits of v, and ".0": a float literal
		}
		ke, ne, oke := Key([]byte(e))
		kd, nd, okd := Key([]byte(" " + d + "\n"))
		if ke != kd || ne != nd || oke != okd {
			t.Fatalf("Key(%s) = %q %d %v, Key(%s) = %q %d %v", e, ke, ne, oke, d, kd, nd, okd)
		}
		if oke && strconv.Itoa(ne) != ke {
			t.Fatalf("Key(%s) = %q with value %d", e, ke, ne)
		}
	})
}
