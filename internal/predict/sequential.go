package predict

// Sequential solving (EvaLearn): records that carry a sequence are answered position by position,
// each answer judged at once by EvaLearn's rubric judge, and the answers and verdicts of the earlier
// positions are shown to the model as its history.
//
// The unit of work is a batch: one record without a sequence, or all the contiguous records of one
// sequence (or, with --batch-size, of one block of a LoCoMo conversation: locomo.go). Batches go through the same ordered, bounded pipeline.Map as plain records, so different
// sequences are solved concurrently (--concurrency) while the positions of one sequence are strictly
// in order, and records come out in input order.
//
// Note: a record's sequence is solved only once the whole sequence has been read (its records are
// buffered until a record of another sequence, or the end of the input, arrives), because the
// pipeline cannot know before that whether a later line still belongs to it. An input that fails
// part-way (a later file that cannot be read, a bad line under --strict) ends the sequence being
// read: its positions read so far are solved and written before the run stops, as every record
// read before the failure is. qa-load emits a sequence's records together. Memory holds at most
// --concurrency sequences being solved or awaiting their turn to be written, plus the one being
// read. A run asked to finish (a first signal) makes no new call: every sequence is written, its
// positions after the call in flight with an error. A cancelled run (a second signal) writes only
// whole sequences. With the cache, a rerun replays what the interrupted one was told. A sequence
// id that reappears after other records is not merged (that would need the whole input in memory):
// its later records still to answer get a prediction error (those answered pass through). Finding
// it holds a 64-bit hash of each sequence and LoCoMo batch read, up to maxClosed of them (16 MB),
// so that memory stops growing with the input; past them, a sequence that reappears is found only
// if it was among the first maxClosed.

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/judge"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/pipeline"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// EvaLearn's student request parameters (Evaluate/evaluate.py, protocols/evalearn/protocol.json),
// used unless --temperature or --max-tokens is given.
const (
	evaLearnTemperature = 0.2
	evaLearnMaxTokens   = 32000
	// judgeKey is the judgments member the sequential path writes.
	judgeKey = judge.ModeEvaLearn
)

const sequentialHelp = `

Records that carry a sequence (qa-load --format evalearn) are solved as EvaLearn does: the positions
of a sequence strictly in order, each answer judged at once by EvaLearn's rubric judge
(--judge-provider, --judge-model; its reply parsed by EvaLearn's rule, re-asked --judge-parse-retries
times when unparsable; temperature 0.2, which OpenAI's o1 and o4-mini and Claude models after Opus
4.6 refuse: --judge-temperature 1 for them), and every earlier problem, answer, rubric and verdict
shown to the model as its history, with EvaLearn's system prompt for the sequence's type
(meta.sequence_type, which qa-load sets when a problem's type is another; else the record type: one
that is not a string fails the position). Temperature 0.2 and max_tokens 32000 are EvaLearn's
unless --temperature or --max-tokens is given, and --top-p and --top-k, which it sends none of, are
sent when given; --system and --template do not apply.
Different sequences run concurrently. A sequence's records must be contiguous in the input (as
qa-load writes them); a sequence id that reappears later makes those of its records still to answer
errors (those answered before pass through). A sequence
without some of its earlier positions (qa-load's --shard, --sample, --types and --limit pick
records, not sequences) is answered without them in its history, with a warning. An empty or
failed answer is an error on its record and the later positions of its sequence are skipped (errors,
never a silent 0), as are those after a verdict the judge could not give. Each record gets
judgments.evalearn. With --cache, a rerun after a crash replays the stored answers and verdicts, so
each sequence resumes where it stopped with the same history and no call is repeated. Interrupted
once, a sequence stops at its call in flight: an answer whose verdict is then not asked keeps its
text with the error "interrupted before its verdict was asked", the positions after it are
"skipped: interrupted", and --retry-errors over the output, with the cache, goes on from there. A
record passed through with a failed verdict still counts as an error; --retry-errors solves it
again (the verdict asked as new samples, not read back from the cache) and the positions after it,
as its dry run shows.`

// sequentialFlags are the flags of the judge used for sequences.
func sequentialFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "judge-provider", Usage: "provider `NAME` of the EvaLearn judge (default: --provider)", EnvVars: []string{"QA_PREDICT_JUDGE_PROVIDER"}},
		&cli.StringFlag{Name: "judge-model", Usage: "EvaLearn judge model `NAME` (needed for records with a sequence)", EnvVars: []string{"QA_PREDICT_JUDGE_MODEL"}},
		&cli.StringFlag{Name: "judge-base-url", Usage: "judge API base `URL` (default: --base-url when the providers agree)", EnvVars: []string{"QA_PREDICT_JUDGE_BASE_URL"}},
		&cli.StringFlag{Name: "judge-api-key-file", Usage: "read the judge's API key from `FILE` (default: --api-key-file when --judge-provider is --provider, else the judge provider's environment variable)", EnvVars: []string{"QA_PREDICT_JUDGE_API_KEY_FILE"}},
		&cli.IntFlag{Name: "judge-parse-retries", Usage: "times an unparsable verdict is asked again", Value: 2, EnvVars: []string{"QA_PREDICT_JUDGE_PARSE_RETRIES"}},
		&cli.IntFlag{Name: "judge-num-ctx", DefaultText: "--num-ctx when the judge calls --provider's server", Usage: "ollama only: the EvaLearn judge model's context window in `TOKENS` (Ollama's num_ctx; 0: none sent, the server's)", EnvVars: []string{"QA_PREDICT_JUDGE_NUM_CTX"}},
		&cli.Float64Flag{Name: "judge-temperature", DefaultText: "EvaLearn's 0.2", Usage: "temperature of the EvaLearn judge's calls (`T`); not EvaLearn's, but the way to judge with OpenAI's o1 and o4-mini and Claude models after Opus 4.6, which take only 1", EnvVars: []string{"QA_PREDICT_JUDGE_TEMPERATURE"}},
	}
}

// sequencer holds what the sequential path needs beyond the plain one.
type sequencer struct {
	judge       *judge.Judge // nil when no --judge-model was given, or in a dry run
	judgeModel  string       // --judge-model
	temperature float64
	maxTokens   int

	mu        sync.Mutex
	tally     judgeTally
	gaps      gapTally // sequences read without some of their earlier positions
	noJudge   string   // the first record of a sequence left unanswered for want of --judge-model
	noJudgeAt int      // the index of its batch; the one first in the input is named
}

// gapTally counts the sequences whose positions are not 1, 2, … without a gap: their later
// answers are asked without the missing positions in their history, which EvaLearn never does.
type gapTally struct {
	n       int
	first   string // the first such sequence in the input, with its positions
	firstAt int    // the index of its batch
}

// checkWhole counts b when it is a sequence that lacks an earlier position and asks is true for
// one of its records: one that is answered (a sequence whose records all pass through, as over a
// sample of a saved run, asks nothing without its history).
func (s *sequencer) checkWhole(b *batch, asks func(*record.Record) bool) {
	if b.seq == "" || b.reappeared || !slices.ContainsFunc(b.recs, asks) {
		return
	}
	pos := make([]int, len(b.recs))
	for i, rec := range b.recs {
		pos[i] = rec.Sequence.Position
	}
	slices.Sort(pos)
	pos = slices.Compact(pos) // a repeated position is an error of its own
	if pos[0] == 1 && pos[len(pos)-1] == len(pos) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gaps.n++; s.gaps.first == "" || b.index < s.gaps.firstAt {
		s.gaps.firstAt = b.index
		list := make([]string, len(pos))
		for i, p := range pos {
			list[i] = strconv.Itoa(p)
		}
		s.gaps.first = fmt.Sprintf("sequence %s has %s %s", b.seq, english.Form(len(list), "position", "positions"), strings.Join(list, ", "))
	}
}

// warnGaps prints the warning for the sequences checkWhole counted.
func (s *sequencer) warnGaps(a *app) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.noJudge != "" {
		fmt.Fprintf(a.stderr, "qa-predict: --judge-model is required for records with a sequence (%s, …): they were written unanswered, with that error; rerun with --judge-model and --retry-errors\n", s.noJudge)
	}
	if s.gaps.n == 0 {
		return
	}
	fmt.Fprintf(a.stderr, "qa-predict: warning: %s earlier positions (%s): %s answers are asked without those in their history, unlike EvaLearn's runs; qa-load's --shard, --sample, --types and --limit select records, not whole sequences\n",
		english.Count(s.gaps.n, "sequence lacks", "sequences lack"), s.gaps.first, english.Form(s.gaps.n, "its", "their"))
}

// judgeTally counts the judge's verdicts for the summary line.
type judgeTally struct {
	verdicts, cached, errors int
	unpriced                 int // verdicts with usage but no known price
	usage                    record.Usage
	cost                     float64
	cachedCost               float64 // the part of cost the cache served
}

// configureSequences reads the judge flags and builds the judge client (sharing the retrying
// transport and the cache).
func (a *app) configureSequences(c *cli.Context) error {
	a.configureSequenceParams(c)
	s := &a.seq
	name := c.String("judge-model")
	if name == "" {
		return nil
	}
	provider, err := a.judgeProvider(c)
	if err != nil {
		return err
	}
	baseURL := a.judgeBaseURL(c, provider)
	client, err := a.judgeClient(c, provider, baseURL)
	if err != nil {
		return err
	}
	s.judge = &judge.Judge{Client: client, Provider: provider, BaseURL: baseURL, Model: name, Mode: judge.ModeEvaLearn,
		ParseRetries: c.Int("judge-parse-retries"), Prices: a.prices, Temperature: a.judgeTemperature, NumCtx: a.judgeNumCtx}
	return nil
}

// configureJudgeTemperature reads --judge-temperature (a.judgeTemperature; nil leaves EvaLearn's
// judge its own), refused as the provider would refuse it, before a dry run too, and warned of
// when langchaingo sends the judge's model no temperature. Without --judge-model it is not read.
func (a *app) configureJudgeTemperature(c *cli.Context) error {
	name := c.String("judge-model")
	if name == "" || !c.IsSet("judge-temperature") {
		return nil
	}
	provider, err := a.judgeProvider(c)
	if err != nil {
		return err
	}
	hi, ok := model.MaxTemperature(provider, a.judgeBaseURL(c, provider))
	t, err := command.Temperature(c, "judge-temperature", hi, ok, provider)
	if err != nil {
		return err
	}
	a.judgeTemperature = &t
	if w := model.UnsentTemperature("--judge-temperature", t, command.FromEnv(c, "judge-temperature"), provider, name); w != "" {
		fmt.Fprintf(a.stderr, "qa-predict: warning: %s\n", w)
	}
	return nil
}

// configureJudgeNumCtx reads --judge-num-ctx (a.judgeNumCtx), refused for a judge provider other
// than ollama, before a dry run too; unset, the judge gets --num-ctx when it calls the reader's
// server (its provider, at --base-url), whose model it may well be. Without --judge-model only its
// value is checked, as --num-ctx's always is: a negative window is a usage error either way.
func (a *app) configureJudgeNumCtx(c *cli.Context) error {
	if c.String("judge-model") == "" {
		_, err := command.IntBetween(c, "judge-num-ctx", 0, math.MaxInt32, "tokens")
		return err
	}
	provider, err := a.judgeProvider(c)
	if err != nil {
		return err
	}
	if !c.IsSet("judge-num-ctx") {
		if provider == a.provider && a.judgeBaseURL(c, provider) == a.baseURL {
			a.judgeNumCtx = a.numCtx
		}
		return nil
	}
	a.judgeNumCtx, err = command.NumCtx(c, "judge-num-ctx", provider)
	return err
}

// judgeBaseURL is the EvaLearn judge's server: --judge-base-url, else --base-url when the judge
// has the reader's provider.
func (a *app) judgeBaseURL(c *cli.Context, provider string) string {
	if !c.IsSet("judge-base-url") && provider == a.provider {
		return a.baseURL
	}
	return c.String("judge-base-url")
}

// judgeProvider is the EvaLearn judge's provider: --judge-provider, else --provider. A
// --judge-provider no judge can call is a usage error whether or not a record needs the judge;
// --provider's extractive, which calls no model, is one only when --judge-model asks for a judge.
func (a *app) judgeProvider(c *cli.Context) (string, error) {
	p := c.String("judge-provider")
	if p == "" {
		if a.provider == "extractive" && c.String("judge-model") != "" {
			return "", command.Usagef("--judge-model: the judge's provider is --provider's, extractive, which calls no model: give --judge-provider (one of %s)", strings.Join(judgeProviders(), ", "))
		}
		return a.provider, nil
	}
	if !slices.Contains(judgeProviders(), p) {
		return "", command.Usagef("--judge-provider: %q is no provider a judge can call (want one of %s)%s", p, strings.Join(judgeProviders(), ", "),
			model.ProviderHint(p, judgeProviders(), "--judge-base-url"))
	}
	return p, nil
}

// judgeHintNames are the flags a failed judge call's hint names: --judge-provider when given, and
// --judge-api-key-file, unless the judge has the reader's provider (sameProvider) and its key came
// from --api-key-file or the reader's variables, as when --judge-api-key-file is not given. A key
// file named by a variable (QA_PREDICT_JUDGE_API_KEY_FILE, QA_API_KEY_FILE) is named by it.
func judgeHintNames(c *cli.Context, sameProvider bool) model.HintNames {
	var names model.HintNames
	if c.String("judge-provider") != "" {
		names.ProviderFlag = "--judge-provider"
	}
	switch {
	case c.String("judge-api-key-file") != "":
		names.KeyFileFlag = command.Origin(c, "judge-api-key-file")
	case !sameProvider:
		names.KeyFileFlag = "--judge-api-key-file"
	default:
		names.KeyFileFlag = command.Origin(c, "api-key-file")
	}
	return names
}

// judgeProviders lists the providers a judge can call: all but the extractive baseline.
func judgeProviders() []string {
	return slices.DeleteFunc(slices.Clone(model.Providers), func(p string) bool { return p == "extractive" })
}

// configureSequenceParams sets the student request's temperature and max_tokens, EvaLearn's unless
// --temperature or --max-tokens is given, and notes the --judge-model name (a dry run builds no
// judge).
func (a *app) configureSequenceParams(c *cli.Context) {
	s := &a.seq
	s.temperature, s.maxTokens, s.judgeModel = evaLearnTemperature, evaLearnMaxTokens, c.String("judge-model")
	if c.IsSet("temperature") {
		s.temperature = a.temperature
	}
	if c.IsSet("max-tokens") {
		s.maxTokens = a.maxTokens
	}
}

// judgeClient builds the judge's client: its key from --judge-api-key-file, else (same provider)
// --api-key-file, else the provider's environment variables; qa-predict's retrying transport; the cache.
func (a *app) judgeClient(c *cli.Context, provider, baseURL string) (model.Client, error) {
	var key string
	var err error
	switch f := c.String("judge-api-key-file"); {
	case f != "":
		if key, err = model.APIKey(provider, f, os.Getenv); err != nil {
			return nil, command.Usagef("--judge-api-key-file: %v", err)
		}
	case provider == a.provider:
		key, err = apiKey(provider, c.String("api-key-file"))
	default:
		key, err = apiKey(provider, "")
	}
	if err != nil {
		return nil, err
	}
	if key == "" && !model.KeyOptional(provider, baseURL) {
		return nil, command.Usagef("no API key for the judge (%s): set %s or use --judge-api-key-file", provider, strings.Join(model.KeyEnv[provider], " or "))
	}
	js := a.setup(c, provider, baseURL, key)
	js.Names = judgeHintNames(c, provider == a.provider)
	// The reader's transport and --tpm limiter (nil, with the extractive baseline: new ones), so
	// that --rpm and --tpm bound the run's calls, the judge's included, as --max-cost does.
	js.Transport, js.Tokens = a.transport, a.tokens
	client, err := js.Client(c.Context)
	if err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	if a.budget != nil { // the judge model is priced (unpriced)
		client = a.budget.Wrap(client) // one budget for the reader and its judge
	}
	if a.store != nil {
		client = a.store.Wrap(client)
	}
	if a.strip {
		client = model.Thinking{Next: client}
	}
	return client, nil
}

// batch is one unit of work: a record alone, the contiguous records of a sequence, or the
// contiguous records of one LoCoMo batch (locomo.go).
type batch struct {
	recs  []*record.Record
	seq   string // the sequence, "" for none
	block string // the LoCoMo batch (locomoBlock), "" for none
	// reappeared marks records of a sequence or LoCoMo batch that was already closed earlier in
	// the input.
	reappeared bool
	// index is the place of the batch's first record in the input (1, 2, …): batches are solved
	// concurrently, and a message that names the first of several names the first in the input,
	// run after run.
	index int
}

// maxClosed bounds the sequences and LoCoMo batches whose ids batches holds to find one that
// reappears.
const maxClosed = 1 << 20

// batches groups the records of src into batches (see the file comment for the rule; a LoCoMo
// batch, named by blockOf, groups as a sequence does). blockOf is nil when LoCoMo's records are
// asked one at a time. A sequence or LoCoMo batch that reappears is found among the first held
// (maxClosed in a run) that were read. When src fails (an input that cannot be read, a bad line
// under --strict), the batch still open is yielded as it stands before the error is returned: its
// records were read, and are predicted and written as every record read before the failure is.
// When yield fails (the run was cancelled, or its output failed), nothing more is yielded.
//
// Note: a map of the closed sequences' and batches' keys took some 56 bytes a LoCoMo batch, 10 MB
// more over a million LoCoMo questions asked 10 a call; the hashes take 8 to 16 bytes, up to the
// bound.
func batches(src pipeline.Source[*record.Record], blockOf func(*record.Record) string, held int) pipeline.Source[*batch] {
	return func(yield func(*batch) error) error {
		// Every key is taken in as its batch opens: one that was, and is not the open batch's
		// (whose records join it), was closed.
		opened := repeat.IDs{Max: held}
		var open *batch
		stopped := false // yield failed: the consumer takes no more batches
		key := func(b *batch) string {
			if b.seq != "" {
				return "sequence " + b.seq
			}
			return "block " + b.block
		}
		flush := func() error {
			if open == nil {
				return nil
			}
			b := open
			open = nil
			err := yield(b)
			stopped = err != nil
			return err
		}
		n := 0
		err := src(func(rec *record.Record) error {
			n++
			b := &batch{recs: []*record.Record{rec}, index: n}
			switch {
			case rec.Sequence != nil:
				b.seq = rec.Sequence.ID
			case blockOf != nil:
				b.block = blockOf(rec)
			}
			if open != nil && (b.seq != "" && b.seq == open.seq || b.block != "" && b.block == open.block) {
				open.recs = append(open.recs, rec)
				return nil
			}
			if err := flush(); err != nil {
				return err
			}
			open = b
			if b.seq == "" && b.block == "" {
				return flush()
			}
			b.reappeared = opened.Add(key(b), "", 0)
			return nil
		})
		if err != nil && stopped {
			return err
		}
		if ferr := flush(); ferr != nil {
			return ferr
		}
		return err
	}
}

// mapRecords predicts the records of src (plain records one by one, sequences as wholes) and hands
// them to sink in input order. Finished in opts is called once per record.
func (a *app) mapRecords(ctx context.Context, opts pipeline.Options, src pipeline.Source[*record.Record], sink func(*record.Record) error) error {
	finished := opts.Finished
	opts.Finished = nil
	err := pipeline.Map(ctx, opts, batches(src, a.blockOf(), maxClosed), a.solve, func(b *batch) error {
		for _, rec := range b.recs {
			if err := sink(rec); err != nil {
				return err
			}
			if finished != nil {
				finished(nil)
			}
		}
		return nil
	})
	if !a.endsAlone(err) { // as the run's own summary line
		a.seq.summary(a)
		a.seq.warnGaps(a)
	}
	return err
}

// solve answers one batch.
func (a *app) solve(ctx context.Context, b *batch) (*batch, error) {
	a.seq.checkWhole(b, func(rec *record.Record) bool { return !a.passesSolved(rec) })
	switch {
	case b.block != "":
		return b, a.solveLoCoMo(ctx, b)
	case b.seq == "":
		_, err := a.predict(ctx, b.recs[0])
		return b, err
	case b.reappeared:
		// Only a position to answer needs the history, which its sequence's earlier records,
		// written already, cannot give here; one answered before passes through, as in place
		// (and as a LoCoMo block's), its paid answer and verdict kept.
		for _, rec := range b.recs {
			if a.passesSolved(rec) {
				a.keep(rec)
				continue
			}
			a.fail(rec, fmt.Sprintf("sequence %s reappears after records of other sequences: a sequence's records must be contiguous", b.seq))
		}
		return b, nil
	}
	return b, a.solveSequence(ctx, b)
}

// unjudged fails recs, the positions of batch b from the first that needs a call on, for want of
// --judge-model: an error on each record, not a usage error, as it is found only here, perhaps
// after other records were answered (and paid for), which must still be written.
func (a *app) unjudged(b *batch, recs []*record.Record) {
	for _, rec := range recs {
		a.fail(rec, "needs --judge-model: the answers of a sequence (EvaLearn) are judged as they come, each verdict part of the next question's history")
	}
	a.seq.mu.Lock()
	if a.seq.noJudge == "" || b.index < a.seq.noJudgeAt {
		a.seq.noJudge, a.seq.noJudgeAt = recs[0].ID, b.index
	}
	a.seq.mu.Unlock()
}

// keep passes rec, a position answered before, through: counted as passed, and still as an
// error when its verdict failed, for --retry-errors.
func (a *app) keep(rec *record.Record) {
	a.tally.add(rec.Prediction, true)
	if jg := rec.Judgments[judgeKey]; jg != nil && jg.Error != "" && rec.Prediction.Error == "" {
		a.tally.mu.Lock()
		a.tally.carried++
		a.tally.mu.Unlock()
	}
}

// carriesFailure reports whether rec, passed through, still counts as failed in the run (exit 3,
// and --retry-errors asks it again): its prediction failed, or, a position of a sequence
// (inSequence), its EvaLearn verdict did, as keep counts it.
func carriesFailure(rec *record.Record, inSequence bool) bool {
	if rec.Prediction != nil && rec.Prediction.Error != "" {
		return true
	}
	jg := rec.Judgments[judgeKey]
	return inSequence && jg != nil && jg.Error != ""
}

// fail records a prediction error on rec.
// The errors of the positions of a sequence that an interrupted run did not ask: an answer whose
// verdict was not asked, and the positions after a call not made.
const (
	verdictNotAsked    = "interrupted before its verdict was asked"
	skippedInterrupted = "skipped: interrupted"
)

// sequenceNotAsked reports whether msg is the error of a position whose answer or verdict an
// interrupted run did not ask (verdictNotAsked, skippedInterrupted): calls not made, as
// interrupt.ErrNotCalled's are, which the summary counts apart.
func sequenceNotAsked(msg string) bool { return msg == verdictNotAsked || msg == skippedInterrupted }

func (a *app) fail(rec *record.Record, msg string) {
	a.setPrediction(rec, &record.Prediction{Provider: a.provider, Model: a.modelName, Error: msg})
	a.tally.add(rec.Prediction, false)
}

// solveSequence answers the positions of one sequence in order, judging each answer, with the
// earlier answers and verdicts as history. Only an interruption is an error.
func (a *app) solveSequence(ctx context.Context, b *batch) error {
	order := slices.Clone(b.recs)
	slices.SortStableFunc(order, func(x, y *record.Record) int { return x.Sequence.Position - y.Sequence.Position })
	var history []prompt.EvaLearnRecord
	broken := ""     // why the rest of the sequence is skipped
	solving := false // a position was solved in this run: those after it were asked with another history
	for i, rec := range order {
		pos := rec.Sequence.Position
		dup := i > 0 && order[i-1].Sequence.Position == pos
		switch {
		case (broken != "" || dup) && !solving && a.passesSolved(rec):
			// Answered by an earlier run with the history it had then, which this run has not
			// changed: kept as it is, an error still an error (a repeated position, as in two
			// runs put together, too; the history holds the first). Only a position to ask needs
			// the history that a break leaves out, or that a repeat makes ambiguous.
			a.keep(rec)
			continue
		case broken != "":
			a.fail(rec, "skipped: "+broken)
			continue
		case dup:
			a.fail(rec, fmt.Sprintf("duplicate position %d in sequence %s", pos, b.seq))
			continue
		case !solving && a.passesSolved(rec):
			a.keep(rec)
			h, why := a.earlier(rec)
			if why != "" {
				broken = why
				continue
			}
			history = append(history, h)
			continue
		}
		if interrupt.Asked(ctx) { // finishing: no new position goes to the model
			a.fail(rec, interrupt.ErrNotCalled.Error())
			broken = "interrupted"
			continue
		}
		if a.seq.judge == nil {
			// The positions answered before pass through above, their paid answers and verdicts
			// kept; this one and those after it would be asked.
			a.unjudged(b, order[i:])
			return nil
		}
		solving = true
		prior := rec.Judgments[judgeKey] // an earlier run's verdict, which answering again removes
		p, err := a.answer(ctx, rec, history)
		if err != nil {
			return err
		}
		if p.Error != "" {
			a.tally.add(p, false)
			broken = fmt.Sprintf("position %d failed", pos)
			continue
		}
		jg, err := a.verdict(ctx, rec, prior)
		if err != nil {
			return err
		}
		if jg == nil {
			// The answer came, but the run is finishing, so its verdict is not asked: the answer
			// stays, as an error, for --retry-errors to answer again (from the cache, with --cache).
			p.Error = verdictNotAsked
			a.tally.add(p, false)
			broken = "interrupted"
			continue
		}
		a.tally.add(p, false)
		if rec.Judgments == nil {
			rec.Judgments = make(map[string]*record.Judgment)
		}
		rec.Judgments[judgeKey] = jg
		a.seq.count(jg, a)
		verdict := a.verdictText(jg)
		if verdict == "" {
			broken = fmt.Sprintf("position %d has no verdict", pos)
			continue
		}
		history = append(history, prompt.EvaLearnRecord{Position: pos, Turns: rec.Turns, Answer: p.Text,
			Rubric: rec.Rubric, Judgment: textnorm.Strip(verdict)})
	}
	return nil
}

// passesSolved is passes for a position of a sequence: one whose verdict failed is solved again
// under --retry-errors too, as its answer and verdict are one step of the sequence (an unparsable
// verdict stands in the history of the positions after it).
func (a *app) passesSolved(rec *record.Record) bool {
	if jg := rec.Judgments[judgeKey]; a.retryErrors && jg != nil && jg.Error != "" {
		return false
	}
	return a.passes(rec)
}

// earlier returns the history entry of a record that was solved before (passed through), or why
// it cannot be one.
func (a *app) earlier(rec *record.Record) (prompt.EvaLearnRecord, string) {
	pos := rec.Sequence.Position
	jg := rec.Judgments[judgeKey]
	verdict := ""
	if jg != nil {
		verdict = a.verdictText(jg)
	}
	switch {
	case rec.Prediction.Error != "":
		return prompt.EvaLearnRecord{}, fmt.Sprintf("position %d failed", pos)
	case verdict == "":
		return prompt.EvaLearnRecord{}, fmt.Sprintf("position %d has a prediction but no %s verdict (use --force)", pos, judgeKey)
	}
	return prompt.EvaLearnRecord{Position: pos, Turns: rec.Turns, Answer: textnorm.Strip(rec.Prediction.Text),
		Rubric: rec.Rubric, Judgment: textnorm.Strip(verdict)}, ""
}

// verdictText is the judge's reply as a sequence's history shows it: the reply as it came
// (judgment.raw), or under --think strip the text after its thinking (model.ReadThought), the
// text its verdict was read from, as EvaLearn's judge reply is its content without the thinking
// a server with a reasoning parser sends apart; "" when there is none (no reply, or one cut in
// its thinking).
func (a *app) verdictText(jg *record.Judgment) string {
	if th := model.ReadThought(jg.Raw); a.strip && th.Found {
		return th.Answer
	}
	return jg.Raw
}

// studentRequest is the request that asks the model for rec, a position of a sequence, after
// history: a run sends it, and a dry run shows it. It fails when rec's meta.sequence_type cannot
// be read (studentType).
func (a *app) studentRequest(rec *record.Record, history []prompt.EvaLearnRecord) (model.Request, error) {
	typ, err := studentType(rec)
	if err != nil {
		return model.Request{}, err
	}
	sys, user := prompt.EvaLearnStudent(typ, history, rec.Turns)
	temp := a.seq.temperature
	return model.Request{Provider: a.provider, BaseURL: a.baseURL, Model: a.modelName, Temperature: &temp,
		MaxTokens: a.seq.maxTokens, TopP: a.topP, TopK: a.topK, NumCtx: a.numCtx, Seed: a.seed, Sample: a.sample,
		MaxTokensField: a.maxTokensField, Messages: []model.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}}, nil
}

// studentType is the task type the student's system prompt names for rec: its sequence's type
// (meta.sequence_type, which qa-load sets when it is not the problem's), as evaluate.py names it
// for every position of a sequence, else the record's type. A meta.sequence_type that is not a
// string is an error, never taken as absent: the problem's type would name another system prompt
// than evaluate.py's, without a word.
func studentType(rec *record.Record) (string, error) {
	var t string
	if ok, err := rec.MetaValue("sequence_type", &t); err != nil {
		return "", fmt.Errorf("meta.sequence_type: want a string, got %s", record.Kind(rec.Meta["sequence_type"]))
	} else if ok {
		return t, nil
	}
	return rec.Type, nil
}

// answer asks the model for one position of a sequence and sets rec.Prediction, which the caller
// counts. Only an interruption is an error; an empty answer, or a record whose request cannot be
// made, is a prediction error.
func (a *app) answer(ctx context.Context, rec *record.Record, history []prompt.EvaLearnRecord) (*record.Prediction, error) {
	req, err := a.studentRequest(rec, history)
	if err != nil {
		p := &record.Prediction{Provider: a.provider, Model: a.modelName, Error: err.Error()}
		a.setPrediction(rec, p)
		return p, nil
	}
	p := &record.Prediction{Provider: a.provider, Model: a.modelName, PromptSHA256: promptSHA256(req.Messages)}
	a.setPrediction(rec, p)
	start := time.Now()
	resp, err := a.client.Generate(ctx, req)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if a.settle(p, resp, err, start, true) {
		p.Text = textnorm.Strip(resp.Text) // evaluate.py: gpt4res = content.strip()
		if p.Text == "" {
			p.Error = "empty answer: not passed to the judge"
		}
	}
	return p, nil
}

// verdict asks the judge to grade rec's answer, after prior, the verdict an earlier run gave it
// (nil for none): replies of the judge model that could not be parsed are not asked again as the
// same samples, which the cache holds (judge.Regrade). It returns nil, and no error, when the run
// is finishing and the verdict would have been a new call (the judge then makes none).
func (a *app) verdict(ctx context.Context, rec *record.Record, prior *record.Judgment) (*record.Judgment, error) {
	jg, err := a.seq.judge.Regrade(ctx, rec, prior)
	if err != nil || jg.Raw == "" && strings.Contains(jg.Error, interrupt.ErrNotCalled.Error()) {
		return nil, err
	}
	return jg, nil
}

// count adds a verdict to the judge tally; a failed verdict also counts in the run's, as a record
// predicted with a failed verdict.
func (s *sequencer) count(jg *record.Judgment, a *app) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tally.verdicts++
	if jg.Cached {
		s.tally.cached++
	}
	if jg.Usage != nil {
		s.tally.usage.InputTokens += jg.Usage.InputTokens
		s.tally.usage.OutputTokens += jg.Usage.OutputTokens
	}
	if jg.CostUSD != nil {
		s.tally.cost += *jg.CostUSD
		if jg.Cached {
			s.tally.cachedCost += *jg.CostUSD
		}
	} else if jg.Usage != nil {
		s.tally.unpriced++
	}
	if jg.Error != "" {
		s.tally.errors++
		a.tally.mu.Lock()
		a.tally.verdicts++
		a.tally.mu.Unlock()
	}
}

// summary prints the judge's totals to stderr when any verdict was asked for.
func (s *sequencer) summary(a *app) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tally
	if t.verdicts == 0 {
		return
	}
	unpriced := ""
	if t.unpriced > 0 {
		unpriced = fmt.Sprintf(" (not counting %s: no price for %s, add it with --prices)", english.Count(t.unpriced, "verdict", "verdicts"), s.judge.Model)
	}
	fmt.Fprintf(a.stderr, "qa-predict: evalearn judge %s: %s (%d cached), %s; tokens %d in, %d out; %s%s\n",
		s.judge.Model, english.Count(t.verdicts, "verdict", "verdicts"), t.cached, english.Count(t.errors, "error", "errors"),
		t.usage.InputTokens, t.usage.OutputTokens, command.CostNote(t.cost, t.cachedCost), unpriced)
}
