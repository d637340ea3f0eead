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
	"io/fs"
	"maps"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/internal/textfile"
)

// Exit codes shared by every command.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitBadRecords  = 3
	ExitInterrupted = 130
)

// ExitCodesHelp is the paragraph every --help ends with.
const ExitCodesHelp = `EXIT CODES:
   0    success
   1    failure (input or output that cannot be read or written, a full disk's included; internal
        error); a reader of stdout that goes away (| head) ends a run quietly by SIGPIPE, as cat
        (141 in the shell); qa-predict, qa-judge and qa-score first store the replies of their
        calls in flight in their --cache (saying so), for at most 2 minutes (a signal ends it)
   2    usage error (bad or missing flag, argument or API key; unreadable file named by a flag)
   3    finished, but some records were bad or carry errors (see stderr)
   130  interrupted by SIGINT, SIGTERM or SIGHUP (completed output was flushed first;
        when that cannot finish, a further signal or 10 s ends it without)`

// FinishHelp is the paragraph of --help of the commands that pay for model calls and run under
// MainCalls; it says what finishGrace and signalEcho are.
const FinishHelp = `INTERRUPTING: the first SIGINT, SIGTERM or SIGHUP (Ctrl-C) makes no new call, and no retry, but
lets the calls in flight end (for at most 2 minutes); their records are written and their replies
cached (--cache); every record that still needed a call is written with the error "interrupted
before the call was made", so --retry-errors over the output makes those calls; then the summary,
and exit 130. A second signal, or the 2 minutes passing, abandons the calls in flight: only the
records completed before the first unfinished one are written; when even those cannot be (a
stalled reader of stdout), a third signal, or 10 s more, ends the run without them. A SIGTERM
within a second of another counts once (make passes on the SIGTERM its process group got).`

// UsageError is a mistake in how the command was called.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// BadRecordsError reports that the command finished but N records were bad or failed, said as
// Singular when N is 1 and as Plural otherwise: "1 bad input line skipped", "2 bad input lines
// skipped".
type BadRecordsError struct {
	N        int
	Singular string // e.g. "bad input line skipped"
	Plural   string // e.g. "bad input lines skipped"
}

func (e *BadRecordsError) Error() string { return english.Count(e.N, e.Singular, e.Plural) }

// Count is how many of one kind of problem a run had, said as Singular when N is 1 and as Plural
// otherwise ("1 bad input line skipped", "2 bad input lines skipped").
type Count struct {
	N                int
	Singular, Plural string
}

// BadRecords returns the exit error of a run that got to its end with badLines bad input lines
// skipped and the problems of its own counted, nil when all are 0: a BadRecordsError whose
// message names every kind present, counted, so that a run with two kinds of trouble does not
// say only one ("1 bad input line skipped, and 2 judgments failed (see their error fields)").
// The bad lines come first, in every command: they are the one kind all share, met as the input
// was read; the command's own kinds follow in the order given, so that one whose reason is long
// can close the line. Its N is the first kind's count.
//
// Note: it took every kind as a Count, the bad lines among them, and each command put them
// where it liked: first in qa-learncurve, last in qa-judge and qa-predict, second in qa-score.
func BadRecords(badLines int, counts ...Count) error {
	var present []Count
	for _, c := range append([]Count{skippedLines(badLines)}, counts...) {
		if c.N > 0 {
			present = append(present, c)
		}
	}
	if len(present) == 0 {
		return nil
	}
	rest := ""
	for i, c := range present[1:] {
		sep := ", "
		if i == len(present)-2 {
			sep = ", and "
		}
		rest += sep + english.Count(c.N, c.Singular, c.Plural)
	}
	return &BadRecordsError{N: present[0].N, Singular: present[0].Singular + rest, Plural: present[0].Plural + rest}
}

// skippedLines is the Count of n bad input lines skipped.
func skippedLines(n int) Count {
	return Count{N: n, Singular: "bad input line skipped", Plural: "bad input lines skipped"}
}

// ExitCode maps an error returned by an app to the process exit code.
func ExitCode(err error) int {
	var ue *UsageError
	var be *BadRecordsError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &ue):
		return ExitUsage
	case errors.As(err, &be):
		return ExitBadRecords
	default:
		return ExitFailure
	}
}

// Interrupted is the error of a run stopped by a signal after it wrote Written records, when
// Unwritten more were finished (and paid for) but not written: output keeps input order, so a
// record finished after one still in flight is dropped with it. It unwraps to context.Canceled.
type Interrupted struct{ Written, Unwritten int }

func (e *Interrupted) Error() string {
	return fmt.Sprintf("interrupted: %s written; %d more %s finished but not written, as output keeps input order",
		english.Count(e.Written, "record", "records"), e.Unwritten, english.Form(e.Unwritten, "was", "were"))
}

func (e *Interrupted) Unwrap() error { return context.Canceled }

// The reasons a summary gives for calls not made because the model transport stopped calling
// (model.StoppedError), by the words of the record's error that say it after the server's URL.
var stopReasons = [...]struct{ words, why string }{
	{" was never reached", "server never reached"},                     // model.NeverReached
	{" refused every call so far with HTTP ", "refused by the server"}, // model.RefusedEvery
}

// Stopped returns why msg, a record's error, is that of a call not made because the model
// transport stopped calling, in a summary's words: "server never reached" ("openai m: not
// called: server … was never reached …"), "refused by the server" ("… refused every call so far
// with HTTP 401 …"); "" for any other error. Only the error's text is kept in a record, so it is
// told by its words (model.NotCalledServer and what follows the URL).
func Stopped(msg string) string {
	_, rest, ok := strings.Cut(msg, ": not called: server ")
	if !ok {
		return ""
	}
	// The words follow the server's URL, which holds no space: a server's reply quoted later in
	// the message cannot be taken for them.
	if i := strings.IndexByte(rest, ' '); i >= 0 {
		for _, r := range stopReasons {
			if strings.HasPrefix(rest[i:], r.words) {
				return r.why
			}
		}
	}
	return ""
}

// Stops counts a run's records whose call was not made because the model transport stopped
// calling, by why (see Stopped). It is safe for concurrent use.
type Stops struct {
	n [len(stopReasons)]atomic.Int64
}

// Count counts msg, a record's error, when it is that of a call the transport stopped, and
// reports whether it was.
func (s *Stops) Count(msg string) bool {
	why := Stopped(msg)
	for i, r := range stopReasons {
		if r.why == why {
			s.n[i].Add(1)
			return true
		}
	}
	return false
}

// Note is what a summary line puts after its count of errors (or failures), of of them, for
// those counted, worded as NotCalledNote words the interrupted run's: " (3 of them not called:
// server never reached)", or "" when none was.
func (s *Stops) Note(of int) string {
	note := ""
	for i, r := range stopReasons {
		note += notCalledNote(int(s.n[i].Load()), of, r.why)
	}
	return note
}

// NotCalledNote is what a summary line of a run under MainCalls puts after its count of errors
// (or failures), of of them, when n of those are calls the interrupted run did not make:
// " (it was not called: interrupted)" for the one error, " (2 of them not called: interrupted)"
// for some of several, and "" when n is 0.
func NotCalledNote(n, of int) string { return notCalledNote(n, of, "interrupted") }

// notCalledNote is the note of n calls not made, of of the errors, for the reason why.
func notCalledNote(n, of int, why string) string {
	switch {
	case n == 0:
		return ""
	case n == 1 && of == 1:
		return " (it was not called: " + why + ")"
	}
	return fmt.Sprintf(" (%d of them not called: %s)", n, why)
}

// CostNote is how a summary line of qa-predict or qa-judge gives what its replies cost, cost in
// all and cached the part of it the cache served, which a rerun does not pay again:
// "cost $0.064040", or "cost $0.064040 ($0.060000 of it from the cache)".
func CostNote(cost, cached float64) string {
	if cached > 0 {
		return fmt.Sprintf("cost $%s ($%s of it from the cache)", english.USD(cost), english.USD(cached))
	}
	return fmt.Sprintf("cost $%s", english.USD(cost))
}

// Interruption returns err, a run's error, as an *Interrupted when it is an interruption that
// left some of the finished records unwritten; otherwise err itself.
func Interruption(err error, written, finished int) error {
	if errors.Is(err, context.Canceled) && finished > written {
		return &Interrupted{Written: written, Unwritten: finished - written}
	}
	return err
}

// ProgError is an error that Report prints after Prog instead of the command's name: a
// subcommand's Source names it on every bad line it skips ("qa-judge agree: stdin:2: ..."), and
// so on the one that stops the run, and Execute on every other error of a subcommand.
type ProgError struct {
	Prog string
	Err  error
}

func (e *ProgError) Error() string { return e.Err.Error() }
func (e *ProgError) Unwrap() error { return e.Err }

// Report prints err once, prefixed with the program name (a ProgError's, when err holds one),
// unless it is nil.
func Report(stderr io.Writer, prog string, err error) {
	if err == nil {
		return
	}
	var pe *ProgError
	if errors.As(err, &pe) && pe.Prog != "" {
		prog = pe.Prog
	}
	var ie *Interrupted
	if errors.Is(err, context.Canceled) && !errors.As(err, &ie) {
		fmt.Fprintf(stderr, "%s: interrupted\n", prog)
		return
	}
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
}

// NewApp returns a cli.App that writes help to stdout only when asked, never prints errors itself,
// and turns flag mistakes into UsageErrors. Its inputs are FILE arguments. The caller sets Flags
// and Action, and runs it with Execute.
func NewApp(name, usage, description string, stdout, stderr io.Writer) *cli.App {
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
	app.ArgsUsage = "[FILE ...]"
	app.HideHelpCommand = true
	app.Before = func(c *cli.Context) error {
		if c.App.Command(c.Args().First()) != nil {
			return nil // a subcommand: its own Before checks its arguments
		}
		if err := misspeltCommand(c.App, c.Args().First()); err != nil {
			return err
		}
		return CheckInputs(c.Args().Slice())
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
		hint = " (the records go to stdout: redirect it, > FILE)"
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

// MaxBootstrap bounds every --bootstrap (see stats.MaxResamples).
const MaxBootstrap = stats.MaxResamples

// Bootstrap returns the --bootstrap flag: a usage error unless it is 0 to MaxBootstrap.
func Bootstrap(c *cli.Context) (int, error) {
	return IntBetween(c, "bootstrap", 0, MaxBootstrap, "resamples")
}

// DefaultLevel is the confidence level of every command's bootstrap intervals unless --level
// sets another.
const DefaultLevel = 0.95

// LevelFlag returns the --level flag (QA_LEVEL), the confidence level of a command's bootstrap
// intervals, with usage as its help text; Level reads it.
func LevelFlag(usage string) *cli.Float64Flag {
	return &cli.Float64Flag{Name: "level", Value: DefaultLevel, EnvVars: []string{"QA_LEVEL"}, Usage: usage}
}

// Level returns the --level flag: a usage error unless it is between 0 and 1, both left out (a
// 0 or 100% interval is no interval; NaN is refused too).
func Level(c *cli.Context) (float64, error) {
	l := c.Float64("level")
	if !(l > 0 && l < 1) {
		return 0, Usagef("--level: want a number between 0 and 1, got %v%s", l, fromEnv(c, "level"))
	}
	return l, nil
}

// IntBetween returns the int flag name: a usage error unless it is lo to hi, counted in units
// (none when "").
func IntBetween(c *cli.Context, name string, lo, hi int, units string) (int, error) {
	n := c.Int(name)
	if n < lo || n > hi {
		if units != "" {
			units = " " + units
		}
		return 0, Usagef("--%s: want %d to %d%s, got %d%s", name, lo, hi, units, n, fromEnv(c, name))
	}
	return n, nil
}

// FloatBetween returns the float64 flag name: a usage error unless it is lo to hi, both
// included; NaN, which strconv reads and which passes every comparison, is refused too.
func FloatBetween(c *cli.Context, name string, lo, hi float64) (float64, error) {
	return FloatBetweenFor(c, name, lo, hi, "")
}

// FloatBetweenFor is FloatBetween for a range that is whose (a provider's, say), which the
// error names: `--temperature: want a number from 0 to 1 for anthropic, got 3`. An empty whose
// names none.
func FloatBetweenFor(c *cli.Context, name string, lo, hi float64, whose string) (float64, error) {
	v := c.Float64(name)
	if !(v >= lo && v <= hi) {
		if whose != "" {
			whose = " for " + whose
		}
		return 0, Usagef("--%s: want a number from %g to %g%s, got %v%s", name, lo, hi, whose, v, fromEnv(c, name))
	}
	return v, nil
}

// Temperature returns the float64 flag name, a sampling temperature: a usage error when it is
// NaN or negative, or, when bounded, above hi, the highest whose (a provider) takes
// (model.MaxTemperature), so that a temperature out of range is refused before any call.
func Temperature(c *cli.Context, name string, hi float64, bounded bool, whose string) (float64, error) {
	if err := NotNegative(c, name); err != nil {
		return 0, err
	}
	if bounded {
		return FloatBetweenFor(c, name, 0, hi, whose)
	}
	return c.Float64(name), nil
}

// NumCtx returns the int flag name, a context window in tokens for an Ollama model (its
// num_ctx), 0 for none: a usage error when it is negative or past 32 bits (Ollama's server holds
// it in an int32 field of its runner), or when a call to provider carries no such option, which
// only Ollama's API has (model.Request.SentNumCtx), so that it is not given for nothing. The
// extractive baseline, which ignores --temperature, ignores it too.
func NumCtx(c *cli.Context, name, provider string) (int, error) {
	n, err := IntBetween(c, name, 0, math.MaxInt32, "tokens")
	if err != nil || n == 0 || provider == "ollama" || provider == "extractive" {
		return n, err
	}
	return 0, Usagef("--%s %d%s: only an Ollama server is sent a context window (num_ctx), not %s; set another server's on the server itself (vLLM's --max-model-len, llama-server's --ctx-size)",
		name, n, fromEnv(c, name), provider)
}

// MaxTokensField returns the string flag name, the member an OpenAI call carries its token budget
// in: one of fields (model.MaxTokensFields, auto first; empty is auto), else a usage error; and a
// usage error when it names a member (not auto) for a call to provider other than openai, whose
// API has its own (Anthropic's max_tokens, Ollama's num_predict, Gemini's maxOutputTokens), so
// that it is not given for nothing. The extractive baseline, which sends nothing, ignores it, and
// a provider of "" checks the value alone.
func MaxTokensField(c *cli.Context, name, provider string, fields []string) (string, error) {
	f := c.String(name)
	if f == "" { // an empty variable, QA_MAX_TOKENS_FIELD= say: the default
		f = fields[0]
	}
	if !slices.Contains(fields, f) {
		return "", Usagef("--%s: want one of %s, not %q%s%s", name, strings.Join(fields, ", "), f, fromEnv(c, name), english.DidYouMean(f, fields))
	}
	if f == fields[0] || provider == "openai" || provider == "extractive" || provider == "" {
		return f, nil
	}
	return "", Usagef("--%s %s%s: only OpenAI's API takes the token budget under either name; a call to %s sends it under the one name its API has",
		name, f, fromEnv(c, name), provider)
}

// MaxConcurrency bounds every --concurrency. The pipeline keeps a slot for each call in flight
// before any record is read (a mistyped 100000000 took 800 MB at once), and no provider serves
// that many calls from one client.
const MaxConcurrency = 10_000

// Concurrency returns the int flag name, a --concurrency (qa-score's --embed-concurrency): a
// usage error unless it is 1 to MaxConcurrency.
func Concurrency(c *cli.Context, name string) (int, error) {
	return IntBetween(c, name, 1, MaxConcurrency, "calls in flight")
}

// NotNegative returns a usage error naming the first of the flags names (int, int64, float64 or
// duration flags) whose value is negative, or NaN: strconv reads "NaN", and a NaN --max-cost or
// --temperature passes every comparison, so it would turn the budget off or reach the provider.
func NotNegative(c *cli.Context, names ...string) error {
	for _, n := range names {
		negative := false
		switch v := c.Value(n).(type) {
		case int:
			negative = v < 0
		case int64:
			negative = v < 0
		case float64:
			if math.IsNaN(v) {
				return Usagef("--%s: want a number, got NaN%s", n, fromEnv(c, n))
			}
			negative = v < 0
		case time.Duration:
			negative = v < 0
		default:
			panic(fmt.Sprintf("NotNegative: flag --%s holds a %T", n, v))
		}
		if negative {
			if from := fromEnv(c, n); from != "" { // the value shown, as no one typed it
				return Usagef("--%s: must not be negative, got %v%s", n, c.Value(n), from)
			}
			return Usagef("--%s: must not be negative", n)
		}
	}
	return nil
}

// CheckInputs returns a usage error for an input argument that begins with "-", names no file
// and is not "-" itself: a flag given after the input files, where urfave/cli does not read
// flags. Checked before any work, so a misplaced --concurrency or --model never runs a whole
// file with the defaults and fails at the end. Then it returns the error of the first input file
// that does not exist, cannot be looked at, is a directory or may not be read (access(2)), so
// that a mistyped or unreadable second file stops a run before the first is read (for
// qa-predict, before its calls are paid for); a missing "help" is a usage error that names
// --help. It opens nothing: a named pipe is left for its one reading.
func CheckInputs(args []string) error {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' {
			if _, err := os.Stat(a); err != nil {
				return Usagef("%s: flags go before the input files (the arguments after the first file are all read as files)", a)
			}
		}
	}
	for _, a := range args {
		if a == "-" {
			continue
		}
		st, err := os.Stat(a)
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe) && a == "help" && errors.Is(err, fs.ErrNotExist):
			// "qa-score help", as git and go take it: the commands have no help subcommand.
			return Usagef("help: no such input file; for the help, give --help")
		case errors.As(err, &pe):
			return &fs.PathError{Op: "open", Path: a, Err: pe.Err}
		case err != nil:
			return err
		case st.IsDir():
			return fmt.Errorf("%s is a directory, not an input file: name the files in it (%s)", a, filepath.Join(a, "*"))
		}
		if err := canRead(a); err != nil {
			return &fs.PathError{Op: "open", Path: a, Err: err}
		}
	}
	return nil
}

// stopSignals returns the signals that interrupt a command: SIGTERM, SIGINT (Ctrl-C) and SIGHUP,
// which a closing terminal or SSH session sends, so that output is flushed at a record's end
// rather than cut mid-line. SIGINT and SIGHUP are left out when the command started with them
// ignored, as nohup and a shell's background jobs start it: catching them would undo that.
func stopSignals() []os.Signal {
	sigs := []os.Signal{syscall.SIGTERM}
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	return sigs
}

// RunFunc is a command's in-process seam: every app package exports one as Run.
type RunFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

// Main is the whole of a command's main: it runs run with the process's arguments and streams under
// a context that SIGINT, SIGTERM and SIGHUP cancel, reports the error once, and exits with its code.
//
// Once interrupted, run flushes its completed output and returns. A run that cannot (its stdout
// is a pipe whose reader stopped reading, so a write blocks) is ended with exit 130 by a second
// signal, or interruptGrace after the first.
//
// A reader of stdout that goes away (| head -1) ends the process by SIGPIPE at the write that
// finds it gone, as it ends cat, after the cleanups OnForcedExit registered and with a progress
// bar's line cleared (dieOfSIGPIPE).
func Main(prog string, run RunFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals()...)
	stderr := Stderr()
	done := make(chan struct{})
	go forceExit(ctx, done, prog, stderr)
	stdout, broken := watchStdout()
	go func() {
		select {
		case <-broken: // the write that found it blocks: nothing more is written
			dieOfSIGPIPE(prog, stderr)
		case <-done:
		}
	}()
	err := run(ctx, os.Args, os.Stdin, stdout, stderr)
	close(done)
	stop()
	clearBarLine(stderr)
	dieOfBrokenStdout(err)
	Report(stderr, prog, err)
	os.Exit(ExitCode(err))
}

// forcedExit holds what must be undone when the process is ended before its run returns (a
// second signal, or a grace period passing): a run's cleanups that its deferred calls would have
// made, such as removing an output file it truncated and has not written. exiting is set once
// the cleanups have been taken to run.
var forcedExit struct {
	sync.Mutex
	next     int
	cleanups map[int]func()
	exiting  bool
}

// OnForcedExit registers f to run if the process is ended before the run returns (see Main and
// MainCalls), and returns the function that unregisters it, for the run to call once f is no
// longer wanted. f runs on the exiting goroutine while the run may still be running, so it
// should only undo what cannot be half done (removing a file).
func OnForcedExit(f func()) (cancel func()) {
	return onForcedExitOf(func() func() { return f })
}

// onForcedExitOf registers the cleanup that mk returns (none when nil), mk being run while a
// forced exit cannot take the cleanups: what mk makes (a file) and its cleanup removes is never
// left by a forced exit that comes between the two, as it was when a file was made first and
// its cleanup registered after. mk must not block. When the cleanups have already been taken,
// the process ending, the cleanup runs at once.
func onForcedExitOf(mk func() func()) (cancel func()) {
	forcedExit.Lock()
	f := mk()
	switch {
	case f == nil:
		forcedExit.Unlock()
		return func() {}
	case forcedExit.exiting:
		forcedExit.Unlock()
		f()
		return func() {}
	}
	if forcedExit.cleanups == nil {
		forcedExit.cleanups = map[int]func(){}
	}
	id := forcedExit.next
	forcedExit.next++
	forcedExit.cleanups[id] = f
	forcedExit.Unlock()
	return func() {
		forcedExit.Lock()
		defer forcedExit.Unlock()
		delete(forcedExit.cleanups, id)
	}
}

// exitNow runs the cleanups OnForcedExit registered, in the order registered, and ends the
// process with code.
func exitNow(code int) {
	forcedCleanups()
	os.Exit(code)
}

// forcedCleanups runs the cleanups OnForcedExit registered, in the order registered, once.
func forcedCleanups() {
	forcedExit.Lock()
	ids := slices.Sorted(maps.Keys(forcedExit.cleanups))
	fns := make([]func(), 0, len(ids))
	for _, id := range ids {
		fns = append(fns, forcedExit.cleanups[id])
	}
	forcedExit.cleanups, forcedExit.exiting = nil, true
	forcedExit.Unlock()
	for _, f := range fns {
		f()
	}
}

// interruptGrace is how long an interrupted run may take to flush its output.
var interruptGrace = 10 * time.Second

// forceExit waits for ctx to be cancelled by a signal, then exits the process with 130 on a
// second signal or after interruptGrace, unless done is closed first.
func forceExit(ctx context.Context, done <-chan struct{}, prog string, stderr io.Writer) {
	select {
	case <-ctx.Done():
	case <-done:
		return
	}
	again := make(chan os.Signal, 1)
	signal.Notify(again, stopSignals()...)
	why := stopSignal
	select {
	case <-again:
	case <-time.After(interruptGrace):
		why = stopGrace
	case <-done:
		return
	}
	stopNow(stderr, prog, why)
}

// stopNow says on stderr that the process is ended before its interrupted run returned, for why
// (stopSignal: another signal; stopGrace: interruptGrace passed), and ends it with exit 130. The
// run may be waiting on stdout's stalled reader, or on an input that has not ended (whose records
// it wrote as they came), or be busy: what it has not written is left out.
//
// Note: it said "interrupted; completed output could not be flushed", which was false of a run
// waiting on its input, whose completed records were all written.
func stopNow(stderr io.Writer, prog string, why int) {
	if why == stopGrace {
		fmt.Fprintf(stderr, "%s: interrupted, and still running %v later: stopping; what was not written is left out\n", prog, interruptGrace)
	} else {
		fmt.Fprintf(stderr, "%s: interrupted again: stopping at once; what was not written is left out\n", prog)
	}
	exitNow(ExitInterrupted)
}

// MainCalls is Main for a command that pays for model calls (qa-predict, qa-judge; qa-score's
// embedding calls), which it does not let a first signal throw away. The first SIGINT, SIGTERM or
// SIGHUP asks the run to finish (interrupt.WithFinish): it makes no new call, lets the calls in flight end and writes their
// records and replies, writes the records left with an error, prints its summary and returns
// interrupt.ErrInterrupted (exit 130). A second signal, or finishGrace after the first, abandons
// the calls in flight by cancelling the run's context, after which the run flushes its completed
// output as under Main; a third signal, or interruptGrace more, ends the process with exit 130.
// A SIGTERM within signalEcho of another counts as the same one: make, stopped with SIGTERM,
// passes it on to commands whose process group may have had it already. A run that makes no
// call (interrupt.NoCalls: qa-judge agree, a dry run) is stopped as under Main.
//
// A reader of stdout that goes away (| head -1) ends the process by SIGPIPE, as it ends cat, but
// only once the replies of the calls in flight that a --cache stores are stored (see
// endOfOutput): the run writes nothing more, makes no new call and reads no more input.
func MainCalls(prog string, run RunFunc) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, stopSignals()...)
	ctx, abandon := context.WithCancel(context.Background())
	ctx, finish := interrupt.WithFinish(ctx)
	stderr := Stderr()
	stdout, broken := watchStdout()
	done := make(chan struct{})
	go escalate(ctx, prog, stderr, sigs, done, broken, finish, abandon)
	err := run(ctx, os.Args, os.Stdin, stdout, stderr)
	close(done)
	select {
	case <-broken: // a run that returned has no call in flight
		dieOfSIGPIPE(prog, stderr)
	default:
	}
	signal.Stop(sigs)
	abandon()
	clearBarLine(stderr)
	dieOfBrokenStdout(err)
	Report(stderr, prog, err)
	os.Exit(ExitCode(err))
}

// finishGrace is how long an interrupted run may take to finish its calls in flight: as long as
// one attempt may take under the default --timeout, for no retry is made once it finishes.
var finishGrace = 2 * time.Minute

// signalEcho is how soon after a SIGTERM another one is taken as the same.
const signalEcho = time.Second

// escalate takes MainCalls's signals until done is closed: the first asks the run to finish,
// the second (or finishGrace) abandons its calls, the third (or interruptGrace) exits. A run of
// ctx that makes no call (interrupt.NoCalls) is stopped as Main stops one: the first signal
// cancels it, quietly, and the second (or interruptGrace) exits. Once broken is closed (stdout's
// reader went away), before or after a signal, endOfOutput ends the process.
func escalate(ctx context.Context, prog string, stderr io.Writer, sigs <-chan os.Signal, done, broken <-chan struct{}, finish func() int, abandon func()) {
	var sig os.Signal
	select {
	case sig = <-sigs:
	case <-done:
		return
	case <-broken:
		endOfOutput(ctx, prog, stderr, sigs, finish)
	}
	n := finish()
	if name, ok := interrupt.NoCallsName(ctx); ok {
		abandon()
		_, why := nextSignal(sigs, done, broken, sig, signalEcho, interruptGrace)
		switch why {
		case stopDone:
			return
		case stopBroken:
			endOfOutput(ctx, prog, stderr, sigs, finish)
		}
		stopNow(stderr, name, why)
	}
	if n == 0 {
		fmt.Fprintf(stderr, "%s: interrupted: no calls in flight; writing the records left (interrupt again to stop within %v)\n", prog, interruptGrace)
	} else {
		fmt.Fprintf(stderr, "%s: interrupted: finishing %s in flight (for at most %v); interrupt again to abandon %s\n",
			prog, english.Count(n, "call", "calls"), finishGrace, english.Form(n, "it", "them"))
	}
	sig, why := nextSignal(sigs, done, broken, sig, signalEcho, finishGrace)
	// With no call to abandon, what is left is what the run then does: it writes the records
	// completed, which a stalled reader of stdout (or an input that does not end) may not let it
	// do, so the process ends by interruptGrace at the latest, or at a third signal.
	//
	// Note: these said "interrupt again to stop at once" and "stopping at once", when a run
	// that could not flush then waited for interruptGrace or a third signal.
	stopping := fmt.Sprintf("writing only the records done, for at most %v (interrupt again to stop at once)", interruptGrace)
	switch {
	case why == stopDone:
		return
	case why == stopBroken:
		endOfOutput(ctx, prog, stderr, sigs, finish)
	case why == stopSignal && n == 0: // none in flight then, and no call has started since
		fmt.Fprintf(stderr, "%s: interrupted again: %s\n", prog, stopping)
	case why == stopSignal:
		fmt.Fprintf(stderr, "%s: interrupted again: abandoning the calls in flight\n", prog)
	case why == stopGrace && finish() == 0: // none in flight now: the run is stuck writing or reading
		fmt.Fprintf(stderr, "%s: not finished after %v, with no call in flight: %s\n", prog, finishGrace, stopping)
	case why == stopGrace:
		fmt.Fprintf(stderr, "%s: calls still in flight after %v: abandoning them\n", prog, finishGrace)
	}
	abandon()
	switch _, why := nextSignal(sigs, done, broken, sig, signalEcho, interruptGrace); why {
	case stopDone:
	case stopBroken: // the calls were abandoned: none is left to store
		endOfOutput(ctx, prog, stderr, sigs, finish)
	default:
		stopNow(stderr, prog, why)
	}
}

// What ended a wait of nextSignal.
const (
	stopDone   = iota // the run returned
	stopSignal        // another signal
	stopGrace         // the grace period passed
	stopBroken        // stdout's reader went away
)

// nextSignal waits for a signal, for grace to pass, or for done or broken to be closed, and says
// which came first. A SIGTERM within echo of the last signal, itself a SIGTERM, is the same one.
func nextSignal(sigs <-chan os.Signal, done, broken <-chan struct{}, last os.Signal, echo, grace time.Duration) (os.Signal, int) {
	var echoed <-chan time.Time
	if last == syscall.SIGTERM {
		echoed = time.After(echo)
	}
	expired := time.After(grace)
	for {
		select {
		case sig := <-sigs:
			if echoed == nil || sig != syscall.SIGTERM {
				return sig, stopSignal
			}
		case <-echoed:
			echoed = nil
		case <-expired:
			return last, stopGrace
		case <-done:
			return last, stopDone
		case <-broken:
			return last, stopBroken
		}
	}
}

// Execute runs app with args and returns its error, with a missing required flag turned into a
// UsageError. It prints nothing: every command's main reports the error once, with Report. Each
// of app's subcommands answers --version as the app does (see answerVersion), and its errors are
// named after it (see nameErrors). The integer flags of app and its subcommands are read in
// decimal, and their float flags as finite decimal numbers (see decimalFlags). A flag given on
// the command line wins over its variable, which is then not read (see shadowEnv), and a usage
// error about a value that came from a variable names it (see traceEnv).
func Execute(ctx context.Context, app *cli.App, args []string) error {
	decimalFlags(app.Flags)
	app.Before, app.Action = traceEnv(app.Before), traceEnv(app.Action)
	for _, sub := range app.Commands {
		decimalFlags(sub.Flags)
		sub.Before, sub.Action = traceEnv(sub.Before), traceEnv(sub.Action)
		nameErrors(app.Name+" "+sub.Name, sub)
		answerVersion(sub)
	}
	defer shadowEnv(app, args)()
	err := app.RunContext(ctx, args)
	err = helpDespiteEnv(ctx, app, args, err)
	if errors.Is(err, errVersionShown) {
		return nil
	}
	if err != nil && strings.HasPrefix(err.Error(), "Required flag") {
		err = &UsageError{Err: err}
	}
	return err
}

// helpDespiteEnv returns err, the error of running app with args, or, when args ask for help and
// err is for a QA_* variable's value that does not parse ("QA_SEED=abc qa-score --help"), the
// error of running app again without that variable, after a warning naming it: urfave/cli reads
// the variables before it looks for --help, so a bad one hid the help that would tell how to set
// it. The variable is unset for that run only, and so the help still names it beside its flag.
// The warning begins with the program name its error would have begun with: "qa-judge agree" for
// a variable of that subcommand's own flag.
func helpDespiteEnv(ctx context.Context, app *cli.App, args []string, err error) error {
	if !helpAsked(args) {
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
		fmt.Fprintf(app.ErrWriter, "%s: warning: %s; %s is not read for --help\n", prog, bad.msg, bad.env)
		os.Unsetenv(bad.env)
		restore = append(restore, func() { os.Setenv(bad.env, value) })
		err = app.RunContext(ctx, args)
	}
	return err
}

// helpAsked reports whether args (a command line, the program's name first) give --help or -h
// before "--".
func helpAsked(args []string) bool {
	given := givenNames(args[min(1, len(args)):])
	return slices.ContainsFunc(cli.HelpFlag.Names(), func(n string) bool { return slices.Contains(given, n) })
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

// Input is one input stream: a named file or standard input.
type Input struct {
	Name string // file name, or "" for standard input
	R    io.Reader
}

// OpenInputs calls fn for each positional argument in turn ("-" or none means stdin), each read
// through textfile.NewReader: decompressed if it is gzip data, without a leading byte order mark.
// A non-nil count is written every byte as it is read, before decompression, so that it can
// count them against the files' sizes (a ByteProgress bar).
func OpenInputs(args []string, stdin io.Reader, count io.Writer, fn func(Input) error) error {
	if len(args) == 0 {
		args = []string{"-"}
	}
	open := func(r io.Reader) io.Reader {
		if count != nil {
			r = io.TeeReader(r, count)
		}
		return textfile.NewReader(r)
	}
	for _, a := range args {
		if a == "-" {
			if err := fn(Input{Name: "", R: open(stdin)}); err != nil {
				return err
			}
			continue
		}
		f, err := os.Open(a)
		if err != nil {
			return err
		}
		err = fn(Input{Name: a, R: open(f)})
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// QuotedList writes names as a comma-separated list of Go-quoted strings, for messages that must
// show an empty or odd name as it is.
func QuotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// DisplayName is how an input is named in messages: its file name, or "stdin".
func (in Input) DisplayName() string {
	if in.Name == "" {
		return "stdin"
	}
	return in.Name
}
