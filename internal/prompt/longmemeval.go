package prompt

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
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
	LongMemEvalHistorySession    = "longmemeval/history_session.txt"
	LongMemEvalHistoryTurnNL     = "longmemeval/history_turn_nl.txt"
)

// LongMemEvalJudgeTemplate returns the judge template for a question: abstention whenever "_abs"
// occurs in its id, else by question type. An unknown type is an error (upstream raises).
func LongMemEvalJudgeTemplate(questionID, questionType string) (*Template, error) {
	if strings.Contains(questionID, "_abs") {
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
	return nil, fmt.Errorf("longmemeval judge: unknown question type %q", questionType)
}

// LongMemEvalSession is one haystack session: its date string and its turns as raw JSON objects
// (key order and value types are kept, so the json history is exactly Python's json.dumps).
type LongMemEvalSession struct {
	Date  string
	Turns []json.RawMessage
}

// HistoryOptions selects how LongMemEval renders its chat history.
type HistoryOptions struct {
	// Format is "json" (the recommended default) or "nl".
	Format string
	// Retriever is what the history shows: RetrieverSession (also ""), RetrieverTurn or
	// RetrieverNone.
	Retriever string
	// TopK keeps the last TopK sessions (turns with RetrieverTurn) in file order; 0 keeps all
	// (the recommended 1000).
	TopK int
	// UserOnly keeps only user turns.
	UserOnly bool
	// MaxTokens, when positive, cuts the rendered history to its first MaxTokens o200k_base
	// tokens (TruncateHistory), as the reader does for GPT models.
	MaxTokens int
}

// LongMemEval readers' history sources (run_generation.py's retriever_type).
const (
	RetrieverSession = "orig-session" // every session, one block each: the full-history-session setting
	RetrieverTurn    = "orig-turn"    // every turn, one block each: full-history-turn
	RetrieverNone    = "no-retrieval" // no history: the question alone
)

// LongMemEvalHistory renders the {history} of the full-history settings: the sessions (or, with
// RetrieverTurn, the turns) of the record, the last TopK of them kept, stably sorted by date
// string, one history_session block each. Token truncation is left to TruncateHistory (see
// HistoryOptions.MaxTokens).
func LongMemEvalHistory(sessions []LongMemEvalSession, opt HistoryOptions) (string, error) {
	chunks, err := historyChunks(sessions, opt)
	if err != nil {
		return "", err
	}
	dates, bodies := make([]string, len(chunks)), make([]string, len(chunks))
	for i, c := range chunks {
		body, err := c.body(opt.Format)
		if err != nil {
			return "", fmt.Errorf("history block %d: %w", i+1, err)
		}
		dates[i], bodies[i] = c.date, body
	}
	return historyBlocks(dates, bodies), nil
}

// historyChunk is one block of history as the reader keeps it: a session's turns, or one turn.
type historyChunk struct {
	date  string
	turns []turn
	// one is a single turn (RetrieverTurn). Its has_answer stays in the json history: upstream's
	// clean-up loops over a chunk's turns, and over a lone turn that loop meets only its keys.
	one bool
}

// turn is one turn of a session: its JSON object and the role and content read from it.
type turn struct {
	raw           json.RawMessage
	role, content string
}

// historyChunks returns the chunks opt's retriever shows of sessions, UserOnly applied, the last
// TopK kept (all when TopK is 0).
func historyChunks(sessions []LongMemEvalSession, opt HistoryOptions) ([]historyChunk, error) {
	var chunks []historyChunk
	switch opt.Retriever {
	case RetrieverNone:
		return nil, nil
	case "", RetrieverSession, RetrieverTurn:
	default:
		return nil, fmt.Errorf("retriever %q: want %s, %s or %s", opt.Retriever, RetrieverSession, RetrieverTurn, RetrieverNone)
	}
	for i, s := range sessions {
		var kept []turn
		for _, raw := range s.Turns {
			var rc struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			}
			if err := json.Unmarshal(raw, &rc); err != nil {
				return nil, fmt.Errorf("session %d: %w", i+1, err)
			}
			if opt.UserOnly && rc.Role != "user" {
				continue
			}
			kept = append(kept, turn{raw, rc.Role, rc.Content})
		}
		if opt.Retriever != RetrieverTurn {
			chunks = append(chunks, historyChunk{date: s.Date, turns: kept})
			continue
		}
		for _, t := range kept {
			chunks = append(chunks, historyChunk{date: s.Date, turns: []turn{t}, one: true})
		}
	}
	if opt.TopK > 0 && len(chunks) > opt.TopK {
		chunks = chunks[len(chunks)-opt.TopK:]
	}
	return chunks, nil
}

// historyBlocks renders one history_session block per chunk body, the chunks stably sorted by
// their date strings as run_generation.py sorts them.
func historyBlocks(dates, bodies []string) string {
	order := make([]int, len(dates))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return dates[order[i]] < dates[order[j]] })
	block := Must(LongMemEvalHistorySession)
	var b strings.Builder
	for i, k := range order {
		b.WriteString(block.MustFill(map[string]string{"index": fmt.Sprint(i + 1), "date": dates[k], "session": bodies[k]}))
	}
	return b.String()
}

// body renders the chunk's session content in format json (a newline, then json.dumps of the
// turn list, has_answer dropped, or of the lone turn as it is) or nl (each turn "role: content",
// content stripped, after a blank line unless the turn is alone).
func (c historyChunk) body(format string) (string, error) {
	switch format {
	case "nl":
		var b strings.Builder
		for _, t := range c.turns {
			b.WriteString(Must(LongMemEvalHistoryTurnNL).MustFill(map[string]string{"role": t.role, "content": textnorm.Strip(t.content)}))
		}
		if c.one {
			return strings.TrimPrefix(b.String(), "\n\n"), nil
		}
		return b.String(), nil
	case "", "json":
		s, err := c.dumps()
		return "\n" + s, err
	}
	return "", fmt.Errorf("history format %q: want json or nl", format)
}

// dumps is json.dumps of what the chunk holds: its turn list, has_answer dropped, or its lone
// turn as it is.
func (c historyChunk) dumps() (string, error) {
	parts := make([]string, len(c.turns))
	for i, t := range c.turns {
		v, err := python.Loads(string(t.raw))
		if err != nil {
			return "", fmt.Errorf("json.loads: %w", err)
		}
		if c.one {
			return v.Dumps(), nil
		}
		parts[i] = v.Without("has_answer").Dumps()
	}
	return "[" + strings.Join(parts, ", ") + "]", nil
}

// LongMemEvalGeneration fills the direct (con false) or chain-of-note (con true) reader prompt.
func LongMemEvalGeneration(history, questionDate, question string, con bool) string {
	t := Must(LongMemEvalDirect)
	if con {
		t = Must(LongMemEvalCoN)
	}
	return t.MustFill(map[string]string{"history": history, "question_date": questionDate, "question": question})
}

// LongMemEvalSessions reads a LongMemEval record's haystack: passages carrying a raw "turns" list
// (date from the passage), else meta haystack_sessions with meta haystack_dates, else the passages'
// "role: content" text lines (see turnsFromText).
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
		out = append(out, LongMemEvalSession{Date: p.Date, Turns: turns})
	}
	if out != nil {
		return out, nil
	}
	var sessions [][]json.RawMessage
	var dates []string
	if ok, err := rec.MetaValue("haystack_sessions", &sessions); ok && err == nil {
		if _, err := rec.MetaValue("haystack_dates", &dates); err != nil || len(dates) != len(sessions) {
			return nil, fmt.Errorf("longmemeval %s: meta.haystack_dates does not match the sessions", rec.ID)
		}
		for i, s := range sessions {
			out = append(out, LongMemEvalSession{Date: dates[i], Turns: s})
		}
		return out, nil
	}
	for _, p := range rec.Context {
		out = append(out, LongMemEvalSession{Date: p.Date, Turns: turnsFromText(p.Text)})
	}
	return out, nil
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

// LongMemEvalPrompt renders the whole reader prompt for rec (question_date from meta); cut reports
// that opt.MaxTokens cut the history.
func LongMemEvalPrompt(rec *record.Record, opt HistoryOptions, con bool) (prompt string, cut bool, err error) {
	sessions, err := LongMemEvalSessions(rec)
	if err != nil {
		return "", false, err
	}
	h, err := LongMemEvalHistory(sessions, opt)
	if err != nil {
		return "", false, fmt.Errorf("longmemeval %s: %w", rec.ID, err)
	}
	return readerPrompt(rec, h, opt, con)
}

// readerPrompt cuts history to opt.MaxTokens, if positive, and fills the reader prompt with it;
// without retrieval the prompt is the question alone. An empty history is an error, as
// run_generation.py asserts there is one.
func readerPrompt(rec *record.Record, history string, opt HistoryOptions, con bool) (prompt string, cut bool, err error) {
	if opt.Retriever == RetrieverNone {
		t := Must(LongMemEvalNoRetrievalDirect)
		if con {
			t = Must(LongMemEvalNoRetrievalCoN)
		}
		return t.MustFill(map[string]string{"question": rec.Question}), false, nil
	}
	if history == "" {
		return "", false, fmt.Errorf("longmemeval %s: no history to show (LongMemEval's reader stops on an empty one)", rec.ID)
	}
	if opt.MaxTokens > 0 {
		if history, cut, err = TruncateHistory(history, opt.MaxTokens); err != nil {
			return "", false, fmt.Errorf("longmemeval %s: %w", rec.ID, err)
		}
	}
	date, _ := rec.MetaString("question_date")
	return LongMemEvalGeneration(history, date, rec.Question, con), cut, nil
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
}

// LongMemEvalNotePrompts returns the note requests for the history blocks of rec that opt keeps
// (Retriever, TopK, UserOnly), in file order. Each shows its block as json.dumps of what it
// holds, whatever opt.Format says, as upstream does.
func LongMemEvalNotePrompts(rec *record.Record, opt HistoryOptions) ([]LongMemEvalNote, error) {
	sessions, err := LongMemEvalSessions(rec)
	if err != nil {
		return nil, err
	}
	chunks, err := historyChunks(sessions, opt)
	if err != nil {
		return nil, fmt.Errorf("longmemeval %s: %w", rec.ID, err)
	}
	date, _ := rec.MetaString("question_date")
	notes := make([]LongMemEvalNote, len(chunks))
	for i, c := range chunks {
		body, err := c.dumps()
		if err != nil {
			return nil, fmt.Errorf("longmemeval %s: history block %d: %w", rec.ID, i+1, err)
		}
		notes[i] = LongMemEvalNote{Date: c.date, Prompt: Must(LongMemEvalNoteRequest).MustFill(map[string]string{
			"date": c.date, "session": body, "question_date": date, "question": rec.Question})}
	}
	return notes, nil
}

// LongMemEvalNotesPrompt renders the con-separate reader prompt for rec: the history holds each
// session's note (replies[i] answers notes[i], already stripped) as {"session_summary": note},
// the sessions sorted by date and cut to opt.MaxTokens like any history. It reports whether the
// history was cut.
func LongMemEvalNotesPrompt(rec *record.Record, notes []LongMemEvalNote, replies []string, opt HistoryOptions) (prompt string, cut bool, err error) {
	if len(replies) != len(notes) {
		return "", false, fmt.Errorf("longmemeval %s: %d notes for %d sessions", rec.ID, len(replies), len(notes))
	}
	dates, bodies := make([]string, len(notes)), make([]string, len(notes))
	for i, n := range notes {
		dates[i], bodies[i] = n.Date, "\n{\"session_summary\": "+python.JSONString(replies[i])+"}"
	}
	return readerPrompt(rec, historyBlocks(dates, bodies), opt, true)
}
