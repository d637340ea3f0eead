package command

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"
)

// decimalFlags makes every integer flag of flags (cli.IntFlag, Int64Flag, UintFlag and
// Uint64Flag) read its value in decimal, from the command line and from its QA_* variable alike:
// "--seed 010" is 10, and "--seed 0x10" a usage error that asks for a decimal integer (see
// wanted). The flag package and urfave/cli read them as strconv's base 0 does, so that 010 was
// 8, 0x10 16, 0b10 2 and 1_000 1000: a researcher's zero-padded seed silently became another.
// Flags already made decimal are left as they are. Execute calls it for an app's flags and its
// subcommands', so that no command can declare an integer flag that is not read in decimal.
//
// Every cli.Float64Flag of flags is made to read a finite decimal number likewise (see
// decimalFloat): "--threshold 0x1p-1" was 0.5, and "1_000.5", "Inf" and "NaN" read too.
//
// Note: urfave/cli's Base field is read for the variable only; the command line is parsed by
// the flag package, whose integer values are base 0 whatever the Base. So each such flag is
// wrapped (decimalInt, …), its declaration unchanged: the wrapper's Apply lets the flag apply
// itself with Base 10, then puts a decimalValue in front of the flag.Value it defined. A flag
// type of our own at every declaration would have done the same at some thirty places, and the
// next plain cli.IntFlag would have been read in base 0 again. Integer and float slice flags,
// which no command has, are not changed.
func decimalFlags(flags []cli.Flag) {
	for i, f := range flags {
		switch f := f.(type) {
		case *cli.IntFlag:
			f.Base = 10
			flags[i] = decimalInt{f}
		case *cli.Int64Flag:
			f.Base = 10
			flags[i] = decimalInt64{f}
		case *cli.UintFlag:
			f.Base = 10
			flags[i] = decimalUint{f}
		case *cli.Uint64Flag:
			f.Base = 10
			flags[i] = decimalUint64{f}
		case *cli.Float64Flag:
			flags[i] = decimalFloat{f}
		}
	}
}

// decimalInt and its siblings are the integer flags decimalFlags wraps: the flag in all but
// Apply. Unwrap returns the flag itself.
type (
	decimalInt    struct{ *cli.IntFlag }
	decimalInt64  struct{ *cli.Int64Flag }
	decimalUint   struct{ *cli.UintFlag }
	decimalUint64 struct{ *cli.Uint64Flag }
)

func (f decimalInt) Apply(set *flag.FlagSet) error    { return applyDecimal(f.IntFlag, set) }
func (f decimalInt64) Apply(set *flag.FlagSet) error  { return applyDecimal(f.Int64Flag, set) }
func (f decimalUint) Apply(set *flag.FlagSet) error   { return applyDecimal(f.UintFlag, set) }
func (f decimalUint64) Apply(set *flag.FlagSet) error { return applyDecimal(f.Uint64Flag, set) }

func (f decimalInt) Unwrap() cli.Flag    { return f.IntFlag }
func (f decimalInt64) Unwrap() cli.Flag  { return f.Int64Flag }
func (f decimalUint) Unwrap() cli.Flag   { return f.UintFlag }
func (f decimalUint64) Unwrap() cli.Flag { return f.Uint64Flag }

// unwrapFlag returns the flag f wraps, when it is one of decimalFlags's, else f.
func unwrapFlag(f cli.Flag) cli.Flag {
	if w, ok := f.(interface{ Unwrap() cli.Flag }); ok {
		return w.Unwrap()
	}
	return f
}

// applyDecimal applies f to set, then reads every name of it through a decimalValue.
func applyDecimal(f cli.Flag, set *flag.FlagSet) error {
	if err := f.Apply(set); err != nil {
		return err
	}
	wrapValues(f, set, func(g flag.Getter) flag.Value { return decimalValue{wrappedValue{g}} })
	return nil
}

// wrapValues puts wrap's value in front of the flag.Value that f defined in set, under each of
// its names.
func wrapValues(f cli.Flag, set *flag.FlagSet, wrap func(flag.Getter) flag.Value) {
	for _, name := range f.Names() {
		if fl := set.Lookup(name); fl != nil {
			if g, ok := fl.Value.(flag.Getter); ok {
				fl.Value = wrap(g)
			}
		}
	}
}

// errNotDecimal is a decimalValue's error for a value that is not a decimal integer.
var errNotDecimal = errors.New("not a decimal integer")

// decimalValue is the flag package's value of an integer flag, set only from a decimal integer:
// an optional sign and digits, leading zeros and all. It passes the value on without those
// zeros, so that the flag package's base 0 reads it as decimal.
type decimalValue struct{ wrappedValue }

func (v decimalValue) Set(s string) error {
	sign, digits := cutSign(s)
	if digits == "" || !allDigits(digits) {
		return errNotDecimal
	}
	if digits = strings.TrimLeft(digits, "0"); digits == "" {
		digits = "0"
	}
	return v.Getter.Set(sign + digits)
}

// wrappedValue is the flag.Value a decimal reader wraps. Its String is the wrapped value's, as
// that flag writes it: decimal. The flag package may call it on a zero value, which wraps none,
// to learn a default's text.
type wrappedValue struct{ flag.Getter }

func (v wrappedValue) String() string {
	if v.Getter == nil {
		return ""
	}
	return v.Getter.String()
}

// basePrefixed reports whether value is an integer written with a base prefix after an optional
// sign, 0x, 0o or 0b (either case), as Go and Python write hexadecimal, octal and binary.
func basePrefixed(value string) bool {
	digits := strings.TrimLeft(value, "+-")
	return len(value)-len(digits) <= 1 && len(digits) > 2 && digits[0] == '0' && strings.ContainsRune("xXoObB", rune(digits[1]))
}

// decimalFloat is a cli.Float64Flag that decimalFlags wraps: the flag in all but Apply, which
// refuses a value, from the command line or from the flag's variable, that is not a finite
// decimal number (see isDecimalFloat). strconv.ParseFloat, which the flag package and urfave/cli
// read it with, takes Go's hexadecimal floats (0x1p-1), underscores between digits (1_000.5),
// and Inf, Infinity and NaN in any case: none of these is what a user means by a threshold, a
// rate or a price, and a NaN passes every range check.
//
// Note: urfave/cli reads a float flag's variable in Apply, with no Base to set as the integer
// flags have, so the wrapper reads it first, where urfave/cli would (flagSource), and refuses it
// with urfave/cli's own words, which badValue rewords as it does any other value's.
type decimalFloat struct{ *cli.Float64Flag }

func (f decimalFloat) Unwrap() cli.Flag { return f.Float64Flag }

func (f decimalFloat) Apply(set *flag.FlagSet) error {
	if val, source, found := flagSource(f.EnvVars, f.FilePath); found && val != "" && !isDecimalFloat(val) {
		return fmt.Errorf("could not parse %q as float64 value from %s for flag %s: %s", val, source, f.Name, errNotDecimalFloat)
	}
	if err := f.Float64Flag.Apply(set); err != nil {
		return err
	}
	wrapValues(f, set, func(g flag.Getter) flag.Value { return decimalFloatValue{wrappedValue{g}} })
	return nil
}

// flagSource returns the value urfave/cli reads for a flag with envVars and filePath, where it
// came from in urfave/cli's words, and whether it found one: the first variable that is set, or
// else the first of the files that reads.
func flagSource(envVars []string, filePath string) (value, source string, found bool) {
	for _, v := range envVars {
		v = strings.TrimSpace(v)
		if value, found := syscall.Getenv(v); found {
			return value, fmt.Sprintf("environment variable %q", v), true
		}
	}
	for _, name := range strings.Split(filePath, ",") {
		if name == "" {
			continue
		}
		if data, err := os.ReadFile(name); err == nil {
			return string(data), fmt.Sprintf("file %q", filePath), true
		}
	}
	return "", "", false
}

// errNotDecimalFloat is a decimalFloatValue's error for a value that is not a finite decimal
// number.
var errNotDecimalFloat = errors.New("not a finite decimal number")

// decimalFloatValue is the flag package's value of a float flag, set only from a finite decimal
// number.
type decimalFloatValue struct{ wrappedValue }

func (v decimalFloatValue) Set(s string) error {
	if !isDecimalFloat(s) {
		return errNotDecimalFloat
	}
	return v.Getter.Set(s)
}

// ParseDecimal reads s as a float flag reads its value: a finite decimal number (see
// isDecimalFloat), for the numbers of a flag that holds several, which the flag package does not
// read. Its error says what was wanted of s in a float flag's words, `want a decimal number, got
// "0x1p-1"`, for the caller to put after the flag's name.
func ParseDecimal(s string) (float64, error) {
	if !isDecimalFloat(s) {
		return 0, fmt.Errorf("want %s, got %q", floatWanted(s, false), s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil { // out of range: isDecimalFloat let no other error through
		return 0, fmt.Errorf("want %s, got %q", floatWanted(s, true), s)
	}
	return f, nil
}

// isDecimalFloat reports whether s is a decimal number as people write one: an optional sign,
// digits with at most one decimal point among or around them, and an optional exponent (e or E,
// an optional sign, digits). Such a number may still be too large for a float64, which
// strconv.ParseFloat then refuses as out of range.
func isDecimalFloat(s string) bool {
	_, s = cutSign(s)
	mantissa, exponent, hasExp := strings.Cut(strings.ToLower(s), "e")
	whole, frac, _ := strings.Cut(mantissa, ".")
	if whole+frac == "" || !allDigits(whole) || !allDigits(frac) {
		return false
	}
	if !hasExp {
		return true
	}
	_, exponent = cutSign(exponent)
	return exponent != "" && allDigits(exponent)
}

// cutSign returns the sign that s begins with, + or -, if any, and the rest of s.
func cutSign(s string) (sign, rest string) {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[:1], s[1:]
	}
	return "", s
}

// allDigits reports whether s holds the digits 0 to 9 only ("" does).
func allDigits(s string) bool { return strings.Trim(s, "0123456789") == "" }

// nonFinite reports whether s spells what strconv.ParseFloat reads as an infinity or NaN:
// "inf", "infinity" or "nan" in any case, after an optional sign.
func nonFinite(s string) bool {
	_, s = cutSign(s)
	switch strings.ToLower(s) {
	case "inf", "infinity", "nan":
		return true
	}
	return false
}
