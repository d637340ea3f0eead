package predict

// Sequential solving (EvaLearn): records that carry a sequence are answered position by position,
// each answer judged at once by EvaLearn's rubric judge, and the answers and verdicts of the earlier
// positions are shown to the model as its history.
//
// The unit of work is a batch (batch.go): one record without a sequence, or all the contiguous records of one
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
// --concurrency sequences being solved and, with them, up to pipeline.WindowPerCall × --concurrency
// solved or awaiting their turn to be written, plus the one being read. A run asked to finish (a first signal) makes no new call: every sequence is written, its
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
	"slices"
	"strings"
	"sync"

	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/judge"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
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

// sequencer holds what the sequential path needs beyond the plain one.
type sequencer struct {
	judge       *judge.Judge // nil when no --judge-model was given; in a dry run, one without a client
	judgeModel  string       // --judge-model
	temperature float64
	maxTokens   int

	mu        sync.Mutex
	tally     judgeTally
	gaps      gapTally // sequences read without some of their earlier positions
	noJudge   string   // the first record of a sequence left unanswered for want of --judge-model
	noJudgeAt int      // the index of its batch; the one first in the input is named
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
			a.fail(rec, reappeared(b.seq))
		}
		return b, nil
	}
	return b, a.solveSequence(ctx, b)
}

// reappeared is the error of the records of sequence seq still to answer that come after other
// records than its own.
func reappeared(seq string) string {
	return fmt.Sprintf("sequence %s reappears after other records: a sequence's records must be contiguous", seq)
}

// errNeedsJudge is the error of the positions of a sequence that a run without --judge-model
// would ask: it asks none.
const errNeedsJudge = "needs --judge-model: the answers of a sequence (EvaLearn) are judged as they come, each verdict part of the next question's history"

// unjudged fails recs, the positions of batch b from the first that needs a call on, for want of
// --judge-model: an error on each record, not a usage error, as it is found only here, perhaps
// after other records were answered (and paid for), which must still be written. A position after
// the first that an earlier run answered passes through, its paid answer and verdict kept: the
// run asks nothing, and a rerun with --judge-model asks it again after those before it.
func (a *app) unjudged(b *batch, recs []*record.Record) {
	for i, rec := range recs {
		if i > 0 && a.passesSolved(rec) {
			a.keep(rec)
			continue
		}
		a.fail(rec, errNeedsJudge)
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
		a.tally.carriedVerdicts++
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
	a.made(rec.Prediction, 0)
}

// solveSequence answers the positions of one sequence in order, judging each answer, with the
// earlier answers and verdicts as history. Only an interruption is an error.
func (a *app) solveSequence(ctx context.Context, b *batch) error {
	order := slices.Clone(b.recs)
	slices.SortStableFunc(order, func(x, y *record.Record) int { return x.Sequence.Position - y.Sequence.Position })
	var st sequenceState
	for i, rec := range order {
		if a.settled(&st, b, order, i) {
			continue
		}
		if a.seq.judge == nil {
			// The positions answered before pass through above, their paid answers and verdicts
			// kept; this one and those after it would be asked. Interrupted or not: no call could
			// have been made, and the error says what a rerun needs.
			a.unjudged(b, order[i:])
			return nil
		}
		if interrupt.Asked(ctx) { // finishing: no new position goes to the model
			a.fail(rec, interrupt.ErrNotCalled.Error())
			st.broken = "interrupted"
			continue
		}
		st.solving = true
		if err := a.solvePosition(ctx, &st, rec); err != nil {
			return err
		}
	}
	return nil
}

// sequenceState is where solveSequence is in a sequence.
type sequenceState struct {
	history []prompt.EvaLearnRecord
	broken  string // why the rest of the sequence is skipped
	solving bool   // a position was solved in this run: those after it were asked with another history
}

// settled settles order[i], a position of sequence b, when it is not to be asked: kept as an
// earlier run answered it (its answer and verdict going into st's history), or failed as
// skipped or repeated. It reports whether it did.
func (a *app) settled(st *sequenceState, b *batch, order []*record.Record, i int) bool {
	rec := order[i]
	pos := rec.Sequence.Position
	dup := i > 0 && order[i-1].Sequence.Position == pos
	switch {
	case pos < 1 && !a.passesSolved(rec):
		a.fail(rec, noPosition(rec, b.seq))
		return true
	case (st.broken != "" || dup) && !st.solving && a.passesSolved(rec):
		// Answered by an earlier run with the history it had then, which this run has not
		// changed: kept as it is, an error still an error (a repeated position, as in two
		// runs put together, too; the history holds the first). Only a position to ask needs
		// the history that a break leaves out, or that a repeat makes ambiguous.
		a.keep(rec)
		return true
	case st.broken != "":
		a.fail(rec, "skipped: "+st.broken)
		return true
	case dup:
		a.fail(rec, fmt.Sprintf("duplicate position %d in sequence %s", pos, b.seq))
		return true
	case !st.solving && a.passesSolved(rec):
		a.keep(rec)
		h, why := a.earlier(rec)
		if why != "" {
			st.broken = why
			return true
		}
		st.history = append(st.history, h)
		return true
	}
	return false
}

// solvePosition answers rec with st's history, asks for the answer's verdict and adds both to
// the history; a failed answer, a verdict not asked or one without a verdict breaks the
// sequence. Only an interruption is an error.
func (a *app) solvePosition(ctx context.Context, st *sequenceState, rec *record.Record) error {
	pos := rec.Sequence.Position
	prior := rec.Judgments[judgeKey] // an earlier run's verdict, which answering again removes
	p, err := a.answer(ctx, rec, st.history)
	if err != nil {
		return err
	}
	if p.Error != "" {
		a.made(p, 0)
		st.broken = fmt.Sprintf("position %d failed", pos)
		return nil
	}
	jg, err := a.verdict(ctx, rec, prior)
	if err != nil {
		return err
	}
	if jg == nil {
		// The answer came, but the run is finishing, so its verdict is not asked: the answer
		// stays, as an error, for --retry-errors to answer again (from the cache, with --cache).
		p.Error = verdictNotAsked
		a.made(p, 0)
		st.broken = "interrupted"
		return nil
	}
	a.made(p, 0)
	if rec.Judgments == nil {
		rec.Judgments = make(map[string]*record.Judgment)
	}
	rec.Judgments[judgeKey] = jg
	a.seq.count(jg, a)
	verdict := a.verdictText(jg)
	if verdict == "" {
		st.broken = fmt.Sprintf("position %d has no verdict", pos)
		return nil
	}
	st.history = append(st.history, prompt.EvaLearnRecord{Position: pos, Turns: studentTurns(rec), Answer: p.Text,
		Rubric: rec.Rubric, Judgment: textnorm.Strip(verdict)})
	return nil
}

// noPosition is the error of rec, a record of sequence seq to answer whose position is below 1:
// none of EvaLearn's (1, 2, …), and one qa-learncurve skips. It is asked nothing and is no
// history of the positions after it, which it would come before.
func noPosition(rec *record.Record, seq string) string {
	return fmt.Sprintf("position %d in sequence %s: want a position of 1 or more, as qa-learncurve reads it", rec.Sequence.Position, seq)
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
	case verdict == "" && jg != nil && jg.Error != "":
		// Not reached under --retry-errors, which solves such a position again (passesSolved).
		return prompt.EvaLearnRecord{}, fmt.Sprintf("position %d's %s verdict failed (--retry-errors asks it again)", pos, judgeKey)
	case verdict == "":
		return prompt.EvaLearnRecord{}, fmt.Sprintf("position %d has a prediction but no %s verdict (use --force)", pos, judgeKey)
	}
	return prompt.EvaLearnRecord{Position: pos, Turns: studentTurns(rec), Answer: textnorm.Strip(rec.Prediction.Text),
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
// be read (studentType), when it has nothing to ask, and when it has no rubric to judge the answer by.
func (a *app) studentRequest(rec *record.Record, history []prompt.EvaLearnRecord) (model.Request, error) {
	typ, err := studentFault(rec)
	if err != nil {
		return model.Request{}, err
	}
	sys, user := prompt.EvaLearnStudent(typ, history, studentTurns(rec))
	temp := a.seq.temperature
	return model.Request{Provider: a.provider, BaseURL: a.baseURL, Model: a.modelName, Temperature: &temp,
		MaxTokens: a.seq.maxTokens, TopP: a.topP, TopK: a.topK, NumCtx: a.numCtx, Seed: a.seed, Sample: a.sample,
		MaxTokensField: a.maxTokensField, Stop: a.stop, GeminiSafety: a.geminiSafety, Messages: []model.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}}, nil
}

// studentFault returns the sequence type rec's student prompt names (studentType), or what keeps
// rec, a position of a sequence, from being asked whatever its history: a meta.sequence_type that
// cannot be read, nothing to ask, or no rubric to judge the answer by.
func studentFault(rec *record.Record) (string, error) {
	typ, err := studentType(rec)
	if err != nil {
		return "", err
	}
	if !slices.ContainsFunc(studentTurns(rec), func(t string) bool { return textnorm.Strip(t) != "" }) {
		// As a record of another benchmark: no call, which would ask nothing and be paid for.
		return "", fmt.Errorf("prompt: %w", errNothingToAsk)
	}
	if textnorm.Strip(rec.Rubric) == "" {
		// The judge could not grade the answer, which would be paid for and never judged.
		return "", fmt.Errorf("%w: the answer is not asked, as it could not be judged", judge.ErrNoRubric)
	}
	return typ, nil
}

// studentTurns is the prompt list EvaLearn would hold for rec: its turns, or, for a record without them
// (a results file's prompt of one text, as qa-load --format evalearn-results reads it, or a record
// written without them), its question as the one turn, as a problem's prompt of one question is.
// Without it the student was asked no question at all, and the history showed the problem as [].
func studentTurns(rec *record.Record) []string {
	if len(rec.Turns) == 0 {
		return []string{rec.Question}
	}
	return rec.Turns
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

// errEmptyAnswer is the error of a position whose answer is empty, which is not judged (unless
// --empty-reply keep).
const errEmptyAnswer = "empty answer: not passed to the judge"

// answer asks the model for one position of a sequence and sets rec.Prediction, which the caller
// counts. Only an interruption is an error; an empty answer (unless --empty-reply keep), or a
// record whose request cannot be made, is a prediction error.
func (a *app) answer(ctx context.Context, rec *record.Record, history []prompt.EvaLearnRecord) (*record.Prediction, error) {
	req, err := a.studentRequest(rec, history)
	if err != nil {
		p := &record.Prediction{Provider: a.provider, Model: a.modelName, Error: err.Error()}
		a.setPrediction(rec, p)
		return p, nil
	}
	p := &record.Prediction{Provider: a.provider, Model: a.modelName, PromptSHA256: promptSHA256(req.Messages)}
	a.setPrediction(rec, p)
	start := a.clock()
	resp, err := a.client.Generate(ctx, req)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if a.settle(p, resp, err, start, true) {
		p.Text = textnorm.Strip(resp.Text) // evaluate.py: gpt4res = content.strip()
		if p.Text == "" && !a.keepEmpty {
			// Under --empty-reply keep it is judged, and the sequence goes on, as evaluate.py
			// judges "" (its check for empty answers reruns their sequences on a later run).
			p.Error = errEmptyAnswer
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
