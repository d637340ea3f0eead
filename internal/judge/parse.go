package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Verdict is a parsed judge reply.
type Verdict struct {
	Score     float64
	Label     string
	Reasoning string
}

// ErrUnparsable marks a judge reply that its protocol's parser cannot read.
var ErrUnparsable = errors.New("unparsable judge reply")

func unparsable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnparsable, fmt.Sprintf(format, args...))
}

// ParseYesNo applies LongMemEval's rule: the reply is stripped and lower-cased, and it is correct iff
// it contains "yes" anywhere (so "Yes.", "eyes" and "yesterday" all count). An empty reply is
// unparsable here (upstream would score it 0; a None reply crashes upstream).
func ParseYesNo(raw string) (Verdict, error) {
	s := textnorm.Lower(textnorm.Strip(raw))
	if s == "" {
		return Verdict{}, unparsable("empty reply")
	}
	if strings.Contains(s, "yes") {
		return Verdict{Score: 1, Label: "yes"}, nil
	}
	return Verdict{Score: 0, Label: "no"}, nil
}

// ParseMAGMA applies MAGMA's rule: json.loads of the whole reply (no fence stripping; NaN and
// Infinity allowed), score = float(obj["score"]) clamped with max(0.0, min(1.0, s)), so NaN and
// +Infinity give 1.0 and -Infinity 0.0. A reply that is not a JSON object, or has no usable "score"
// (upstream would default a missing one to 0.0), is unparsable.
func ParseMAGMA(raw string) (Verdict, error) {
	obj, err := pyJSONObject(raw)
	if err != nil {
		return Verdict{}, unparsable("%v", err)
	}
	rawScore, ok := obj["score"]
	if !ok {
		return Verdict{}, unparsable(`no "score" key`)
	}
	s, err := pyFloat(rawScore)
	if err != nil {
		return Verdict{}, unparsable(`"score": %v`, err)
	}
	s = pyClamp01(s)
	v := Verdict{Score: s, Label: strconv.FormatFloat(s, 'g', -1, 64)}
	if r, ok := obj["reasoning"]; ok {
		json.Unmarshal(r, &v.Reasoning)
	}
	return v, nil
}

// pyClamp01 is Python's max(0.0, min(1.0, s)), NaN included.
func pyClamp01(s float64) float64 {
	if !(s < 1.0) { // min(1.0, s) keeps 1.0 unless s < 1.0 (false for NaN)
		s = 1.0
	}
	if s < 0.0 || math.IsInf(s, -1) {
		s = 0.0
	}
	return s
}

// pyWS is Python's \s for str patterns (the str.isspace set).
const pyWS = `[\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

var mem0Fence = regexp.MustCompile("(?s)```(?:json)?" + pyWS + "*(.*?)" + pyWS + "*```")

// ParseMem0 applies mem0's rule: strip, take the first ```(json)? fence's body if any, json.loads,
// read "label"; the score is 1 iff the label is exactly "CORRECT". Invalid JSON or a missing or
// non-string label is unparsable (upstream raises).
func ParseMem0(raw string) (Verdict, error) {
	s := textnorm.Strip(raw)
	if m := mem0Fence.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	obj, err := pyJSONObject(s)
	if err != nil {
		return Verdict{}, unparsable("%v", err)
	}
	var label string
	if err := json.Unmarshal(obj["label"], &label); err != nil || obj["label"] == nil {
		return Verdict{}, unparsable(`no string "label"`)
	}
	v := Verdict{Label: label}
	if label == "CORRECT" {
		v.Score = 1
	}
	return v, nil
}

// pyJSONObject decodes s as Python's json.loads would and requires an object. NaN, Infinity and
// -Infinity literals are accepted (as Python does); values stay raw.
func pyJSONObject(s string) (map[string]json.RawMessage, error) {
	src := quoteNonFinite(s)
	var v any
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber() // Python reads 1e400 (inf) and 10**400 (an int); only the grammar counts here
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("invalid JSON: extra data")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(src), &obj); err != nil || obj == nil {
		return nil, errors.New("JSON is not an object")
	}
	return obj, nil
}

const nonFiniteTag = "\x00pyfloat:"

// quoteNonFinite rewrites the bare NaN / Infinity / -Infinity tokens outside strings into tagged
// strings that pyFloat understands.
func quoteNonFinite(s string) string {
	if !strings.Contains(s, "NaN") && !strings.Contains(s, "Infinity") {
		return s
	}
	var b strings.Builder
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			b.WriteByte(c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		matched := false
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if strings.HasPrefix(s[i:], tok) {
				b.WriteString(`"\u0000pyfloat:` + tok + `"`)
				i += len(tok) - 1
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		if c == '"' {
			inStr = true
		}
		b.WriteByte(c)
	}
	return b.String()
}

// pyFloat is Python's float() of a decoded JSON value: numbers (an integer literal beyond the float
// range raises, as float() of a Python int does), booleans, the non-finite literals, and strings
// Python's float() accepts ("0.8", " 1 ", "nan", "inf", "1_0", digits of any script).
func pyFloat(v json.RawMessage) (float64, error) {
	v = bytes.TrimSpace(v)
	switch string(v) {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	if len(v) > 0 && v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return 0, err
		}
		if tok, ok := strings.CutPrefix(s, nonFiniteTag); ok {
			return map[string]float64{"NaN": math.NaN(), "Infinity": math.Inf(1), "-Infinity": math.Inf(-1)}[tok], nil
		}
		return pyFloatString(s)
	}
	f, err := strconv.ParseFloat(string(v), 64)
	switch {
	case err == nil:
	case !errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s is not a number", v)
	case !bytes.ContainsAny(v, ".eE"):
		// json.loads reads an integer literal as an int, and float() of an int beyond the
		// float range raises OverflowError; a literal with a fraction or exponent is inf.
		return 0, errors.New("integer too large to convert to float")
	}
	return f, nil
}

// pyFloatString is Python's float() of a str: Unicode decimal digits read as 0-9 and whitespace
// stripped; then an optional sign and a decimal literal whose digits may be grouped by
// single underscores ("1_000.5"), or inf, infinity, nan in any case. Hexadecimal and Go's other
// extensions are refused.
func pyFloatString(s string) (float64, error) {
	var b strings.Builder
	// CPython keeps ASCII as it is and turns other whitespace into ' ' before stripping ASCII
	// whitespace, so U+001C-U+001F, which str.strip() removes, are not stripped here.
	trimmed := strings.TrimFunc(s, func(r rune) bool {
		return strings.ContainsRune(" \t\n\v\f\r", r) || r >= 0x7f && textnorm.IsSpace(r)
	})
	for _, r := range trimmed {
		if v, ok := textnorm.DecimalValue(r); ok {
			b.WriteByte(byte('0' + v))
			continue
		}
		b.WriteRune(r)
	}
	t := strings.Map(func(r rune) rune { // float() reads inf and nan in ASCII case only
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}, b.String())
	sign, word := 1.0, t
	if len(t) > 0 && (t[0] == '+' || t[0] == '-') {
		sign, word = map[byte]float64{'+': 1, '-': -1}[t[0]], t[1:]
	}
	switch word {
	case "nan":
		return math.NaN(), nil
	case "inf", "infinity":
		return math.Inf(int(sign)), nil
	}
	if !pyFloatSyntax.MatchString(t) {
		return 0, fmt.Errorf("could not convert string to float: %q", s)
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("could not convert string to float: %q", s)
	}
	return f, nil
}

// pyFloatSyntax is the decimal literal Python's float() accepts (PEP 515 underscores included).
var pyFloatSyntax = regexp.MustCompile(`^[+-]?(?:[0-9](?:_?[0-9])*(?:\.(?:[0-9](?:_?[0-9])*)?)?|\.[0-9](?:_?[0-9])*)(?:e[+-]?[0-9](?:_?[0-9])*)?$`)
