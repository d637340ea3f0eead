package command

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// TestBadValue: a flag value that does not parse, on the command line or in the flag's
// environment variable, is a usage error naming the flag with its dashes, what it wants and what
// it got (and the variable); other flag errors are as urfave/cli and the flag package give them.
func TestBadValue(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  [2]string // variable and value; none when the variable is ""
		want string    // "" for no error
	}{
		{[]string{"--count", "abc"}, [2]string{}, `--count: want an integer, got "abc"`},
		{[]string{"-count", "abc"}, [2]string{}, `--count: want an integer, got "abc"`},
		{[]string{"--count=abc"}, [2]string{}, `--count: want an integer, got "abc"`},
		{[]string{"-c", "1.5"}, [2]string{}, `-c: want an integer, got "1.5"`}, // the alias given
		{[]string{"--count", ""}, [2]string{}, `--count: want an integer, got ""`},
		{[]string{"--count", "08"}, [2]string{}, ""}, // decimal: 8
		{[]string{"--count", "-09"}, [2]string{}, ""},
		{[]string{"--count", "0x10"}, [2]string{}, `--count: want a decimal integer, got "0x10"`},
		{[]string{"--count", "-0X1f"}, [2]string{}, `--count: want a decimal integer, got "-0X1f"`},
		{[]string{"--count", "0o17"}, [2]string{}, `--count: want a decimal integer, got "0o17"`},
		{[]string{"--seed", "0b101"}, [2]string{}, `--seed: want a decimal integer, got "0b101"`},
		{[]string{"--uint", "0x1"}, [2]string{}, `--uint: want a non-negative decimal integer, got "0x1"`},
		{[]string{"--uint64", "0B1"}, [2]string{}, `--uint64: want a non-negative decimal integer, got "0B1"`},
		{[]string{"--count", "1_000"}, [2]string{}, `--count: want an integer, got "1_000"`},
		{[]string{"--count", "0x"}, [2]string{}, `--count: want an integer, got "0x"`},
		{[]string{"--count", "+-1"}, [2]string{}, `--count: want an integer, got "+-1"`},
		{[]string{"--count", "+-0x1"}, [2]string{}, `--count: want an integer, got "+-0x1"`}, // two signs: no prefix after one
		{[]string{"--count", "-"}, [2]string{}, `--count: want an integer, got "-"`},
		{[]string{"--count", "99999999999999999999"}, [2]string{},
			`--count: want an integer from -9223372036854775808 to 9223372036854775807, got "99999999999999999999"`},
		{[]string{"--seed", "x"}, [2]string{}, `--seed: want an integer, got "x"`},
		{[]string{"--seed", "-9223372036854775809"}, [2]string{},
			`--seed: want an integer from -9223372036854775808 to 9223372036854775807, got "-9223372036854775809"`},
		{[]string{"--uint", "-1"}, [2]string{}, `--uint: want a non-negative integer, got "-1"`},
		{[]string{"--uint64", "18446744073709551616"}, [2]string{},
			`--uint64: want an integer from 0 to 18446744073709551615, got "18446744073709551616"`},
		{[]string{"--below", "x"}, [2]string{}, `--below: want a number, got "x"`},
		{[]string{"--below", "1e999"}, [2]string{},
			`--below: want a number from -1.7976931348623157e+308 to 1.7976931348623157e+308, got "1e999"`},
		{[]string{"--below", "0x1p-1"}, [2]string{}, `--below: want a decimal number, got "0x1p-1"`},
		{[]string{"--below", "-0X1.8P1"}, [2]string{}, `--below: want a decimal number, got "-0X1.8P1"`},
		{[]string{"--below", "0x1p9999"}, [2]string{}, `--below: want a decimal number, got "0x1p9999"`},
		{[]string{"--below", "1_000.5"}, [2]string{}, `--below: want a number, got "1_000.5"`},
		{[]string{"--below", "Inf"}, [2]string{}, `--below: want a finite number, got "Inf"`},
		{[]string{"--below", "-infinity"}, [2]string{}, `--below: want a finite number, got "-infinity"`},
		{[]string{"--below", "NaN"}, [2]string{}, `--below: want a finite number, got "NaN"`},
		{[]string{"--below", "+nan"}, [2]string{}, `--below: want a finite number, got "+nan"`},
		{[]string{"--below", " 0.5"}, [2]string{}, `--below: want a number, got " 0.5"`},
		{[]string{"--below", "1e"}, [2]string{}, `--below: want a number, got "1e"`},
		{[]string{"--below", "."}, [2]string{}, `--below: want a number, got "."`},
		{[]string{"--below", "1.5.5"}, [2]string{}, `--below: want a number, got "1.5.5"`},
		{[]string{"--below", "-1.5E-3"}, [2]string{}, ""},
		{[]string{"--below", ".5"}, [2]string{}, ""},
		{[]string{"--below", "5."}, [2]string{}, ""},
		{[]string{"--below", "+007"}, [2]string{}, ""},
		{[]string{"--timeout", "5"}, [2]string{}, `--timeout: want a duration such as 90s or 2m, got "5"`},
		{[]string{"--strict=maybe"}, [2]string{}, `--strict: want true or false, got "maybe"`},
		{[]string{"--ints", "1,x"}, [2]string{}, `--ints: want a comma-separated list of integers, got "1,x"`},
		{[]string{"--floats", "0.5,y"}, [2]string{}, `--floats: want a comma-separated list of numbers, got "0.5,y"`},
		{[]string{"--names", "a,,b", "--name", `"`}, [2]string{}, ""}, // strings always parse
		// The value is quoted as given, whatever it holds.
		{[]string{"--count", `1" for flag -seed: x`}, [2]string{}, `--count: want an integer, got "1\" for flag -seed: x"`},
		// The flag package's other errors, worded as the commands word theirs.
		{[]string{"--cont", "1"}, [2]string{}, `unknown flag --cont; did you mean "--count"?`},
		{[]string{"-cont", "1"}, [2]string{}, `unknown flag --cont; did you mean "--count"?`},
		{[]string{"-x"}, [2]string{}, `unknown flag -x`},
		{[]string{"--count"}, [2]string{}, `--count needs a value`},
		// An output flag the command lacks says where the records go.
		{[]string{"-o", "out.jsonl"}, [2]string{}, `unknown flag -o (the output goes to stdout: redirect it, > FILE)`},
		{[]string{"--output", "out.jsonl"}, [2]string{}, `unknown flag --output (the output goes to stdout: redirect it, > FILE)`},
		// From the environment, naming the variable.
		{nil, [2]string{"QA_COUNT", "abc"}, `--count: want an integer, got "abc" from QA_COUNT`},
		{nil, [2]string{"QA_COUNT", "08"}, ""},
		{nil, [2]string{"QA_COUNT", "0x10"}, `--count: want a decimal integer, got "0x10" from QA_COUNT`},
		{nil, [2]string{"QA_SEED", "0o7"}, `--seed: want a decimal integer, got "0o7" from QA_SEED`},
		{nil, [2]string{"QA_UINT", "0b1"}, `--uint: want a non-negative decimal integer, got "0b1" from QA_UINT`},
		{nil, [2]string{"QA_COUNT", "1_000"}, `--count: want an integer, got "1_000" from QA_COUNT`},
		{nil, [2]string{"QA_SEED", "9223372036854775808"},
			`--seed: want an integer from -9223372036854775808 to 9223372036854775807, got "9223372036854775808" from QA_SEED`},
		{nil, [2]string{"QA_UINT", "-1"}, `--uint: want a non-negative integer, got "-1" from QA_UINT`},
		{nil, [2]string{"QA_BELOW", "half"}, `--below: want a number, got "half" from QA_BELOW`},
		{nil, [2]string{"QA_BELOW", "0x1p-1"}, `--below: want a decimal number, got "0x1p-1" from QA_BELOW`},
		{nil, [2]string{"QA_BELOW", "1_0"}, `--below: want a number, got "1_0" from QA_BELOW`},
		{nil, [2]string{"QA_BELOW", "-Inf"}, `--below: want a finite number, got "-Inf" from QA_BELOW`},
		{nil, [2]string{"QA_BELOW", "NaN"}, `--below: want a finite number, got "NaN" from QA_BELOW`},
		{nil, [2]string{"QA_BELOW", "1e999"},
			`--below: want a number from -1.7976931348623157e+308 to 1.7976931348623157e+308, got "1e999" from QA_BELOW`},
		{nil, [2]string{"QA_BELOW", "2.5e-1"}, ""},
		{nil, [2]string{"QA_BELOW", ""}, ""}, // set and empty: the default
		{nil, [2]string{"QA_TIMEOUT", "5"}, `--timeout: want a duration such as 90s or 2m, got "5" from QA_TIMEOUT`},
		{nil, [2]string{"QA_STRICT", "maybe"}, `--strict: want true or false, got "maybe" from QA_STRICT`},
		{nil, [2]string{"QA_INTS", "1,x"}, `--ints: want a comma-separated list of integers, got "1,x" from QA_INTS`},
		{nil, [2]string{"QA_STRICT", ""}, ""}, // set and empty: false
		// A flag given wins over its variable, which is then not read, bad or not.
		{[]string{"--count", "3"}, [2]string{"QA_COUNT", "abc"}, ""},
		{[]string{"-c=3"}, [2]string{"QA_COUNT", "abc"}, ""},
		{[]string{"--seed", "3"}, [2]string{"QA_SEED", "0x10"}, ""},
		{[]string{"--below", "0.5"}, [2]string{"QA_BELOW", "NaN"}, ""},
		{[]string{"--timeout", "5s"}, [2]string{"QA_TIMEOUT", "bad"}, ""},
		{[]string{"--strict=false"}, [2]string{"QA_STRICT", "yes"}, ""},
		{[]string{"--ints", "1"}, [2]string{"QA_INTS", "1,x"}, ""},
		{[]string{"--uint", "3"}, [2]string{"QA_COUNT", "abc"}, `--count: want an integer, got "abc" from QA_COUNT`},
		{[]string{"--", "--count"}, [2]string{"QA_COUNT", "abc"}, `--count: want an integer, got "abc" from QA_COUNT`},
	} {
		runWithEnv(t, tc.args, tc.env, func(t *testing.T, name string) {
			var stdout, stderr bytes.Buffer
			app := NewApp("qa-x", "test", "", nil, &stdout, &stderr)
			app.Flags = []cli.Flag{
				&cli.IntFlag{Name: "count", Aliases: []string{"c"}, EnvVars: []string{"QA_COUNT"}},
				&cli.Int64Flag{Name: "seed", EnvVars: []string{"QA_SEED"}},
				&cli.UintFlag{Name: "uint", EnvVars: []string{"QA_UINT"}},
				&cli.Uint64Flag{Name: "uint64", EnvVars: []string{"QA_UINT64"}},
				&cli.Float64Flag{Name: "below", EnvVars: []string{"QA_BELOW"}},
				&cli.DurationFlag{Name: "timeout", EnvVars: []string{"QA_TIMEOUT"}},
				&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}},
				&cli.IntSliceFlag{Name: "ints", EnvVars: []string{"QA_INTS"}},
				&cli.Float64SliceFlag{Name: "floats"},
				&cli.StringSliceFlag{Name: "names"},
				&cli.StringFlag{Name: "name"},
			}
			app.Action = func(*cli.Context) error { return nil }
			err := Execute(context.Background(), app, append([]string{"qa-x"}, tc.args...))
			wantUsage(t, "qa-x "+name, err, tc.want, equal)
			if stdout.Len() > 0 || stderr.Len() > 0 {
				t.Errorf("qa-x %s printed %q to stdout, %q to stderr; want nothing", name, stdout.String(), stderr.String())
			}
		})
	}
}

// TestDecimalFlags: every integer flag, of an app or of its subcommand, reads its value in
// decimal from the command line and from its variable: a leading 0 is no octal prefix, and
// the value read is the one typed, as a flag's IsSet and the range checks' fromEnv see it. A
// float flag reads a finite decimal number, and refuses a hexadecimal float, Inf and NaN.
func TestDecimalFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  [2]string // variable and value; none when the variable is ""
		want string    // count seed uint uint64, and where count came from
	}{
		{nil, [2]string{}, "7 1 0 0"},
		{[]string{"--count", "010", "--seed", "010", "--uint", "010", "--uint64", "010"}, [2]string{}, "10 10 10 10"},
		{[]string{"--count=08", "--seed=-0009"}, [2]string{}, "8 -9 0 0"},
		{[]string{"-c", "+012", "--seed", "000"}, [2]string{}, "12 0 0 0"},
		{[]string{"--seed", "-09223372036854775808"}, [2]string{}, "7 -9223372036854775808 0 0"},
		{nil, [2]string{"QA_COUNT", "010"}, "10 1 0 0 from QA_COUNT"},
		{nil, [2]string{"QA_SEED", "-010"}, "7 -10 0 0"},
		{nil, [2]string{"QA_UINT", "010"}, "7 1 10 0"},
		{nil, [2]string{"QA_UINT64", "0018446744073709551615"}, "7 1 0 18446744073709551615"},
		{[]string{"--count", "011"}, [2]string{"QA_COUNT", "010"}, "11 1 0 0"},
		{[]string{"sub", "--count", "011"}, [2]string{"QA_COUNT", "x"}, "11 1 0 0"},
		{[]string{"--seed", "5", "sub", "--count", "2"}, [2]string{"QA_SEED", "x"}, `--seed: want an integer, got "x" from QA_SEED`}, // sub's --seed is not given
		{[]string{"sub", "--count", "010"}, [2]string{}, "10 1 0 0"},
		{[]string{"sub"}, [2]string{"QA_COUNT", "010"}, "10 1 0 0 from QA_COUNT"},
		{[]string{"--level", "0.9"}, [2]string{}, "7 1 0 0 level 0.9"},
		{[]string{"--level", "9e-1"}, [2]string{}, "7 1 0 0 level 0.9"},
		{nil, [2]string{"QA_LEVEL", "0.99"}, "7 1 0 0 level 0.99 from QA_LEVEL"},
		{[]string{"sub", "--level", ".5"}, [2]string{}, "7 1 0 0 level 0.5"},
		{[]string{"sub", "--level", "0x1p-1"}, [2]string{}, `--level: want a decimal number, got "0x1p-1"`},
		{[]string{"sub"}, [2]string{"QA_LEVEL", "nan"}, `--level: want a finite number, got "nan" from QA_LEVEL`},
	} {
		runWithEnv(t, tc.args, tc.env, func(t *testing.T, name string) {
			flags := func() []cli.Flag {
				return []cli.Flag{
					&cli.IntFlag{Name: "count", Aliases: []string{"c"}, Value: 7, EnvVars: []string{"QA_COUNT"}},
					&cli.Int64Flag{Name: "seed", Value: 1, EnvVars: []string{"QA_SEED"}},
					&cli.UintFlag{Name: "uint", EnvVars: []string{"QA_UINT"}},
					&cli.Uint64Flag{Name: "uint64", EnvVars: []string{"QA_UINT64"}},
					&cli.Float64Flag{Name: "level", Value: 0.95, EnvVars: []string{"QA_LEVEL"}},
				}
			}
			var got string
			action := func(c *cli.Context) error {
				got = fmt.Sprintf("%d %d %d %d%s", c.Int("count"), c.Int64("seed"), c.Uint("uint"), c.Uint64("uint64"), fromEnv(c, "count"))
				if l := c.Float64("level"); l != 0.95 {
					got += fmt.Sprintf(" level %v%s", l, fromEnv(c, "level"))
				}
				return nil
			}
			var stdout, stderr bytes.Buffer
			app := NewApp("qa-x", "test", "", nil, &stdout, &stderr)
			app.Flags, app.Action = flags(), action
			app.Commands = []*cli.Command{{Name: "sub", Flags: flags(), Action: action, OnUsageError: app.OnUsageError}}
			if err := Execute(context.Background(), app, append([]string{"qa-x"}, tc.args...)); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("qa-x %s: read %q; want %q", name, got, tc.want)
			}
		})
	}
}

// TestFromEnv: a flag's value is named after its variable when the variable set it and the
// command line did not, by any of the flag's names, whatever the value: a value typed that is the
// variable's too is the command line's. A subcommand's flag is its own: the app's flag of the same
// name set on the command line leaves the subcommand's to its variable.
func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  []string // variable=value pairs
		flag string
		want string
	}{
		{nil, nil, "n", ""},
		{nil, []string{"QA_N=5"}, "n", " from QA_N"},
		{nil, []string{"QA_N=7"}, "n", " from QA_N"}, // the default's value, set by the variable
		{[]string{"--n", "5"}, []string{"QA_N=5"}, "n", ""},
		{[]string{"--n=5"}, []string{"QA_N=5"}, "n", ""},
		{[]string{"-c", "5"}, []string{"QA_N=5"}, "n", ""},
		{[]string{"--n", "6"}, []string{"QA_N=5"}, "n", ""},
		{[]string{"--n", "7"}, []string{"QA_N=5"}, "n", ""}, // the default's value, typed
		{[]string{"--n", "5"}, nil, "n", ""},
		{nil, []string{"QA_NAME_B=x"}, "name", " from QA_NAME_B"}, // the first of its variables that is set
		{[]string{"--name", "x"}, []string{"QA_NAME_A=x"}, "name", ""},
		{[]string{"--wait", "2s"}, []string{"QA_WAIT=2s"}, "wait", ""},
		{nil, []string{"QA_WAIT=2s"}, "wait", " from QA_WAIT"},
		{[]string{"--level", "0.9"}, []string{"QA_LEVEL=0.9"}, "level", ""},
		{nil, []string{"QA_LEVEL=0.9"}, "level", " from QA_LEVEL"},
		{[]string{"--force"}, []string{"QA_FORCE=true"}, "force", ""},
		{nil, []string{"QA_FORCE=true"}, "force", " from QA_FORCE"},
		{[]string{"--n", "5", "sub"}, []string{"QA_N=5"}, "n", " from QA_N"},
		{[]string{"sub", "--n", "5"}, []string{"QA_N=5"}, "n", ""},
		{[]string{"--level", "0.9", "sub"}, []string{"QA_LEVEL=0.9"}, "level", ""}, // the app's flag, read from sub
		{nil, nil, "unknown", ""},
	} {
		name := strings.Join(append(slices.Clone(tc.env), tc.args...), " ") + ": " + tc.flag
		t.Run(name, func(t *testing.T) {
			for _, kv := range tc.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			flags := func() []cli.Flag {
				return []cli.Flag{
					&cli.IntFlag{Name: "n", Aliases: []string{"c"}, Value: 7, EnvVars: []string{"QA_N"}},
					&cli.StringFlag{Name: "name", EnvVars: []string{"QA_NAME_A", "QA_NAME_B"}},
					&cli.DurationFlag{Name: "wait", Value: time.Second, EnvVars: []string{"QA_WAIT"}},
					&cli.BoolFlag{Name: "force", EnvVars: []string{"QA_FORCE"}},
				}
			}
			got := "not run"
			action := func(c *cli.Context) error {
				got = fromEnv(c, tc.flag)
				return nil
			}
			var stdout, stderr bytes.Buffer
			app := NewApp("qa-x", "test", "", nil, &stdout, &stderr)
			app.Flags = append(flags(), &cli.Float64Flag{Name: "level", Value: 0.95, EnvVars: []string{"QA_LEVEL"}})
			app.Action = action
			app.Commands = []*cli.Command{{Name: "sub", Flags: flags(), Action: action}}
			if err := Execute(context.Background(), app, append([]string{"qa-x"}, tc.args...)); err != nil {
				t.Fatalf("qa-x %s: %v", name, err)
			}
			if got != tc.want {
				t.Errorf("fromEnv(%q) = %q, want %q", tc.flag, got, tc.want)
			}
		})
	}
}

// TestBadValueSubcommand: a subcommand given the app's OnUsageError, as qa-judge's agree is,
// reports its flags' values as the app does.
func TestBadValueSubcommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	app, ran := subApp(&stdout, &stderr)
	app.Commands[0].OnUsageError = app.OnUsageError
	err := Execute(context.Background(), app, []string{"qa-x", "sub", "--n", "abc"})
	if want := `-n: want an integer, got "abc"`; err == nil || err.Error() != want || ExitCode(err) != ExitUsage || *ran {
		t.Errorf("qa-x sub --n abc = %v (exit %d, ran %v), want %q (exit %d)", err, ExitCode(err), *ran, want, ExitUsage)
	}
}

// TestParseValueError: only the three errors of a value that does not parse are read, whole;
// other text, a file's value and a cut message are not.
func TestParseValueError(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want valueError
		ok   bool
	}{
		{`invalid value "abc" for flag -seed: parse error`, valueError{name: "seed", value: "abc"}, true},
		{`invalid value "1e999" for flag -below: value out of range`, valueError{name: "below", value: "1e999", outOfRange: true}, true},
		{`invalid boolean value "maybe" for -strict: parse error`, valueError{name: "strict", value: "maybe"}, true},
		{`could not parse "9223372036854775808" as int value from environment variable "QA_SEED" for flag seed: strconv.ParseInt: parsing "9223372036854775808": value out of range`,
			valueError{name: "seed", value: "9223372036854775808", env: "QA_SEED", outOfRange: true}, true},
		{`could not parse "x" as bool value from file "f" for flag strict: invalid syntax`, valueError{}, false},
		{`invalid value "abc`, valueError{}, false},
		{`invalid value "abc" for -seed: parse error`, valueError{}, false},
		{`invalid value "abc" for flag -seed`, valueError{}, false},
		{`flag needs an argument: -seed`, valueError{}, false},
		{`--seed: want an integer, got "abc"`, valueError{}, false},
	} {
		got, ok := parseValueError(tc.msg)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("parseValueError(%q) = %+v, %v; want %+v, %v", tc.msg, got, ok, tc.want, tc.ok)
		}
	}
}

// TestBaseURL: a URL flag takes an http or https URL with a host, or nothing; anything else is a
// usage error naming the flag (and its variable), what is wrong, and the fix when it is the scheme.
func TestBaseURL(t *testing.T) {
	for _, tc := range []struct {
		arg, env, want string
	}{
		{"", "", ""},
		{"http://127.0.0.1:8000/v1", "", ""},
		{"https://api.example.com/v1/", "", ""},
		{"HTTP://localhost:8000", "", ""}, // schemes are read without case
		{"localhost:8000/v1", "", `--base-url: want a URL such as http://127.0.0.1:8000/v1, got "localhost:8000/v1": it has no scheme (did you mean "http://localhost:8000/v1"?)`},
		{"127.0.0.1:8000", "", `--base-url: want a URL such as http://127.0.0.1:8000/v1, got "127.0.0.1:8000": it has no scheme (did you mean "http://127.0.0.1:8000"?)`},
		{"ftp://host/v1", "", `--base-url: want a URL such as http://127.0.0.1:8000/v1, got "ftp://host/v1": its scheme is "ftp", not http or https`},
		{"http:///v1", "", `--base-url: want a URL such as http://127.0.0.1:8000/v1, got "http:///v1": it has no host`},
		{"http://host:port/v1", "", `--base-url: want a URL such as http://127.0.0.1:8000/v1, got "http://host:port/v1": invalid port ":port" after host`},
		// The clients join their paths to the URL as text: /v1?api-version=1/chat/completions.
		{"https://x.example.com/v1?api-version=2024-06-01", "", `--base-url: want a URL such as http://127.0.0.1:8000/v1, got "https://x.example.com/v1?api-version=2024-06-01": it has a query (?…) or a fragment (#…), which the client would send inside the path of every call`},
		{"http://127.0.0.1:8000/v1?", "", `--base-url: want a URL such as http://127.0.0.1:8000/v1, got "http://127.0.0.1:8000/v1?": it has a query (?…) or a fragment (#…), which the client would send inside the path of every call`},
		{"http://127.0.0.1:8000/v1#x", "", `--base-url: want a URL such as http://127.0.0.1:8000/v1, got "http://127.0.0.1:8000/v1#x": it has a query (?…) or a fragment (#…), which the client would send inside the path of every call`},
		// A bare # parses as no fragment, but the client still posts to /v1#/chat/completions, so to /v1.
		{"http://127.0.0.1:8000/v1#", "", `--base-url: want a URL such as http://127.0.0.1:8000/v1, got "http://127.0.0.1:8000/v1#": it has a query (?…) or a fragment (#…), which the client would send inside the path of every call`},
		// A password, and a query parameter that names a secret, are not echoed.
		{"http://u:PASS@127.0.0.1:1/v1?key=K&api-version=1", "", `--base-url: want a URL such as http://127.0.0.1:8000/v1, got "http://u:xxxxx@127.0.0.1:1/v1?key=…&api-version=1": it has a query (?…) or a fragment (#…), which the client would send inside the path of every call`},
		{"", "localhost:11434", `--base-url: want a URL such as http://127.0.0.1:8000/v1, got "localhost:11434" from QA_BASE_URL: it has no scheme (did you mean "http://localhost:11434"?)`},
	} {
		t.Setenv("QA_BASE_URL", tc.env)
		app := cli.NewApp()
		app.Flags = []cli.Flag{&cli.StringFlag{Name: "base-url", EnvVars: []string{"QA_BASE_URL"}}}
		var got string
		app.Action = func(c *cli.Context) error {
			_, err := BaseURL(c, "base-url")
			if err != nil {
				got = err.Error()
				if ExitCode(err) != ExitUsage {
					t.Errorf("BaseURL(%q): exit %d, want %d", tc.arg, ExitCode(err), ExitUsage)
				}
			}
			return nil
		}
		args := []string{"qa-x"}
		if tc.arg != "" {
			args = append(args, "--base-url", tc.arg)
		}
		if err := app.Run(args); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("BaseURL(%q, env %q) = %q, want %q", tc.arg, tc.env, got, tc.want)
		}
	}
}

// runWithEnv runs f as a subtest named by the command line args and the variable env (name,
// value) it sets, when env names one; f is given that name.
func runWithEnv(t *testing.T, args []string, env [2]string, f func(t *testing.T, name string)) {
	t.Helper()
	name := strings.Join(args, " ")
	if env[0] != "" {
		name = env[0] + "=" + env[1] + " " + name
	}
	t.Run(name, func(t *testing.T) {
		if env[0] != "" {
			t.Setenv(env[0], env[1])
		}
		f(t, name)
	})
}

// infoCase is a case of TestHelpDespiteEnv and TestVersionDespiteEnv: qa-x (infoApp) run with
// args and env set, and the warning it must give on stderr and print the help or the version, or
// instead the error errorMsg.
type infoCase struct {
	args     []string
	env      [2]string
	warning  string // on stderr; "" for an error instead of the help or the version
	errorMsg string
}

// TestHelpDespiteEnv: --help shows the help though a variable holds a value its flag cannot
// read, with a warning naming each such variable; the help still names the variable, and the
// variable holds its value again afterwards. Without --help, or with a bad value on the command
// line, the error stands.
func TestHelpDespiteEnv(t *testing.T) {
	runInfoCases(t, []infoCase{
		{[]string{"--help"}, [2]string{"QA_SEED", "abc"},
			`qa-x: warning: --seed: want an integer, got "abc" from QA_SEED; QA_SEED is not read for --help` + "\n", ""},
		{[]string{"-h"}, [2]string{"QA_COUNT", "0x10"},
			`qa-x: warning: --count: want a decimal integer, got "0x10" from QA_COUNT; QA_COUNT is not read for --help` + "\n", ""},
		{[]string{"sub", "--help"}, [2]string{"QA_COUNT", "x"},
			`qa-x sub: warning: --count: want an integer, got "x" from QA_COUNT; QA_COUNT is not read for --help` + "\n", ""},
		{[]string{"sub", "--help"}, [2]string{"QA_DEPTH", "x"},
			`qa-x sub: warning: --depth: want an integer, got "x" from QA_DEPTH; QA_DEPTH is not read for --help` + "\n", ""},
		{[]string{"--help"}, [2]string{"QA_SEED", "7"}, "", ""},
		{nil, [2]string{"QA_SEED", "abc"}, "", `--seed: want an integer, got "abc" from QA_SEED`},
		{[]string{"--", "--help"}, [2]string{"QA_SEED", "abc"}, "", `--seed: want an integer, got "abc" from QA_SEED`},
		{[]string{"--count", "x", "--help"}, [2]string{}, "", `--count: want an integer, got "x"`},
	})
}

// TestVersionDespiteEnv: --version (or -v, a subcommand's too) prints the version line though a
// variable holds a value its flag cannot read, with the warning --help gives, as the version
// reads no flag; without --version the error stands.
func TestVersionDespiteEnv(t *testing.T) {
	runInfoCases(t, []infoCase{
		{[]string{"--version"}, [2]string{"QA_SEED", "abc"},
			`qa-x: warning: --seed: want an integer, got "abc" from QA_SEED; QA_SEED is not read for --version` + "\n", ""},
		{[]string{"-v"}, [2]string{"QA_COUNT", "0x10"},
			`qa-x: warning: --count: want a decimal integer, got "0x10" from QA_COUNT; QA_COUNT is not read for --version` + "\n", ""},
		{[]string{"sub", "--version"}, [2]string{"QA_DEPTH", "x"},
			`qa-x sub: warning: --depth: want an integer, got "x" from QA_DEPTH; QA_DEPTH is not read for --version` + "\n", ""},
		{[]string{"sub", "-v"}, [2]string{"QA_COUNT", "x"},
			`qa-x sub: warning: --count: want an integer, got "x" from QA_COUNT; QA_COUNT is not read for --version` + "\n", ""},
		{[]string{"--version", "--help"}, [2]string{"QA_SEED", "abc"},
			`qa-x: warning: --seed: want an integer, got "abc" from QA_SEED; QA_SEED is not read for --help` + "\n", ""},
		{[]string{"--version"}, [2]string{"QA_SEED", "7"}, "", ""},
		{[]string{"--", "--version"}, [2]string{"QA_SEED", "abc"}, "", `--seed: want an integer, got "abc" from QA_SEED`},
		{[]string{"--count", "x", "--version"}, [2]string{}, "", `--count: want an integer, got "x"`},
	})
}

// runInfoCases runs each case: the help (its USAGE, naming QA_SEED) when the last argument asks
// for it, else the version line, with the case's warning, the action not run, and the variable
// left holding its value.
func runInfoCases(t *testing.T, cases []infoCase) {
	t.Helper()
	for _, tc := range cases {
		runWithEnv(t, tc.args, tc.env, func(t *testing.T, name string) {
			ran := false
			var stdout, stderr bytes.Buffer
			err := Execute(context.Background(), infoApp(&ran, &stdout, &stderr), append([]string{"qa-x"}, tc.args...))
			if tc.errorMsg != "" {
				if err == nil || err.Error() != tc.errorMsg {
					t.Errorf("qa-x %s = %v, want %q", name, err, tc.errorMsg)
				}
				return
			}
			if err != nil || ran {
				t.Errorf("qa-x %s = %v (action ran: %v), want the help or the version", name, err, ran)
			}
			if got := stderr.String(); got != tc.warning {
				t.Errorf("qa-x %s stderr = %q, want %q", name, got, tc.warning)
			}
			want := []string{"qa-x version "}
			if last := tc.args[len(tc.args)-1]; last == "--help" || last == "-h" {
				want = []string{"USAGE:", "[$QA_SEED]"}
			}
			for _, w := range want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("qa-x %s stdout = %q, want it to hold %q", name, stdout.String(), w)
				}
			}
			if tc.env[0] != "" {
				if v, ok := os.LookupEnv(tc.env[0]); !ok || v != tc.env[1] {
					t.Errorf("qa-x %s left %s = %q (set %v), want %q", name, tc.env[0], v, ok, tc.env[1])
				}
			}
		})
	}
}

// infoApp is the app of TestHelpDespiteEnv and TestVersionDespiteEnv: qa-x with --count and
// --seed, read from QA_COUNT and QA_SEED, and a subcommand sub with --depth (QA_DEPTH) besides;
// its action, the app's and sub's, sets ran.
func infoApp(ran *bool, stdout, stderr *bytes.Buffer) *cli.App {
	flags := func() []cli.Flag {
		return []cli.Flag{
			&cli.IntFlag{Name: "count", EnvVars: []string{"QA_COUNT"}},
			&cli.Int64Flag{Name: "seed", EnvVars: []string{"QA_SEED"}},
		}
	}
	action := func(*cli.Context) error { *ran = true; return nil }
	app := NewApp("qa-x", "test", "", nil, stdout, stderr)
	app.Flags, app.Action = flags(), action
	sub := append(flags(), &cli.IntFlag{Name: "depth", EnvVars: []string{"QA_DEPTH"}})
	app.Commands = []*cli.Command{{Name: "sub", Flags: sub, Action: action, OnUsageError: app.OnUsageError}}
	return app
}

// TestList: a list flag's values add up, given once or more on the command line, each split at
// its commas by the list's own parser and not before (so that "a,,b" reaches it whole); its
// variable counts when the command line gives none, and does not add to one it gives.
func TestList(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string // QA_L's value, "" for unset
		want string
	}{
		{nil, "", ""},
		{[]string{"--l", "a,b"}, "", "a,b"},
		{[]string{"--l", "a", "--l", "b,c"}, "", "a,b,c"},
		{[]string{"--l=a", "--l", "", "--l", "b"}, "", "a,b"}, // an empty value adds nothing
		{[]string{"--l", "a,,b"}, "", "a,,b"},                 // for the parser to name
		{[]string{"--l", `x\,y`, "--l", "z"}, "", `x\,y,z`},   // a value's escapes kept
		{nil, "a,b", "a,b"},
		{[]string{"--l", "c"}, "a,b", "c"},
		{[]string{"--l", "c", "--l", "d"}, "a", "c,d"},
	} {
		name := strings.Join(tc.args, " ") + " QA_L=" + tc.env
		t.Run(name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("QA_L", tc.env)
			}
			got := "not run"
			runList(t, tc.args, func(c *cli.Context) { got = List(c, "l") })
			if got != tc.want {
				t.Errorf("List = %q, want %q", got, tc.want)
			}
		})
	}
}

// runList runs a command with the list flag --l (QA_L) on args, action its action.
func runList(t *testing.T, args []string, action func(c *cli.Context)) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	app := NewApp("qa-x", "test", "", nil, &stdout, &stderr)
	app.Flags = []cli.Flag{&cli.StringSliceFlag{Name: "l", EnvVars: []string{"QA_L"}}}
	app.Action = func(c *cli.Context) error {
		action(c)
		return nil
	}
	if err := Execute(context.Background(), app, append([]string{"qa-x"}, args...)); err != nil {
		t.Fatalf("qa-x %s: %v", strings.Join(args, " "), err)
	}
}

// TestValues: the values of a list flag, each as given, without the empty ones, from its
// variable too (QA_L= is set to nothing: an unset make variable exported).
func TestValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string // QA_L's value; "unset" for none
		want []string
	}{
		{nil, "unset", nil},
		{[]string{"--l="}, "unset", nil},
		{[]string{"--l=", "--l", "a,,b", "--l", "", "--l", "c"}, "unset", []string{"a,,b", "c"}},
		{nil, "", nil},
		{nil, "a,b", []string{"a,b"}},
	} {
		name := strings.Join(tc.args, " ") + " QA_L=" + tc.env
		t.Run(name, func(t *testing.T) {
			if tc.env != "unset" {
				t.Setenv("QA_L", tc.env)
			}
			var got []string
			runList(t, tc.args, func(c *cli.Context) { got = Values(c, "l") })
			if !slices.Equal(got, tc.want) {
				t.Errorf("Values = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestEmptyItems: a value of a list flag whose comma-separated items hold a blank one beside a
// name is a usage error naming the flag and the value, each value apart, and the variable it came
// from; a value that names nothing ("", ",") is the parser's to judge.
func TestEmptyItems(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string // QA_L's value, "" for unset
		want string // the error, "" for none
	}{
		{nil, "", ""},
		{[]string{"--l", "a,b"}, "", ""},
		{[]string{"--l", " a , b "}, "", ""},
		{[]string{"--l", "", "--l", ","}, "", ""},
		{[]string{"--l", "a,,b"}, "", `--l: "a,,b" holds an empty name`},
		{[]string{"--l", "a,"}, "", `--l: "a," holds an empty name`},
		{[]string{"--l", ",a"}, "", `--l: ",a" holds an empty name`},
		{[]string{"--l", "a, ,b"}, "", `--l: "a, ,b" holds an empty name`},
		{[]string{"--l", "a", "--l", "b,"}, "", `--l: "b," holds an empty name`},
		{nil, "a,", `--l: "a," holds an empty name (from QA_L)`},
	} {
		name := strings.Join(tc.args, " ") + " QA_L=" + tc.env
		t.Run(name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("QA_L", tc.env)
			}
			var stdout, stderr bytes.Buffer
			app := NewApp("qa-x", "test", "", nil, &stdout, &stderr)
			app.Flags = []cli.Flag{&cli.StringSliceFlag{Name: "l", KeepSpace: true, EnvVars: []string{"QA_L"}}}
			app.Action = func(c *cli.Context) error { return EmptyItems(c, "l", "name") }
			err := Execute(context.Background(), app, append([]string{"qa-x"}, tc.args...))
			wantUsage(t, "qa-x "+name, err, tc.want, equal)
		})
	}
}

// TestHelpWithFiles: --help (or -h) shows the help, and runs nothing, whatever input files the
// command line also names, as cat --help does: a command line recalled with --help added to it
// printed urfave/cli's "No help topic for 'in.jsonl'" and failed. The help is the subcommand's
// when one is named, before --help or after it, the app's otherwise; a variable that does not
// parse is warned of as with --help alone.
func TestHelpWithFiles(t *testing.T) {
	const appUsage = "qa-x [global options] command [command options] [FILE ...]"
	for _, tc := range []struct {
		args    []string
		env     [2]string
		usage   string // the help's USAGE line, trimmed
		warning string
	}{
		{[]string{"--help", "in.jsonl"}, [2]string{}, appUsage, ""},
		{[]string{"-h", "-"}, [2]string{}, appUsage, ""},
		{[]string{"--count", "3", "--help", "a.jsonl", "b.jsonl"}, [2]string{}, appUsage, ""},
		{[]string{"--help", "--", "-odd.jsonl"}, [2]string{}, appUsage, ""},
		{[]string{"sub", "--help", "in.jsonl"}, [2]string{}, "qa-x sub [command options] [FILE ...]", ""},
		{[]string{"--help", "sub"}, [2]string{}, "qa-x sub [command options] [FILE ...]", ""},
		{[]string{"--help", "in.jsonl"}, [2]string{"QA_SEED", "abc"}, appUsage,
			`qa-x: warning: --seed: want an integer, got "abc" from QA_SEED; QA_SEED is not read for --help` + "\n"},
		{[]string{"sub", "-h", "in.jsonl"}, [2]string{"QA_DEPTH", "x"}, "qa-x sub [command options] [FILE ...]",
			`qa-x sub: warning: --depth: want an integer, got "x" from QA_DEPTH; QA_DEPTH is not read for --help` + "\n"},
	} {
		runWithEnv(t, tc.args, tc.env, func(t *testing.T, name string) {
			ran := false
			var stdout, stderr bytes.Buffer
			app := infoApp(&ran, &stdout, &stderr)
			app.Commands[0].ArgsUsage = app.ArgsUsage
			err := Execute(context.Background(), app, append([]string{"qa-x"}, tc.args...))
			if err != nil || ran {
				t.Fatalf("qa-x %s = %v (action ran: %v), want the help", name, err, ran)
			}
			_, after, _ := strings.Cut(stdout.String(), "USAGE:\n")
			if usage, _, _ := strings.Cut(after, "\n"); strings.TrimSpace(usage) != tc.usage {
				t.Errorf("qa-x %s printed the USAGE %q, want %q (stdout %q)", name, strings.TrimSpace(usage), tc.usage, stdout.String())
			}
			if got := stderr.String(); got != tc.warning {
				t.Errorf("qa-x %s stderr = %q, want %q", name, got, tc.warning)
			}
		})
	}
}
