package prompt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Repr is Python 3's repr() of a str: single quotes unless s holds a ' and no ", backslash escapes
// for the quote, \ and \t \n \r, \xhh for other C0 controls and DEL, and \x/\u/\U escapes for
// non-printable non-ASCII (categories Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs).
//
// "Printable" is CPython 3.11's (Unicode 14.0): code points that Unicode 15.0 added are
// unassigned there, so escaped (checked over every code point).
func Repr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case !pyPrintable(r):
			writePyEscape(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

func writePyEscape(b *strings.Builder, r rune) {
	switch {
	case r < 0x100:
		fmt.Fprintf(b, `\x%02x`, r)
	case r < 0x10000:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}

// pyPrintable reports whether Python's str.isprintable holds for the non-ASCII rune r.
func pyPrintable(r rune) bool {
	if r == utf8.RuneError {
		return true // U+FFFD is a printable symbol (So); invalid bytes also decode to it.
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co, unicode.Zl, unicode.Zp, unicode.Zs) ||
		textnorm.NewInUnicode15(r) {
		return false
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) // else Cn
}

// StrList is Python's str() of a list of str: "[" + ", ".join(repr(s)) + "]".
func StrList(items []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Repr(s))
	}
	b.WriteByte(']')
	return b.String()
}

// JSONDumps re-encodes the JSON value raw as Python's json.dumps(json.loads(raw)) with default
// arguments: separators ", " and ": ", object keys in input order, ensure_ascii escaping, and
// floats written as Python's repr. drop names object keys to leave out at every level.
func JSONDumps(raw []byte, drop ...string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := dumpValue(&b, dec, drop); err != nil {
		return "", fmt.Errorf("json.dumps: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", fmt.Errorf("json.dumps: trailing data")
	}
	return b.String(), nil
}

func dumpValue(b *strings.Builder, dec *json.Decoder, drop []string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return dumpArray(b, dec, drop)
		}
		return dumpObject(b, dec, drop)
	case string:
		b.WriteString(JSONString(t))
	case json.Number:
		b.WriteString(pyNumber(t))
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil:
		b.WriteString("null")
	}
	return nil
}

func dumpArray(b *strings.Builder, dec *json.Decoder, drop []string) error {
	b.WriteByte('[')
	for i := 0; dec.More(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := dumpValue(b, dec, drop); err != nil {
			return err
		}
	}
	_, err := dec.Token() // ']'
	b.WriteByte(']')
	return err
}

func dumpObject(b *strings.Builder, dec *json.Decoder, drop []string) error {
	b.WriteByte('{')
	n := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		if contains(drop, key) {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		b.WriteString(JSONString(key))
		b.WriteString(": ")
		if err := dumpValue(b, dec, drop); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	b.WriteByte('}')
	return err
}

// pyNumber writes a JSON number as Python would after json.loads: integers unchanged, floats
// as repr(float) ("1.0", "1e-05", "1e+16", "inf" is impossible in JSON input).
func pyNumber(n json.Number) string {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return s
	}
	return PyFloat(f)
}

// PyFloat is Python's repr() of a float: the shortest round-trip digits, positional notation for
// decimal exponents in [-4, 16), scientific ("1e+16", "1.5e-05") otherwise, and always a ".0" or an
// exponent so the text reads as a float.
func PyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expS, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expS)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	out := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(out, ".") {
		out += ".0"
	}
	return out
}

// JSONString is a Python json.dumps string with ensure_ascii=True: " and \ escaped, \n \r \t \b \f
// in short form, every other code point outside 0x20..0x7e as \uhhhh (astral ones as surrogate
// pairs). Unlike Go's encoding/json, / < > & are kept.
func JSONString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r >= 0x20 && r < 0x7f:
				b.WriteRune(r)
			case r >= 0x10000:
				hi, lo := utf16Pair(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
			default:
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// PyStr is Python's str() of a JSON scalar decoded by json.loads: a string as it is, an integer in
// decimal, a float as repr, true/false as True/False, null as None, a list as its repr. It is how
// upstream code inserts a non-string answer (LoCoMo's integer answers, LongMemEval's numbers).
func PyStr(raw json.RawMessage) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("str(): %w", err)
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return pyRepr(v), nil
}

func pyRepr(v any) string {
	switch t := v.(type) {
	case string:
		return Repr(t)
	case json.Number:
		return pyNumber(t)
	case bool:
		if t {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = pyRepr(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		// Key order is lost here; upstream dict answers do not occur in the benchmarks we support.
		parts := make([]string, 0, len(t))
		for _, k := range slices.Sorted(maps.Keys(t)) {
			parts = append(parts, Repr(k)+": "+pyRepr(t[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}
