package textnorm

import "unicode"

// DecimalValue is Python's unicodedata.decimal(r): the value of a decimal digit of any script
// (category Nd), which Python's int(), float() and re's \d accept as well as 0-9. ok is false for
// every other rune, including the digits Unicode 15.0 added (Kawi, Nag Mundari), which CPython
// 3.11's Unicode 14.0 does not know.
//
// Unicode encodes each set of decimal digits as ten consecutive code points from zero, so the
// value is the distance from the start of the run of Nd code points, modulo ten (runs can be
// longer than ten: the mathematical digits U+1D7CE..U+1D7FF are five sets in one run of 50).
func DecimalValue(r rune) (v int, ok bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if !unicode.Is(unicode.Nd, r) || unicode.Is(newInUnicode15, r) {
		return 0, false
	}
	start := r
	for unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int(r-start) % 10, true
}

// isDecimal is Python's \d on str patterns (and str.isdecimal for one character).
func isDecimal(r rune) bool {
	_, ok := DecimalValue(r)
	return ok
}
