// Package command holds what every qa-* command shares: exit codes, the urfave/cli setup that keeps
// errors, and help not asked for, off stdout (--help itself prints there), input files, and the
// tally of bad records.
//
// Library packages never print or exit; the apps built on this package return errors, and main maps
// them to exit codes with ExitCode.
package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/english"
)

// NewApp returns a cli.App that writes help to stdout only when asked, never prints errors itself,
// and turns flag mistakes into UsageErrors. Its inputs are FILE arguments, or stdin, checked by
// CheckArgs before the Action runs. The caller sets Flags and Action, and runs it with Execute.
func NewApp(name, usage, description string, stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := cli.NewApp()
	app.Name = name
	app.Usage = usage
	app.Description = strings.TrimSpace(description) + "\n\n" + ExitCodesHelp
	app.Version = Version()
	app.Writer = stdout
	app.ErrWriter = stderr
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = func(c *cli.Context, err error, _ bool) error {
		return &UsageError{Err: suggestFlag(c, badValue(c, err))}
	}
	app.UseShortOptionHandling = false
	// A list flag's values are split at their commas by the list's own parser (see List), which
	// names what it finds there ("a,,b"); urfave/cli keeps this in a variable of its own, for
	// every app of the process, so that every app sets it alike.
	app.DisableSliceFlagSeparator = true
	app.ArgsUsage = "[FILE ...]"
	app.HideHelpCommand = true
	app.Before = func(c *cli.Context) error {
		if c.App.Command(c.Args().First()) != nil {
			return nil // a subcommand: its own Before checks its arguments
		}
		if err := misspeltCommand(c.App, c.Args().First()); err != nil {
			return err
		}
		return CheckArgs(c, stdin, stdout)
	}
	return app
}

// misspeltCommand returns a usage error when first, the first argument, names no file but is
// near the name of one of app's subcommands ("qa-judge agre"), which would otherwise be opened as
// an input file and fail as a missing one.
func misspeltCommand(app *cli.App, first string) error {
	if len(app.Commands) == 0 || first == "" || first == "-" {
		return nil
	}
	if _, err := os.Stat(first); err == nil {
		return nil
	}
	var names []string
	for _, sub := range app.VisibleCommands() {
		names = append(names, sub.Name)
	}
	if s := english.Suggest(first, names); s != "" {
		return Usagef("%s: no such input file or subcommand%s", first, english.Hint(s))
	}
	return nil
}

// notDefined and needsValue begin the errors of the flag package for a flag the command does not
// have and for one given last without its value; the flag's name follows, after one dash however
// many were given.
const (
	notDefined = "flag provided but not defined: -"
	needsValue = "flag needs an argument: -"
)

// suggestFlag returns err, the error of c's flag parsing, worded as the commands word theirs
// ("unknown flag --metircs", "--seed needs a value"), with english.Hint's ending when it is for
// an unknown flag that Suggest finds a flag of c for ("--metircs": "--metrics"). Names are
// compared without their dashes, so that the dashes count toward no name's length. Hidden flags
// are not suggested. An output flag that the command does not have (-o, --output) is told where
// the records go.
func suggestFlag(c *cli.Context, err error) error {
	if name, ok := strings.CutPrefix(err.Error(), needsValue); ok {
		return fmt.Errorf("%s needs a value", dashed(name))
	}
	name, ok := strings.CutPrefix(err.Error(), notDefined)
	if !ok || c == nil || c.Command == nil {
		return err
	}
	var names []string
	for _, f := range c.Command.VisibleFlags() {
		names = append(names, f.Names()...)
	}
	s := english.Suggest(name, names)
	output := slices.Contains([]string{"o", "out", "output"}, name)
	if s == "" && output && slices.Contains(names, "output") {
		s = "output" // qa-learncurve's report file
	}
	hint := ""
	switch {
	case s != "":
		hint = english.Hint(dashed(s))
	case output:
		hint = " (the output goes to stdout: redirect it, > FILE)"
	}
	return fmt.Errorf("unknown flag %s%s", dashed(name), hint)
}

// Version is the qapipe build a command runs: the module version the go command recorded (a
// release tag, or a pseudo-version naming the commit, "+dirty" when the tree had changes), else
// the commit, else "(devel)"; then the Go version. It lets a saved result name what made it.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "(devel)"
		var rev, dirty string
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				rev = s.Value[:min(12, len(s.Value))]
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = "+dirty"
			}
		}
		if rev != "" {
			v = "commit " + rev + dirty
		}
	}
	return v + ", " + bi.GoVersion
}

// Execute runs app with args and returns its error, with a missing required flag turned into a
// UsageError. It prints nothing: every command's main reports the error once, with Report. Each
// of app's subcommands answers --version as the app does (see answerVersion), and its errors are
// named after it (see nameErrors). The integer flags of app and its subcommands are read in
// decimal, and their float flags as finite decimal numbers (see decimalFlags). A flag given on
// the command line wins over its variable, which is then not read, nor is a variable set to the
// empty string, which is as if unset (see shadowEnv); a usage error about a value that came from
// a variable names it (see traceEnv).
func Execute(ctx context.Context, app *cli.App, args []string) error {
	ctx = context.WithValue(ctx, commandLineKey{}, args) // for CheckArgs
	decimalFlags(app.Flags)
	app.Before, app.Action = traceEnv(app.Before), traceEnv(app.Action)
	for _, sub := range app.Commands {
		decimalFlags(sub.Flags)
		sub.Before, sub.Action = traceEnv(sub.Before), traceEnv(sub.Action)
		nameErrors(app.Name+" "+sub.Name, sub)
		answerVersion(sub)
	}
	defer shadowEnv(app, args)()
	run := func() error { return runHelpDespiteFiles(ctx, app, args) }
	err := infoDespiteEnv(app, args, run(), run)
	if errors.Is(err, errVersionShown) {
		return nil
	}
	if err != nil && strings.HasPrefix(err.Error(), "Required flag") {
		err = &UsageError{Err: err}
	}
	return err
}

// runHelpDespiteFiles runs app with args and returns its error; when args ask for help and name
// input files as well ("qa-score --metrics f1 --help in.jsonl", a command line recalled with
// --help added), it shows the help all the same: urfave/cli takes the first argument after the
// flags for a subcommand to show the help of, and failed with "No help topic for 'in.jsonl'".
// The help is then that of the subcommand args run, if any, else the app's; the flags given are
// not read again, and their variables are left out of it, as with --help alone.
func runHelpDespiteFiles(ctx context.Context, app *cli.App, args []string) error {
	err := app.RunContext(ctx, args)
	var exit cli.ExitCoder
	if !errors.As(err, &exit) || !strings.HasPrefix(err.Error(), "No help topic for ") || infoAsked(args) != "--help" {
		return err
	}
	help := args[:min(1, len(args))]
	if i := subcommandAt(app, args); i > 0 {
		help = append(help, args[i])
	}
	return app.RunContext(ctx, append(slices.Clip(help), "--help"))
}

// infoDespiteEnv returns err, the error of run (running app with args), or, when args ask for
// help or the version and err is for a QA_* variable's value that does not parse ("QA_SEED=abc
// qa-score --help"), the error of running it again without that variable, after a warning naming it:
// urfave/cli reads the variables before it looks for --help and --version, so a bad one hid the
// help that would tell how to set it, and the version line, which reads no flag. The variable is
// unset for that run only, and so the help still names it beside its flag. The warning begins
// with the program name its error would have begun with: "qa-judge agree" for a variable of that
// subcommand's own flag.
//
// Note: --version failed (exit 2) where --help warned, so that a Makefile recording the version
// of each stage stopped on a variable that only its run reads.
func infoDespiteEnv(app *cli.App, args []string, err error, run func() error) error {
	asked := infoAsked(args)
	if asked == "" {
		return err
	}
	var restore []func()
	defer func() {
		for _, r := range slices.Backward(restore) {
			r()
		}
	}()
	for range 64 { // a variable each time; a bound, should one come back
		var bad *envValueError
		if !errors.As(err, &bad) {
			break
		}
		value, set := os.LookupEnv(bad.env)
		if !set {
			break
		}
		prog := app.Name
		if pe := (*ProgError)(nil); errors.As(err, &pe) && pe.Prog != "" {
			prog = pe.Prog // a subcommand's own flag: named as its errors are
		}
		fmt.Fprintf(app.ErrWriter, "%s: warning: %s; %s is not read for %s\n", prog, bad.msg, bad.env, asked)
		os.Unsetenv(bad.env)
		restore = append(restore, func() { os.Setenv(bad.env, value) })
		err = run()
	}
	return err
}

// infoAsked returns "--help" when args (a command line, the program's name first) give --help or
// -h before "--", else "--version" when they give --version or -v, else "": the flags that print
// and run nothing, help first, as urfave/cli answers it first.
func infoAsked(args []string) string {
	given := givenNames(args[min(1, len(args)):])
	for _, f := range []cli.Flag{cli.HelpFlag, cli.VersionFlag} {
		if slices.ContainsFunc(f.Names(), func(n string) bool { return slices.Contains(given, n) }) {
			return "--" + f.Names()[0]
		}
	}
	return ""
}

// answerVersion gives sub the app's --version flag (-v too): it prints the app's version line,
// "qa-judge version ...", checks no input and runs nothing. urfave/cli gives the flag to the app
// alone, so "qa-judge agree --version" was a usage error. A subcommand with a flag of its own
// named version or v keeps it.
//
// Note: the version is printed in Before, the first of sub's code urfave/cli runs after --help
// (and after its check of required flags, which no subcommand here has); Before's error,
// errVersionShown, stops the run and Execute returns nil for it. Wrapping Action instead would
// have to stand in for urfave/cli's default action when sub has none.
func answerVersion(sub *cli.Command) {
	names := cli.VersionFlag.Names()
	for _, f := range sub.Flags {
		if slices.ContainsFunc(f.Names(), func(n string) bool { return slices.Contains(names, n) }) {
			return
		}
	}
	sub.Flags = append(sub.Flags, cli.VersionFlag)
	before := sub.Before
	sub.Before = func(c *cli.Context) error {
		if c.Bool(names[0]) {
			cli.ShowVersion(c)
			return errVersionShown
		}
		if before == nil {
			return nil
		}
		return before(c)
	}
}

// nameErrors makes every error of sub, a usage error in its flags or one its Before or Action
// returns, a *ProgError of prog ("qa-judge agree"), so that Report begins it as sub's skipped
// bad lines and warnings begin, not with the app's name alone.
func nameErrors(prog string, sub *cli.Command) {
	named := func(err error) error {
		if err == nil {
			return nil
		}
		return &ProgError{Prog: prog, Err: err}
	}
	if before := sub.Before; before != nil {
		sub.Before = func(c *cli.Context) error { return named(before(c)) }
	}
	if action := sub.Action; action != nil {
		sub.Action = func(c *cli.Context) error { return named(action(c)) }
	}
	if usage := sub.OnUsageError; usage != nil {
		sub.OnUsageError = func(c *cli.Context, err error, isSub bool) error { return named(usage(c, err, isSub)) }
	}
}

// errVersionShown stops a subcommand whose --version was printed (see answerVersion).
var errVersionShown = errors.New("version shown")
