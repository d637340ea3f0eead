package command

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// shadowEnv makes the flags of app and its subcommands that args give on the command line read
// no variable, until the returned function puts their variables back: a flag given wins over its
// QA_* variable, so a variable that does not parse ("QA_SEED=abc") does not stop a command that
// is given the flag ("--seed 3"). urfave/cli reads a flag's variables as it defines the flag,
// before it parses the command line, and refused a bad one there, though the command line then
// set the flag. A name is taken as given where it stands before "--": anywhere for the app's
// flags (its flag of a subcommand's flag's name, as QA_STRICT is qa-judge's and qa-judge
// agree's, is read as the app starts, whichever the user meant), after the first argument that
// names a subcommand for that subcommand's. A flag's value that is itself a flag's name
// ("--name --seed") makes that flag read no variable either.
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
	shadow := func(flags []cli.Flag, given []string) {
		for _, f := range flags {
			if !slices.ContainsFunc(f.Names(), func(n string) bool { return slices.Contains(given, n) }) {
				continue
			}
			v := reflect.ValueOf(unwrapFlag(f))
			if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
				continue
			}
			field := v.Elem().FieldByName("EnvVars")
			if !field.IsValid() || !field.CanSet() || field.Type() != reflect.TypeFor[[]string]() || field.Len() == 0 {
				continue
			}
			put = append(put, saved{field, field.Interface().([]string)})
			field.Set(reflect.Zero(field.Type()))
		}
	}
	shadow(app.Flags, givenNames(args[min(1, len(args)):]))
	for i, a := range args {
		if sub := app.Command(a); i > 0 && sub != nil {
			shadow(sub.Flags, givenNames(args[i+1:]))
			break
		}
	}
	return func() {
		for _, s := range put {
			s.field.Set(reflect.ValueOf(s.vars))
		}
	}
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

// traceEnv returns action (an Action or a Before), its usage error about a flag's value ("--shard: …") ended with the
// variable the value came from, when it came from one and the error does not already name it:
// a value no one typed is traced to where it was set, whichever check refused it. Range checks
// and parse errors name it themselves (fromEnv, badValue), in their own words.
func traceEnv[F ~func(*cli.Context) error](action F) F {
	if action == nil {
		return nil
	}
	return func(c *cli.Context) error {
		err := action(c)
		var u *UsageError
		if errors.As(err, &u) {
			u.Err = withEnvOrigin(c, u.Err)
		}
		return err
	}
}

// withEnvOrigin returns err, a usage error's, ended with " (from QA_X)" when its text begins with
// a flag of c ("--shard: …") whose value came from QA_X and does not name QA_X already.
func withEnvOrigin(c *cli.Context, err error) error {
	msg := err.Error()
	if !strings.HasPrefix(msg, "-") {
		return err
	}
	name, _, ok := strings.Cut(strings.TrimLeft(msg, "-"), ":")
	if !ok || name == "" || strings.ContainsAny(name, " =") {
		return err
	}
	from := strings.TrimPrefix(fromEnv(c, name), " ")
	if from == "" || strings.Contains(msg, strings.TrimPrefix(from, "from ")) {
		return err
	}
	return fmt.Errorf("%w (%s)", err, from)
}
