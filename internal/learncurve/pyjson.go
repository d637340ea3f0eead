package learncurve

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
)

// This file writes JSON the way Python's json.dump(obj, indent=2) does: keys in insertion
// order, floats as repr() prints them, non-ASCII escaped (ensure_ascii), so reports compare byte
// for byte with EvaLearn's.

// pyObject is an ordered JSON object; values are pyObject, []any, string, int, float64 or
// []float64.
type pyObject []pyField

type pyField struct {
	Key string
	Val any
}

// encodePy returns v indented by two spaces per level, with no trailing newline.
func encodePy(v any) []byte {
	var b bytes.Buffer
	writePy(&b, v, 0)
	return b.Bytes()
}

// writeSeq writes n items between open and close as json.dump(indent=2) does: one item a line at
// depth+1, separated by commas, and open+close with nothing between when n is 0.
func writeSeq(b *bytes.Buffer, open, close string, n, depth int, item func(i int)) {
	b.WriteString(open)
	if n > 0 {
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			newline(b, depth+1)
			item(i)
		}
		newline(b, depth)
	}
	b.WriteString(close)
}

func writePy(b *bytes.Buffer, v any, depth int) {
	switch v := v.(type) {
	case pyObject:
		writeSeq(b, "{", "}", len(v), depth, func(i int) {
			b.WriteString(pyString(v[i].Key))
			b.WriteString(": ")
			writePy(b, v[i].Val, depth+1)
		})
	case []float64:
		writeSeq(b, "[", "]", len(v), depth, func(i int) { writePy(b, v[i], depth+1) })
	case []any:
		writeSeq(b, "[", "]", len(v), depth, func(i int) { writePy(b, v[i], depth+1) })
	case nil:
		b.WriteString("null")
	case string:
		b.WriteString(pyString(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case uint64:
		b.WriteString(strconv.FormatUint(v, 10))
	case float64:
		b.WriteString(pyFloat(v))
	default:
		panic(fmt.Sprintf("learncurve: cannot encode %T", v))
	}
}

func newline(b *bytes.Buffer, depth int) {
	b.WriteByte('\n')
	b.WriteString(strings.Repeat("  ", depth))
}

// pyFloat formats f as Python's float repr and json.dump do: the shortest round-trip digits,
// positional notation for exponents -4..15 (always with a fractional part), else d.ddde±XX;
// NaN and infinities as json.dump writes them.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		out := digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		es := fmt.Sprintf("%+03d", exp)
		return sign + out + "e" + es
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

// pyString quotes s as json.dumps does with ensure_ascii: ASCII control characters and
// non-ASCII runes become \uXXXX escapes (surrogate pairs above U+FFFF).
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r >= 0x7f && r <= 0xffff):
			fmt.Fprintf(&b, `\u%04x`, r)
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
