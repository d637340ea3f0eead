package prompt

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/record"
)

// LongMemEval template names.
const (
	LongMemEvalJudgeDefault      = "longmemeval/judge_default.txt"
	LongMemEvalJudgeTemporal     = "longmemeval/judge_temporal_reasoning.txt"
	LongMemEvalJudgeKnowledge    = "longmemeval/judge_knowledge_update.txt"
	LongMemEvalJudgePreference   = "longmemeval/judge_single_session_preference.txt"
	LongMemEvalJudgeAbstention   = "longmemeval/judge_abstention.txt"
	LongMemEvalDirect            = "longmemeval/generation_direct.txt"
	LongMemEvalCoN               = "longmemeval/generation_con.txt"
	LongMemEvalNoteRequest       = "longmemeval/generation_con_separate_note.txt"
	LongMemEvalNoRetrievalDirect = "longmemeval/generation_noretrieval_direct.txt"
	LongMemEvalNoRetrievalCoN    = "longmemeval/generation_noretrieval_con.txt"
	LongMemEvalMergeDirect       = "longmemeval/generation_merge_direct.txt"
	LongMemEvalMergeCoN          = "longmemeval/generation_merge_con.txt"
	LongMemEvalReplaceDirect     = "longmemeval/generation_replace_direct.txt"
	LongMemEvalReplaceCoN        = "longmemeval/generation_replace_con.txt"
	LongMemEvalHistorySession    = "longmemeval/history_session.txt"
	LongMemEvalHistoryTurnNL     = "longmemeval/history_turn_nl.txt"
)

// LongMemEvalJudgeTemplate returns the judge template for a question: the abstention one for an
// abstention question (upstream: "_abs" occurs in its id; see record.Abstention), else by question
// type. An unknown type is an error (upstream raises).
func LongMemEvalJudgeTemplate(abstention bool, questionType string) (*Template, error) {
	if abstention {
		return Must(LongMemEvalJudgeAbstention), nil
	}
	switch questionType {
	case "single-session-user", "single-session-assistant", "multi-session":
		return Must(LongMemEvalJudgeDefault), nil
	case "temporal-reasoning":
		return Must(LongMemEvalJudgeTemporal), nil
	case "knowledge-update":
		return Must(LongMemEvalJudgeKnowledge), nil
	case "single-session-preference":
		return Must(LongMemEvalJudgePreference), nil
	}
	return nil, fmt.Errorf("longmemeval judge: unknown question type %q (LongMemEval's are %s)%s", questionType,
		strings.Join(record.LongMemEvalTypes, ", "), english.DidYouMean(questionType, record.LongMemEvalTypes))
}

// LongMemEvalSession is one haystack session: its date string and its turns as raw JSON objects
// (key order and value types are kept, so the json history is exactly Python's json.dumps).
type LongMemEvalSession struct {
	ID    string // haystack_session_ids: what retrieval results name
	Date  string
	Turns []json.RawMessage
}

// LongMemEvalGeneration fills the direct (con false) or chain-of-note (con true) reader prompt.
func LongMemEvalGeneration(history, questionDate, question string, con bool) string {
	return readerTemplate("", con).MustFill(map[string]string{"history": history, "question_date": questionDate, "question": question})
}

// readerTemplate is the reader prompt over a history for a key expansion ("" or "none",
// "merge", "replace"), step by step (con) or direct.
func readerTemplate(keyExpansion string, con bool) *Template {
	switch {
	case keyExpansion == "merge" && con:
		return Must(LongMemEvalMergeCoN)
	case keyExpansion == "merge":
		return Must(LongMemEvalMergeDirect)
	case keyExpansion == "replace" && con:
		return Must(LongMemEvalReplaceCoN)
	case keyExpansion == "replace":
		return Must(LongMemEvalReplaceDirect)
	case con:
		return Must(LongMemEvalCoN)
	}
	return Must(LongMemEvalDirect)
}

// LongMemEvalSessions reads a LongMemEval record's haystack: passages carrying a raw "turns" list
// (date from the passage), else meta haystack_sessions with meta haystack_dates (each str() of
// it, as run_generation.py prints a date: null is None), else the passages' "role: content" text
// lines (see turnsFromText).
func LongMemEvalSessions(rec *record.Record) ([]LongMemEvalSession, error) {
	var out []LongMemEvalSession
	for i, p := range rec.Context {
		raw, ok := p.Extra["turns"]
		if !ok {
			out = nil
			break
		}
		var turns []json.RawMessage
		if err := json.Unmarshal(raw, &turns); err != nil {
			return nil, fmt.Errorf("longmemeval session %d: %w", i+1, err)
		}
		out = append(out, LongMemEvalSession{ID: p.Title, Date: p.Date, Turns: turns})
	}
	if out != nil {
		return out, nil
	}
	var sessions [][]json.RawMessage
	var dates []json.RawMessage
	if ok, err := rec.MetaValue("haystack_sessions", &sessions); ok && err == nil {
		if _, err := rec.MetaValue("haystack_dates", &dates); err != nil || len(dates) != len(sessions) {
			return nil, fmt.Errorf("longmemeval: meta.haystack_dates does not match the sessions")
		}
		var ids []string
		rec.MetaValue("haystack_session_ids", &ids)
		for i, s := range sessions {
			date, err := python.StrOfJSON(dates[i]) // as the reader prints it: null is None
			if err != nil {
				return nil, fmt.Errorf("longmemeval: meta.haystack_dates[%d]: %w", i, err)
			}
			out = append(out, LongMemEvalSession{Date: date, Turns: s})
			if i < len(ids) {
				out[i].ID = ids[i]
			}
		}
		return out, nil
	}
	for _, p := range rec.Context {
		out = append(out, LongMemEvalSession{ID: p.Title, Date: p.Date, Turns: turnsFromText(p.Text)})
	}
	return out, nil
}

// RebuiltFromText reports whether the conversation of a LoCoMo or LongMemEval record is read back
// from its passages' text: a passage carries no raw "turns" (qa-load --context text) and, for
// LongMemEval, no meta haystack_sessions stands in. The "speaker: text" lines lose what the text
// does not show, LoCoMo's image captions (its prompt's "and shared …" lines) and LongMemEval's
// has_answer marks (kept on a lone turn), and split a turn whose text holds such a line, so the
// prompt is then not the benchmark's own.
func RebuiltFromText(rec *record.Record) bool {
	if _, ok := rec.Meta["haystack_sessions"]; ok {
		return false
	}
	for _, p := range rec.Context {
		if _, ok := p.Extra["turns"]; !ok {
			return true
		}
	}
	return false
}

// turnsFromText recovers {"role", "content"} turns from a passage written as "role: content" lines
// (qa-load's LongMemEval layout). A line starting with "user: " or "assistant: " opens a turn; any
// other line continues the previous turn's content. Content that itself holds a line starting with
// "user: " or "assistant: " is split wrongly: loaders that keep the raw turns avoid this.
func turnsFromText(text string) []json.RawMessage {
	type turn struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	var turns []turn
	for _, line := range strings.Split(text, "\n") {
		role, content, ok := strings.Cut(line, ": ")
		if ok && (role == "user" || role == "assistant") || len(turns) == 0 {
			if !ok {
				role, content = "", line
			}
			turns = append(turns, turn{Role: role, Content: content})
			continue
		}
		turns[len(turns)-1].Content += "\n" + line
	}
	out := make([]json.RawMessage, len(turns))
	for i, t := range turns {
		out[i], _ = json.Marshal(t)
	}
	return out
}

// LongMemEvalPrompt renders the whole reader prompt for rec (question_date from meta; for the
// retrieval settings, the ranking from meta.retrieval_corpus_ids); cut reports that
// opt.MaxTokens cut the history. Its errors, as those of the other LongMemEval prompts of a
// record, begin "longmemeval: " and do not name the record, which the caller names (qa-predict's
// line on stderr, and the record whose error it is).
//
// Note: they named its id too, so that qa-predict said it twice: `(id "longmemeval:q1"): prompt:
// longmemeval longmemeval:q1: …`.
func LongMemEvalPrompt(rec *record.Record, opt HistoryOptions, con bool) (prompt string, cut bool, err error) {
	chunks, err := recordChunks(rec, opt)
	if err != nil {
		return "", false, err
	}
	h, err := renderChunks(chunks, opt.Format)
	if err != nil {
		return "", false, fmt.Errorf("longmemeval: %w", err)
	}
	return readerPrompt(rec, h, opt, con)
}

// recordChunks returns the history chunks opt shows of rec.
func recordChunks(rec *record.Record, opt HistoryOptions) ([]historyChunk, error) {
	sessions, err := LongMemEvalSessions(rec)
	if err != nil {
		return nil, err
	}
	var ranked *ranking
	if opt.FromRetrievalLog() {
		ranked = new(ranking)
		if _, err := rec.MetaValue(LongMemEvalRetrievalMeta, &ranked.ids); err != nil {
			return nil, fmt.Errorf("longmemeval: meta.%s: %w", LongMemEvalRetrievalMeta, err)
		}
		if _, err := rec.MetaValue(LongMemEvalRetrievalTextsMeta, &ranked.texts); err != nil {
			return nil, fmt.Errorf("longmemeval: meta.%s: %w", LongMemEvalRetrievalTextsMeta, err)
		}
	}
	chunks, err := historyChunks(sessions, ranked, opt)
	if err != nil {
		return nil, fmt.Errorf("longmemeval: %w", err)
	}
	return chunks, nil
}

// readerPrompt cuts history to opt.MaxTokens, if positive, and fills the reader prompt with it;
// without retrieval the prompt is the question alone. An empty history is an error, as
// run_generation.py asserts there is one.
func readerPrompt(rec *record.Record, history string, opt HistoryOptions, con bool) (prompt string, cut bool, err error) {
	date, err := questionDate(rec)
	if err != nil {
		return "", false, err
	}
	if opt.Retriever == RetrieverNone {
		t := Must(LongMemEvalNoRetrievalDirect)
		if con {
			t = Must(LongMemEvalNoRetrievalCoN)
		}
		return t.MustFill(map[string]string{"question": rec.Question}), false, nil
	}
	if history == "" {
		return "", false, fmt.Errorf("longmemeval: no history to show (LongMemEval's reader stops on an empty one)")
	}
	if opt.MaxTokens > 0 {
		if history, cut, err = TruncateHistory(history, opt.MaxTokens); err != nil {
			return "", false, fmt.Errorf("longmemeval: %w", err)
		}
	}
	return readerTemplate(opt.KeyExpansion, con).MustFill(map[string]string{"history": history, "question_date": date, "question": rec.Question}), cut, nil
}

// questionDate is rec's question date as run_generation.py puts it in its prompts, str() of
// entry['question_date']: a string as it is, null as None, a number as Python writes it. A
// record without meta.question_date is an error, as the script's entry['question_date'] is a
// KeyError in every reader setting, no-retrieval too (qa-load refuses such an entry).
//
// Note: rec.MetaString gave "" for a null or a number, a date upstream never shows, and for a
// missing date, on which upstream stops.
func questionDate(rec *record.Record) (string, error) {
	raw, ok := rec.Meta["question_date"]
	if !ok {
		return "", fmt.Errorf("longmemeval: no meta.question_date (LongMemEval's reader stops on an entry without one)")
	}
	date, err := python.StrOfJSON(raw)
	if err != nil {
		return "", fmt.Errorf("longmemeval: meta.question_date: %w", err)
	}
	return date, nil
}

// LongMemEval's third reading method, con-separate (run_generation.py --cot true --con true),
// first asks the model for reading notes on each history block the reader keeps (a session, or
// a turn with RetrieverTurn), one call per block in file order (max_tokens
// LongMemEvalNoteLength, the note being the reply stripped), then reads the notes in place of
// the blocks with the step-by-step prompt. The notes go into the history as JSON only:
// upstream's nl format fails on them.

// LongMemEvalNoteLength is the max_tokens of a con-separate note request.
const LongMemEvalNoteLength = 500

// LongMemEvalNote is one con-separate note request: the block's date and the prompt asking for
// its notes.
type LongMemEvalNote struct {
	Date   string
	Prompt string
	// facts is the block's retrieval text under a merge key expansion, shown beside the note.
	facts json.RawMessage
}

// LongMemEvalNotePrompts returns the note requests for the history blocks of rec that opt keeps
// (Retriever, TopK, UserOnly), in file order. Each shows its block as json.dumps of what it
// holds, whatever opt.Format says, as upstream does.
func LongMemEvalNotePrompts(rec *record.Record, opt HistoryOptions) ([]LongMemEvalNote, error) {
	chunks, err := recordChunks(rec, opt)
	if err != nil {
		return nil, err
	}
	date, err := questionDate(rec)
	if err != nil {
		return nil, err
	}
	notes := make([]LongMemEvalNote, len(chunks))
	for i, c := range chunks {
		body, err := c.entry()
		if err != nil {
			return nil, fmt.Errorf("longmemeval: history block %d: %w", i+1, err)
		}
		notes[i] = LongMemEvalNote{Date: c.date, Prompt: Must(LongMemEvalNoteRequest).MustFill(map[string]string{
			"date": c.date, "session": body, "question_date": date, "question": rec.Question})}
		if !c.replaced {
			notes[i].facts = c.expansion
		}
	}
	return notes, nil
}

// LongMemEvalNotesPrompt renders the con-separate reader prompt for rec: the history holds each
// block's note (replies[i] answers notes[i], already stripped) as {"session_summary": note} (under
// a merge, as the original session beside the block's retrieval text), the blocks sorted by date
// and cut to opt.MaxTokens like any history. It reports whether the history was cut.
func LongMemEvalNotesPrompt(rec *record.Record, notes []LongMemEvalNote, replies []string, opt HistoryOptions) (prompt string, cut bool, err error) {
	if len(replies) != len(notes) {
		return "", false, fmt.Errorf("longmemeval: %d notes for %d history blocks", len(replies), len(notes))
	}
	dates, bodies := make([]string, len(notes)), make([]string, len(notes))
	for i, n := range notes {
		note := "{\"session_summary\": " + python.JSONString(replies[i]) + "}"
		if n.facts != nil {
			facts, err := dumpsRaw(n.facts)
			if err != nil {
				return "", false, fmt.Errorf("longmemeval: %w", err)
			}
			note = "{\"session_summary_facts\": " + facts + ", \"original_session\": " + note + "}"
		}
		dates[i], bodies[i] = n.Date, "\n"+note
	}
	return readerPrompt(rec, historyBlocks(dates, bodies), opt, true)
}
