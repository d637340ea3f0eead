package python

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestJSONFloat(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {1, "1.0"}, {3, "3.0"}, {0.5, "0.5"}, {0.1, "0.1"}, {-0.25, "-0.25"},
		{0.3492935635792779, "0.3492935635792779"}, {1e-4, "0.0001"}, {1.5e-5, "1.5e-05"},
		{-5.9e-17, "-5.9e-17"}, {123456789012345.0, "123456789012345.0"}, {1e16, "1e+16"},
		{1.25e17, "1.25e+17"}, {1e300, "1e+300"}, {math.NaN(), "NaN"}, {math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"}, {math.Copysign(0, -1), "-0.0"}, {2.0 / 3, "0.6666666666666666"},
	}
	for _, tt := range tests {
		if got := JSONFloat(tt.f); got != tt.want {
			t.Errorf("JSONFloat(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestJSONString(t *testing.T) {
	tests := []struct{ s, want string }{
		{"Logical Reasoning", `"Logical Reasoning"`},
		{"a\"b\\c\nd\x01", `"a\"b\\c\nd\u0001"`},
		{"数学", `"\u6570\u5b66"`},
		{"é\x7f", `"\u00e9\u007f"`},
		{"😀", `"\ud83d\ude00"`},
	}
	for _, tt := range tests {
		if got := JSONString(tt.s); got != tt.want {
			t.Errorf("JSONString(%q) = %s, want %s", tt.s, got, tt.want)
		}
	}
}

// FuzzFloatRepr checks that FloatRepr round-trips and uses Python's notation switch points.
func FuzzFloatRepr(f *testing.F) {
	for _, v := range []float64{0, 1, 0.1, 1e-5, 1e16, 1e15, -5.9e-17, 0.3492935635792779, 123.456} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		s := FloatRepr(v)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != v {
			t.Fatalf("JSONFloat(%v) = %q, which reads back as %v, %v", v, s, back, err)
		}
		abs := math.Abs(v)
		exponent := strings.ContainsAny(s, "e")
		if want := abs != 0 && (abs < 1e-4 || abs >= 1e16); exponent != want {
			t.Errorf("JSONFloat(%v) = %q: exponent notation %v, want %v", v, s, exponent, want)
		}
		if !exponent && !strings.Contains(s, ".") {
			t.Errorf("JSONFloat(%v) = %q has no decimal point", v, s)
		}
	})
}

// TestParseFloat holds Python 3.11's float() of each string (ERR where it raises).
func TestParseFloat(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"1_0", "10"}, {"1__0", "ERR"}, {"_1", "ERR"}, {"1_", "ERR"}, {"1_.5", "ERR"}, {"1._5", "ERR"},
		{"1e_5", "ERR"}, {"1e5_0", "1e+50"}, {".5", "0.5"}, {"5.", "5"}, {"+.5e-3", "0.0005"}, {"0x1", "ERR"},
		{"١٢", "12"}, {"  7 ", "7"}, {"+-1", "ERR"}, {"--inf", "ERR"}, {"+inf", "+Inf"}, {"-nan", "NaN"},
		{"infinity", "+Inf"}, {"in", "ERR"}, {"1e", "ERR"}, {"e5", "ERR"}, {".", "ERR"}, {"1.5_5", "1.55"},
		{"١_٢", "12"}, {" 1\u3000", "1"}, {"\x1c2\x1c", "ERR"}, {"Infinity", "+Inf"}, {"+Infinity", "+Inf"},
		{"1E+0_5", "100000"}, {"٣.٥", "3.5"}, {"İnf", "ERR"}, {"\U00011f51", "ERR"}, {"1e400", "+Inf"},
		{"", "ERR"}, {"\u00851\u0085", "1"}, {"\v1.5\v", "1.5"}, {"\f-2\v", "-2"},
		{"-inf", "-Inf"}, {" -iNF ", "-Inf"}, {"-Infinity", "-Inf"},
	} {
		got := "ERR"
		if f, err := ParseFloat(tt.in); err == nil {
			got = strconv.FormatFloat(f, 'g', -1, 64)
		}
		if got != tt.want {
			t.Errorf("ParseFloat(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestUTF8(t *testing.T) {
	for _, tt := range []struct{ json, want string }{
		{`"plain é"`, "plain é"},
		{`"\ud800x"`, "\uFFFDx"},
		{`"\udc00\ud800"`, "\uFFFD\uFFFD"}, // two surrogates are two characters, as len() counts them
		{`"\ud83d\ude00"`, "😀"},
	} {
		v, err := Loads(tt.json)
		if err != nil {
			t.Fatal(err)
		}
		if got := UTF8(v.S); got != tt.want {
			t.Errorf("UTF8(Loads(%s)) = %q, want %q", tt.json, got, tt.want)
		}
	}
}
