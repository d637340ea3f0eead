package predict

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/pipeline"
	"github.com/qapipe/qapipe/pkg/record"
)

// run predicts the records of the inputs (or, with --dry-run, shows what predicting them would
// ask) and writes them in input order, then reports what was predicted and spent.
func (a *app) run(ctx context.Context, c *cli.Context) error {
	src := &command.Source{Args: c.Args().Slice(), Stdin: a.stdin, Stderr: a.stderr, Prog: "qa-predict", Strict: c.Bool("strict"), MaxLine: a.maxLine}
	if a.dryRun {
		return a.dryRunAll(ctx, src)
	}
	if a.provider == "extractive" && a.seq.judgeModel == "" && command.FilesOnly(src.Args, a.stdin) {
		// The baseline calls no model (nor, without --judge-model, does anything else), and no
		// stage before it has records left to pass on: a first signal stops the run, rather than
		// letting it answer every record left in its files (see interrupt.NoCalls).
		interrupt.NoCalls(ctx, "qa-predict")
	}
	out := record.NewWriter(a.stdout)
	defer out.FlushWhenIdle()() // each record comes out soon after it is done, not 64 kB at a time
	progress := command.NewRecordProgress(a.stderr, a.stdout, "qa-predict", c.Args().Slice(), c.Bool("progress"), a.tally.short)
	opts := pipeline.Options{Concurrency: a.concurrency, Finished: progress.Finished()}
	fails := &command.Failures{Prog: "qa-predict", Of: failureOf, NotMade: notMade}
	read := 0
	each := func(yield func(*record.Record) error) error {
		return src.Each(func(rec *record.Record) error {
			read++
			fails.Read(rec, src.At(rec.ID, nil))
			return yield(rec)
		})
	}
	written := 0
	err := a.mapRecords(ctx, opts, each, func(rec *record.Record) error { // sequences: batch.go, sequential.go
		written++
		fails.Wrote(rec)
		return out.Write(rec)
	})
	a.tally.mu.Lock()
	err = command.Interruption(err, written, a.tally.records)
	a.tally.abandoned = command.Abandoned(err, read, a.tally.records) // the summary counts the records read, not only finished
	a.tally.mu.Unlock()
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = ferr // "write /dev/stdout: …", as when a write before the end fails
	}
	progress.Finish()
	fails.End(a.stderr)
	if a.endsAlone(err) {
		return err
	}
	a.report()
	if err != nil {
		return err
	}
	// Named as every command names its own: the bad lines, then the records that failed.
	failed := command.Count{N: a.tally.errors + a.tally.carried + a.tally.verdicts, Singular: "record with a prediction error", Plural: "records with prediction errors"}
	if a.tally.verdicts > 0 || a.tally.carriedVerdicts > 0 { // a verdict error has no prediction.error
		failed.Singular, failed.Plural = "record with a prediction or verdict error", "records with prediction or verdict errors"
	}
	return command.BadRecords(src.Bad, failed)
}

// notMade reports whether msg, a record's error, is that of a call this run did not make: one the
// transport did not make, or a sequence's question not asked (command.Failures.NotMade).
func notMade(msg string) bool {
	return command.NotMade(msg) || sequenceNotAsked(msg)
}

// report writes the end of a run to stderr: its warnings, what was predicted and spent, and the
// prompts cut to fit.
func (a *app) report() {
	a.unused.warn(a.stderr)
	a.warnUnpriced()
	a.tally.warnOthers(a.stderr, false)
	a.tally.warnTextless(a.stderr, false)
	a.tally.warnReplies(a.stderr)
	if w := a.budget.Warning(); w != "" {
		fmt.Fprintf(a.stderr, "qa-predict: %s\n", w)
	}
	if w := a.transport.StopWarning("rerun on the output with --retry-errors"); w != "" {
		fmt.Fprintf(a.stderr, "qa-predict: %s\n", w)
	}
	if a.tally.stale > 0 {
		fmt.Fprintf(a.stderr, "qa-predict: warning: %s judgments, scores or score errors of the prediction now replaced; they were removed, as they do not grade the new one\n",
			english.Count(a.tally.stale, "record had", "records had"))
	}
	fmt.Fprintf(a.stderr, "qa-predict: %s\n", a.tally.line())
	a.prompts.reportCut(a.stderr)
}

// endsAlone reports whether err, a run's error, ends it with the error alone: a failure (an
// input that cannot be read, a bad line under --strict, a file that holds no records, output that
// cannot be written) before any record was read, where a summary before the error ("0 records: 0
// predicted ...") would read as the run's result, as qa-judge's and the dry run's do. A run that
// read records says what it predicted and spent before its error, and so does an interrupted one.
func (a *app) endsAlone(err error) bool {
	a.tally.mu.Lock()
	defer a.tally.mu.Unlock()
	return failedRun(err) && a.tally.records == 0
}

// failedRun reports whether err, a run's error, ends it as a failure, not an interruption.
func failedRun(err error) bool { return err != nil && !errors.Is(err, context.Canceled) }

// failureOf is what a record failed with in qa-predict (command.Failures.Of): its prediction's
// error, or the error of the EvaLearn judge's verdict on its answer, after "verdict: ", as the
// summary counts it ("verdict: judge call: openai j: …", "verdict: unparsable judge reply: …").
//
// Note: it was "judge: ", which the judgment's errors say already ("judge: judge call: …").
func failureOf(rec *record.Record) (any, string) {
	if p := rec.Prediction; p != nil && p.Error != "" {
		return p, p.Error
	}
	if jg := rec.Judgments[judgeKey]; rec.Sequence != nil && jg != nil && jg.Error != "" {
		return jg, "verdict: " + jg.Error
	}
	return nil, ""
}

func (a *app) warnUnpriced() {
	a.tally.mu.Lock()
	defer a.tally.mu.Unlock()
	models := make([]string, 0, len(a.tally.unpriced))
	for m := range a.tally.unpriced {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		fmt.Fprintf(a.stderr, "qa-predict: warning: no price for model %q: cost_usd left empty on %s (add it with --prices)\n", m, english.Count(a.tally.unpriced[m], "record", "records"))
	}
}
