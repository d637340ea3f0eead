package python

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Dumps is json.dumps(v) with default arguments: separators ", " and ": ", keys in order,
// ensure_ascii, floats as repr with NaN and Infinity spelt out.
func (v Value) Dumps() string {
	var b strings.Builder
	v.write(&b, jsonStyle)
	return b.String()
}

// style spells a Value's scalars and keys; lists and dicts are written alike by json.dumps and
// repr: "[a, b]" and "{k: v}".
type style struct {
	null, yes, no string
	float         func(float64) string
	str           func(string) string
}

var (
	jsonStyle = style{"null", "true", "false", JSONFloat, JSONString}
	reprStyle = style{"None", "True", "False", FloatRepr, Repr}
)

func (v Value) write(b *strings.Builder, st style) {
	switch v.Kind {
	case None:
		b.WriteString(st.null)
	case Bool:
		if v.B {
			b.WriteString(st.yes)
		} else {
			b.WriteString(st.no)
		}
	case Int:
		b.WriteString(v.N)
	case Float:
		b.WriteString(st.float(v.F))
	case Str:
		b.WriteString(st.str(v.S))
	case List:
		b.WriteByte('[')
		for i, x := range v.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			x.write(b, st)
		}
		b.WriteByte(']')
	case Dict:
		b.WriteByte('{')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(st.str(k))
			b.WriteString(": ")
			v.Vals[i].write(b, st)
		}
		b.WriteByte('}')
	}
}

// Without returns v with the dict keys named dropped at every level (v itself is not changed).
func (v Value) Without(keys ...string) Value {
	switch v.Kind {
	case List:
		items := make([]Value, len(v.Items))
		for i, x := range v.Items {
			items[i] = x.Without(keys...)
		}
		v.Items = items
	case Dict:
		var ks []string
		var vs []Value
		for i, k := range v.Keys {
			if !contains(keys, k) {
				ks = append(ks, k)
				vs = append(vs, v.Vals[i].Without(keys...))
			}
		}
		v.Keys, v.Vals = ks, vs
	}
	return v
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// StrOfJSON is Python's str(json.loads(raw)): how upstream code inserts a value that may not be a
// string (LoCoMo's integer answers, a caption that is a number).
func StrOfJSON(raw []byte) (string, error) {
	v, err := Loads(string(raw))
	if err != nil {
		return "", fmt.Errorf("json.loads: %w", err)
	}
	return v.Str(), nil
}

// Str is Python's str(v): a str as it is, anything else as its repr.
func (v Value) Str() string {
	if v.Kind == Str {
		return v.S
	}
	return v.Repr()
}

// Repr is Python's repr(v): None, True, False, ints, float repr, quoted strings, and lists and
// dicts of those ("[1, 'a']", "{'k': None}").
func (v Value) Repr() string {
	var b strings.Builder
	v.write(&b, reprStyle)
	return b.String()
}

// Positive is Python's v > 0: ok is false where the comparison raises TypeError (str, None, list,
// dict). An int compares exactly, NaN is not positive, True is 1.
func (v Value) Positive() (positive, ok bool) {
	switch v.Kind {
	case Int:
		return !strings.HasPrefix(v.N, "-") && v.N != "0", true
	case Float:
		return v.F > 0, true
	case Bool:
		return v.B, true
	}
	return false, false
}

// Truth is Python's bool(v): false for None, False, a zero int or float (-0.0 too), and an empty
// str, list or dict; true otherwise (NaN too).
func (v Value) Truth() bool {
	switch v.Kind {
	case None:
		return false
	case Bool:
		return v.B
	case Int:
		return v.N != "0"
	case Float:
		return v.F != 0
	case Str:
		return v.S != ""
	case List:
		return len(v.Items) > 0
	}
	return len(v.Keys) > 0
}

// Float is Python's float(v): ints rounded to the nearest float (OverflowError beyond the float
// range), True and False as 1.0 and 0.0, strings by ParseFloat; None, lists and dicts raise.
func (v Value) Float() (float64, error) {
	switch v.Kind {
	case Float:
		return v.F, nil
	case Bool:
		if v.B {
			return 1, nil
		}
		return 0, nil
	case Int:
		f, err := strconv.ParseFloat(v.N, 64)
		if err != nil {
			return 0, errors.New("int too large to convert to float")
		}
		return f, nil
	case Str:
		return ParseFloat(v.S)
	}
	return 0, fmt.Errorf("float() argument must be a string or a real number, not '%s'", v.TypeName())
}

// TypeName is the name of v's Python type: NoneType, bool, int, float, str, list or dict.
func (v Value) TypeName() string {
	return [...]string{"NoneType", "bool", "int", "float", "str", "list", "dict"}[v.Kind]
}

// ParseFloat is Python's float() of a str. Like CPython it first reads decimal digits of any script
// as 0-9 and other non-ASCII whitespace as spaces, then strips ASCII whitespace (so U+001C..U+001F,
// which str.strip() removes, stay and fail), and accepts an optional sign and either a decimal
// literal whose digits may be grouped by single underscores ("1_000.5"), or inf, infinity or nan
// in any ASCII case. Hexadecimal and Go's other extensions are refused.
func ParseFloat(s string) (float64, error) {
	var b strings.Builder
	for _, r := range s {
		if d, ok := textnorm.DecimalValue(r); ok {
			b.WriteByte(byte('0' + d))
		} else if r >= 0x7f && textnorm.IsSpace(r) {
			b.WriteByte(' ')
		} else if 'A' <= r && r <= 'Z' { // inf and nan are read in any ASCII case
			b.WriteByte(byte(r + 'a' - 'A'))
		} else if r < 0x7f {
			b.WriteByte(byte(r))
		} else {
			b.WriteByte('?')
		}
	}
	t := strings.Trim(b.String(), " \t\n\v\f\r")
	sign, word := 1, t
	if len(t) > 0 && (t[0] == '+' || t[0] == '-') {
		word = t[1:]
		if t[0] == '-' {
			sign = -1
		}
	}
	switch word {
	case "nan":
		return math.NaN(), nil
	case "inf", "infinity":
		return math.Inf(sign), nil
	}
	if !floatSyntax.MatchString(t) {
		return 0, fmt.Errorf("could not convert string to float: %s", Repr(s))
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("could not convert string to float: %s", Repr(s))
	}
	return f, nil
}

// floatSyntax is the decimal literal Python's float() accepts (PEP 515 underscores included),
// lowercased.
var floatSyntax = regexp.MustCompile(`^[+-]?(?:[0-9](?:_?[0-9])*(?:\.(?:[0-9](?:_?[0-9])*)?)?|\.[0-9](?:_?[0-9])*)(?:e[+-]?[0-9](?:_?[0-9])*)?$`)
