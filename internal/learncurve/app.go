package learncurve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
)

const description = `qa-learncurve reads judged records of a sequential benchmark (EvaLearn: problems in sequences,
each answered with the history of the earlier ones) and prints EvaLearn's learning-curve report:
overall accuracy, accuracy per position, the slope of a line fitted to it, the mean position of
the first correct answer, the mean longest run of correct answers and the accuracy after the first
--warmup K problems, over all sequences and per type. The figures are those of EvaLearn's
Evaluate/evaluate_metric.py, to 1e-9 (see the package documentation for its rules).

Input files are positional arguments; none or "-" means stdin. Records need sequence (id and
position); an answer is correct when judgments[NAME].score > 0, NAME the --judge name ("evalearn"
unless set), else when the EvaLearn judge reply in judgments[NAME].raw says so (EvaLearn's own
parsing rule; a reply that holds no score by it counts as wrong, with a warning). Use
"qa-load --format evalearn-results" to read EvaLearn's own results files.

stdout carries the JSON report (the keys of EvaLearn's report; with --bootstrap N, a "ci" object
with percentile bootstrap intervals over sequences for every figure), or with --format
evalearn-text the console text EvaLearn prints. --plot draws accuracy per position and type with
the fitted lines, as SVG or PNG: the format its extension names, or --plot-format's. --plot -
writes the image to stdout instead of the report, which then goes to --output FILE only
(--plot-format is needed, the text format refused); so does a --plot naming the file stdout is
redirected to, and an --output naming it is refused where stdout carries the image or the JSON
report. A PNG's font has no Chinese, Japanese or Korean characters: its legend names a type whose
name it cannot draw by its place ("type #2"), and a warning says which name that is (an SVG shows
every name). Warnings go to stderr. Records without a sequence, and records whose prediction or
--judge judgment failed (counted as wrong, as EvaLearn does), make the exit status 3; so does a
run in which no record has a verdict under the --judge name (unjudged records, or a misspelt
name), whose report would read 0. A record that a later one of the same sequence and position
replaces (EvaLearn keeps the last), or at a position outside 1 to M (ignored, with a warning for a
failed one), counts for none of these, as its verdict counts for nothing.

Examples:
   qa-load --format evalearn-results results.json | qa-learncurve --problems 7 --warmup 3 --plot curve.png
   qa-learncurve --output report.json --plot - --plot-format svg judged.jsonl > curve.svg`

// Output formats.
const (
	FormatJSON = "json"
	FormatText = "evalearn-text"
)

// Config is one run of qa-learncurve, as its flags set it.
type Config struct {
	Problems, Warmup int
	Format           string
	Output           string // also write the JSON report here
	Plot             string // "-" (or /dev/stdout): stdout, the report then in Output only
	PlotToStdout     bool   // Plot is where stdout writes (command.StdoutFile)
	PlotFormat       string // "svg" or "png"
	Bootstrap        int
	Level            float64
	Seed             uint64
	Judge            string
	JudgeFlag        string // how messages name where Judge came from: "--judge", "--judge from QA_JUDGE"
	Strict           bool
	MaxLine          int
}

// maxWarnings is how many sequence warnings are printed before they are summarised.
const maxWarnings = 10

// MaxProblems is the most --problems: the report holds M values a sequence and type (and the
// warnings name missing positions), so an M mistyped by some digits would take gigabytes, while
// sequential benchmarks have a few to some hundreds of problems a sequence (EvaLearn's 7).
const MaxProblems = 10000

// Run runs qa-learncurve with args (args[0] is the program name).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	app := command.NewApp("qa-learncurve", "EvaLearn learning-curve metrics from judged sequential records", description, stdout, stderr)
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

func flags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "problems", Value: 7, EnvVars: []string{"QA_PROBLEMS"}, Usage: fmt.Sprintf("problems per sequence `M`, 1 to %d; positions above M are ignored", MaxProblems)},
		&cli.IntFlag{Name: "warmup", Value: 3, EnvVars: []string{"QA_WARMUP"}, Usage: "post-warmup accuracy leaves out the first `K` positions"},
		&cli.StringFlag{Name: "format", Value: FormatJSON, EnvVars: []string{"QA_LEARNCURVE_FORMAT"}, Usage: "output `FORMAT`: json (EvaLearn's report) or evalearn-text (its console text)"},
		&cli.StringFlag{Name: "output", EnvVars: []string{"QA_OUTPUT"}, Usage: "also write the JSON report to `FILE` (only there with --plot -)"},
		&cli.StringFlag{Name: "plot", EnvVars: []string{"QA_PLOT"}, Usage: "draw accuracy per position and type to `FILE` (.svg or .png; - for stdout, with --output and --plot-format)"},
		&cli.StringFlag{Name: "plot-format", EnvVars: []string{"QA_PLOT_FORMAT"}, Usage: "image `FORMAT` of --plot: svg or png (default: the one its extension names)"},
		&cli.IntFlag{Name: "bootstrap", EnvVars: []string{"QA_BOOTSTRAP"}, Usage: "`N` bootstrap resamples of the sequences for confidence intervals (0: none; at most 1000000)"},
		command.LevelFlag("confidence `LEVEL` of the intervals"),
		&cli.Int64Flag{Name: "seed", Value: 1, EnvVars: []string{"QA_SEED"}, Usage: "random `SEED` of the bootstrap"},
		&cli.StringFlag{Name: "judge", Value: JudgeName, EnvVars: []string{"QA_JUDGE"}, Usage: "judgments key `NAME` holding the verdicts (empty: the default, as qa-score reads an empty --judge)"},
		&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}, Usage: "stop at the first bad input line"},
		command.MaxLineFlag("longest input line accepted, in bytes"),
	}
}

func configure(c *cli.Context, stdin io.Reader) (Config, error) {
	cfg := Config{
		Problems: c.Int("problems"), Warmup: c.Int("warmup"), Format: c.String("format"),
		Output: c.String("output"), Plot: c.String("plot"), Bootstrap: c.Int("bootstrap"),
		Seed: uint64(c.Int64("seed")), Judge: c.String("judge"), JudgeFlag: "--judge" + command.FromEnv(c, "judge"),
		Strict: c.Bool("strict"),
	}
	if cfg.Judge == "" { // an exported QA_JUDGE= means qa-score's default, and this one's
		cfg.Judge = JudgeName
	}
	var err error
	if cfg.MaxLine, err = command.MaxLine(c); err != nil {
		return cfg, err
	}
	if cfg.Bootstrap, err = command.Bootstrap(c); err != nil {
		return cfg, err
	}
	if cfg.Level, err = command.Level(c); err != nil {
		return cfg, err
	}
	if err := checkCounts(cfg); err != nil {
		return cfg, err
	}
	if cfg.Output == "-" { // it would make a file named "-"
		return cfg, command.Usagef("--output: - is stdout, where the report goes anyway: name a file")
	}
	if err := configurePlot(c, &cfg); err != nil {
		return cfg, err
	}
	if err := checkOutputs(c, cfg, stdin); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// checkCounts checks cfg's --problems, --warmup and --format.
func checkCounts(cfg Config) error {
	switch {
	case cfg.Problems < 1:
		return command.Usagef("--problems: want at least 1, got %d", cfg.Problems)
	case cfg.Problems > MaxProblems:
		return command.Usagef("--problems: want at most %d (problems per sequence; EvaLearn's are 7), got %d", MaxProblems, cfg.Problems)
	case cfg.Warmup < 0:
		return command.Usagef("--warmup: want 0 or more, got %d", cfg.Warmup)
	case cfg.Format != FormatJSON && cfg.Format != FormatText:
		return command.Usagef("--format: unknown format %q (want %s or %s)%s", cfg.Format, FormatJSON, FormatText,
			english.DidYouMean(cfg.Format, []string{FormatJSON, FormatText}))
	}
	return nil
}

// configurePlot sets cfg's plot format, and whether the plot goes to stdout, warning of
// --plot-format without --plot.
func configurePlot(c *cli.Context, cfg *Config) error {
	var err error
	if cfg.Plot == "" && c.IsSet("plot-format") {
		fmt.Fprintln(c.App.ErrWriter, "qa-learncurve: warning: --plot-format is the plot's format; without --plot it does nothing")
	}
	if cfg.Plot != "" {
		if cfg.PlotFormat, err = plotFormat(c, cfg.Plot); err != nil {
			return err
		}
	}
	cfg.PlotToStdout = cfg.Plot != "" && command.StdoutFile(cfg.Plot, c.App.Writer)
	return plotStdout(c, *cfg)
}

// checkOutputs refuses a JSON report written to stdout's file twice, an --output or --plot that
// is an input or is the other output, and one that cannot be written, before any work.
func checkOutputs(c *cli.Context, cfg Config, stdin io.Reader) error {
	if !cfg.PlotToStdout && cfg.Format == FormatJSON && command.StdoutFile(cfg.Output, c.App.Writer) {
		// The report would be written twice into one file: two JSON documents, no report.
		return command.Usagef("--output %s: is where stdout writes, which carries the JSON report anyway: name another file", cfg.Output)
	}
	outputs := [][2]string{{"--output", cfg.Output}, {"--plot", cfg.Plot}}
	for _, o := range outputs {
		if err := command.NotAnInput(o[0], o[1], c.Args().Slice(), stdin); err != nil {
			return err
		}
	}
	if err := command.DistinctOutputs(outputs); err != nil {
		return err
	}
	for _, o := range outputs { // written at the end: a typo found then would lose the report
		if err := command.OutputFolder(o[0], o[1]); err != nil {
			return err
		}
		if err := command.OutputWritable(o[0], o[1]); err != nil {
			return err // --plot is written after the report: found then, the report was out
		}
	}
	return nil
}

// run reads the records, computes the report and writes it. A signal (ctx) stops it before the
// next record, or before the report when it came during the last read: no report is written.
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
		ci = Bootstrap(seqs, rep, cfg.Bootstrap, cfg.Level, cfg.Seed)
		warn(stderr, ci.Warnings)
	}
	if err := write(cfg, rep, ci, stdout, stderr); err != nil {
		return err
	}
	if cfg.Plot != "" {
		if err := SavePlot(cfg.Plot, cfg.PlotFormat, rep, stdout, stderr); err != nil {
			return fmt.Errorf("--plot: %w", err) // the error names the file: "write /dev/full: …"
		}
	}
	noVerdict := ""
	if unjudged > 0 && unjudged == counted-failed {
		noVerdict = noVerdictError(cfg.Judge, cfg.JudgeFlag, rd.names)
	}
	return badRecords(src, rd.unplaced, rd.placed, failed, unjudged, noVerdict)
}

// reading is what run keeps of the records it reads: their verdicts, grouped, the counts of
// records placed and not, the repeats, and the judgment names and models seen.
type reading struct {
	g                *Grouper
	unplaced, placed int
	skippedNotes     recordNotes // one line a record, for the first few
	repeated         int         // records whose sequence and position an earlier one had
	firstRepeated    *record.Error
	names            map[string]bool // the judgment names the records carry
	models           map[string]bool // the models that answered (prediction.model), up to maxNames
}

// readRecords reads the records of src, each one's verdict under cfg.Judge. A signal (ctx) stops
// it before the next record.
func readRecords(ctx context.Context, cfg Config, src *command.Source, stderr io.Writer) (*reading, error) {
	rd := &reading{g: NewGrouper(cfg.Problems), names: map[string]bool{}, models: map[string]bool{}}
	err := src.Each(func(r *record.Record) error {
		if err := interrupt.Err(ctx); err != nil {
			return err
		}
		rd.add(r, cfg.Judge, src, stderr)
		return nil
	})
	if err == nil {
		err = interrupt.Err(ctx)
	}
	if err != nil {
		return nil, err
	}
	return rd, nil
}

// add takes in r, read from src: its judgment names, its model and its verdict under judge,
// noted when it failed, has none or one read from no score; a record without a place in a
// sequence is skipped, with a note on stderr.
func (rd *reading) add(r *record.Record, judge string, src *command.Source, stderr io.Writer) {
	for name := range r.Judgments {
		if len(rd.names) < maxNames {
			rd.names[name] = true
		}
	}
	o, err := observe(r, judge)
	if errors.Is(err, ErrNoSequence) {
		rd.unplaced++
		rd.skippedNotes.note(stderr, fmt.Sprintf("qa-learncurve: %v; skipped", src.At(r.ID, err)))
		return
	}
	rd.placed++
	if p := r.Prediction; p != nil && p.Error == "" && p.Model != "" && len(rd.models) < maxNames {
		rd.models[p.Model] = true
	}
	// The grouper keeps each note while its record's verdict counts: a record replaced by a
	// later one of the same sequence and position is reported as it is counted, not at all.
	msg := failure(r, judge)
	switch _, has, _ := evalearn.Verdict(r.Judgments[judge]); {
	case msg != "":
		o.Note = &Note{Kind: Failed, At: src.At(r.ID, errors.New(msg))}
	case !has: // a failed record has no verdict either; it is counted as failed only
		o.Note = &Note{Kind: NoVerdict, At: src.At(r.ID, nil)}
	case o.Unread != "":
		o.Note = &Note{Kind: Unread, At: src.At(r.ID, errors.New(o.Unread))}
	}
	if rd.g.Add(o) {
		if rd.repeated++; rd.firstRepeated == nil {
			rd.firstRepeated = src.At(r.ID, nil)
		}
	}
}

// notes prints the notes of the records read: the failed records counted as wrong, those ignored
// (their positions past problems), and how many more of each kind, with the skipped ones, were
// not shown. It returns the notes of the records counted (Grouper.Noted), and their count.
func (rd *reading) notes(stderr io.Writer, problems int) (noted [noteKinds][]*record.Error, counted int) {
	var failedNotes recordNotes // one line a record, for the first few
	noted, counted = rd.g.Noted()
	for _, at := range noted[Failed] {
		failedNotes.note(stderr, fmt.Sprintf("qa-learncurve: %v; counted as wrong", at))
	}
	var ignoredNotes recordNotes // failed records at positions the report does not read
	for _, at := range rd.g.Ignored()[Failed] {
		ignoredNotes.note(stderr, fmt.Sprintf("qa-learncurve: warning: %v; ignored: its position is not among 1-%d", at, problems))
	}
	rd.skippedNotes.rest(stderr, "record without a sequence id or position skipped", "records without a sequence id or position skipped")
	failedNotes.rest(stderr, "failed record counted as wrong", "failed records counted as wrong")
	ignoredNotes.rest(stderr, "failed record ignored", "failed records ignored")
	return noted, counted
}

// warnings are the warnings about the records read, given their notes (noted, of counted
// records): answers of several models, records without a verdict of judge or whose judge reply
// held no score, and records that repeat an earlier one's place.
func (rd *reading) warnings(judge string, noted [noteKinds][]*record.Error, counted int) []string {
	failed, unjudged, unread := len(noted[Failed]), len(noted[NoVerdict]), len(noted[Unread])
	var warns []string
	if w := modelsWarning(rd.models); w != "" {
		warns = append(warns, w)
	}
	if unjudged > 0 {
		first := ""
		if unjudged < counted-failed { // when none has one, the error below says so
			first = english.Form(unjudged, ": ", "; the first is ") + noted[NoVerdict][0].Place()
		}
		warns = append(warns, fmt.Sprintf("%s no %q verdict (no score, empty reply): counted as wrong%s", english.Count(unjudged, "record has", "records have"), judge, first))
	}
	if unread > 0 {
		warns = append(warns, fmt.Sprintf("%s %q judge %s no score by EvaLearn's rule: counted as wrong, as in EvaLearn%s%v",
			english.Count(unread, "record's", "records'"), judge, english.Form(unread, "reply holds", "replies hold"),
			english.Form(unread, ": ", "; the first is "), noted[Unread][0]))
	}
	if rd.repeated > 0 {
		warns = append(warns, fmt.Sprintf("%s the sequence and position of an earlier record, whose verdict %s (as in EvaLearn; an input given twice?)%s",
			english.Count(rd.repeated, "record repeats", "records repeat"), english.Form(rd.repeated, "it replaces", "they replace"),
			english.Form(rd.repeated, ": ", "; the first is ")+rd.firstRepeated.Place()))
	}
	return warns
}

// modelsWarning says that the records hold the answers of more than one model (models, the
// names in prediction.model of the answers), which the report pools as the answers of one, or
// returns "".
//
// Note: the answers of two models' runs, given together, made one report without a word where
// they were of different sequences (two shards, say), and where they were of the same ones
// only the later verdicts counted, with a warning of records that repeat.
func modelsWarning(models map[string]bool) string {
	if len(models) < 2 {
		return ""
	}
	n := english.Count(len(models), "model", "models")
	if len(models) == maxNames {
		n = fmt.Sprintf("%d or more models", maxNames)
	}
	return fmt.Sprintf("the records hold the answers of %s (%s), which the report pools as one run's: to compare models, give each one's records alone",
		n, command.QuotedList(slices.Sorted(maps.Keys(models))))
}

// recordNotes prints a line for each of the first maxRecordNotes records of one kind, and counts
// the others: a file of records from another benchmark would otherwise print a line a record.
type recordNotes struct{ shown, more int }

const maxRecordNotes = 10

func (n *recordNotes) note(w io.Writer, line string) {
	if n.shown == maxRecordNotes {
		n.more++
		return
	}
	n.shown++
	fmt.Fprintln(w, line)
}

// rest says how many records of the kind were not shown.
func (n *recordNotes) rest(w io.Writer, one, many string) {
	if n.more > 0 {
		fmt.Fprintf(w, "qa-learncurve: %s (not shown one by one)\n", english.Count(n.more, "more "+one, "more "+many))
	}
}

// maxNames is how many judgment names noVerdictError lists at most.
const maxNames = 20

// noVerdictError says that no record has a verdict under judge, and what the records have
// instead: a misspelt --judge, or records not judged yet, whose report would read 0 throughout.
// flag names where judge came from ("--judge from QA_JUDGE"; "" for "--judge").
func noVerdictError(judge, flag string, names map[string]bool) string {
	if flag == "" {
		flag = "--judge"
	}
	if len(names) == 0 {
		return fmt.Sprintf("no record has a verdict under %q, nor any judgment: judge them first (qa-judge --mode evalearn, or qa-predict's sequential judge)", judge)
	}
	known := slices.Sorted(maps.Keys(names))
	return fmt.Sprintf("no record has a verdict under %q (%s); the records' judgments: %s%s", judge, flag, command.QuotedList(known),
		english.DidYouMean(judge, known))
}

// observe is Observe reading the verdicts of the named judge.
func observe(r *record.Record, judge string) (Observation, error) {
	if judge == JudgeName {
		return Observe(r)
	}
	shadow := *r
	shadow.Judgments = map[string]*record.Judgment{JudgeName: r.Judgments[judge]}
	return Observe(&shadow)
}

// failure says why r's answer counts as wrong for an error, or returns "" when it has none: a
// failed prediction, or a failed judgment under judge. Another judge's error (a second judge run
// for agreement) decides nothing here: the verdict read is judge's.
func failure(r *record.Record, judge string) string {
	if r.Prediction != nil && r.Prediction.Error != "" {
		return "prediction error: " + r.Prediction.Error
	}
	if j := r.Judgments[judge]; j != nil && j.Error != "" {
		return "judgment " + judge + " error: " + j.Error
	}
	return ""
}

func write(cfg Config, rep Report, ci *CI, stdout, stderr io.Writer) error {
	doc := rep.JSON(ci)
	if cfg.Output != "" {
		if err := writeFile(cfg.Output, doc, stdout, stderr); err != nil {
			return fmt.Errorf("--output: %w", err)
		}
	}
	if cfg.PlotToStdout { // stdout carries the image (see plotStdout)
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

// writeFile writes data to the output file path, replacing the file there only once data is
// written whole (see command.ReplaceOutput; /dev/stdout is the stream stdout itself, the report
// after it).
func writeFile(path string, data []byte, stdout, stderr io.Writer) error {
	w, err := command.ReplaceOutput(path, stdout, stderr)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
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
	skipped := command.Count{N: unplaced, Singular: "record without a sequence skipped", Plural: "records without a sequence skipped"}
	if placed == 0 { // records of another benchmark, most likely
		skipped.Singular += ": " + notSequential
		skipped.Plural += ": " + notSequential
	}
	return command.BadRecords(src.Bad,
		skipped,
		command.Count{N: failed, Singular: "failed record counted as wrong", Plural: "failed records counted as wrong"},
		unjudgedCount)
}
