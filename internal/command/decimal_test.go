package command

import "testing"

// TestParseDecimal: ParseDecimal takes what a float flag takes, and refuses the rest in a float
// flag's words: strconv.ParseFloat's hexadecimal floats, underscores, infinities and NaN too.
func TestParseDecimal(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want float64
		err  string // the error, "" for none
	}{
		{"0.5", 0.5, ""},
		{".5", 0.5, ""},
		{"5e-1", 0.5, ""},
		{"-2", -2, ""},
		{"+1.", 1, ""},
		{"007", 7, ""},
		{"0x1p-1", 0, `want a decimal number, got "0x1p-1"`},
		{"1_0", 0, `want a number, got "1_0"`},
		{"1_000.5", 0, `want a number, got "1_000.5"`},
		{"Inf", 0, `want a finite number, got "Inf"`},
		{"-infinity", 0, `want a finite number, got "-infinity"`},
		{"NaN", 0, `want a finite number, got "NaN"`},
		{"1e999", 0, `want a number from -1.7976931348623157e+308 to 1.7976931348623157e+308, got "1e999"`},
		{"", 0, `want a number, got ""`},
		{" 1", 0, `want a number, got " 1"`},
	} {
		got, err := ParseDecimal(tt.s)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ParseDecimal(%q) = %v, %v, want %v, nil", tt.s, got, err, tt.want)
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("ParseDecimal(%q) = %v, %v, want an error %q", tt.s, got, err, tt.err)
		}
	}
}
