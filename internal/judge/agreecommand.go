package judge

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/stats"
	"github.com/urfave/cli/v2"
)

type agreeConfig struct {
	names     []string
	threshold float64
	reps      int
	seed      uint64
	level     float64
	maxList   int
	format    string // --format: agreeText or agreeJSON
	strict    bool   // --strict: the first bad line stops the run
	maxLine   int    // --max-line
}

// agreeCommand is qa-judge's agree subcommand, reading from stdin and writing to stdout and stderr.
func agreeCommand(stdin io.Reader, stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:        "agree",
		Usage:       "agreement between two or more judges on the same records",
		ArgsUsage:   "[FILE ...]",
		Description: agreeDescription,
		Flags:       agreeFlags(),
		Before:      func(c *cli.Context) error { return command.CheckArgs(c, stdin, stdout) },
		Action: func(c *cli.Context) error {
			if w := flagsBeforeAgree(c); w != "" {
				fmt.Fprintf(stderr, "qa-judge agree: warning: %s\n", w)
			}
			cfg, err := parseAgreeConfig(c)
			if err != nil {
				return err
			}
			return runAgree(c.Context, c.Args().Slice(), cfg, stdin, stdout, stderr)
		},
	}
}

// agreeDescription is the agree subcommand's --help text.
const agreeDescription = `Reads judged records and prints, overall and per type, the raw agreement (all judges give the
same verdict) and Cohen's kappa (two judges) or Fleiss' kappa (more), with percentile bootstrap
confidence intervals over records (95%, or --level: its columns are headed "90% CI" at 0.9), then
lists the disagreements. With --bootstrap 0 there are no intervals, and the table leaves out its
"95% CI" columns (as it does whenever no figure has one). A type's resamples are drawn from --seed
and its name, as qa-score's groups' are, so that two types draw resamples of their own and a type's
intervals are those of a run over it alone; the overall row's are drawn from --seed, or from the
type's when every record compared has that one type.
` + command.InputsHelp + `
A verdict is 1 when the judgment's score is at least --threshold, else 0. On EvaLearn records
(dataset evalearn) a judgment without a score is read as qa-score's judge_score and qa-learncurve
read it: from the judge's raw reply by EvaLearn's rule (EvaLearn's own results, qa-load --format
evalearn-results, hold the reply alone); a reply in which the rule finds no score, an empty one
or none too, is 0, as in EvaLearn, with a warning. A score outside 0 to 1 in a compared judgment
(a 1-5 rubric's), on any record, is no verdict: its line is bad, named with FILE:LINE and id,
skipped and counted (exit 3; --strict stops there), as a null score. Records where a compared
judgment is missing (none of its name, or, but on EvaLearn records, one without a score) or failed
are left out and counted; a failed judgment among them makes the exit code 3 (a type whose every
record is left out has no row, and a warning names it). The rows are named as qa-score's summary
names its groups: "overall" (every record compared), then "type" and each type's name, so that a
type named "overall" is not taken for it.
Records without a type count in "overall" alone. A record's judgments are compared on its own line,
not joined by id: records that repeat an earlier one's id (files of the same records judged apart,
a file beside a copy of it, an id field that is not unique) count as records of their own, with a
warning naming the first, as in qa-score's summary. Kappa has no value ("-", with a warning) where
every verdict is the same: agreement by chance is then 1. A warning calls the intervals rough below
10 records: overall, or else naming the types that have fewer. Kappa's interval is over the
resamples where it has a value; a warning names the rows where more than a tenth of them had none,
and another those where all did, too few resamples to place its bounds: kappa has no interval ("-").
Another names the figures whose every resample gives the same value, a degenerate interval: [1, 1]
where every record of a row agrees, [0, 0] for kappa where a judge gives one verdict throughout.
A type, id or judge name that is empty, has white space at an end, starts with a quote or holds a
line break, tab or other unprintable character is named Go-quoted in the table, the list and the
warnings ("two\nlines"), as in qa-score's summary; a record without a type lists as "". The JSON's
keys and fields hold them as they are.

--format json prints the same report as one JSON document, for scripts, keyed as qa-score's summary
is: judges, kappa_method (cohen or fleiss), threshold, compared, left_out (of them left_out_missing
and left_out_failed), bad_lines, repeated_ids (when any), bootstrap, seed, level; overall and
by_type, each with its records, agreement and kappa as {"value": x, "ci": [lo, hi]}, a value null
where it has none, with a "reason", and "ci" left out where there is no interval (by_type is left
out when no record compared has a type; when only some have one, without_type counts the others);
then the disagreements (count, and the listed ones with id, type and each judge's verdict) and the
warnings, which go to stderr as well. Its figures are exact; the table rounds them to 3 places.

` + command.ExitCodesHelp

// agreeFlags are the agree subcommand's flags.
func agreeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "names", KeepSpace: true, EnvVars: []string{"QA_AGREE_NAMES"}, Usage: "comma-separated judgment `NAMES` to compare (given again, they add up; default: every name seen)"},
		&cli.Float64Flag{Name: "threshold", Value: 0.5, EnvVars: []string{"QA_AGREE_THRESHOLD"}, Usage: "score, 0 to 1, at or above which a verdict counts as correct"},
		command.BootstrapFlag(stats.DefaultResamples),
		command.LevelFlag(),
		command.BootstrapSeedFlag(),
		&cli.IntFlag{Name: "list", Value: 50, EnvVars: []string{"QA_AGREE_LIST"}, Usage: "most disagreements listed (-1: all)"},
		&cli.StringFlag{Name: "format", Value: agreeText, EnvVars: []string{"QA_AGREE_FORMAT"}, Usage: "report format: text (a table for people) or json (one document for scripts)"},
		&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}, Usage: "stop at the first bad input line"},
		command.MaxLineFlag("longest input line accepted, in `BYTES`"),
	}
}

// parseAgreeConfig reads and checks the agree subcommand's flags.
func parseAgreeConfig(c *cli.Context) (agreeConfig, error) {
	cfg := agreeConfig{reps: c.Int("bootstrap"), seed: uint64(c.Int64("seed")),
		maxList: c.Int("list"), format: c.String("format"), strict: c.Bool("strict")}
	if err := command.EmptyItems(c, "names", "name"); err != nil {
		return cfg, err
	}
	var err error
	if s := command.List(c, "names"); s != "" {
		if cfg.names, err = parseAgreeNames(s); err != nil {
			return cfg, err
		}
	}
	if cfg.reps, err = command.Bootstrap(c); err != nil {
		return cfg, err
	}
	if cfg.level, err = command.Level(c); err != nil {
		return cfg, err
	}
	if cfg.threshold, err = command.FloatBetween(c, "threshold", 0, 1); err != nil {
		return cfg, err // judgments' scores are 0 to 1: beyond, every verdict would be the same
	}
	if cfg.threshold == 0 {
		cfg.threshold = 0 // -0, as typed, is 0: the report printed "score >= -0"
	}
	if cfg.maxList < -1 {
		return cfg, command.Usagef("--list: want -1 (all) or a count, got %d", cfg.maxList)
	}
	if !slices.Contains(agreeFormats, cfg.format) {
		return cfg, command.Usagef("--format: unknown format %q (want %s or %s)%s", cfg.format, agreeText, agreeJSON,
			english.DidYouMean(cfg.format, agreeFormats))
	}
	if cfg.maxLine, err = command.MaxLine(c); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// parseAgreeNames reads --names, s: the comma-separated judgment names, trimmed, empty ones left
// out; a name given twice, a single name, or none (",": every name seen is what no --names
// gives, not a list that names none) is a usage error.
func parseAgreeNames(s string) ([]string, error) {
	var names []string
	for n := range strings.SplitSeq(s, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if slices.Contains(names, n) { // compared with itself, or counted twice among raters
			return nil, command.Usagef("--names: %q given twice: a judge compared with itself", n)
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, command.Usagef("--names %q names no judgment", s)
	}
	if len(names) == 1 { // found before any input is read
		return nil, command.Usagef("--names: need at least two judgment names, got 1 (%s)", command.QuotedList(names))
	}
	return names, nil
}

// flagsBeforeAgree is the warning that qa-judge's own flags typed before "agree" (qa-judge --seed 3
// agree) do nothing, agree reading only those after its name; "" when none was typed. Its
// variables (QA_JUDGE_*, exported for a pipeline's judging stage) are not named.
func flagsBeforeAgree(c *cli.Context) string {
	lineage := c.Lineage()
	if len(lineage) < 2 {
		return ""
	}
	typed := command.TypedFlags(lineage[1])
	if len(typed) == 0 {
		return ""
	}
	own := "" // agree's own flag of the name, where it has one
	for i, n := range typed {
		if own == "" && slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), n) }) {
			own = fmt.Sprintf(" (qa-judge agree --%s ...)", n)
		}
		typed[i] = "--" + n
	}
	return fmt.Sprintf("%s, given before agree, %s nothing: agree reads only the flags after its name%s",
		strings.Join(typed, ", "), english.Form(len(typed), "does", "do"), own)
}

// runAgree reads the judged records and prints the agreement. It makes no call, so a signal
// (ctx) stops it at once, before the next record, while the report is computed or before it is
// printed.
func runAgree(ctx context.Context, inputs []string, cfg agreeConfig, stdin io.Reader, stdout, stderr io.Writer) error {
	interrupt.NoCalls(ctx, "qa-judge agree")
	src := &command.Source{Args: inputs, Stdin: stdin, Stderr: stderr, Prog: "qa-judge agree", Strict: cfg.strict, MaxLine: cfg.maxLine}
	set, err := readJudged(ctx, src, cfg.threshold, cfg.names)
	if err != nil {
		return err
	}
	names, err := set.compared(cfg.names, src.Bad, stderr)
	if err != nil {
		return err
	}
	// The intervals' resamples can take minutes: a signal meanwhile stops the run there.
	rep, err := command.Compute(ctx, func() *agreeReport { return set.report(names, cfg, src.Bad) })
	if err != nil {
		return err
	}
	if err := rep.print(stdout, stderr); err != nil {
		return err
	}
	// Failed judgments are errors, as qa-score and qa-learncurve count them; the message names
	// them after the bad lines, as every command does.
	return command.BadRecords(src.Bad, command.Count{N: rep.failed, Singular: "record left out with a failed judgment (see its error field)",
		Plural: "records left out with a failed judgment (see their error fields)"})
}
