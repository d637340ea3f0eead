package predict

import (
	"context"
	"errors"

	"github.com/qapipe/qapipe/internal/model"
)

// emptyKept is the client of a run under --empty-reply keep: an empty reply (model.ErrEmptyReply)
// that came whole and stopped of itself (model.Response.Stopped: not cut at max_tokens, refused,
// blocked, without choices, nor an OpenAI-compatible content of null) is the answer "", no
// error, as LongMemEval's run_generation.py writes it as the hypothesis and LoCoMo's script
// stores it, and as EvaLearn's evaluate.py judges it. It is counted for the run's warning. Such a
// reply is cached (cache.Client.KeepEmpty), so that a rerun with the cache keeps it again
// without a call, and a resumed EvaLearn sequence goes on with the history it had.
//
// It wraps the reader's client from outside model.Thinking, so that a reply with nothing after
// its thinking (--think strip) that stopped of itself is kept too; one cut in its thinking is no
// empty reply, and stays an error. The EvaLearn judge's client is another.
type emptyKept struct {
	next  model.Client
	tally *tally
}

func (k emptyKept) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	resp, err := k.next.Generate(ctx, req)
	if !errors.Is(err, model.ErrEmptyReply) || !resp.Stopped || resp.Cut {
		return resp, err
	}
	resp.Text = "" // white space alone, which every mode strips, is the empty answer too
	k.tally.mu.Lock()
	k.tally.keptEmpty++
	k.tally.mu.Unlock()
	return resp, nil
}
