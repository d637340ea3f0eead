package evalearn

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
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
// (never all digits), inf as "inf"; a string is its decoded text re-encoded as a JSON string
// (quotes included, so never a number's key); arrays and objects, which are not keys upstream at
// all, are their compact JSON text. raw must be valid JSON.
func Key(raw []byte) (key string, n int, ok bool) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return "", 0, false
	case string(raw) == "true":
		return "1", 1, true
	case string(raw) == "false":
		return "0", 0, true
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return string(raw), 0, false
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		return strings.TrimSuffix(b.String(), "\n"), 0, false
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		return numberKey(string(raw))
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw), 0, false
	}
	return b.String(), 0, false
}

// numberKey is Key for a JSON number literal.
func numberKey(lit string) (string, int, bool) {
	if !strings.ContainsAny(lit, ".eE") { // an int upstream, exact
		if lit == "-0" {
			lit = "0"
		}
		n, err := strconv.ParseInt(lit, 10, strconv.IntSize)
		if err != nil {
			return lit, 0, false
		}
		return lit, int(n), true
	}
	f, err := strconv.ParseFloat(lit, 64) // a float upstream; out of range gives ±inf, as in Python
	if err != nil && !math.IsInf(f, 0) {
		return lit, 0, false
	}
	switch {
	case math.IsInf(f, 1):
		return "inf", 0, false
	case math.IsInf(f, -1):
		return "-inf", 0, false
	case f != math.Trunc(f):
		return strconv.FormatFloat(f, 'g', -1, 64), 0, false
	}
	if f == 0 {
		return "0", 0, true
	}
	key := new(big.Float).SetFloat64(f).Text('f', 0) // exact: 1e23 is 99999999999999991611392
	if math.Abs(f) < 1<<62 {
		return key, int(f), true
	}
	return key, 0, false
}
