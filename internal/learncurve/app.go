package learncurve

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
)

const description = `qa-learncurve reads judged records of a sequential benchmark (EvaLearn: problems in sequences,
each answered with the history of the earlier ones) and prints EvaLearn's learning-curve report:
overall accuracy, accuracy per position, the slope of a line fitted to it, the mean position of
the first correct answer, the mean longest run of correct answers and the accuracy after the first
--warmup K problems, over all sequences and per type. The figures are those of EvaLearn's
Evaluate/evaluate_metric.py, to 1e-9 (see the package documentation for its rules).

` + command.InputsHelp + `
Records need sequence (id and position); an answer is correct when judgments[NAME].score > 0, NAME
the --judge name ("evalearn" unless set), else when the EvaLearn judge reply in judgments[NAME].raw
says so (EvaLearn's own parsing rule; a reply that holds no score by it counts as wrong, with a
warning). A score outside 0 to 1 (a 1-5 rubric's) counts so too, right above 0, as EvaLearn's script
counts an answer_score, with a warning naming the first (qa-score's judge_score makes it an
error). Use "qa-load --format evalearn-results" to read EvaLearn's own results files.

stdout carries the JSON report (the keys of EvaLearn's report; with --bootstrap N, a "ci" object
with percentile bootstrap intervals for every figure, over sequences resampled within their type,
so that every resample holds each type with its number of sequences), or with --format
evalearn-text the console text EvaLearn prints. --plot draws accuracy per position and type with
the fitted lines, as SVG or PNG: the format its extension names, or --plot-format's (either in
any case: PNG is png). --plot - writes the image to stdout instead of the report, which then goes
to --output FILE only (--plot-format is needed, the text format refused); so does a --plot naming
the file stdout is redirected to, and an --output naming it is refused where stdout carries the
image or the JSON report. A PNG's font has no Chinese, Japanese or Korean characters: its legend
names a type whose name it cannot draw by its place ("type #2"), and a warning says which name
that is (an SVG shows every name). Warnings go to stderr. Records without a sequence (no id, or
no position of 1 or more), and records whose prediction or --judge judgment failed (counted as
wrong, as EvaLearn does), make the exit status 3; so does a run in which no record has a verdict
under the --judge name (unjudged records, or a misspelt name), whose report would read 0. A
record that a later one of the same sequence and position replaces (EvaLearn keeps the last), or
at a position past M (ignored, with a warning for a failed one), counts for none of these, as its
verdict counts for nothing.

Examples:
   qa-load --format evalearn-results results.json | qa-learncurve --problems 7 --warmup 3 --plot curve.png
   qa-learncurve --output report.json --plot - --plot-format svg judged.jsonl > curve.svg`

// Output formats.
const (
	FormatJSON = "json"
	FormatText = "evalearn-text"
)

// maxWarnings is how many sequence warnings are printed before they are summarised.
const maxWarnings = 10

// Run runs qa-learncurve with args (args[0] is the program name).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	app := command.NewApp("qa-learncurve", "EvaLearn learning-curve metrics from judged sequential records", description, stdin, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		cfg, err := configure(c, stdin)
		if err != nil {
			return err
		}
		return run(c.Context, cfg, c.Args().Slice(), stdin, stdout, stderr)
	}
	return command.Execute(ctx, app, args)
}

// run reads the records, computes the report and writes it. A signal (ctx) stops it before the
// next record, or before the report when it came during the last read or the bootstrap: no report
// is written.
func run(ctx context.Context, cfg Config, files []string, stdin io.Reader, stdout, stderr io.Writer) error {
	src := &command.Source{Args: files, Stdin: stdin, Stderr: stderr, Prog: "qa-learncurve", Strict: cfg.Strict, MaxLine: cfg.MaxLine}
	rd, err := readRecords(ctx, cfg, src, stderr)
	if err != nil {
		return err
	}
	noted, counted := rd.notes(stderr, cfg.Problems)
	failed, unjudged := len(noted[Failed]), len(noted[NoVerdict])
	seqs, seqWarns := rd.g.Sequences()
	rep := Compute(seqs, cfg.Problems, cfg.Warmup)
	// One warning per odd sequence could be thousands: those are capped, the others are about
	// the whole report (a post-warmup accuracy of 0, answers without a verdict) and always shown.
	warn(stderr, seqWarns)
	warn(stderr, append(rd.warnings(cfg.Judge, noted, counted), rep.Warnings...))
	var ci *CI
	if cfg.Bootstrap > 0 {
		if ci, err = command.Compute(ctx, func() *CI { return Bootstrap(seqs, rep, cfg.Bootstrap, cfg.Level, cfg.Seed) }); err != nil {
			return err
		}
		warn(stderr, ci.Warnings)
	}
	if err := ctx.Err(); err != nil { // a signal during the warnings or the computing
		return err
	}
	if err := write(cfg, rep, ci, stdout, stderr); err != nil {
		return err
	}
	noVerdict := ""
	if unjudged > 0 && unjudged == counted-failed {
		noVerdict = noVerdictError(cfg.Judge, cfg.JudgeFlag, rd.names)
	}
	return badRecords(src, rd.unplaced, rd.placed, failed, unjudged, noVerdict)
}

// write writes the report to stdout and to --output, and the plot to --plot. The files are put in
// place only once all of it is written, stdout included: a run that fails on one of them (stdout
// on a full disk, a plot that cannot be written) leaves the files that were there as they were,
// or none, never a new report beside a missing plot for make to take as up to date. An output
// written in place (/dev/stdout, the file stdout was redirected to, a device) is written in
// the order the report and the plot go out: --output, --plot, then stdout's.
func write(cfg Config, rep Report, ci *CI, stdout, stderr io.Writer) (err error) {
	doc := rep.JSON(ci)
	var image []byte
	if cfg.Plot != "" {
		if image, err = drawPlot(cfg.Plot, cfg.PlotFormat, rep, stderr); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	type file struct {
		flag string
		r    *command.Replacement
	}
	var files []file
	defer func() {
		if err != nil {
			for _, f := range files {
				f.r.Abort()
			}
		}
	}()
	create := func(flag, path string, data []byte) error {
		r, err := command.ReplaceOutput(path, stdout, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", flag, err)
		}
		files = append(files, file{flag, r})
		if _, err := r.Write(data); err != nil {
			return fmt.Errorf("%s: %w", flag, err) // the error names the file: "write /dev/full: …"
		}
		return nil
	}
	if cfg.Output != "" {
		if err := create("--output", cfg.Output, doc); err != nil {
			return err
		}
	}
	if cfg.Plot != "" && !cfg.PlotToStdout {
		if err := create("--plot", cfg.Plot, image); err != nil {
			return err
		}
	}
	if err := writeStdout(cfg, rep, ci, doc, image, stdout); err != nil {
		return err
	}
	for _, f := range files { // a gzip file's last block, which a full disk may refuse
		if err := f.r.Finish(); err != nil {
			return fmt.Errorf("%s: %w", f.flag, err)
		}
	}
	for len(files) > 0 {
		f := files[0]
		files = files[1:] // the deferred Abort leaves it alone: Commit removes what it cannot put in place
		if err := f.r.Commit(); err != nil {
			return fmt.Errorf("%s: %w", f.flag, err)
		}
	}
	return nil
}

// writeStdout writes what stdout carries: the image of a --plot there (see plotStdout), else the
// report in --format.
func writeStdout(cfg Config, rep Report, ci *CI, doc, image []byte, stdout io.Writer) error {
	if cfg.PlotToStdout {
		if _, err := stdout.Write(image); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
		return nil
	}
	if cfg.Format == FormatJSON {
		_, err := stdout.Write(doc)
		return err
	}
	saved := cfg.Output
	if saved == "" {
		saved = "(not saved; see --output)"
	}
	if err := rep.WriteText(stdout, saved); err != nil {
		return err
	}
	if ci != nil {
		return ci.WriteText(stdout)
	}
	return nil
}

// warn prints warns, the first maxWarnings of them and then how many more there are.
func warn(stderr io.Writer, warns []string) {
	for i, w := range warns {
		if i == maxWarnings {
			fmt.Fprintf(stderr, "qa-learncurve: warning: %s\n", english.Count(len(warns)-maxWarnings, "more warning", "more warnings"))
			return
		}
		fmt.Fprintf(stderr, "qa-learncurve: warning: %s\n", w)
	}
}

// notSequential says what qa-learncurve reads, when no record was one.
const notSequential = "none is a record of an EvaLearn sequence, which qa-learncurve reads (qa-load --format evalearn, answered by qa-predict with its --judge-model; or qa-load --format evalearn-results)"

// badRecords is the run's exit error: the bad lines, the records skipped or counted as wrong,
// and, when noVerdict says no record had a verdict, the unjudged ones, each kind counted as the
// other commands count theirs ("1 bad input line skipped, and 2 failed records counted as
// wrong"). The unjudged come last, for the reason after them is long.
func badRecords(src *command.Source, unplaced, placed, failed, unjudged int, noVerdict string) error {
	var unjudgedCount command.Count
	if noVerdict != "" {
		unjudgedCount = command.Count{N: unjudged, Singular: "record counted as wrong: " + noVerdict, Plural: "records counted as wrong: " + noVerdict}
	}
	skipped := command.Count{N: unplaced, Singular: "record without a sequence id or position skipped", Plural: "records without a sequence id or position skipped"}
	if placed == 0 { // records of another benchmark, most likely
		skipped.Singular += ": " + notSequential
		skipped.Plural += ": " + notSequential
	}
	return command.BadRecords(src.Bad,
		skipped,
		command.Count{N: failed, Singular: "failed record counted as wrong", Plural: "failed records counted as wrong"},
		unjudgedCount)
}
