package predict

// LoCoMo's batched question answering (--batch-size N > 1, evaluate_qa.py's --batch-size): the
// questions of one conversation are asked N at a time, in blocks at fixed offsets of its qa list
// (range(0, len(qa), N)). A record's conversation and place in that list come from its id,
// locomo:<sample_id>:<index>, as qa-load writes it; the records of one block that are not yet
// predicted (passes: a prediction and no --force, or a failed one without --retry-errors) are
// asked in one call, as upstream's include_idxs leaves out the answered ones. So a run over a
// selection (qa-load --types, --limit) asks the blocks' questions present, and a rerun with
// --retry-errors asks the failed ones of each block together again.
//
// A block's records go through the pipeline as one batch, grouped by batches as a sequence is:
// they must be contiguous in the input (qa-load writes a conversation's questions in order), and
// memory holds at most --concurrency blocks being asked and, with them, up to
// pipeline.WindowPerCall × --concurrency asked or awaiting their turn to be written, plus the one
// being read. A block that reappears after other records is an error on its
// later records, as a sequence's.
//
// The shared call's usage, cost and latency go on the prediction of the block's first question
// asked, the others naming it in prediction.batch, so that totals over records count it once.
//
// Note: splitting the usage between the questions was rejected: token counts do not divide
// evenly, and a record would carry a share no server reported.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// blockOf names the LoCoMo batch of a record, for batches; nil when LoCoMo's questions are asked
// one at a time (--batch-size 1, or a --template that replaces its prompt). A record whose id
// does not give its place is a batch of its own, refused by solveLoCoMo.
func (a *app) blockOf() func(*record.Record) string {
	n := a.locomoBatch
	if n <= 1 || a.prompts.custom != nil {
		return nil
	}
	return func(rec *record.Record) string {
		if !rec.InDataset("locomo") {
			return ""
		}
		conv, i, err := locomoPlace(rec.ID)
		if err != nil {
			return "unplaced\x00" + rec.ID
		}
		return conv + "\x00" + strconv.Itoa(i/n)
	}
}

// locomoPlace reads a LoCoMo record's conversation and index in its qa list from its id,
// locomo:<sample_id>:<index>.
func locomoPlace(id string) (conv string, index int, err error) {
	i := strings.LastIndexByte(id, ':')
	if i >= 0 {
		index, err = strconv.Atoi(id[i+1:])
	}
	if i < 0 || err != nil || index < 0 || strings.HasPrefix(id[i+1:], "+") {
		return "", 0, fmt.Errorf("--batch-size: the id %q does not give the record's place in its conversation (locomo:<sample_id>:<index>, as qa-load writes it)", id)
	}
	return id[:i], index, nil
}

// locomoAsked sorts out a LoCoMo batch: the records to ask, in the order of their qa list, and
// the failure of each record that cannot be (a duplicate place, an id without one, a block
// that reappears); the records that pass through are counted.
func (a *app) locomoAsked(b *batch, dry bool) (asked []*record.Record, failed map[*record.Record]string) {
	failed = make(map[*record.Record]string)
	index := make(map[*record.Record]int)
	for _, rec := range b.recs {
		conv, i, err := locomoPlace(rec.ID)
		blank := a.prompts.blankQuestion(rec)
		// A question LoCoMo's wording fails on (its category, a category-5 question's
		// braces) fails alone, as it does asked alone, not the others of its block with it.
		_, unworded := prompt.LoCoMoAskOf(rec, false)
		switch {
		case a.passes(rec):
			if !dry {
				a.tally.add(rec.Prediction, true)
			}
		case b.reappeared:
			failed[rec] = fmt.Sprintf("--batch-size: the questions of block %d of LoCoMo conversation %s reappear after other records: a block's records must be contiguous", i/a.locomoBatch, conv)
		case err != nil:
			failed[rec] = err.Error()
		case blank != nil:
			failed[rec] = "prompt: " + blank.Error()
		case unworded != nil:
			failed[rec] = "prompt: " + unworded.Error()
		default:
			asked, index[rec] = append(asked, rec), i
		}
	}
	slices.SortStableFunc(asked, func(x, y *record.Record) int { return index[x] - index[y] })
	for i := 1; i < len(asked); i++ {
		if index[asked[i]] == index[asked[i-1]] {
			failed[asked[i]] = fmt.Sprintf("--batch-size: %s repeats the place of %s in its conversation", asked[i].ID, asked[i-1].ID)
		}
	}
	asked = slices.DeleteFunc(asked, func(r *record.Record) bool { return failed[r] != "" })
	return asked, failed
}

// locomoBatchRequest renders the batched query of asked and its request, with the option order
// of each question and what reading the reply needs.
func (a *app) locomoBatchRequest(asked []*record.Record) (model.Request, []prompt.LoCoMoAsk, error) {
	text, asks, err := a.prompts.locomoBatch(asked, a.locomoBatch)
	if err != nil {
		return model.Request{}, nil, err
	}
	return a.chatAs(a.prompts.locomoRole(), text, a.locomoMaxTokens()), asks, nil
}

// solveLoCoMo asks the questions of one LoCoMo batch in one call and gives each its answer as
// LoCoMo's script reads the reply. Only an interruption is an error: a failed call, a reply the
// script cannot read, or a question it cannot find there is an error on the records concerned.
func (a *app) solveLoCoMo(ctx context.Context, b *batch) error {
	asked, failed := a.locomoAsked(b, false)
	for _, rec := range b.recs {
		if msg := failed[rec]; msg != "" {
			a.fail(rec, msg)
		}
	}
	if len(asked) == 0 {
		return nil
	}
	if interrupt.Asked(ctx) { // finishing: no new record goes to the model
		a.failEach(asked, interrupt.ErrNotCalled.Error())
		return nil
	}
	req, asks, err := a.locomoBatchRequest(asked)
	if err != nil {
		a.failEach(asked, fmt.Sprintf("prompt: %v", err))
		return nil
	}
	first := &record.Prediction{Provider: a.provider, Model: a.modelName, PromptSHA256: promptSHA256(req.Messages)}
	start := a.clock()
	resp, err := a.client.Generate(ctx, req)
	if ctx.Err() != nil {
		return ctx.Err() // interrupted: this batch is not complete and is not written
	}
	answered := a.settle(first, resp, err, start, true)
	replied := answered
	var answers []prompt.LoCoMoAnswer
	if answered {
		if answers, err = prompt.LoCoMoBatchAnswers(resp.Text, asks); err != nil {
			answered, first.Error = false, replyError(err, resp.Text, resp.CutNote(req))
		}
	}
	kept := ""
	if replied {
		kept = a.forgetUnanswered(ctx, req, answers)
	}
	a.giveLoCoMoAnswers(asked, first, answered, answers, resp.Text, resp.CutNote(req), kept)
	return nil
}

// failEach fails each of recs with msg.
func (a *app) failEach(recs []*record.Record, msg string) {
	for _, rec := range recs {
		a.fail(rec, msg)
	}
}

// forgetUnanswered takes the reply to req out of the cache when no question got its answer from
// it (answers), and returns why it stays there when it cannot ("; " and the error), else "": it
// follows each record's own error, which every record then has (none got its answer).
func (a *app) forgetUnanswered(ctx context.Context, req model.Request, answers []prompt.LoCoMoAnswer) string {
	if a.store == nil || slices.ContainsFunc(answers, func(x prompt.LoCoMoAnswer) bool { return x.Err == nil }) {
		return ""
	}
	// No question got its answer from this reply (unreadable, or none of them in it): it is
	// not kept, so that --retry-errors, which asks these same questions, gets a new reply
	// instead of this one from the cache.
	if err := a.store.Forget(context.WithoutCancel(ctx), req); err != nil {
		return "; " + err.Error()
	}
	return ""
}

// giveLoCoMoAnswers gives each record of asked its prediction: first, the call's, to the first,
// and to the others one that shares its model, attempts, error and cut (each was read from the
// reply, and one cut short may have cut any answer in it, or left it out); when the call was
// answered and its reply (reply) read, each with its answer in answers or its question's error
// (and cut, model.Response.CutNote's, after it); and kept after the error.
func (a *app) giveLoCoMoAnswers(asked []*record.Record, first *record.Prediction, answered bool, answers []prompt.LoCoMoAnswer, reply, cut, kept string) {
	callErr := first.Error // the call's failure, every record's; a question's own goes on its record alone
	for k, rec := range asked {
		p := first
		if k > 0 { // the call's usage, cost and latency stay on the first
			p = &record.Prediction{Provider: first.Provider, Model: first.Model, PromptSHA256: first.PromptSHA256,
				Attempts: first.Attempts, Cached: first.Cached, Error: callErr, Cut: first.Cut}
		}
		p.Batch = &record.Batch{First: asked[0].ID, Index: k, Size: len(asked)}
		if answered {
			p.Text = answers[k].Text
			if e := answers[k].Err; e != nil {
				p.Text, p.Error = "", replyError(e, reply, cut)
			}
		}
		p.Error += kept
		a.setPrediction(rec, p)
		a.made(p, 0)
	}
}

// replyError is the error a LoCoMo batch's question gets from reply, which LoCoMo's script could
// not read for it (err), as the run gives it and a dry run over --cache shows it; cut,
// model.Response.CutNote's, follows it.
func replyError(err error, reply, cut string) string {
	return fmt.Sprintf("reply: %v; the reply: %s%s", err, excerpt(reply), cut)
}

// excerpt is the start of a reply for an error message: at most 200 bytes, cut at a character.
func excerpt(s string) string {
	const most = 200
	if len(s) <= most {
		return strconv.Quote(s)
	}
	clipped := english.Clip(s, most)
	return strconv.Quote(strings.TrimSuffix(clipped, "…")) + "…"
}

// locomoMaxTokens is the max_tokens of a LoCoMo call: --max-tokens when given, else
// run_chatgpt's 32 for one question, or 50 for each of --batch-size's questions.
func (a *app) locomoMaxTokens() int {
	switch {
	case a.maxTokensSet:
		return a.maxTokens
	case a.locomoBatch > 1:
		return prompt.LoCoMoBatchMaxTokens(a.locomoBatch)
	}
	return locomoMaxTokens
}

// dryLoCoMo is what asking a LoCoMo batch would send, in the batch's input order: the request on
// the line of its first question asked, which names the questions it asks; the others name that
// record.
func (a *app) dryLoCoMo(b *batch) []dryPrediction {
	asked, failed := a.locomoAsked(b, true)
	out := make(map[*record.Record]dryPrediction, len(b.recs))
	for _, rec := range b.recs {
		d := dryPrediction{ID: rec.ID, Error: failed[rec]}
		if d.Error == "" && !slices.Contains(asked, rec) {
			d.AlreadyPredicted = true
		}
		out[rec] = d
	}
	if len(asked) > 0 {
		req, asks, err := a.locomoBatchRequest(asked)
		var c dryCall
		var failed []string // each question's error from the reply --cache serves, as the run reads it
		if err == nil {
			c = a.dryRequest("answer", req)
			failed = cachedLoCoMoErrors(c, asks)
		}
		for k, rec := range asked {
			d := out[rec]
			switch {
			case err != nil:
				d.Error = fmt.Sprintf("prompt: %v", err)
			case k == 0:
				d.Requests = []dryCall{c}
				for _, r := range asked {
					d.Asks = append(d.Asks, r.ID)
				}
			default:
				d.AskedWith = asked[0].ID
			}
			if failed != nil && failed[k] != "" && (k > 0 || c.Error == "") { // the first's call error is its request's
				d.Error, d.failedCached = failed[k], true
			}
			out[rec] = d
		}
	}
	lines := make([]dryPrediction, len(b.recs))
	for i, rec := range b.recs {
		lines[i] = out[rec]
	}
	return lines
}

// cachedLoCoMoErrors is, for a batch's request c as a dry run shows it, the error each question of
// asks gets from the reply --cache serves, as solveLoCoMo reads it with no call: the call's error,
// every question's; a reply LoCoMo's script cannot read, every question's too; or the error of a
// question it holds no answer for ("" for one it answers). It is nil when the cache answers none.
func cachedLoCoMoErrors(c dryCall, asks []prompt.LoCoMoAsk) []string {
	if !c.Cached {
		return nil
	}
	failed := make([]string, len(asks))
	answers, err := prompt.LoCoMoBatchAnswers(c.reply, asks)
	for k := range failed {
		switch {
		case c.Error != "":
			failed[k] = c.Error
		case err != nil:
			failed[k] = replyError(err, c.reply, c.cut)
		case answers[k].Err != nil:
			failed[k] = replyError(answers[k].Err, c.reply, c.cut)
		}
	}
	return failed
}

// locomoBatch renders the batched query of recs (locomoBatchRequest), counting a cut
// conversation and giving the variant's note at the first LoCoMo record.
func (p *prompter) locomoBatch(recs []*record.Record, batchSize int) (string, []prompt.LoCoMoAsk, error) {
	if p.locomoNote != "" {
		p.locomoOnce.Do(func() { fmt.Fprintln(p.stderr, p.locomoNote) })
	}
	firsts := make([]bool, len(recs))
	for i, rec := range recs {
		p.textNotice(rec)
		firsts[i] = p.abstainFirst(rec.ID)
	}
	maxLength := 0
	if p.locomo != nil {
		maxLength = p.locomo.MaxLength
	}
	text, asks, cut, err := p.conversations.BatchQA(recs, firsts, maxLength, batchSize)
	if cut {
		p.locomoCut.Add(1)
	}
	return text, asks, err
}
