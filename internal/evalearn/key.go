package evalearn

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/python"
)

// Key returns the identity that the JSON value raw has as a key of a Python dict after json.load,
// which is how evaluate_metric.py groups results by sequence_id and position_in_sequence: two
// values with the same Key are the same key upstream, and two with different Keys are not.
//
// Python compares numbers by value across int, float and bool, so 3, 3.0, 3e0 and 30e-1 are one
// key, true is 1 and false is 0, -0 is 0; an integer literal is exact at any size, while a
// literal with a fraction or exponent is first rounded to a float64 (1e400 is inf). Strings
// compare by their decoded text, never equal to a number: "3" is not 3.
//
// The key of an integral number is its decimal digits ("3", "-12"), and n is its value when it
// fits in an int (ok then is true); a non-integral float is written as Go's shortest 'g' form
// (never all digits), inf as "inf"; a string is json.dumps of it (quotes included, so never a
// number's key; lone surrogates stay apart, as in Python); lists and dicts, which are not keys
// upstream at all, and text that is not JSON are their json.dumps or the text itself.
func Key(raw []byte) (key string, n int, ok bool) {
	v, err := python.Loads(string(raw))
	switch {
	case err != nil:
		return strings.TrimSpace(string(raw)), 0, false
	case v.Kind == python.Bool && v.B:
		return "1", 1, true
	case v.Kind == python.Bool:
		return "0", 0, true
	case v.Kind == python.Int:
		n, err := strconv.ParseInt(v.N, 10, strconv.IntSize)
		if err != nil {
			return v.N, 0, false
		}
		return v.N, int(n), true
	case v.Kind == python.Float:
		return floatKey(v.F)
	}
	return v.Dumps(), 0, false
}

// floatKey is Key for a float: the int it equals, if any, else its own spelling.
func floatKey(f float64) (string, int, bool) {
	switch {
	case math.IsNaN(f):
		return "nan", 0, false // json.loads makes a new NaN each time, never equal: close enough
	case math.IsInf(f, 1):
		return "inf", 0, false
	case math.IsInf(f, -1):
		return "-inf", 0, false
	case f != math.Trunc(f):
		return strconv.FormatFloat(f, 'g', -1, 64), 0, false
	case f == 0:
		return "0", 0, true
	}
	key := new(big.Float).SetFloat64(f).Text('f', 0) // exact: 1e23 is 99999999999999991611392
	// It fits in an int as the same int literal's value does: from -2**63 up to 2**63, not to it.
	if math.MinInt <= f && f < -math.MinInt {
		return key, int(f), true
	}
	return key, 0, false
}
