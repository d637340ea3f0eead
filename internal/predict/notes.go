package predict

import (
	"context"
	"fmt"
	"time"

	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// LongMemEval's con-separate reading (--reading con-separate) answers a record in two steps, as
// run_generation.py --cot true --con true does: a call per kept history block (a session, turn
// or round) asking for its reading notes, one after the other in file order, then the
// step-by-step reading call over the notes. The notes are kept in prediction.notes; usage, cost
// and attempts are the sums over every call of the record, latency the time from the first call
// to the answer (or to a failed call's reply that was paid for).

// spent is what a record's note calls used.
type spent struct {
	usage     record.Usage
	calls     []record.Usage // each note's, priced as its own call
	noUsage   bool           // a note's reply came without token usage
	attempts  int
	cached    bool           // every note came from the cache
	fromCache []record.Usage // the usage of each note the cache served, priced for the summary's cached part
	start     time.Time      // when the first note was asked for
	// last is the usage of each reply of the call whose outcome the prediction holds (the
	// reading call's, or the note call's that failed), priced each as its own (model.Response.
	// Billed); nil prices the prediction's usage as one reply's.
	last []record.Usage
	// cachedCost is, once addNotes has run, the part of the prediction's cost that replies served
	// from the cache make up, for the run's summary, when they are only some of its calls (a
	// prediction served whole from the cache is counted by its Cached flag).
	cachedCost float64
}

// takesNotes reports whether rec is read with notes: a LongMemEval record under con-separate
// with the built-in prompts.
func (p *prompter) takesNotes(rec *record.Record) bool {
	return p.notes && p.custom == nil && rec.InDataset("longmemeval")
}

// takeNotes asks for the notes on rec's history blocks and returns the reader prompt over them.
// On a bad history or a failed call it records the error on pred and reports false; the caller
// also checks ctx, as an interrupted call is no record error.
func (a *app) takeNotes(ctx context.Context, rec *record.Record, pred *record.Prediction) (string, spent, bool) {
	p := a.prompts
	p.readerNotice()
	p.textNotice(rec)
	asks, err := prompt.LongMemEvalNotePrompts(rec, p.history)
	if err != nil {
		pred.Error = fmt.Sprintf("prompt: %v", err)
		return "", spent{}, false
	}
	s := spent{cached: true, start: a.clock()}
	notes := make([]string, len(asks))
	for i, ask := range asks {
		resp, err := a.client.Generate(ctx, a.chat(ask.Prompt, prompt.LongMemEvalNoteLength))
		if err != nil {
			if ctx.Err() == nil {
				a.settle(pred, resp, err, time.Time{}, false)
				pred.Error = fmt.Sprintf("notes on history block %d of %d: %s", i+1, len(asks), pred.Error)
				if resp.NoUsage { // an empty reply paid for at a cost unknown: so is the record's
					s.noUsage = true
					a.tally.noteNoUsage()
				}
				s.last = resp.Billed()
				a.addNotes(pred, &s) // the notes got so far were paid for
			}
			return "", spent{cachedCost: s.cachedCost}, false
		}
		notes[i] = textnorm.Strip(resp.Text) // upstream's .strip()
		a.tally.noteReply(resp, true)
		s.noUsage = s.noUsage || resp.NoUsage
		s.usage.InputTokens += resp.Usage.InputTokens
		s.usage.OutputTokens += resp.Usage.OutputTokens
		s.usage.CachedInputTokens += resp.Usage.CachedInputTokens
		s.usage.CacheWriteInputTokens += resp.Usage.CacheWriteInputTokens
		s.calls = append(s.calls, resp.Billed()...) // a failed generation retried was paid for too
		s.attempts += resp.Attempts
		s.cached = s.cached && resp.Cached
		if resp.Cached {
			s.fromCache = append(s.fromCache, resp.Billed()...)
		}
	}
	text, cut, err := prompt.LongMemEvalNotesPrompt(rec, asks, notes, p.history)
	if err != nil {
		pred.Error = fmt.Sprintf("prompt: %v", err)
		return "", spent{}, false
	}
	if cut {
		p.cut.Add(1)
	}
	pred.Notes = notes
	return text, s, true
}

// addNotes adds what the note calls spent to the prediction of the call after them: the reading
// call's answer, or the error of the call that failed (a note's or the reading's), whose notes
// were paid for all the same. A failed call without usage got no reply and adds nothing. It sets
// s.cachedCost to the part of the cost the cache served, when the prediction is not served whole
// from it (some notes from an earlier run, the rest and the reading asked now).
func (a *app) addNotes(pred *record.Prediction, s *spent) {
	pred.Attempts += s.attempts
	failed := pred.Error != ""
	fromCache, last := s.fromCache, s.last
	if last == nil && pred.Usage != nil {
		last = []record.Usage{*pred.Usage}
	}
	// The last call's reply, from the cache: the reading call's, or a reply that is no answer and
	// that the cache keeps (cut in its thinking), the reading call's or a note's (settle).
	if pred.Cached && pred.Usage != nil {
		fromCache = append(fromCache[:len(fromCache):len(fromCache)], last...)
	}
	pred.Cached = pred.Cached && s.cached
	// The time from the first note call to the answer, or to the failure when any call was paid
	// for (the failed one's reply has usage, or notes came before it), as a prediction of one call
	// keeps it (settle).
	pred.LatencyMS = 0
	if (!failed || pred.Usage != nil || len(s.calls) > 0 || s.noUsage) && !pred.Cached {
		pred.LatencyMS = a.since(s.start)
	}
	if s.noUsage || !failed && pred.Usage == nil { // a reply without usage: the whole is unknown
		pred.Usage, pred.CostUSD = nil, nil
		return
	}
	u, calls := s.usage, s.calls
	if pred.Usage != nil {
		u.InputTokens += pred.Usage.InputTokens
		u.OutputTokens += pred.Usage.OutputTokens
		u.CachedInputTokens += pred.Usage.CachedInputTokens
		u.CacheWriteInputTokens += pred.Usage.CacheWriteInputTokens
		calls = append(calls[:len(calls):len(calls)], last...)
	}
	if u.IsZero() {
		return
	}
	// Each call priced as its own: the notes' prompts together can pass a long-context price's
	// threshold (gemini-2.5-pro's 200,000 tokens) that none of them does.
	pred.Usage = &u
	pred.CostUSD = a.prices.CostOf(pred.Model, calls...)
	if pred.CostUSD != nil && !pred.Cached && len(fromCache) > 0 {
		if c := a.prices.CostOf(pred.Model, fromCache...); c != nil {
			s.cachedCost = *c
		}
	}
}
