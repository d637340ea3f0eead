package python

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// surrogate returns the WTF-8 encoding of the surrogate code point r (U+D800..U+DFFF).
func surrogate(r rune) string {
	return string([]byte{0xed, byte(0x80 | (r>>6)&0x3f), byte(0x80 | r&0x3f)})
}

// decode is utf8.DecodeRuneInString that also reads a WTF-8 surrogate as its code point.
func decode(s string) (rune, int) {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n == 1 && len(s) >= 3 && s[0] == 0xed && s[1] >= 0xa0 && s[1] <= 0xbf &&
		s[2] >= 0x80 && s[2] <= 0xbf {
		return 0xd000 | rune(s[1]&0x3f)<<6 | rune(s[2]&0x3f), 3
	}
	return r, n
}

func nan() float64         { return math.NaN() }
func inf(sign int) float64 { return math.Inf(sign) }

// JSONString is json.dumps of a str with ensure_ascii=True: " and \ escaped, \n \r \t \b \f in
// short form, every other code point outside 0x20..0x7e as \uhhhh (astral ones as surrogate
// pairs, lone surrogates as themselves). Unlike Go's encoding/json, / < > & are kept.
func JSONString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		r, n := decode(s[i:])
		i += n
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
			if r >= 0x10000 {
				r -= 0x10000
				writeHex(&b, `\u`, 0xd800+(r>>10)&0x3ff, 4)
				r = 0xdc00 + r&0x3ff
			}
			writeHex(&b, `\u`, r, 4)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// writeHex writes prefix and r as at least width lowercase hex digits.
func writeHex(b *strings.Builder, prefix string, r rune, width int) {
	b.WriteString(prefix)
	h := strconv.FormatInt(int64(r), 16)
	b.WriteString(strings.Repeat("0", max(0, width-len(h))))
	b.WriteString(h)
}

// Repr is Python 3's repr() of a str: single quotes unless s holds a ' and no ", backslash escapes
// for the quote, \ and \t \n \r, \xhh for other C0 controls and DEL, and \x/\u/\U escapes for
// non-printable non-ASCII (categories Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs). "Printable" is CPython
// 3.11's (Unicode 14.0): code points that Unicode 15.0 added are unassigned there, so escaped.
func Repr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, n := decode(s[i:])
		i += n
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
			writeHex(&b, `\x`, r, 2)
		case r < 0x7f:
			b.WriteByte(byte(r))
		case !printable(r):
			switch {
			case r < 0x100:
				writeHex(&b, `\x`, r, 2)
			case r < 0x10000:
				writeHex(&b, `\u`, r, 4)
			default:
				writeHex(&b, `\U`, r, 8)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// printable reports whether Python's str.isprintable holds for the non-ASCII rune r.
func printable(r rune) bool {
	if r == utf8.RuneError {
		return true // U+FFFD is a printable symbol (So); invalid bytes also decode to it.
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co, unicode.Zl, unicode.Zp, unicode.Zs) ||
		textnorm.NewInUnicode15(r) || r >= 0xd800 && r <= 0xdfff {
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

// FloatRepr is Python's repr() of a float: the shortest round-trip digits, positional notation for
// decimal exponents in [-4, 16) (always with a fractional part), d.ddde±XX otherwise; nan, inf.
func FloatRepr(f float64) string { return float(f, "nan", "inf") }

// JSONFloat is json.dumps of a float: FloatRepr, with NaN, Infinity and -Infinity spelt as
// json.dumps spells them (allow_nan=True).
func JSONFloat(f float64) string { return float(f, "NaN", "Infinity") }

// float writes f as repr() does, with the given spellings of NaN and infinity.
func float(f float64, nanText, infText string) string {
	switch {
	case math.IsNaN(f):
		return nanText
	case math.IsInf(f, 1):
		return infText
	case math.IsInf(f, -1):
		return "-" + infText
	}
	return finite(f)
}

func finite(f float64) string {
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
		es := strconv.Itoa(exp)
		if exp >= 0 {
			es = "+" + es
		}
		if len(es) == 2 {
			es = es[:1] + "0" + es[1:]
		}
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

// UTF8 returns s, a str held in WTF-8, as UTF-8: each lone surrogate becomes one U+FFFD, so
// that Python's len() and indexing of s count as utf8 counts the result.
func UTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := decode(s[i:])
		if 0xd800 <= r && r <= 0xdfff {
			r = utf8.RuneError
		}
		b.WriteRune(r)
		i += n
	}
	return b.String()
}
