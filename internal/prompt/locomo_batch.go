package prompt

import (
	"fmt"
	"slices"
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
// asks give each question's category and options, for reading the reply.
func LoCoMoBatchQA(recs []*record.Record, firsts []bool, maxLength, batchSize int) (query string, asks []LoCoMoAsk, cut bool, err error) {
	if len(recs) == 0 || len(firsts) != len(recs) {
		return "", nil, false, fmt.Errorf("a LoCoMo batch of %d records and %d option orders", len(recs), len(firsts))
	}
	sessions, err := LoCoMoSessions(recs[0])
	if err != nil {
		return "", nil, false, fmt.Errorf("%s: %w", recs[0].ID, err)
	}
	s1, s2 := LoCoMoSpeakers(recs[0], sessions)
	texts := make([]string, len(recs))
	for i, rec := range recs {
		if i > 0 {
			if err := sameConversation(rec, sessions, s1, s2); err != nil {
				return "", nil, false, fmt.Errorf("%s: %w (the batch's first question is %s)", rec.ID, err, recs[0].ID)
			}
		}
		ask, err := LoCoMoAskOf(rec, firsts[i])
		if err != nil {
			return "", nil, false, fmt.Errorf("%s: %w", rec.ID, err)
		}
		asks = append(asks, ask)
		texts[i] = ask.Text
	}
	start := locomoConvStart(s1, s2)
	context, cut, err := locomoContext(sessions, maxLength, batchSize, start, texts)
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

// sameConversation checks that rec holds the conversation sessions with speakers s1 and s2: the
// questions of a batch are asked over one conversation, and a record holding another would be
// asked over a conversation it does not have.
func sameConversation(rec *record.Record, sessions []LoCoMoSession, s1, s2 string) error {
	other, err := LoCoMoSessions(rec)
	if err != nil {
		return err
	}
	r1, r2 := LoCoMoSpeakers(rec, other)
	same := r1 == s1 && r2 == s2 && slices.EqualFunc(other, sessions, func(a, b LoCoMoSession) bool {
		return a.DateTime == b.DateTime && slices.Equal(a.Turns, b.Turns)
	})
	if !same {
		return fmt.Errorf("its conversation differs from the one its batch is asked over")
	}
	return nil
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
