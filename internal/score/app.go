// Package score is the qa-score command: it fills each record's scores with the lexical metrics of
// pkg/metric and the benchmark-specific scores, and summarises them with bootstrap confidence
// intervals.
//
// Records stream through a bounded, ordered, concurrent map: workers decode the fields the metrics
// read, score, and splice the scores member into the input line, leaving every other byte as it
// was. The summary keeps per-group accumulators and one float64 per record and metric for the
// bootstrap, never the records.
package score

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

const description = `qa-score reads records with prediction.text and answers and writes them back with
scores filled in, in input order. It can also summarise them: each metric's mean, count and a
bootstrap 95% confidence interval, overall and by record type, plus LoCoMo's per-category F1 and
LongMemEval's judge accuracies.

--metrics picks the scores (comma-separated); by default every light metric that applies to a
record runs. A record whose prediction (or the judgment judge_score reads) has an error gets no
scores; the summary counts it separately and leaves it out unless --errors-as-zero.

METRICS:
{metrics}
Notes: ROUGE uses rouge-score's tokenizer, which drops every non-ASCII character (so Chinese text
scores 0 there, exactly as in rouge-score); cmrc_* run only on Chinese records (lang zh);
locomo_f1 only on LoCoMo records (category from meta.category); sp_* and joint_* only when the
prediction carries supporting_facts and meta.supporting_facts holds the gold ones.

Examples:
   qa-score preds.jsonl > scored.jsonl
   qa-score --metrics f1,rougeL --summary - --format table preds.jsonl
   qa-score --summary summary.json --mismatches low.jsonl preds.jsonl > scored.jsonl`

// config is everything the flags decide.
type config struct {
	inputs       []string
	sel          *selection
	judge        string
	summary      string
	format       string
	reps         int
	seed         uint64
	errorsAsZero bool
	mismatches   string
	mismatch     *mismatchRule
	strict       bool
	jobs         int
	maxLine      int
}

// Run is the qa-score command. args includes the program name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	reg := registry()
	app := command.NewApp("qa-score", "score predictions and summarise the scores",
		strings.Replace(description, "{metrics}", metricsHelp(reg), 1), stdout, stderr)
	app.ArgsUsage = "[FILE...]"
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		cfg, err := parseConfig(c, reg)
		if err != nil {
			return err
		}
		return run(c.Context, cfg, stdin, stdout, stderr)
	}
	err := app.RunContext(ctx, args)
	if err != nil && strings.HasPrefix(err.Error(), "Required flag") {
		err = &command.UsageError{Err: err}
	}
	command.Report(stderr, app.Name, err)
	return err
}

func flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "metrics", EnvVars: []string{"QA_METRICS"}, Usage: "comma-separated score names (default: every light metric that applies)"},
		&cli.StringFlag{Name: "judge", EnvVars: []string{"QA_JUDGE"}, Usage: "judgment that judge_score reads (default: first judge name in sorted order)"},
		&cli.StringFlag{Name: "summary", EnvVars: []string{"QA_SUMMARY"}, Usage: "write a summary to `FILE`; - prints it on stdout instead of the records"},
		&cli.StringFlag{Name: "format", Value: "json", EnvVars: []string{"QA_SUMMARY_FORMAT"}, Usage: "summary format: " + strings.Join(formats, ", ")},
		&cli.IntFlag{Name: "bootstrap", Value: 1000, EnvVars: []string{"QA_BOOTSTRAP"}, Usage: "bootstrap resamples for the confidence intervals (0: none)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, EnvVars: []string{"QA_SEED"}, Usage: "random seed of the bootstrap"},
		&cli.BoolFlag{Name: "errors-as-zero", EnvVars: []string{"QA_ERRORS_AS_ZERO"}, Usage: "count records with prediction or judge errors as 0 in the summary instead of leaving them out"},
		&cli.StringFlag{Name: "mismatches", EnvVars: []string{"QA_MISMATCHES"}, Usage: "write the low-scoring records (id, question, gold, prediction, score) as JSONL to `FILE`"},
		&cli.StringFlag{Name: "mismatch-metric", Value: "f1", EnvVars: []string{"QA_MISMATCH_METRIC"}, Usage: "metric that --mismatches looks at"},
		&cli.Float64Flag{Name: "below", Value: 0.3, EnvVars: []string{"QA_BELOW"}, Usage: "--mismatches keeps records whose metric is below this"},
		&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}, Usage: "stop at the first bad input line"},
		&cli.IntFlag{Name: "jobs", Value: runtime.GOMAXPROCS(0), EnvVars: []string{"QA_JOBS"}, Usage: "records scored concurrently"},
		&cli.IntFlag{Name: "max-line", Value: record.DefaultMaxLine, EnvVars: []string{"QA_MAX_LINE"}, Usage: "longest input line accepted, in bytes"},
	}
}

func parseConfig(c *cli.Context, reg []*family) (*config, error) {
	cfg := &config{inputs: c.Args().Slice(), judge: c.String("judge"), summary: c.String("summary"),
		format: c.String("format"), reps: c.Int("bootstrap"), seed: c.Uint64("seed"),
		errorsAsZero: c.Bool("errors-as-zero"), mismatches: c.String("mismatches"),
		strict: c.Bool("strict"), jobs: c.Int("jobs"), maxLine: c.Int("max-line")}
	sel, err := selectMetrics(reg, c.String("metrics"))
	if err != nil {
		return nil, command.Usagef("--metrics: %v", err)
	}
	cfg.sel = sel
	switch {
	case !slices.Contains(formats, cfg.format):
		return nil, command.Usagef("--format: unknown format %q (want one of %s)", cfg.format, strings.Join(formats, ", "))
	case cfg.reps < 0:
		return nil, command.Usagef("--bootstrap: must not be negative")
	case cfg.jobs < 1:
		return nil, command.Usagef("--jobs: must be at least 1")
	case cfg.maxLine < 1:
		return nil, command.Usagef("--max-line: must be at least 1")
	}
	if cfg.mismatches != "" {
		name := c.String("mismatch-metric")
		k := sel.index(name)
		if k < 0 {
			return nil, command.Usagef("--mismatch-metric: %q is not among the selected metrics (%s)", name, strings.Join(sel.names, ", "))
		}
		cfg.mismatch = &mismatchRule{metric: name, index: k, below: c.Float64("below")}
	}
	return cfg, nil
}

// run scores the inputs and writes records, the summary and the mismatches.
func run(ctx context.Context, cfg *config, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	sc := newScorer(cfg.sel, cfg.judge)
	agg := newAggregator(cfg.sel.names, cfg.errorsAsZero)
	records := stdout
	if cfg.summary == "-" {
		records = io.Discard
	}
	out := record.NewWriter(records)
	var mm *record.Writer
	if cfg.mismatches != "" {
		f, ferr := os.Create(cfg.mismatches)
		if ferr != nil {
			return fmt.Errorf("mismatches: %w", ferr)
		}
		defer closeInto(f, &err, "mismatches")
		mm = record.NewWriter(f)
	}
	bad := 0
	process := func(l line) result { return cfg.process(sc, l) }
	emit := func(r result) error {
		if r.bad != nil {
			if cfg.strict {
				return r.bad
			}
			bad++
			fmt.Fprintf(stderr, "qa-score: %v\n", r.bad)
			return nil
		}
		agg.add(r.o)
		if r.mismatch != nil {
			mm.WriteRaw(r.mismatch) //nolint:errcheck // kept and returned by Flush
		}
		return out.WriteRaw(r.out)
	}
	serr := stream(ctx, cfg.inputs, stdin, cfg.maxLine, cfg.jobs, process, emit)
	if err := out.Flush(); err != nil && serr == nil {
		serr = fmt.Errorf("write records: %w", err)
	}
	if mm != nil {
		if err := mm.Flush(); err != nil && serr == nil {
			serr = fmt.Errorf("mismatches: %w", err)
		}
	}
	if serr != nil {
		return serr
	}
	if cfg.summary != "" {
		if err := cfg.writeSummary(agg.summarize(cfg.reps, cfg.seed, bad), stdout, stderr); err != nil {
			return err
		}
	}
	return finalError(bad, agg.failed)
}

// process decodes, scores and encodes one line; it runs in a worker.
func (cfg *config) process(sc *scorer, l line) result {
	rec, bad := decodeView(l)
	if bad != nil {
		return result{bad: bad}
	}
	o := sc.score(rec)
	var out []byte
	var err error
	if cfg.summary != "-" { // with --summary - the records are not written
		if out, err = sc.encode(l.data, rec, o); err != nil {
			return result{bad: &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}}
		}
	}
	var mm []byte
	if cfg.mismatch != nil {
		if mm, err = cfg.mismatch.line(rec, o); err != nil {
			return result{bad: &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}}
		}
	}
	return result{out: escapeLineBreaks(out), o: o, mismatch: escapeLineBreaks(mm)}
}

// escapeLineBreaks writes U+0085, U+2028 and U+2029 as \u escapes. JSON allows them raw (and
// qa-score passes input bytes through), but Python's str.splitlines() breaks lines at them, which
// would cut a record in two for a reader that splits lines that way. Inside valid JSON these
// UTF-8 sequences can only occur in strings, where the escape means the same character.
func escapeLineBreaks(b []byte) []byte {
	if !bytes.Contains(b, []byte("\u0085")) && !bytes.Contains(b, []byte("\u2028")) && !bytes.Contains(b, []byte("\u2029")) {
		return b
	}
	b = bytes.ReplaceAll(b, []byte("\u0085"), []byte(`\u0085`))
	b = bytes.ReplaceAll(b, []byte("\u2028"), []byte(`\u2028`))
	return bytes.ReplaceAll(b, []byte("\u2029"), []byte(`\u2029`))
}

// writeSummary writes the summary to its file (or stdout for -) and its warnings to stderr.
func (cfg *config) writeSummary(s *Summary, stdout, stderr io.Writer) (err error) {
	for _, w := range s.Warnings {
		fmt.Fprintf(stderr, "qa-score: warning: %s\n", w)
	}
	if cfg.summary == "-" {
		return s.write(stdout, cfg.format)
	}
	f, ferr := os.Create(cfg.summary)
	if ferr != nil {
		return fmt.Errorf("summary: %w", ferr)
	}
	defer closeInto(f, &err, "summary")
	if err := s.write(f, cfg.format); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return nil
}

// finalError is the exit status of a run that got to the end: bad lines and failed records both
// make it 3.
func finalError(bad, failed int) error {
	switch {
	case bad > 0 && failed > 0:
		return &command.BadRecordsError{N: bad, What: fmt.Sprintf("bad input lines skipped, and %d records with prediction or judge errors not scored", failed)}
	case bad > 0:
		return &command.BadRecordsError{N: bad, What: "bad input lines skipped"}
	case failed > 0:
		return &command.BadRecordsError{N: failed, What: "records with prediction or judge errors not scored"}
	}
	return nil
}

func closeInto(f *os.File, err *error, what string) {
	if cerr := f.Close(); cerr != nil && *err == nil {
		*err = fmt.Errorf("%s: %w", what, cerr)
	}
}
