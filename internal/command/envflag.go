package command

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// shadowEnv makes the flags of app and its subcommands that args give on the command line read
// no variable, until the returned function puts their variables back: a flag given wins over its
// QA_* variable, so a variable that does not parse ("QA_SEED=abc") does not stop a command that
// is given the flag ("--seed 3"). urfave/cli reads a flag's variables as it defines the flag,
// before it parses the command line, and refused a bad one there, though the command line then
// set the flag. A name is taken as given where it stands before "--": anywhere for the app's
// flags, after the subcommand's name (subcommandAt) for that subcommand's. A flag's value
// that is itself a flag's name ("--name --seed") makes that flag read no variable either. When
// a subcommand is run, no flag of the app's reads a variable, given or not: the subcommand reads
// only its own flags (qa-judge agree), so a QA_JUDGE_* variable set for a pipeline's judging
// stage that does not parse does not stop it, and a variable both read (QA_STRICT) is refused
// by the subcommand's flag, under the subcommand's name.
//
// A variable set to the empty string is read by no flag either, as if it were unset (the
// flag's next variable, if any, is read in its place): `export QA_X=`, a make variable left
// empty or a CI template's blank field asks for what leaving the variable out does, whatever
// the flag's type. urfave/cli took such a variable for unset for some types (numbers,
// durations, true/false, its GenericFlag) and for the empty value for the others (strings,
// paths, lists), which a flag such as --bleu-weights or --think then refused, and a --pos-label
// took for the class "". --help, which runs nothing, still lists the variable beside its flag.
//
// Note: the variables are taken from the flags' declarations, not from the environment, which
// other goroutines (tests) may read; EnvVars is a field of every urfave/cli flag type, set here
// through reflection so that no flag type is left out. --help given with a flag lists that flag
// without its variable.
func shadowEnv(app *cli.App, args []string) (restore func()) {
	type saved struct {
		field reflect.Value
		vars  []string
	}
	var put []saved
	keepEmpty := infoAsked(args) == "--help" // which reads no value, and lists every variable
	shadow := func(flags []cli.Flag, all bool, given []string) {
		for _, f := range flags {
			v := reflect.ValueOf(unwrapFlag(f))
			if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
				continue
			}
			field := v.Elem().FieldByName("EnvVars")
			if !field.IsValid() || !field.CanSet() || field.Type() != reflect.TypeFor[[]string]() || field.Len() == 0 {
				continue
			}
			vars := field.Interface().([]string)
			var read []string // the variables f reads during the run
			if !all && !slices.ContainsFunc(f.Names(), func(n string) bool { return slices.Contains(given, n) }) {
				read = slices.DeleteFunc(slices.Clone(vars), func(e string) bool { return !keepEmpty && setEmpty(e) })
				if len(read) == len(vars) {
					continue
				}
			}
			put = append(put, saved{field, vars})
			field.Set(reflect.ValueOf(read))
		}
	}
	subcommand := false
	if i := subcommandAt(app, args); i > 0 {
		shadow(app.Command(args[i]).Flags, false, givenNames(args[i+1:]))
		subcommand = true // which reads none of the app's flags: none reads its variables
	}
	shadow(app.Flags, subcommand, givenNames(args[min(1, len(args)):]))
	return func() {
		for _, s := range put {
			s.field.Set(reflect.ValueOf(s.vars))
		}
	}
}

// setEmpty reports whether the environment variable env (blanks around its name ignored, as
// urfave/cli ignores them) is set to the empty string.
func setEmpty(env string) bool {
	v, set := os.LookupEnv(strings.TrimSpace(env))
	return set && v == ""
}

// subcommandAt returns the index in args (a command line, the program's name first) of the
// subcommand of app that urfave/cli runs, or -1 when it runs the app's action: the first argument
// that is neither a flag of the app's nor the value that follows a flag that takes one, as the
// flag package leaves it after "--" too, when it names a subcommand. A flag's value or a later
// file named like one ("qa-judge --name agree", "qa-judge a.jsonl agree") runs the app.
//
// Note: urfave/cli gives an app its --help and --version flags after this runs, and an unknown
// flag is a usage error; neither takes a value, so a flag not among app's is taken as one that
// takes none.
func subcommandAt(app *cli.App, args []string) int {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
		} else if len(a) > 1 && a[0] == '-' {
			name, _, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
			if !hasValue && takesValue(app.Flags, name) {
				i++ // the flag's value, whatever it reads
			}
			continue
		}
		if i < len(args) && app.Command(args[i]) != nil {
			return i
		}
		return -1
	}
	return -1
}

// takesValue reports whether the flag of flags named name reads the argument after it (all but
// a boolean flag do); false for a name no flag has.
func takesValue(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			v, ok := unwrapFlag(f).(interface{ TakesValue() bool })
			return !ok || v.TakesValue()
		}
	}
	return false
}

// givenNames returns the names of the flags that args give: each argument before "--" that
// begins with a dash, without its dashes and its "=value".
func givenNames(args []string) []string {
	var names []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if name, ok := strings.CutPrefix(a, "-"); ok && name != "" {
			name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), "=")
			names = append(names, name)
		}
	}
	return names
}

// traceEnv returns action (an Action or a Before), its error about a flag's value ("--shard: …",
// "--types \",\" names no type", "--summary: cannot write …") ended with the variables the values
// it names came from, when they came from one and the error does not already name it: a value
// no one typed is traced to where it was set, whichever check refused it. Range checks and parse
// errors name it themselves (fromEnv, badValue), in their own words. A usage error keeps its
// type; another error is wrapped.
func traceEnv[F ~func(*cli.Context) error](action F) F {
	if action == nil {
		return nil
	}
	return func(c *cli.Context) error {
		err := action(c)
		var u *UsageError
		switch {
		case err == nil:
		case errors.As(err, &u):
			u.Err = withEnvOrigin(c, u.Err)
		default:
			err = withEnvOrigin(c, err)
		}
		return err
	}
}

// flagMention is a flag's name in a message: "--shard", "--key-expansion".
var flagMention = regexp.MustCompile(`--([a-z0-9][a-z0-9-]*)`)

// withEnvOrigin returns err ended with the variables the values of the flags it names came from:
// " (from QA_X)" when its text begins with a flag of c ("--shard: …", "--key-expansion merge: …")
// whose value came from QA_X, and " (--provider from QA_PROVIDER)" for a flag it names later
// with the value it has ("--model is required with --provider openai"), the flag it begins with
// then listed so too. A variable the text names already, outside the flag's value
// (withoutValue), is not named again.
//
// Note: a flag named later is traced only beside its value, so that a flag a message names in
// advice ("give --format jsonl or csv") or a conflict with a default ("needs --retriever
// flat-session") is not blamed on an exported variable, QA_SEED say, that it has nothing to do
// with. The text began "--flag:" for the flag to be traced, so that "--types \",\" names no type"
// and "--key-expansion merge: …" went untraced.
func withEnvOrigin(c *cli.Context, err error) error {
	msg := err.Error()
	var traced []string // "--flag from QA_X"
	lead := ""          // the variable of the flag msg begins with, when traced
	seen := map[string]bool{}
	for _, m := range flagMention.FindAllStringSubmatchIndex(msg, -1) {
		start, name, rest := m[0], msg[m[2]:m[3]], msg[m[1]:]
		if seen[name] || start > 0 && (!flagBoundary(msg[start-1]) || !namesValue(c, name, rest)) {
			continue
		}
		seen[name] = true
		env := strings.TrimPrefix(fromEnv(c, name), " from ")
		if env == "" || namesVariable(withoutValue(name, env, msg), env) {
			continue
		}
		if start == 0 {
			lead = env
		}
		traced = append(traced, "--"+name+" from "+env)
	}
	switch {
	case len(traced) == 0:
		return err
	case len(traced) == 1 && lead != "":
		return fmt.Errorf("%w (from %s)", err, lead)
	}
	return fmt.Errorf("%w (%s)", err, strings.Join(traced, ", "))
}

// withoutValue returns msg without the value that the variable env gave c's flag name where msg
// names it, Go-quoted anywhere or as typed after the flag ("--plot x.gif"): a value that holds
// the variable's name (QA_AGREE_FORMAT=QA_AGREE_FORMAT, an unexpanded $QA_X) does not name the
// variable it came from. The value is the variable's text, as a generic flag's may be no Getter.
func withoutValue(name, env, msg string) string {
	v := os.Getenv(env)
	if v == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, strconv.Quote(v), `""`)
	for _, sep := range []string{" ", "="} {
		msg = strings.ReplaceAll(msg, "--"+name+sep+v, "--"+name)
	}
	return msg
}

// flagBoundary reports whether b, the byte before a flag's name in a message, ends a word: the
// name is not the tail of another ("a--b").
func flagBoundary(b byte) bool { return strings.IndexByte(" \t\n(,;'\"`", b) >= 0 }

// namesValue reports whether rest, what follows the name of c's flag name in a message, begins
// with the flag's value, as typed or Go-quoted: " openai", "=openai", ` "a,b"`.
func namesValue(c *cli.Context, name, rest string) bool {
	ctx, f := flagOwner(c, name)
	if f == nil {
		return false
	}
	v := valueText(ctx, name)
	if v == "" {
		return false
	}
	for _, sep := range []string{" ", "="} {
		for _, w := range []string{v, strconv.Quote(v)} {
			if after, ok := strings.CutPrefix(rest, sep+w); ok && (after == "" || strings.IndexByte(" :,;)", after[0]) >= 0) {
				return true
			}
		}
	}
	return false
}

// valueText is the value of ctx's flag name as fmt prints it: its flag.Getter's value, or the
// text of a value that is none (qa-predict's --stop), on which urfave/cli's Context.Value panics.
func valueText(ctx *cli.Context, name string) string {
	switch v := ctx.Generic(name).(type) {
	case flag.Getter:
		return fmt.Sprint(v.Get())
	case flag.Value:
		return v.String()
	}
	return ""
}

// namesVariable reports whether msg names the variable env as a whole word: QA_PLOT_FORMAT does
// not name QA_PLOT.
func namesVariable(msg, env string) bool {
	for i := 0; ; {
		j := strings.Index(msg[i:], env)
		if j < 0 {
			return false
		}
		end := i + j + len(env)
		if end == len(msg) || !isEnvByte(msg[end]) {
			if i+j == 0 || !isEnvByte(msg[i+j-1]) {
				return true
			}
		}
		i = end
	}
}

// isEnvByte reports whether b may be part of a variable's name.
func isEnvByte(b byte) bool { return b == '_' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' }
