package command

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

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

// plainDecimal is a decimal number as people write one, isDecimalFloat's doc restated: an
// optional sign, digits with at most one decimal point among or around them, an optional
// exponent.
var plainDecimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// basePrefix and nonFiniteWord are what floatKind's doc says it tells apart: a number written
// with a base prefix, and one that spells an infinity or NaN.
var (
	basePrefix    = regexp.MustCompile(`^[+-]?0[xXoObB](?s:.)`)
	nonFiniteWord = regexp.MustCompile(`^[+-]?(?i:inf|infinity|nan)$`)
)

// FuzzParseDecimal holds ParseDecimal to its doc: a plain decimal number that strconv.ParseFloat
// reads is read as the same float64, bit for bit; one too large for a float64 is an error that
// gives the range; anything else, which ParseFloat may still read (0x1p-1, 1_000, Inf, NaN), is an
// error in a float flag's words that quotes it.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0.5", ".5", "5e-1", "-2", "+1.", "007", "0x1p-1", "1_0", "Inf", "-infinity", "NaN",
		"1e999", "-1e-400", "", " 1", ".", "e5", "1e", "1e+", "1.5E+3", "-0", "0X10", "+-1", "1..2", "１", "1\u212a",
		"179769313486231580793728971405303415079934132710037826936173778980444440533535856.3e226"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDecimal(s)
		want, perr := strconv.ParseFloat(s, 64)
		switch {
		case !plainDecimal.MatchString(s):
			kind := "a number"
			if basePrefix.MatchString(s) {
				kind = "a decimal number"
			} else if nonFiniteWord.MatchString(s) {
				kind = "a finite number"
			}
			if wantErr := fmt.Sprintf("want %s, got %q", kind, s); err == nil || err.Error() != wantErr {
				t.Fatalf("ParseDecimal(%q) = %v, %v; want the error %q", s, got, err, wantErr)
			}
		case perr != nil:
			if err == nil || !strings.HasPrefix(err.Error(), "want a number from -1.79") || !errors.Is(perr, strconv.ErrRange) {
				t.Fatalf("ParseDecimal(%q) = %v, %v; ParseFloat's %v: want the range", s, got, err, perr)
			}
		case err != nil || math.Float64bits(got) != math.Float64bits(want) || math.IsInf(got, 0) || math.IsNaN(got):
			t.Fatalf("ParseDecimal(%q) = %v, %v; want ParseFloat's %v", s, got, err, want)
		}
		if err == nil && !isDecimalFloat(s) {
			t.Fatalf("ParseDecimal(%q) = %v, yet isDecimalFloat says no", s, got)
		}
	})
}
