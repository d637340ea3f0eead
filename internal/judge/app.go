package judge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/pipeline"
	"github.com/qapipe/qapipe/pkg/record"
)

// Run is the qa-judge command. args includes the program name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	app := command.NewApp("qa-judge", "grade predictions with the benchmarks' judge protocols", description, stdin, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		cfg, err := parseConfig(c.Context, c)
		if err != nil {
			return err
		}
		if cfg.cache != nil {
			defer cfg.cache.Close()
		}
		defer cfg.look.Close()
		err = run(c.Context, cfg, stdin, stdout, stderr)
		if cfg.cache != nil {
			for _, w := range cfg.cache.Warnings() {
				fmt.Fprintf(stderr, "qa-judge: warning: %s\n", w)
			}
		}
		return err
	}
	app.Commands = []*cli.Command{agreeCommand(stdin, stdout, stderr)}
	// urfave/cli's own usage line for an app with a subcommand, "qa-judge [global options] command
	// [command options] [FILE ...]", would have a command in every run: judging takes none.
	app.UsageText = "qa-judge [global options] [FILE ...]\nqa-judge agree [command options] [FILE ...]"
	for _, sub := range app.Commands {
		// urfave/cli gives a subcommand its own usage-error handling, which prints the help to
		// stdout and exits 1: take the app's (a UsageError, exit 2, printed once on stderr).
		sub.OnUsageError = app.OnUsageError
		sub.HideHelpCommand = true // "qa-judge agree help" reads a file named help, as the app does
	}
	return command.Execute(ctx, app, args)
}

func run(ctx context.Context, cfg *config, stdin io.Reader, stdout, stderr io.Writer) error {
	src := &command.Source{Args: cfg.inputs, Stdin: stdin, Stderr: stderr, Prog: "qa-judge", Strict: cfg.strict, MaxLine: cfg.maxLine}
	if cfg.dryRun {
		return cfg.dryRunAll(ctx, src, stdout, stderr)
	}
	if (!cfg.judge.NeedsModel() || cfg.judge.Model == "") && command.FilesOnly(cfg.inputs, stdin) {
		// Rules alone judge (a record routed to an LLM protocol fails for want of a model), and no
		// stage before has records left to pass on: a first signal stops the run, rather than
		// letting it judge every record left in its files (see interrupt.NoCalls).
		interrupt.NoCalls(ctx, "qa-judge")
	}
	out := record.NewWriter(stdout)
	defer out.FlushWhenIdle()() // each record comes out soon after it is done, not 64 kB at a time
	var t tally
	progress := command.NewRecordProgress(stderr, stdout, "qa-judge", cfg.inputs, cfg.progress, t.short)
	opts := pipeline.Options{Concurrency: cfg.concurrency, Finished: progress.Finished()}
	var finished atomic.Int64 // records judged or passed, written or not
	work := func(ctx context.Context, rec *record.Record) (*record.Record, error) {
		if err := cfg.judgeOne(ctx, rec, &t); err != nil {
			return nil, err
		}
		finished.Add(1)
		return rec, nil
	}
	fails := cfg.failures()
	written := 0
	sink := func(rec *record.Record) error {
		written++
		fails.Wrote(rec)
		return out.Write(rec)
	}
	read, each := 0, cfg.source(src, fails)
	counted := func(yield func(*record.Record) error) error {
		return each(func(rec *record.Record) error {
			read++
			return yield(rec)
		})
	}
	err := pipeline.Map(ctx, opts, counted, work, sink)
	err = command.Interruption(err, written, int(finished.Load()))
	t.abandoned = command.Abandoned(err, read, int(finished.Load())) // the summary counts the records read, not only finished
	if ferr := out.Flush(); ferr != nil && err == nil {
		err = ferr // "write /dev/stdout: …", as when a write before the end fails
	}
	progress.Finish()
	fails.End(stderr)
	if err != nil && !errors.Is(err, context.Canceled) && finished.Load() == 0 {
		return err // before any record: a summary of none would read as the run's result
	}
	cfg.report(stderr, &t, err == nil)
	if err != nil {
		return err
	}
	return badRecords(int(t.unparsable.Load()+t.failed.Load()+t.carried.Load()), "judgment failed", "judgments failed", src)
}

// failures is the run's account of the records whose judgment under the name failed.
func (cfg *config) failures() *command.Failures {
	return &command.Failures{Prog: "qa-judge", Of: func(rec *record.Record) (any, string) {
		if jg := rec.Judgments[cfg.name]; jg != nil && jg.Error != "" {
			return jg, jg.Error
		}
		return nil, ""
	}, NotMade: callNotMade}
}

// report writes the end of a run to stderr: its warnings and what was judged and spent (t).
// Those about the routes and the model unused need every record seen, and only a complete run
// (one that ended without an error) writes them.
func (cfg *config) report(stderr io.Writer, t *tally, complete bool) {
	if complete {
		cfg.warnRoutes(stderr) // an interrupted run has not seen every record
		cfg.warnModelUnused(stderr, t.routed.Load(), t.ruled.Load())
	}
	// Interrupted or not, say what was judged and spent, as qa-predict does.
	if w := cfg.budget.Warning(); w != "" {
		fmt.Fprintf(stderr, "qa-judge: %s\n", w)
	}
	if w := cfg.transport.StopWarning("rerun on the output with --retry-errors"); w != "" {
		fmt.Fprintf(stderr, "qa-judge: %s\n", w)
	}
	if n := cfg.judge.NoUsage.Load(); n > 0 {
		fmt.Fprintf(stderr, "qa-judge: warning: %s replies without token usage from the server: %s usage and cost_usd are left empty (unknown, not free), and the totals leave %s out\n",
			english.Count(int(n), "judgment had", "judgments had"), english.Form(int(n), "its", "their"), english.Form(int(n), "it", "them"))
	}
	warnReplaced(stderr, cfg.bare, cfg.name, t.replaced.Load(), false)
	t.others.warn(stderr, cfg.name, false)
	t.mu.Lock()
	t.cachedCost.Add(cfg.judge.CachedPart()) // the cache's replies in judgments it did not serve whole
	t.mu.Unlock()
	summarize(stderr, cfg.name, t, cfg.judge.NoUsage.Load())
}

// badRecords is the exit status of a run that got to the end with n records failed (said as
// one or many, "judgment failed") and src's bad input lines: both make it 3, and the message
// counts both, as each was reported on its own line above. It points to the error fields in
// agree's words: "(see its error field)", "(see their error fields)".
func badRecords(n int, one, many string, src *command.Source) error {
	return command.BadRecords(src.Bad, command.Count{N: n, Singular: one + " (see its error field)", Plural: many + " (see their error fields)"})
}

// passes reports whether rec goes through unjudged: it is judged under the name already, and
// neither --force nor, for a failed judgment, --retry-errors asks for another; failed says
// whether that judgment failed. A null judgment is none, as a null prediction is to qa-predict,
// and so is one with neither a score nor an error ({} or a label alone): it holds no verdict,
// which qa-score, qa-learncurve and agree read as no judgment, and passed through it would be
// counted neither judged nor failed. One with a raw reply and no score, as EvaLearn's own results
// hold its judge's verdicts (qa-load --format evalearn-results), is judged: qa-learncurve reads
// the reply by EvaLearn's rule, and judged again without --force it would be replaced.
func (cfg *config) passes(rec *record.Record) (pass, failed bool) {
	jg := rec.Judgments[cfg.name]
	if jg == nil || jg.Score == nil && jg.Error == "" && strings.TrimSpace(jg.Raw) == "" || cfg.force {
		return false, false
	}
	failed = jg.Error != ""
	return !failed || !cfg.retryErrors, failed
}

// source is src's records for the pipeline. The first record's prediction made by the judge
// model stops the run with a usage error before any call (the mistake is the command's); one
// found later, after calls were made, is a failed judgment of its record (judgeOne).
func (cfg *config) source(src *command.Source, fails *command.Failures) pipeline.Source[*record.Record] {
	return func(yield func(*record.Record) error) error {
		first := true
		return src.Each(func(rec *record.Record) error {
			fails.Read(rec, src.At(rec.ID, nil))
			cfg.noteRoute(rec)
			if first {
				first = false
				if pass, _ := cfg.passes(rec); !pass {
					if jg := cfg.selfJudging(rec); jg != nil {
						return &command.UsageError{Err: src.At(rec.ID, errors.New(jg.Error))}
					}
				}
			}
			return yield(rec)
		})
	}
}

// noteRoute counts the --route key that routes rec (in the reading goroutine only).
func (cfg *config) noteRoute(rec *record.Record) {
	if cfg.routes != nil {
		cfg.routes.note(rec)
	}
}

// warnRoutes warns of the --route keys that routed no record.
func (cfg *config) warnRoutes(stderr io.Writer) {
	if cfg.routes == nil {
		return
	}
	if w := cfg.routes.warning(); w != "" {
		fmt.Fprintf(stderr, "qa-judge: %s\n", w)
	}
}

// selfJudging returns the failed judgment of rec when judging it would call the model that made
// its prediction (named by the judge's provider, or by none) without --allow-self-judge; else nil.
// A record a rule decides, or whose prediction failed, calls no model and is judged. It looks at
// the judge model given, not at the client, so that a dry run (which builds none) refuses alike.
func (cfg *config) selfJudging(rec *record.Record) *record.Judgment {
	j, pred := cfg.judge, rec.Prediction
	if cfg.allowSelfJudge || j.Model == "" || unjudgeable(rec) != "" || pred.Model == "" ||
		pred.Provider != "" && pred.Provider != j.Provider {
		return nil
	}
	p, err := j.Plan(rec)
	if err != nil || p.Skip || p.Rule != nil {
		return nil
	}
	called := cmp.Or(p.Model, j.Model)
	if pred.Model != j.Model && pred.Model != called {
		return nil
	}
	return &record.Judgment{Mode: p.Mode, PromptSHA256: p.PromptSHA256, Model: called,
		Error: selfJudgingError(pred, j.Provider, j.Model, called, p.Mode)}
}

// selfJudgingError says that a prediction was made by the judge model, naming the model as the
// record does and as the judge was given (and, when a protocol's alias changes it, as called).
func selfJudgingError(pred *record.Prediction, provider, judgeModel, called, mode string) string {
	by := "prediction.model " + pred.Model
	if pred.Provider != "" {
		by = "prediction.provider/model " + pred.Provider + "/" + pred.Model
	}
	judge := "--provider " + provider + " --model " + judgeModel
	if called != judgeModel {
		judge += ", called as " + called + " by " + mode
	}
	return fmt.Sprintf("self-judging refused: %s is the judge model (%s); use another judge model, or --allow-self-judge to judge it anyway", by, judge)
}

// judgeOne fills rec.Judgments[name]. It returns an error only when ctx is done.
func (cfg *config) judgeOne(ctx context.Context, rec *record.Record, t *tally) error {
	cfg.replaceFailedForModel(rec, t)
	if pass, failed := cfg.passes(rec); pass {
		t.already.Add(1)
		t.others.note(cfg.judge, rec, rec.Judgments[cfg.name])
		if failed {
			t.carried.Add(1)
		}
		return nil
	}
	jg := cfg.selfJudging(rec)
	refused := jg != nil
	if refused {
		t.selfJudged.Add(1)
	} else {
		var err error
		if jg, err = cfg.judge.Regrade(ctx, rec, rec.Judgments[cfg.name]); err != nil {
			return err
		}
	}
	if jg == nil {
		cfg.leaveUnjudged(rec, t)
		return nil
	}
	t.count(jg)
	if jg.Model != "" && unjudgeable(rec) == "" && !refused {
		t.golds.note(rec, jg.Mode)
	}
	if rec.Judgments == nil {
		rec.Judgments = map[string]*record.Judgment{}
	}
	if replaced := rec.Judgments[cfg.name] != nil; replaced || readFirst(rec, cfg.name) { // replaced, or now the one read
		dropJudgeScore(rec, t, cfg.name, !replaced)
	}
	rec.Judgments[cfg.name] = jg
	return nil
}

// leaveUnjudged counts rec as skipped, this run's mode judging it not, and removes the judgment
// under the name that another mode made, if any.
func (cfg *config) leaveUnjudged(rec *record.Record, t *tally) {
	t.skipped.Add(1)
	if rec.Judgments[cfg.name] != nil {
		// --force or --retry-errors over a judgment this run's mode leaves out (mem0's
		// category 5, a skip route): another mode made it, and kept under NAME it would be
		// read as this run's verdict. The record gets none, as it would judged afresh.
		delete(rec.Judgments, cfg.name)
		if len(rec.Judgments) == 0 {
			rec.Judgments = nil
		}
		dropJudgeScore(rec, t, cfg.name, false)
		t.unjudged.Add(1)
	}
}

// count counts jg, a judgment made by this run: how it ended (unparsable, failed and why, by
// rule), whether its route called the model, came from the cache or said neither, and what it
// cost.
func (t *tally) count(jg *record.Judgment) {
	switch {
	case jg.Error != "" && strings.HasPrefix(jg.Error, ErrUnparsable.Error()):
		t.unparsable.Add(1)
	case jg.Error != "":
		t.failed.Add(1)
		switch {
		case !callNotMade(jg.Error):
		case strings.HasSuffix(jg.Error, interrupt.ErrNotCalled.Error()):
			t.notCalled.Add(1)
		default:
			t.stopped.Count(jg.Error)
		}
	case jg.Model == "":
		t.rule.Add(1)
	}
	if jg.Model != "" { // its route calls the model (a failed prediction's judgment is named so too)
		t.routed.Add(1)
	}
	if ruleJudgment(jg) {
		t.ruled.Add(1)
	}
	if jg.Cached { // its replies came from the cache, parsable or not: no call was made
		t.cached.Add(1)
	}
	switch {
	case jg.Error != "":
	case readsYesNo(jg.Mode) && jg.Label == LabelNeither:
		t.neither.Add(1)
	case readsLabel(jg.Mode) && jg.Label != mem0Correct && jg.Label != mem0Wrong:
		t.offLabel(jg.Label)
	}
	t.judged.Add(1)
	t.spend(jg)
}

// readFirst reports whether name sorts before the names of every other judgment rec carries:
// qa-score without --judge reads judge_score from the first name in sorted order, so a
// judge_score it read before this run's judgment under name was read from another one, and would
// be left beside it, stale, by a later qa-score run that does not compute judge_score again.
func readFirst(rec *record.Record, name string) bool {
	for k, j := range rec.Judgments {
		if j != nil && k < name {
			return false
		}
	}
	return true
}

// dropJudgeScore removes rec's judge_score, which qa-score read from a judgment, perhaps name, the
// one this run replaces or removes, or another before name, new, sorted first; and the score error
// qa-score gave in its place (a score out of 0 to 1, say) when it may have read one of those:
// a later qa-score run that does not compute judge_score again would keep either beside the new
// judgment. Such an error names the judgment it read (record.Judgment.ScoreError): one naming
// another judgment the record keeps, with name not new and first, still holds, read by --judge or
// as the first name in sorted order, and stays.
func dropJudgeScore(rec *record.Record, t *tally, name string, newFirst bool) {
	_, scored := rec.Scores[judgeScore]
	msg, failed := rec.ScoreErrors[judgeScore]
	failed = failed && (newFirst || !namesOther(msg, name))
	if !scored && !failed {
		return
	}
	delete(rec.Scores, judgeScore)
	if len(rec.Scores) == 0 {
		rec.Scores = nil
	}
	if failed {
		delete(rec.ScoreErrors, judgeScore)
		if len(rec.ScoreErrors) == 0 {
			rec.ScoreErrors = nil
		}
	}
	t.stale.Add(1)
}

// namesOther reports whether msg, a judge_score error, names the judgment it read
// ("judgments.NAME.score: …") and that is not name. One that names none may have read any.
func namesOther(msg, name string) bool {
	read, ok := record.ScoreErrorJudgment(msg)
	return ok && read != name
}

// replaceFailedForModel removes from rec the judgment that a run without a model left under the
// default name MODE when it failed only for want of a model (ErrNoModel), as this run, with the
// default name and a model, judges the record under MODE/MODEL: left in place, that failure would
// be what qa-score reads (MODE sorts first), and neither --retry-errors nor --force, which look at
// MODE/MODEL, would repair it. A judgment MODE that a rule made, or that failed otherwise, stays.
// A failed judgment gave qa-score no judge_score, so none is removed with it.
func (cfg *config) replaceFailedForModel(rec *record.Record, t *tally) {
	if !cfg.replacesFailed(rec) {
		return
	}
	delete(rec.Judgments, cfg.bare)
	t.replaced.Add(1)
}

// replacesFailed reports whether this run removes rec's judgment MODE, failed for want of a model
// (replaceFailedForModel); a dry run counts those records by it, so that the two never disagree.
func (cfg *config) replacesFailed(rec *record.Record) bool {
	return cfg.bare != "" && failedForModel(rec.Judgments[cfg.bare])
}

// ruleJudgment reports whether jg was made, or failed, on a rule's route: a mode that calls no
// model (the approximate rules, MAGMA's category-5 rule), and no model named.
func ruleJudgment(jg *record.Judgment) bool {
	return jg.Model == "" && (jg.Mode == RulesMode || jg.Mode == ModeAdversarial || jg.Mode == ModeUnanswerable)
}

// judgeScore is the score qa-score computes from a record's judgments.
const judgeScore = "judge_score"
