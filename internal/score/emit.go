package score

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
)

// emitter is the ordered end of a run's stream: it takes the scored lines in input order, reports
// the bad ones, adds the others to the summary's accumulators and writes them and their
// mismatch entries. With embedding metrics it holds them in batches until their embedding scores
// are filled.
type emitter struct {
	ctx    context.Context
	cfg    *config
	sc     *scorer
	agg    *aggregator
	corpus *corpusAcc
	out    *record.Writer
	mm     *record.Writer // the mismatches, nil without --mismatches
	stderr io.Writer

	bad      int // bad lines
	mmScored int // the records --mismatch-metric scored (or counted 0), which --mismatches may list
	unread   unreadReplies
	lead     command.LeadingBad
	leadFile string
	pending  []result // the records waiting for their embeddings
	emitErr  error    // the error of writing, or of the first bad line under --strict
	// firstFailed is where the first record with a prediction or judge error is (FILE:LINE (id
	// "x")), which the run's closing count names.
	firstFailed string
}

// newEmitter makes the emitter of a run: its records go to stdout (nowhere with --summary -) and
// its mismatch entries to mismatches, if not nil.
func newEmitter(ctx context.Context, cfg *config, stdout, stderr io.Writer, mismatches *command.Replacement) *emitter {
	sc := newScorer(cfg.sel, cfg.judge)
	sc.missingAsZero = cfg.missingAsZero
	e := &emitter{ctx: ctx, cfg: cfg, sc: sc, stderr: stderr, lead: command.LeadingBad{W: stderr, Prog: "qa-score"},
		agg:    newAggregator(cfg.sel.names, cfg.errorsAsZero, cfg.keeping(), cfg.by),
		corpus: newCorpusAcc(cfg.corpus, cfg.by, cfg.keeping() == keepValues)}
	e.agg.byFrom = cfg.byFrom
	e.agg.judge, e.agg.judgeFlag = cfg.judge, cfg.judgeFlag
	e.agg.named, e.agg.grouped = cfg.sel.named, cfg.sel.grouped
	records := stdout
	if cfg.summary == "-" {
		records = io.Discard
	}
	e.out = record.NewWriter(records)
	if mismatches != nil {
		e.mm = record.NewWriter(mismatches)
	}
	return e
}

// streamAll streams the inputs through the workers to the emitter, with a progress bar when one
// is shown, and ends the stream (end). Its error is the first of reading, of a bad line under
// --strict, of writing, or the interrupt.
func (e *emitter) streamAll(stdin io.Reader, stdout io.Writer) error {
	cfg, stderr := e.cfg, e.stderr
	process := func(l line) result { return cfg.process(e.sc, l) }
	emit := e.one
	if cfg.embed != nil {
		emit = e.batch
	}
	var count io.Writer
	recordsOut := stdout // where the records go, which a bar must not break: none with --summary -
	if cfg.summary == "-" {
		recordsOut = nil
	}
	bar := command.ByteProgress(stderr, recordsOut, cfg.inputs)
	if bar != nil {
		count = bar
	}
	serr := stream(e.ctx, cfg.inputs, stdin, count, cfg.maxLine, cfg.jobs, process, emit)
	command.EndBar(stderr, bar)
	return e.end(serr)
}

// end writes the records still waiting for their embeddings, checks the last file's leading bad
// lines and flushes the records and the mismatches. It returns serr, the stream's error, or when
// that is nil the first error of these, or the interrupt.
func (e *emitter) end(serr error) error {
	// The records waiting for their embeddings are scored and written when the input ended, and
	// also when it failed part-way (a later file that cannot be read, a bad line under --strict),
	// as the records before them were: not when writing failed or the run was cancelled.
	if len(e.pending) > 0 && e.emitErr == nil && e.ctx.Err() == nil {
		if err := e.flush(); serr == nil {
			serr = err
		}
	}
	if serr == nil {
		serr = e.lead.End(e.leadFile)
	} else {
		e.lead.Flush() // the messages held for the lines before the failure
	}
	if serr == nil {
		// Asked to finish (the first signal), the run still read, scored and wrote every
		// record, but the embedding calls not yet made were refused (their records are left
		// without embedding scores, reported as after a failed call): it ends interrupted.
		serr = interrupt.Err(e.ctx)
	}
	if err := e.out.Flush(); err != nil && serr == nil {
		serr = err // "write /dev/stdout: …", as when a write before the end fails
	}
	if e.mm != nil {
		if err := e.mm.Flush(); err != nil && serr == nil {
			serr = fmt.Errorf("--mismatches: %w", err)
		}
	}
	return serr
}

// one emits a result: it reports a bad line (returning it under --strict), or adds the record to
// the summary's accumulators and writes it and its mismatch entry.
func (e *emitter) one(r result) error {
	file := r.l.file
	if r.bad != nil {
		file = r.bad.File
	}
	if file != e.leadFile {
		if err := e.lead.End(e.leadFile); err != nil {
			return err // the file before this one had bad lines only
		}
		e.lead, e.leadFile = command.LeadingBad{W: e.stderr, Prog: "qa-score"}, file
	}
	if r.bad != nil {
		if e.cfg.strict {
			return r.bad
		}
		e.bad++
		return e.lead.Bad(file, r.bad, r.l.data)
	}
	e.lead.Good()
	if r.o.judgeRange != "" {
		fmt.Fprintf(e.stderr, "qa-score: %v\n", &record.Error{File: r.l.file, Line: r.l.no, ID: r.rec.ID, Err: errors.New(r.o.judgeRange)})
	}
	for _, p := range r.o.corpus.problems {
		fmt.Fprintf(e.stderr, "qa-score: %v\n", &record.Error{File: r.l.file, Line: r.l.no, ID: r.rec.ID, Err: errors.New(p.msg)})
	}
	e.agg.add(r.o)
	e.agg.addID(r.rec.ID, r.l.file, r.l.no)
	if r.o.failed && e.firstFailed == "" {
		e.firstFailed = (&record.Error{File: r.l.file, Line: r.l.no, ID: r.rec.ID}).Place()
	}
	e.unread.add(r.l.file, r.l.no, r.rec.ID, r.o.unread)
	e.corpus.add(r.o.typ, r.o.by, r.o.corpus)
	if m := e.cfg.mismatch; m != nil && m.applies(r.o) {
		e.mmScored++
	}
	if r.mismatch != nil {
		e.mm.WriteRaw(r.mismatch) //nolint:errcheck // kept and returned by Flush
	}
	err := e.out.WriteRaw(r.out)
	putBuf(r.out)
	return err
}

// batch emits a result with embedding metrics: it holds it, and fills, finishes and emits the
// held results once there are --embed-batch of them.
func (e *emitter) batch(r result) error {
	if e.pending = append(e.pending, r); len(e.pending) >= e.cfg.embed.batch {
		e.emitErr = e.flush()
		return e.emitErr
	}
	return nil
}

// flush fills the embedding scores of the held results with one call, and finishes and emits
// them.
func (e *emitter) flush() error {
	msgs := e.cfg.embed.fill(e.ctx, e.pending)
	if len(msgs) > 0 && e.ctx.Err() != nil {
		// Abandoned (a second signal) with the batch's calls cut: its records are
		// unfinished, not failed, so neither they nor any after them are written.
		return e.ctx.Err()
	}
	for _, m := range msgs {
		fmt.Fprintf(e.stderr, "qa-score: %s\n", m)
	}
	for _, r := range e.pending {
		if r.bad == nil {
			r = e.cfg.finish(e.sc, r)
		}
		if err := e.one(r); err != nil {
			return err
		}
	}
	e.pending = e.pending[:0]
	return nil
}

// warnEnd reports the embedding calls to stderr and, without a summary (whose warnings say them
// otherwise), the run's warnings. It returns the warnings about the judge names and the unread
// EvaLearn replies, for the summary.
func (e *emitter) warnEnd() (judges, replies string) {
	cfg, stderr := e.cfg, e.stderr
	if cfg.embed != nil {
		fmt.Fprintf(stderr, "qa-score: %s\n", cfg.embed.stats())
		if w := cfg.embed.stopWarning(); w != "" {
			fmt.Fprintf(stderr, "qa-score: %s\n", w)
		}
	}
	if cfg.summary == "" && e.agg.unscored > 0 { // the summary's warnings say it otherwise
		fmt.Fprintf(stderr, "qa-score: warning: %s\n", unscoredWarning(e.agg.unscored, e.agg.records, e.agg.unpredicted, e.agg.unjudged, e.agg.unjudgedBare, e.agg.zeroNote()))
	}
	if m := cfg.mismatch; m != nil && e.mmScored == 0 && e.agg.records > 0 {
		fmt.Fprintf(stderr, "qa-score: warning: --mismatch-metric %s: none of %s has a %s score, so --mismatches lists none\n",
			m.metric, english.Count(e.agg.records, "record", "records"), m.metric)
	}
	judges = e.sc.names.warning(cfg.judge, cfg.judgeFlag)
	if cfg.summary == "" && judges != "" {
		fmt.Fprintf(stderr, "qa-score: warning: %s\n", judges)
	}
	replies = e.unread.warning()
	if cfg.summary == "" && replies != "" {
		fmt.Fprintf(stderr, "qa-score: warning: %s\n", replies)
	}
	return judges, replies
}

// summarize computes the summary, with the judges and replies warnings, and writes it to its file
// f (stdout for -) and its warnings to stderr. It returns how many failed records the summary
// counts as 0 (--errors-as-zero).
func (e *emitter) summarize(f *command.Replacement, judges, replies string, stdout io.Writer) (zeroed int, err error) {
	cfg := e.cfg
	// The intervals' resamples can take minutes: a signal meanwhile stops the run, the summary
	// not written.
	s, err := command.Compute(e.ctx, func() *Summary { return e.agg.summarize(cfg.reps, cfg.seed, cfg.level, e.bad, e.corpus) })
	if err != nil {
		return 0, err
	}
	if s.ErrorsAsZero {
		zeroed = s.Errors - s.failedUnscored
	}
	if e.sc.judged {
		s.Judgments = e.sc.names.read(cfg.judge)
	}
	if judges != "" {
		s.Warnings = append(s.Warnings, judges)
	}
	if replies != "" {
		s.Warnings = append(s.Warnings, replies)
	}
	return zeroed, cfg.writeSummary(s, f, stdout, e.stderr)
}
