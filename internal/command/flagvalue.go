package command

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// badValue returns err, the error of c's flag parsing, reworded when it is for a value that does
// not parse as its flag's type, given on the command line or in a flag's environment variable:
// `--seed: want an integer, got "abc"`, `--seed: want an integer, got "abc" from QA_SEED`. The
// flag package says `invalid value "abc" for flag -seed: parse error`, with one dash and nothing
// of what was wanted, and urfave/cli says of a variable `could not parse "abc" as int value from
// environment variable "QA_SEED" for flag seed: strconv.ParseInt: ...`. Every other error,
// and one for a flag of a type not known here, is returned as it is.
//
// Note: urfave/cli and the flag package give these errors as text only, so they are read back
// from it, as suggestFlag reads an unknown flag's; a Value of our own wrapping each flag's would
// give typed errors, but for the command line only, not for the environment, whose values
// urfave/cli parses itself.
func badValue(c *cli.Context, err error) error {
	v, ok := parseValueError(err.Error())
	if !ok || c == nil || c.Command == nil {
		return err
	}
	want := wanted(flagNamed(c, v.name), v.value, v.outOfRange)
	if want == "" {
		return err
	}
	msg := fmt.Sprintf("%s: want %s, got %q", dashed(v.name), want, v.value)
	if v.env != "" {
		return &envValueError{msg: msg + " from " + v.env, env: v.env}
	}
	return errors.New(msg)
}

// envValueError is badValue's error for a value from an environment variable, env: Execute
// reads the variable's name from it to show the help asked for without that value.
type envValueError struct {
	msg, env string
}

func (e *envValueError) Error() string { return e.msg }

// valueError is what an error of the flag package or of urfave/cli says of a value that does not
// parse: the flag's name as given, the value, the environment variable it came from ("" for the
// command line), and whether it parsed as a number too large for the flag.
type valueError struct {
	name, value, env string
	outOfRange       bool
}

// parseValueError reads the three errors badValue rewords: the flag package's
// `invalid value "V" for flag -N: R` and `invalid boolean value "V" for -N: R`, and urfave/cli's
// `could not parse "V" as T value from environment variable "E" for flag N: R`.
func parseValueError(msg string) (valueError, bool) {
	var v valueError
	var sep string
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	if ok {
		sep = " for flag -"
	} else if rest, ok = strings.CutPrefix(msg, "invalid boolean value "); ok {
		sep = " for -"
	} else if rest, ok = strings.CutPrefix(msg, "could not parse "); ok {
		sep = " for flag "
	} else {
		return v, false
	}
	if v.value, rest, ok = cutQuoted(rest); !ok {
		return v, false
	}
	if sep == " for flag " { // from the environment: a variable's name, quoted, is next
		if _, rest, ok = strings.Cut(rest, " value from environment variable "); !ok {
			return v, false
		}
		if v.env, rest, ok = cutQuoted(rest); !ok {
			return v, false
		}
	}
	if rest, ok = strings.CutPrefix(rest, sep); !ok {
		return v, false
	}
	var reason string
	if v.name, reason, ok = strings.Cut(rest, ": "); !ok || v.name == "" {
		return v, false
	}
	v.outOfRange = strings.HasSuffix(reason, strconv.ErrRange.Error())
	return v, true
}

// cutQuoted returns the Go-quoted string s begins with, unquoted, and what follows it.
func cutQuoted(s string) (value, rest string, ok bool) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", s, false
	}
	value, err = strconv.Unquote(q)
	return value, s[len(q):], err == nil
}

// wanted says what flag f takes, for an error about value, which did not parse: "an integer",
// or, when it is out of range, "an integer from ... to ...", or, for a value written with a base
// prefix (0x10, 0o17, 0b101), "a decimal integer": integer flags read no other base (see
// decimalFlags). A float flag wants "a number", "a decimal number" of a hexadecimal float
// (0x1p-1) and "a finite number" of Inf or NaN (see decimalFloat). It is "" for no flag, and for a flag of a type whose values cannot fail to
// parse (strings, string slices) or that is not known here.
func wanted(f cli.Flag, value string, outOfRange bool) string {
	var kind, bounds string
	switch f.(type) {
	case *cli.IntFlag:
		kind, bounds = integerKind(false, value), fmt.Sprintf("an integer from %d to %d", math.MinInt, math.MaxInt)
	case *cli.Int64Flag:
		kind, bounds = integerKind(false, value), fmt.Sprintf("an integer from %d to %d", math.MinInt64, math.MaxInt64)
	case *cli.UintFlag:
		kind, bounds = integerKind(true, value), fmt.Sprintf("an integer from 0 to %d", uint(math.MaxUint))
	case *cli.Uint64Flag:
		kind, bounds = integerKind(true, value), fmt.Sprintf("an integer from 0 to %d", uint64(math.MaxUint64))
	case *cli.Float64Flag:
		return floatWanted(value, outOfRange)
	case *cli.DurationFlag:
		return "a duration such as 90s or 2m"
	case *cli.BoolFlag:
		return "true or false"
	case *cli.IntSliceFlag, *cli.Int64SliceFlag:
		return "a comma-separated list of integers"
	case *cli.UintSliceFlag, *cli.Uint64SliceFlag:
		return "a comma-separated list of non-negative integers"
	case *cli.Float64SliceFlag:
		return "a comma-separated list of numbers"
	default:
		return ""
	}
	return ranged(kind, bounds, outOfRange)
}

// integerKind is what an integer flag, signed or unsigned, wants of value: "a decimal integer"
// when value is written with a base prefix.
func integerKind(unsigned bool, value string) string {
	switch prefixed := basePrefixed(value); {
	case unsigned && prefixed:
		return "a non-negative decimal integer"
	case unsigned:
		return "a non-negative integer"
	case prefixed:
		return "a decimal integer"
	}
	return "an integer"
}

// floatKind is what a float flag wants of value: "a decimal number" when value is written with
// a base prefix, "a finite number" when it spells an infinity or NaN, else "a number".
func floatKind(value string) string {
	switch {
	case basePrefixed(value):
		return "a decimal number"
	case nonFinite(value):
		return "a finite number"
	}
	return "a number"
}

// floatWanted is what a float flag wants of value: floatKind's answer, or the range of a float64
// when value is a decimal number too large for one.
func floatWanted(value string, outOfRange bool) string {
	return ranged(floatKind(value), fmt.Sprintf("a number from %g to %g", -math.MaxFloat64, math.MaxFloat64), outOfRange)
}

func ranged(kind, bounds string, outOfRange bool) string {
	if outOfRange {
		return bounds
	}
	return kind
}

// dashed is a flag's name as it is typed: "-v" for a one-letter name, "--seed" for a longer one.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// fromEnv returns " from QA_X" when the value of c's flag name came from its environment variable
// QA_X, not the command line, else "": a range check's error ends with it, as badValue's does, so
// that a value no one typed is traced to where it was set. c is a context whose flags parsed, an
// Action's or a Before's (OnUsageError's has no flag set).
//
// Note: urfave/cli's IsSet, and its LocalFlagNames, count a flag that a variable set as set. The
// flags the command line set are those its flag set saw, which the flag package records as it
// parses (flag.FlagSet.Visit); urfave/cli keeps that set unexported, but LocalFlagNames lists
// them, and adds the flags of the context's Command that a variable set: a copy of the context
// without its Command lists the command line's alone (commandLine). The flag's value was compared
// with the variable's before, which named a value typed on the command line after the variable
// when the variable held the same.
func fromEnv(c *cli.Context, name string) string {
	if ctx, f := flagOwner(c, name); f != nil {
		return envOrigin(ctx, f)
	}
	return ""
}

// FromEnv is fromEnv for the apps' warnings about a flag's value: " from QA_X" when it came from
// the flag's variable, else "".
func FromEnv(c *cli.Context, name string) string { return fromEnv(c, name) }

// Origin names where the value of c's flag name came from, for advice to check it: its
// variable ("QA_API_KEY_FILE") when that set it to something and the command line did not, else
// the flag ("--api-key-file"). A variable set empty, which is not read (see shadowEnv), names
// nothing to check.
func Origin(c *cli.Context, name string) string {
	if env := strings.TrimPrefix(fromEnv(c, name), " from "); env != "" && os.Getenv(env) != "" {
		return env
	}
	return dashed(name)
}

// flagNamed returns the flag of c's command, or of a command above it, that has name among its
// names (the flag itself, not decimalFlags's wrapper of it), or nil.
func flagNamed(c *cli.Context, name string) cli.Flag {
	_, f := flagOwner(c, name)
	return f
}

// flagOwner returns flagNamed's flag and the context of the command that has it, of c's lineage,
// whose flag set holds the flag's value: a subcommand's flag of the app's name is another flag,
// set apart.
func flagOwner(c *cli.Context, name string) (*cli.Context, cli.Flag) {
	for _, ctx := range c.Lineage() {
		if ctx.Command == nil {
			continue
		}
		for _, f := range ctx.Command.Flags {
			if slices.Contains(f.Names(), name) {
				return ctx, unwrapFlag(f)
			}
		}
	}
	return nil, nil
}

// envOrigin is fromEnv's answer for flag f of ctx's command: " from QA_X" when a variable set f
// (IsSet) and the command line did not, naming the first of f's variables that is set, as
// urfave/cli reads them.
func envOrigin(ctx *cli.Context, f cli.Flag) string {
	e, ok := f.(cli.DocGenerationFlag)
	if !ok || !f.IsSet() || commandLine(ctx, f) {
		return ""
	}
	for _, v := range e.GetEnvVars() {
		if _, set := os.LookupEnv(strings.TrimSpace(v)); set {
			return " from " + strings.TrimSpace(v)
		}
	}
	return ""
}

// commandLine reports whether the command line set flag f of ctx's command, by any of its names.
func commandLine(ctx *cli.Context, f cli.Flag) bool {
	set := TypedFlags(ctx)
	return slices.ContainsFunc(f.Names(), func(n string) bool { return slices.Contains(set, n) })
}

// TypedFlags returns the names of the flags of ctx's command that the command line set, not its
// variables: LocalFlagNames of a copy of ctx without its Command, which holds the same flag set
// (see the note at fromEnv).
func TypedFlags(ctx *cli.Context) []string {
	local := *ctx
	local.Command = nil
	return local.LocalFlagNames()
}

// List returns the values of c's string slice flag name joined by commas, empty ones left out:
// a flag whose value is a comma-separated list (--metrics em,f1), given more than once, adds up
// (--metrics em --metrics f1 is em,f1), where a string flag given again kept its last value and
// lost the others without a word. NewApp sets DisableSliceFlagSeparator, so that urfave/cli
// does not split a value at its commas first: the list's own parser splits the whole, and names
// what it finds there. A value from the flag's variable counts when the command line gives none,
// as a string flag's does.
func List(c *cli.Context, name string) string {
	return strings.Join(Values(c, name), ",")
}

// Values returns the values of c's string slice flag name, each as given, without the empty
// ones: an empty value as a whole (--metrics "", QA_BY= set to nothing) adds nothing to a list
// flag, so that a make variable left unset (--by "$(BY)") asks for what the flag's absence
// does, as --metrics "" asks for its default. A value whose items are all blank (" ", ",") is
// kept, for the flag's parser to judge.
func Values(c *cli.Context, name string) []string {
	return slices.DeleteFunc(slices.Clone(c.StringSlice(name)), func(v string) bool { return v == "" })
}

// EmptyItem returns a usage error naming the flag name and value, a value given to it, when items,
// the value's comma-separated items as the flag's parser splits it, hold a blank one beside one
// that is not: `--metrics: "em,,f1" holds an empty name`, as qa-score's --by says of its paths.
// Such an item is a slip (a comma doubled or left at the end, an unset part of a variable), and
// was dropped without a word, or read as a name. A value whose items are all blank ("", ",") is
// left to the flag's parser: it names nothing, which each flag judges in its own words.
func EmptyItem(name, value string, items []string, noun string) error {
	blank, named := false, false
	for _, it := range items {
		if strings.TrimSpace(it) == "" {
			blank = true
		} else {
			named = true
		}
	}
	if blank && named {
		return Usagef("--%s: %q holds an empty %s", name, value, noun)
	}
	return nil
}

// EmptyItems is EmptyItem over each value of c's string slice flag name (see List), split at
// its commas.
func EmptyItems(c *cli.Context, name, noun string) error {
	for _, v := range c.StringSlice(name) {
		if err := EmptyItem(name, v, strings.Split(v, ","), noun); err != nil {
			return err
		}
	}
	return nil
}
