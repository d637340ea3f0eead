package prompt

import (
	"fmt"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// LoCoMo's evaluate_qa.py --batch-size N > 1 (its scripts ran gpt-3.5 with 10, gpt-4-turbo with
// 20) asks the questions of one conversation N at a time: get_gpt_answers walks the qa list in
// blocks range(0, len(qa), N), asks in one call the questions of a block not yet answered, the
// conversation cut to what the batch's question prompt leaves (locomoBudget), and reads one
// reply for all of them (LoCoMoBatchAnswers). Even a block left with one question is asked this
// way, with the batch prompt and max_tokens N*50.

// LoCoMoBatchQA renders the query of LoCoMo's batched QA for recs, the questions of one batch in
// the order of their conversation's qa list, which must all hold the same conversation; firsts[i]
// is LoCoMoAskOf's abstainFirst for recs[i]. The query is the conversation start, the
// conversation, "\n", QA_PROMPT_BATCH and the numbered questions. maxLength > 0 cuts the
// conversation as get_input_context does for a batch of batchSize (evaluate_qa.py's
// --batch-size, whatever len(recs) is), and cut reports whether it did; 0 keeps it whole. The
// asks give each question's category and options, for reading the reply. It reads the
// conversation anew: LoCoMoConversations.BatchQA keeps it for the next batch.
func LoCoMoBatchQA(recs []*record.Record, firsts []bool, maxLength, batchSize int) (query string, asks []LoCoMoAsk, cut bool, err error) {
	return (*LoCoMoConversations)(nil).BatchQA(recs, firsts, maxLength, batchSize)
}

// BatchQA is LoCoMoBatchQA, reading a conversation once for all the records that hold it.
func (c *LoCoMoConversations) BatchQA(recs []*record.Record, firsts []bool, maxLength, batchSize int) (query string, asks []LoCoMoAsk, cut bool, err error) {
	if len(recs) == 0 || len(firsts) != len(recs) {
		return "", nil, false, fmt.Errorf("a LoCoMo batch of %d records and %d option orders", len(recs), len(firsts))
	}
	conv, err := c.read(recs[0])
	if err != nil {
		return "", nil, false, fmt.Errorf("%s: %w", recs[0].ID, err)
	}
	texts := make([]string, len(recs))
	for i, rec := range recs {
		if i > 0 {
			// The questions of a batch are asked over one conversation: a record holding
			// another would be asked over a conversation it does not have.
			other, err := c.read(rec)
			if err != nil {
				return "", nil, false, fmt.Errorf("%s: %w (the batch's first question is %s)", rec.ID, err, recs[0].ID)
			}
			if !conv.same(other) {
				return "", nil, false, fmt.Errorf("%s: its conversation differs from the one its batch is asked over (the batch's first question is %s)", rec.ID, recs[0].ID)
			}
		}
		ask, err := LoCoMoAskOf(rec, firsts[i])
		if err != nil {
			return "", nil, false, fmt.Errorf("%s: %w", rec.ID, err)
		}
		asks = append(asks, ask)
		texts[i] = ask.Text
	}
	start := locomoConvStart(conv.s1, conv.s2)
	context, cut, err := conv.context(maxLength, batchSize, start, texts)
	if err != nil {
		return "", nil, false, err
	}
	query = Must(LoCoMoQueryBatch).MustFill(map[string]string{
		"conv_start":   start,
		"context":      context,
		"batch_prompt": locomoBatchPrompt(texts),
	})
	return query, asks, cut, nil
}

// locomoBatchPrompt is QA_PROMPT_BATCH followed by the numbered question lines.
func locomoBatchPrompt(questionTexts []string) string {
	lines := make([]string, len(questionTexts))
	line := Must(LoCoMoQABatchLine)
	for i, q := range questionTexts {
		lines[i] = line.MustFill(map[string]string{"index": fmt.Sprint(i), "question": q})
	}
	return Must(LoCoMoQAPromptBatch).Text + strings.Join(lines, "\n")
}
