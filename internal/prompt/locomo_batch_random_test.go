package prompt_test

import (
	"errors"
	"fmt"

	"testing"

	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/internal/vectors"
)

// TestLoCoMoBatchAnswersRandom checks LoCoMoBatchAnswers against LoCoMo's own get_gpt_answers on
// random replies to random batches (scripts/random-locomo-batch-replies.py): the committed ones,
// or the file QA_LOCOMO_BATCH_VECTORS names. Where upstream gives up on the whole reply the reply
// is an error; where it stores a str the answer is that text (each surrogate U+FFFD on both
// sides); where it raises at a question, or stores a value that is not a str, the answer is an
// error. Questions upstream never reaches, after one that
// raises, are checked against upstream's reading of them alone (reached false).
func TestLoCoMoBatchAnswersRandom(t *testing.T) {
	type vector struct {
		Reply     string `json:"reply"`
		Questions []struct {
			Category int      `json:"category"`
			Options  []string `json:"options"`
		} `json:"questions"`
		Raises  string `json:"raises"`
		Answers []struct {
			Stored  *string `json:"stored"`
			Type    string  `json:"type"`
			Repr    string  `json:"repr"`
			Raises  string  `json:"raises"`
			Reached *bool   `json:"reached"`
		} `json:"answers"`
	}
	vectors.Check(t, "testdata/locomo_batch_replies.jsonl", "QA_LOCOMO_BATCH_VECTORS", func(c vector) string {
		asks := make([]prompt.LoCoMoAsk, len(c.Questions))
		for i, q := range c.Questions {
			asks[i] = prompt.LoCoMoAsk{Category: q.Category, Options: q.Options}
		}
		got, err := prompt.LoCoMoBatchAnswers(c.Reply, asks)
		if c.Raises != "" {
			if !errors.Is(err, prompt.ErrLoCoMoReply) || got != nil {
				return fmt.Sprintf("LoCoMoBatchAnswers(%q) = %+v, %v; upstream raises %s for the reply", c.Reply, got, err, c.Raises)
			}
			return ""
		}
		if err != nil || len(got) != len(c.Answers) {
			return fmt.Sprintf("LoCoMoBatchAnswers(%q) = %d answers, %v; upstream reads %d", c.Reply, len(got), err, len(c.Answers))
		}
		for k, want := range c.Answers {
			var ok bool
			var upstream string
			switch {
			case want.Stored != nil:
				ok, upstream = got[k].Err == nil && got[k].Text == *want.Stored, fmt.Sprintf("stores %q", *want.Stored)
			case want.Type != "":
				ok, upstream = got[k].Err != nil, fmt.Sprintf("stores the %s %s", want.Type, want.Repr)
			default:
				ok, upstream = got[k].Err != nil, "raises "+want.Raises
			}
			if !ok {
				return fmt.Sprintf("LoCoMoBatchAnswers(%q) question %d of %d (options %q) = %q, %v; upstream %s (reached %v)",
					c.Reply, k, len(asks), asks[k].Options, got[k].Text, got[k].Err, upstream, want.Reached == nil)
			}
		}
		return ""
	})
}
