package prompt

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// LoCoMo template names.
const (
	LoCoMoConvStart       = "locomo/conv_start.txt"
	LoCoMoSessionHeader   = "locomo/session_header.txt"
	LoCoMoTurn            = "locomo/turn.txt"
	LoCoMoTurnWithCaption = "locomo/turn_with_caption.txt"
	LoCoMoQAPrompt        = "locomo/qa_prompt.txt"
	LoCoMoQAPromptCat5    = "locomo/qa_prompt_cat5.txt"
	LoCoMoQAPromptBatch   = "locomo/qa_prompt_batch.txt"
	LoCoMoQABatchLine     = "locomo/qa_batch_line.txt"
	LoCoMoQuerySingle     = "locomo/query_single.txt"
	LoCoMoQueryBatch      = "locomo/query_batch.txt"
	LoCoMoCat2Suffix      = "locomo/cat2_suffix.txt"
	LoCoMoCat5Options     = "locomo/cat5_options.txt"
)

// LoCoMoAbstainOption is the option text LoCoMo pairs with the adversarial answer in category 5.
const LoCoMoAbstainOption = "Not mentioned in the conversation"

// LoCoMoSession is one conversation session: its date_time and its turns in order.
type LoCoMoSession struct {
	DateTime string
	Turns    []LoCoMoTurnData
}

// LoCoMoTurnData is one dialogue turn. HasCaption mirrors `"blip_caption" in dialog` upstream.
type LoCoMoTurnData struct {
	Speaker     string `json:"speaker"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption,omitempty"`
	HasCaption  bool   `json:"-"`
}

// LoCoMoContext renders LoCoMo's get_input_context over sessions given oldest first: each session
// block (header + turns) newest first, then "\n\n" once per session. It does not cut: see
// LoCoMoContextWithin for the token budget.
func LoCoMoContext(sessions []LoCoMoSession) string {
	var b strings.Builder
	for i := len(sessions) - 1; i >= 0; i-- {
		b.WriteString(locomoHeader(sessions[i]))
		for _, t := range sessions[i].Turns {
			b.WriteString(locomoTurn(t))
		}
	}
	b.WriteString(strings.Repeat("\n\n", len(sessions)))
	return b.String()
}

// locomoHeader is a session's "DATE: …\nCONVERSATION:\n" line pair.
func locomoHeader(s LoCoMoSession) string {
	return Must(LoCoMoSessionHeader).MustFill(map[string]string{"date_time": s.DateTime})
}

// locomoTurn is one turn as get_input_context writes it, with its caption when it has one.
func locomoTurn(t LoCoMoTurnData) string {
	if t.HasCaption {
		return Must(LoCoMoTurnWithCaption).MustFill(map[string]string{"speaker": t.Speaker, "text": t.Text, "blip_caption": t.BlipCaption})
	}
	return Must(LoCoMoTurn).MustFill(map[string]string{"speaker": t.Speaker, "text": t.Text})
}

// LoCoMoQuestion returns the question text LoCoMo sends: category 2 gets the date suffix, category 5
// the two options, the abstain option first when abstainFirst (upstream: random.random() < 0.5).
//
// Upstream appends the options' " (a) {} (b) {}. " to a category-5 question and calls str.format on
// the whole, the question included: a doubled brace in the question is sent as one, and any other
// brace fails there (a field, {} or {0}, finds no argument or mixes numbering with the options'
// {}; a lone brace is a syntax error), which is an error here too, never the question sent as it
// is written.
func LoCoMoQuestion(question string, category int, adversarial string, abstainFirst bool) (string, error) {
	switch category {
	case 2:
		return question + Must(LoCoMoCat2Suffix).Text, nil
	case 5:
		q, err := pyFormatLiteral(question)
		if err != nil {
			return "", fmt.Errorf("category-5 question: LoCoMo's script reads it as a str.format string, with its options' {} after it, and fails on %v (a brace is written {{ or }} there)", err)
		}
		a, b := LoCoMoAbstainOption, adversarial
		if !abstainFirst {
			a, b = b, a
		}
		return q + Must(LoCoMoCat5Options).MustFill(map[string]string{"option_a": a, "option_b": b}), nil
	}
	return question, nil
}

// pyFormatLiteral is what Python's str.format makes of s when s holds no replacement field: "{{"
// and "}}" each become one brace; any other brace (a field or a lone one) is an error naming it.
func pyFormatLiteral(s string) (string, error) {
	if !strings.ContainsAny(s, "{}") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '{' || c == '}' {
			if i+1 < len(s) && s[i+1] == c {
				i++
			} else if c == '{' {
				return "", fmt.Errorf("the \"{\" at byte %d, which opens a replacement field", i)
			} else {
				return "", fmt.Errorf("the single \"}\" at byte %d", i)
			}
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// locomoQuery fills query_single.txt with the conversation start, the context and the QA prompt.
func locomoQuery(convStart, context, questionText string, category int) string {
	qa := Must(LoCoMoQAPrompt)
	if category == 5 {
		qa = Must(LoCoMoQAPromptCat5)
	}
	return Must(LoCoMoQuerySingle).MustFill(map[string]string{
		"conv_start": convStart,
		"context":    context,
		"qa_prompt":  qa.MustFill(map[string]string{"question": questionText}),
	})
}

// locomoConvStart is CONV_START_PROMPT filled with the two speakers.
func locomoConvStart(speaker1, speaker2 string) string {
	return Must(LoCoMoConvStart).MustFill(map[string]string{"speaker_1": speaker1, "speaker_2": speaker2})
}

// LoCoMoSessions reads a LoCoMo record's context back into sessions. A passage's turns come from its
// "turns" field ([{speaker, text, blip_caption?}], kept by the loader) when present, else from its
// text lines "speaker: text" (qa-load's layout, which keeps no blip_caption: those turns then
// render without the caption line, so the prompt is not byte-exact).
func LoCoMoSessions(rec *record.Record) ([]LoCoMoSession, error) {
	out := make([]LoCoMoSession, 0, len(rec.Context))
	speakers := lineSpeakers(rec)
	for i, p := range rec.Context {
		s := LoCoMoSession{DateTime: p.Date}
		if raw, ok := p.Extra["turns"]; ok {
			var turns []map[string]json.RawMessage
			if err := json.Unmarshal(raw, &turns); err != nil {
				return nil, fmt.Errorf("locomo session %d turns: %w", i+1, err)
			}
			for _, t := range turns {
				var d LoCoMoTurnData
				json.Unmarshal(t["speaker"], &d.Speaker)
				json.Unmarshal(t["text"], &d.Text)
				if c, ok := t["blip_caption"]; ok {
					d.HasCaption = true
					d.BlipCaption, _ = python.StrOfJSON(c)
				}
				s.Turns = append(s.Turns, d)
			}
		} else {
			s.Turns = turnsFromLines(p.Text, speakers)
		}
		out = append(out, s)
	}
	return out, nil
}

// LoCoMoSpeakers returns the two speakers: meta speaker_a/speaker_b when present, else the first two
// distinct speakers of the first session. (Upstream uses list(set(...)), whose order is unspecified.)
func LoCoMoSpeakers(rec *record.Record, sessions []LoCoMoSession) (string, string) {
	a, okA := rec.MetaString("speaker_a")
	b, okB := rec.MetaString("speaker_b")
	if okA && okB {
		return a, b
	}
	var seen []string
	if len(sessions) > 0 {
		for _, t := range sessions[0].Turns {
			if !contains(seen, t.Speaker) {
				seen = append(seen, t.Speaker)
			}
		}
	}
	seen = append(seen, "", "")
	return seen[0], seen[1]
}

// LoCoMoQA renders the official batch-size-1 LoCoMo generation query for rec. abstainFirst places
// "Not mentioned in the conversation" as option (a) for category 5 (see LoCoMoAskOf).
// maxLength > 0 is the MAX_LENGTH of the model LoCoMo is asked to run (LoCoMoVariant): the
// conversation is cut to fit it as get_input_context cuts it, and cut reports whether it was;
// 0 keeps it whole. It reads rec's conversation anew: LoCoMoConversations.QA keeps it for the
// next question.
func LoCoMoQA(rec *record.Record, abstainFirst bool, maxLength int) (query string, cut bool, err error) {
	return (*LoCoMoConversations)(nil).QA(rec, abstainFirst, maxLength)
}

// QA is LoCoMoQA, reading rec's conversation once for all the records that hold it.
func (c *LoCoMoConversations) QA(rec *record.Record, abstainFirst bool, maxLength int) (query string, cut bool, err error) {
	ask, err := LoCoMoAskOf(rec, abstainFirst)
	if err != nil {
		return "", false, err
	}
	conv, err := c.read(rec)
	if err != nil {
		return "", false, err
	}
	start := locomoConvStart(conv.s1, conv.s2)
	context, cut, err := conv.context(maxLength, 1, start, []string{ask.Text})
	if err != nil {
		return "", false, err
	}
	return locomoQuery(start, context, ask.Text, ask.Category), cut, nil
}

// LoCoMoAsk is one question as LoCoMo's get_gpt_answers words it.
type LoCoMoAsk struct {
	Category int
	Text     string   // the question, with category 2's date suffix or category 5's options
	Options  []string // category 5: the options (a) and (b) in the order offered; nil otherwise
}

// LoCoMoAskOf words rec's question. abstainFirst places "Not mentioned in the conversation" as
// option (a) of a category-5 question (upstream: random.random() < 0.5, which the caller draws
// from its seeded source); the other option is LoCoMoAdversarialAnswer.
func LoCoMoAskOf(rec *record.Record, abstainFirst bool) (LoCoMoAsk, error) {
	cat, _, err := rec.LoCoMoCategory()
	if err != nil {
		return LoCoMoAsk{}, err
	}
	adv := LoCoMoAdversarialAnswer(rec)
	text, err := LoCoMoQuestion(rec.Question, cat, adv, abstainFirst)
	if err != nil {
		return LoCoMoAsk{}, err
	}
	ask := LoCoMoAsk{Category: cat, Text: text}
	if cat == 5 {
		ask.Options = []string{LoCoMoAbstainOption, adv}
		if !abstainFirst {
			ask.Options[0], ask.Options[1] = adv, LoCoMoAbstainOption
		}
	}
	return ask, nil
}

// LoCoMoCat5Answer maps a category-5 reply to its option as LoCoMo's get_cat_5_answer does: strip
// and lower-case (Python's, counting characters after: "İ" lowers to two); a 1-character reply is
// option (a) if it contains "a", else (b); a 3-character reply is (a) if it contains "(a)", else
// (b); any other reply is kept stripped and lower-cased. options are (a) and (b) in order.
func LoCoMoCat5Answer(reply string, options []string) string {
	r := textnorm.Lower(textnorm.Strip(reply))
	switch utf8.RuneCountInString(r) {
	case 1:
		if strings.Contains(r, "a") {
			return options[0]
		}
		return options[1]
	case 3:
		if strings.Contains(r, "(a)") {
			return options[0]
		}
		return options[1]
	}
	return r
}

// lineSpeakers guesses the speakers of "speaker: text" lines: meta speaker_a/speaker_b when present,
// else every prefix that opens at least three lines (a turn's own text rarely repeats one).
func lineSpeakers(rec *record.Record) map[string]bool {
	a, okA := rec.MetaString("speaker_a")
	b, okB := rec.MetaString("speaker_b")
	if okA && okB {
		return map[string]bool{a: true, b: true}
	}
	counts := map[string]int{}
	for _, p := range rec.Context {
		for _, line := range strings.Split(p.Text, "\n") {
			if sp, _, ok := strings.Cut(line, ": "); ok {
				counts[sp]++
			}
		}
	}
	out := map[string]bool{}
	for sp, n := range counts {
		if n >= 3 {
			out[sp] = true
		}
	}
	return out
}

// turnsFromLines splits "speaker: text" lines into turns; a line whose prefix is not a known speaker
// continues the previous turn's text.
func turnsFromLines(text string, speakers map[string]bool) []LoCoMoTurnData {
	var turns []LoCoMoTurnData
	for _, line := range strings.Split(text, "\n") {
		sp, t, ok := strings.Cut(line, ": ")
		if ok && speakers[sp] || len(turns) == 0 {
			if !ok {
				sp, t = "", line
			}
			turns = append(turns, LoCoMoTurnData{Speaker: sp, Text: t})
			continue
		}
		turns[len(turns)-1].Text += "\n" + line
	}
	return turns
}

// LoCoMoAdversarialAnswer is the wrong answer a category-5 question offers beside "Not mentioned in
// the conversation": str() of the record's adversarial_answer as upstream inserts it, else its
// first gold answer.
func LoCoMoAdversarialAnswer(rec *record.Record) string {
	if raw, ok := rec.Meta["adversarial_answer"]; ok {
		adv, _ := python.StrOfJSON(raw)
		return adv
	}
	if len(rec.Answers) > 0 {
		return rec.Answers[0]
	}
	return ""
}
