package command

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

// TestTraceEnv: a usage error about a flag's value that came from the flag's variable ends by
// naming the variable, whether the app's action, its Before or a subcommand's action returns it;
// one that names it already, one about a value typed, and one about no flag are left as they are.
// A subcommand's run reads no variable of the app's flags.
func TestTraceEnv(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  [2]string
		want string
	}{
		{nil, [2]string{"QA_MODE", "b"}, `--mode: unknown mode "b" (from QA_MODE)`},
		{[]string{"--mode", "b"}, [2]string{}, `--mode: unknown mode "b"`},
		{[]string{"--mode", "b"}, [2]string{"QA_MODE", "c"}, `--mode: unknown mode "b"`},
		{nil, [2]string{"QA_MODE", "a"}, ""},
		{nil, [2]string{"QA_MODE", "twice"}, `--mode: --mode twice is no mode (from QA_MODE)`},
		{nil, [2]string{"QA_MODE", "QA_MODE"}, `--mode: unknown mode "QA_MODE" (from QA_MODE)`},
		{nil, [2]string{"QA_MODE", "$QA_MODE"}, `--mode: unknown mode "$QA_MODE" (from QA_MODE)`},
		{nil, [2]string{"QA_SHARD", "0/2"}, `--shard: shard "0/2": want i/n (from QA_SHARD)`},
		{nil, [2]string{"QA_LEVEL", "2"}, `--level: want a number between 0 and 1, got 2 from QA_LEVEL`},
		{[]string{"--level", "2"}, [2]string{}, `--level: want a number between 0 and 1, got 2`},
		{[]string{"--mode", "none"}, [2]string{"QA_SHARD", "1/2"}, `no input: give --mode a or b`},
		{[]string{"sub"}, [2]string{"QA_NAMES", "x"}, `--names: unknown name "x" (from QA_NAMES)`},
		{[]string{"sub", "--names", "x"}, [2]string{"QA_NAMES", "y"}, `--names: unknown name "x"`},
		// A subcommand reads none of the app's flags, nor so their variables, good or bad.
		{[]string{"sub", "--names", "x"}, [2]string{"QA_LEVEL", "abc"}, `--names: unknown name "x"`},
		{[]string{"sub", "--names", "x"}, [2]string{"QA_LEVEL", "2"}, `--names: unknown name "x"`},
		{nil, [2]string{"QA_LEVEL", "abc"}, `--level: want a number, got "abc" from QA_LEVEL`},
		// The subcommand is the first argument that is no flag nor a flag's value, as urfave/cli
		// finds it: a flag's value or a later file named like it runs the app, which reads its
		// flags' variables.
		{[]string{"--shard", "sub"}, [2]string{"QA_MODE", "b"}, `--mode: unknown mode "b" (from QA_MODE)`},
		{[]string{"in.jsonl", "sub"}, [2]string{"QA_MODE", "b"}, `--mode: unknown mode "b" (from QA_MODE)`},
		{[]string{"--", "in.jsonl", "sub"}, [2]string{"QA_MODE", "b"}, `--mode: unknown mode "b" (from QA_MODE)`},
		{[]string{"--shard=1/2", "sub", "--names", "x"}, [2]string{"QA_MODE", "b"}, `--names: unknown name "x"`},
		{[]string{"--", "sub", "--names", "x"}, [2]string{"QA_MODE", "b"}, `--names: unknown name "x"`},
		{[]string{"--strict", "sub", "--names", "x"}, [2]string{"QA_MODE", "b"}, `--names: unknown name "x"`},
	} {
		runWithEnv(t, tc.args, tc.env, func(t *testing.T, name string) {
			var stdout, stderr bytes.Buffer
			app := NewApp("qa-x", "test", "", nil, &stdout, &stderr)
			app.Flags = []cli.Flag{
				&cli.StringFlag{Name: "mode", Value: "a", EnvVars: []string{"QA_MODE"}},
				&cli.StringFlag{Name: "shard", EnvVars: []string{"QA_SHARD"}},
				&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}},
				LevelFlag(),
			}
			app.Before = func(c *cli.Context) error {
				if s := c.String("shard"); s == "0/2" {
					return Usagef("--shard: shard %q: want i/n", s)
				}
				return nil
			}
			app.Action = func(c *cli.Context) error {
				if _, err := Level(c); err != nil {
					return err
				}
				switch m := c.String("mode"); m {
				case "a":
					return nil
				case "none":
					return Usagef("no input: give --mode a or b")
				case "twice":
					return Usagef("--mode: --mode %s is no mode", m)
				default:
					return Usagef("--mode: unknown mode %q", m)
				}
			}
			app.Commands = []*cli.Command{{
				Name:         "sub",
				Flags:        []cli.Flag{&cli.StringFlag{Name: "names", EnvVars: []string{"QA_NAMES"}}},
				OnUsageError: app.OnUsageError,
				Action: func(c *cli.Context) error {
					return Usagef("--names: unknown name %q", c.String("names"))
				},
			}}
			err := Execute(context.Background(), app, append([]string{"qa-x"}, tc.args...))
			wantUsage(t, "qa-x "+name, err, tc.want, equal)
		})
	}
}

// TestShadowEnvRestores: the variables of the flags given are not read during the run, and
// are the flags' again after it, for --help to list.
func TestShadowEnvRestores(t *testing.T) {
	t.Setenv("QA_COUNT", "abc")
	var stdout, stderr bytes.Buffer
	app := NewApp("qa-x", "test", "", nil, &stdout, &stderr)
	count := &cli.IntFlag{Name: "count", EnvVars: []string{"QA_COUNT"}}
	app.Flags = []cli.Flag{count}
	var got int
	app.Action = func(c *cli.Context) error {
		got = c.Int("count")
		if len(count.EnvVars) != 0 {
			t.Errorf("during the run, --count reads %q", count.EnvVars)
		}
		return nil
	}
	if err := Execute(context.Background(), app, []string{"qa-x", "--count", "3"}); err != nil || got != 3 {
		t.Fatalf("qa-x --count 3 with QA_COUNT=abc: %v, count %d; want nil, 3", err, got)
	}
	if !slices.Equal(count.EnvVars, []string{"QA_COUNT"}) {
		t.Errorf("after the run, --count reads %q, want [QA_COUNT]", count.EnvVars)
	}
}

// TestGivenNames: the flags a command line gives, by name, up to "--".
func TestGivenNames(t *testing.T) {
	got := givenNames([]string{"--seed", "3", "-c=2", "file", "--strict=false", "-", "--", "--count"})
	if want := []string{"seed", "c", "strict"}; !slices.Equal(got, want) {
		t.Errorf("givenNames = %q, want %q", got, want)
	}
}

// TestTraceEnvNamed: an error whose text begins with a flag in any form ("--types \",\" names no
// type", "--key-expansion merge: …"), usage error or not, is traced to the variable its value
// came from, and so is a flag the text names later beside its value; a flag named in advice, one
// typed, and a variable the text names already (as a whole word: QA_PLOT_FORMAT is not QA_PLOT)
// are not.
func TestTraceEnvNamed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  []string // NAME=VALUE
		err  func(c *cli.Context) error
		want string
		exit int
	}{
		{nil, []string{"QA_TYPES=,"}, func(c *cli.Context) error { return Usagef("--types %q names no type", c.String("types")) },
			`--types "," names no type (from QA_TYPES)`, ExitUsage},
		{[]string{"--types", ","}, nil, func(c *cli.Context) error { return Usagef("--types %q names no type", c.String("types")) },
			`--types "," names no type`, ExitUsage},
		{nil, []string{"QA_READING=con", "QA_SEED=3"}, func(c *cli.Context) error {
			return Usagef("--reading %s: needs --seed 2", c.String("reading"))
		}, `--reading con: needs --seed 2 (from QA_READING)`, ExitUsage},
		{[]string{"--reading", "con"}, []string{"QA_PROVIDER=openai"}, func(c *cli.Context) error {
			return Usagef("--reading %s: not with --provider %s", c.String("reading"), c.String("provider"))
		}, `--reading con: not with --provider openai (--provider from QA_PROVIDER)`, ExitUsage},
		{nil, []string{"QA_READING=con", "QA_PROVIDER=openai"}, func(c *cli.Context) error {
			return Usagef("--reading %s: not with --provider %q", c.String("reading"), c.String("provider"))
		}, `--reading con: not with --provider "openai" (--reading from QA_READING, --provider from QA_PROVIDER)`, ExitUsage},
		{nil, []string{"QA_PROVIDER=openai"}, func(c *cli.Context) error {
			return Usagef("--model is required with --provider=%s", c.String("provider"))
		}, `--model is required with --provider=openai (--provider from QA_PROVIDER)`, ExitUsage},
		{nil, []string{"QA_PROVIDER=openai"}, func(c *cli.Context) error {
			return Usagef("no key for --provider openaix")
		}, `no key for --provider openaix`, ExitUsage},
		{nil, []string{"QA_PLOT=x.gif"}, func(c *cli.Context) error {
			return Usagef("--plot %s: give --plot-format (QA_PLOT_FORMAT)", c.String("plot"))
		}, `--plot x.gif: give --plot-format (QA_PLOT_FORMAT) (from QA_PLOT)`, ExitUsage},
		{nil, []string{"QA_PLOT=x.gif"}, func(c *cli.Context) error {
			return Usagef("--plot %s: from QA_PLOT", c.String("plot"))
		}, `--plot x.gif: from QA_PLOT`, ExitUsage},
		{nil, []string{"QA_PLOT=QA_PLOT"}, func(c *cli.Context) error {
			return Usagef("--plot %s: give --plot-format", c.String("plot"))
		}, `--plot QA_PLOT: give --plot-format (from QA_PLOT)`, ExitUsage},
		{nil, []string{"QA_PLOT=QA_PLOT"}, func(c *cli.Context) error {
			return Usagef("--plot %s: from QA_PLOT", c.String("plot"))
		}, `--plot QA_PLOT: from QA_PLOT`, ExitUsage},
		{nil, []string{"QA_PLOT=a/b.svg"}, func(c *cli.Context) error {
			return fmt.Errorf("--plot: cannot write %s: %w", c.String("plot"), fs.ErrNotExist)
		}, `--plot: cannot write a/b.svg: file does not exist (from QA_PLOT)`, ExitFailure},
		// A generic flag whose value is no flag.Getter (qa-predict's --stop), named later beside
		// its value: urfave/cli's Context.Value panics on it.
		{nil, []string{"QA_STOP=x"}, func(c *cli.Context) error {
			return Usagef("--reading con: not with --stop x")
		}, `--reading con: not with --stop x (--stop from QA_STOP)`, ExitUsage},
		{[]string{"--stop", "x"}, nil, func(c *cli.Context) error {
			return Usagef("--reading con: not with --stop x")
		}, `--reading con: not with --stop x`, ExitUsage},
	} {
		name := strings.Join(append(slices.Clone(tc.env), tc.args...), " ")
		t.Run(name, func(t *testing.T) {
			for _, e := range tc.env {
				k, v, _ := strings.Cut(e, "=")
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			app := NewApp("qa-x", "test", "", nil, &stdout, &stderr)
			for _, n := range []string{"types", "reading", "provider", "plot", "plot-format"} {
				app.Flags = append(app.Flags, &cli.StringFlag{Name: n, EnvVars: []string{"QA_" + strings.ToUpper(strings.ReplaceAll(n, "-", "_"))}})
			}
			app.Flags = append(app.Flags, &cli.Int64Flag{Name: "seed", Value: 1, EnvVars: []string{"QA_SEED"}},
				&cli.GenericFlag{Name: "stop", Value: &setOnly{}, EnvVars: []string{"QA_STOP"}})
			app.Action = tc.err
			err := Execute(context.Background(), app, append([]string{"qa-x"}, tc.args...))
			if err == nil || err.Error() != tc.want || ExitCode(err) != tc.exit {
				t.Errorf("qa-x %s = %v (exit %d), want %q (exit %d)", name, err, ExitCode(err), tc.want, tc.exit)
			}
		})
	}
}

// setOnly is a flag value that is no flag.Getter: it is set and printed, and gives no value.
type setOnly struct{ v string }

func (s *setOnly) Set(v string) error { s.v = v; return nil }
func (s *setOnly) String() string {
	if s == nil {
		return ""
	}
	return s.v
}

// TestNamesVariable: a message names a variable only as a whole word, at its start or end too;
// QA_PLOT_FORMAT and QA_PLOT0 do not name QA_PLOT.
func TestNamesVariable(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{"QA_PLOT is empty", true},
		{"set QA_PLOT", true},
		{"set QA_PLOT=x", true},
		{"set QA_PLOT_FORMAT", false},
		{"set QA_PLOT0", false},
		{"XQA_PLOT", false},
		{"QA_PLOT_FORMAT and QA_PLOT", true},
		{"none", false},
	} {
		if got := namesVariable(tc.msg, "QA_PLOT"); got != tc.want {
			t.Errorf("namesVariable(%q, QA_PLOT) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}

// refuseEmpty is a flag value that refuses the empty string, as a list of numbers does
// (qa-score's --bleu-weights).
type refuseEmpty struct{ v string }

func (r *refuseEmpty) Set(v string) error {
	if v == "" {
		return fmt.Errorf("want a number, got %q", v)
	}
	r.v = v
	return nil
}
func (r *refuseEmpty) String() string {
	if r == nil {
		return ""
	}
	return r.v
}

// emptyEnvFlags returns a flag of every kind the commands declare, each with a default and a
// variable QA_<NAME>, and one that reads two variables, the first that is set winning.
func emptyEnvFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "mode", Value: "a", EnvVars: []string{"QA_MODE"}},
		&cli.StringFlag{Name: "cache", EnvVars: []string{"QA_CACHE"}},
		&cli.PathFlag{Name: "plot", Value: "p.svg", EnvVars: []string{"QA_PLOT"}},
		&cli.StringSliceFlag{Name: "metrics", Value: cli.NewStringSlice("em"), EnvVars: []string{"QA_METRICS"}},
		&cli.GenericFlag{Name: "weights", Value: &refuseEmpty{"0.5"}, EnvVars: []string{"QA_WEIGHTS"}},
		&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}},
		&cli.IntFlag{Name: "count", Value: 2, EnvVars: []string{"QA_COUNT"}},
		&cli.Int64Flag{Name: "seed", Value: 1, EnvVars: []string{"QA_SEED"}},
		&cli.Float64Flag{Name: "level", Value: 0.95, EnvVars: []string{"QA_LEVEL"}},
		&cli.DurationFlag{Name: "timeout", Value: time.Minute, EnvVars: []string{"QA_TIMEOUT"}},
		&cli.StringFlag{Name: "judge", Value: "j", EnvVars: []string{"QA_JUDGE_NAME", "QA_JUDGE"}},
	}
}

// flagState is what an action sees of each of c's flags: its value, whether it counts as set,
// and the variable it came from.
func flagState(c *cli.Context) []string {
	var got []string
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if name == "help" || name == "version" {
			continue
		}
		got = append(got, fmt.Sprintf("%s=%v set=%v%s", name, valueText(c, name), c.IsSet(name), fromEnv(c, name)))
	}
	return got
}

// TestEmptyEnvUnset: a QA_* variable set to the empty string is as if unset, for a flag of
// every kind, of the app and of a subcommand: the flag keeps its default, counts as not set,
// is traced to no variable, and a value that refuses "" is not refused; a flag's next variable
// is read in its place. --help still lists every variable.
func TestEmptyEnvUnset(t *testing.T) {
	run := func(t *testing.T, args ...string) (state []string, stdout string, err error) {
		t.Helper()
		var out, errw bytes.Buffer
		app := NewApp("qa-x", "test", "", nil, &out, &errw)
		app.Flags = emptyEnvFlags()
		app.Action = func(c *cli.Context) error { state = flagState(c); return nil }
		app.Commands = []*cli.Command{{
			Name:         "sub",
			Flags:        emptyEnvFlags(),
			OnUsageError: app.OnUsageError,
			Action:       func(c *cli.Context) error { state = flagState(c); return nil },
		}}
		err = Execute(context.Background(), app, append([]string{"qa-x"}, args...))
		return state, out.String(), err
	}
	vars := []string{"QA_MODE", "QA_CACHE", "QA_PLOT", "QA_METRICS", "QA_WEIGHTS", "QA_STRICT", "QA_COUNT", "QA_SEED", "QA_LEVEL", "QA_TIMEOUT", "QA_JUDGE_NAME", "QA_JUDGE"}
	for _, args := range [][]string{nil, {"sub"}} {
		t.Run(strings.Join(append([]string{"qa-x"}, args...), " "), func(t *testing.T) {
			unset, _, err := run(t, args...)
			if err != nil || len(unset) == 0 {
				t.Fatalf("with no variable: %v, flags %q", err, unset)
			}
			for _, v := range vars {
				t.Setenv(v, "")
			}
			got, _, err := run(t, args...)
			if err != nil {
				t.Fatalf("with every variable empty: %v, want nil", err)
			}
			if diff := cmp.Diff(unset, got); diff != "" {
				t.Errorf("with every variable empty, the flags differ from unset (-unset +empty):\n%s", diff)
			}
			t.Setenv("QA_JUDGE", "k")
			got, _, err = run(t, args...)
			if want := "judge=k set=true from QA_JUDGE"; err != nil || !slices.Contains(got, want) {
				t.Errorf("QA_JUDGE_NAME= QA_JUDGE=k: %v, flags %q; want %q", err, got, want)
			}
			_, help, err := run(t, append(slices.Clone(args), "--help")...)
			for _, v := range vars {
				if !strings.Contains(help, "$"+v) {
					t.Errorf("--help with %s empty does not list it (%v):\n%s", v, err, help)
				}
			}
		})
	}
}
