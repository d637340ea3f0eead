package python

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestLoads holds Python 3.11's repr(json.loads(raw)) of each document (ERR where it raises).
func TestLoads(t *testing.T) {
	manyKeys := `{"k0": 0, "k1": 1, "k2": 2, "k3": 3, "k4": 4, "k5": 5, "k6": 6, "k7": 7, "k8": 8, "k9": 9, ` +
		`"k10": 10, "k11": 11, "k12": 12, "k13": 13, "k14": 14, "k15": 15, "k16": 16, "k3": "x", "n": 1, "n": 2, "k0": null}`
	for _, tt := range []struct{ raw, want string }{
		{" \r1\r", "1"}, // \r is JSON whitespace
		{"\r\n[1,\r2]", "[1, 2]"},
		{"\"a\x1fb\"", "ERR"}, // strict: no control character in a string
		{"\"a\x1f\"", "ERR"},
		{`"\ud800\udfff"`, `'\U000103ff'`}, // a pair's low half runs to \udfff
		{`"\udbff\udc00"`, `'\U0010fc00'`},
		{`"\udc00\udc00"`, `'\udc00\udc00'`}, // a low surrogate starts no pair
		{`"\ud800\u0041"`, `'\ud800A'`},      // no pair: the escape after the high half is kept
		{`"\ud800\ud800\udc00"`, "'\\ud800\U00010000'"},
		{`"\udfff"`, `'\udfff'`}, // lone surrogates at the ends of the range
		{`"x\udbffy"`, `'x\udbffy'`},
		{"1.", "ERR"}, // a fraction needs a digit
		{"[1.]", "ERR"},
		{"1.e5", "ERR"},
		{"1e", "ERR"}, // an exponent needs a digit: 1, then extra data
		{"[1e+]", "ERR"},
		{"[1E-, 2]", "ERR"},
		{"012", "ERR"}, // no leading zeros
		{"-012", "ERR"},
		{"00", "ERR"},
		{"-0", "0"},
		{"1e5", "100000.0"},
		{"-0.0e-0", "-0.0"},
		// Past 16 keys a map finds repeats; a repeated key keeps its first position, the last value.
		{manyKeys, "{'k0': None, 'k1': 1, 'k2': 2, 'k3': 'x', 'k4': 4, 'k5': 5, 'k6': 6, 'k7': 7, 'k8': 8, " +
			"'k9': 9, 'k10': 10, 'k11': 11, 'k12': 12, 'k13': 13, 'k14': 14, 'k15': 15, 'k16': 16, 'n': 2}"},
		{strings.Repeat("1", 4300), strings.Repeat("1", 4300)}, // int_max_str_digits is 4300
		{strings.Repeat("9", 4301), "ERR"},
	} {
		got := "ERR"
		if v, err := Loads(tt.raw); err == nil {
			got = v.Repr()
		}
		if got != tt.want {
			t.Errorf("Loads(%.60q).Repr() = %.200s, want %.200s", tt.raw, got, tt.want)
		}
	}
}

// TestLoadsError holds where and why Loads refuses a document: the offset of the byte it fails at
// and its message.
func TestLoadsError(t *testing.T) {
	for _, tt := range []struct {
		raw    string
		offset int
		msg    string
	}{
		{"[1,]", 3, "illegal trailing comma"},
		{"[1, \n]", 5, "illegal trailing comma"},
		{`{"a": 1,}`, 8, "illegal trailing comma"},
		{`{"a": 1, 2}`, 9, "expecting property name enclosed in double quotes"},
		{"[1,,2]", 3, "expecting value"},
		{"[1 2]", 3, "expecting ',' delimiter"},
		{"1e", 1, "extra data"},
		// Nesting past maxDepth is refused (Python's RecursionError comes far sooner).
		{strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2), maxDepth + 1, "nested too deeply"},
		{strings.Repeat(`{"a":`, maxDepth+2), (maxDepth + 1) * 5, "nested too deeply"},
	} {
		_, err := Loads(tt.raw)
		var e *Error
		if !errors.As(err, &e) || e.Offset != tt.offset || e.Msg != tt.msg {
			t.Errorf("Loads(%.60q) error = %v, want %s at byte %d", tt.raw, err, tt.msg, tt.offset)
		}
	}
}

// TestLoadsInvalidUTF8: a string's byte that is no UTF-8 is read as U+FFFD, whether or not the
// string holds an escape.
func TestLoadsInvalidUTF8(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{"\"a\xffb\"", "a\uFFFDb"},
		{"\"a\xffb\\n\"", "a\uFFFDb\n"},
		{"\"\\na\xffb\"", "\na\uFFFDb"},
		{"[\"\xc3\", 1]", "\uFFFD"},
	} {
		v, err := Loads(tt.raw)
		if err != nil {
			t.Fatalf("Loads(%q): %v", tt.raw, err)
		}
		if v.Kind == List {
			v = v.Items[0]
		}
		if v.S != tt.want {
			t.Errorf("Loads(%q) = %q, want %q", tt.raw, v.S, tt.want)
		}
	}
}

// TestPositive holds Python 3.11's json.loads(raw) > 0 (TypeError: ok false).
func TestPositive(t *testing.T) {
	for _, tt := range []struct {
		raw          string
		positive, ok bool
	}{
		{"0", false, true}, {"-0", false, true}, {"2", true, true}, {"-1", false, true},
		{"0.0", false, true}, {"-0.0", false, true}, {"1e-300", true, true}, {"NaN", false, true},
		{"Infinity", true, true}, {"true", true, true}, {"false", false, true},
		{`"1"`, false, false}, {"null", false, false}, {"[]", false, false},
	} {
		v, err := Loads(tt.raw)
		if err != nil {
			t.Fatal(err)
		}
		if positive, ok := v.Positive(); positive != tt.positive || ok != tt.ok {
			t.Errorf("Loads(%s).Positive() = %v, %v, want %v, %v", tt.raw, positive, ok, tt.positive, tt.ok)
		}
	}
}

// TestFloat holds Python 3.11's float(json.loads(raw)) (ERR where it raises) and the type name
// that a TypeError names.
func TestFloat(t *testing.T) {
	for _, tt := range []struct{ raw, want, typ string }{
		{"true", "1", "bool"}, {"false", "0", "bool"}, {"-7", "-7", "int"}, {"2.5", "2.5", "float"},
		{"1" + strings.Repeat("0", 308), "1e+308", "int"},
		{"1" + strings.Repeat("0", 400), "ERR", "int"}, // OverflowError: int too large to convert to float
		{`"-inf"`, "-Inf", "str"}, {`" -Infinity "`, "-Inf", "str"}, {`"x"`, "ERR", "str"},
		{"null", "ERR", "NoneType"}, {"[]", "ERR", "list"}, {"{}", "ERR", "dict"},
	} {
		v, err := Loads(tt.raw)
		if err != nil {
			t.Fatal(err)
		}
		got := "ERR"
		if f, err := v.Float(); err == nil {
			got = strconv.FormatFloat(f, 'g', -1, 64)
		}
		if got != tt.want || v.TypeName() != tt.typ {
			t.Errorf("Loads(%.20s): Float() = %s, TypeName() = %s, want %s, %s", tt.raw, got, v.TypeName(), tt.want, tt.typ)
		}
	}
	// The TypeError's words are Python's, the type name quoted.
	v, _ := Loads("[1]")
	if _, err := v.Float(); err == nil || err.Error() != "float() argument must be a string or a real number, not 'list'" {
		t.Errorf("float([1]) error = %v, want Python's TypeError words", err)
	}
}

// TestTruth holds Python's bool(json.loads(raw)).
func TestTruth(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want bool
	}{
		{"0", false}, {"-0", false}, {"0.0", false}, {"-0.0", false}, {"0e5", false}, {"1e-400", false},
		{"false", false}, {"null", false}, {`""`, false}, {"[]", false}, {"{}", false},
		{"1", true}, {"-1", true}, {"2022", true}, {"1e-300", true}, {"NaN", true}, {"-Infinity", true},
		{"true", true}, {`"0"`, true}, {`" "`, true}, {`"False"`, true}, {"[0]", true}, {`{"a":0}`, true},
	} {
		v, err := Loads(tt.raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Truth(); got != tt.want {
			t.Errorf("Loads(%s).Truth() = %v, want %v", tt.raw, got, tt.want)
		}
	}
}
