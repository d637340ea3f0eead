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
	LongMemEvalJudgeDefault    = "longmemeval/judge_default.txt"
	LongMemEvalJudgeTemporal   = "longmemeval/judge_temporal_reasoning.txt"
	LongMemEvalJudgeKnowledge  = "longmemeval/judge_knowledge_update.txt"
	LongMemEvalJudgePreference = "longmemeval/judge_single_session_preference.txt"
	LongMemEvalJudgeAbstention = "longmemeval/judge_abstention.txt"
	LongMemEvalDirect          = "longmemeval/generation_direct.txt"
	LongMemEvalCoN             = "longmemeval/generation_con.txt"
	LongMemEvalHistorySession  = "longmemeval/history_session.txt"
	LongMemEvalHistoryTurnNL   = "longmemeval/history_turn_nl.txt"
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
	// TopK keeps the last TopK sessions in file order; 0 keeps all (the recommended 1000).
	TopK int
	// UserOnly keeps only user turns.
	UserOnly bool
	// MaxTokens, when positive, cuts the rendered history to its first MaxTokens o200k_base
	// tokens (TruncateHistory), as the reader does for GPT models.
	MaxTokens int
}

// LongMemEvalHistory renders the {history} of the orig-session / full-history setting: the last TopK
// sessions, has_answer dropped, stably sorted by date string, one history_session block each.
// Token truncation is left to TruncateHistory (see HistoryOptions.MaxTokens).
func LongMemEvalHistory(sessions []LongMemEvalSession, opt HistoryOptions) (string, error) {
	if opt.TopK > 0 && len(sessions) > opt.TopK {
		sessions = sessions[len(sessions)-opt.TopK:]
	}
	sorted := make([]LongMemEvalSession, len(sessions))
	copy(sorted, sessions)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Date < sorted[j].Date })
	block := Must(LongMemEvalHistorySession)
	var b strings.Builder
	for i, s := range sorted {
		body, err := longMemEvalSessionBody(s.Turns, opt)
		if err != nil {
			return "", fmt.Errorf("session %d: %w", i+1, err)
		}
		b.WriteString(block.MustFill(map[string]string{"index": fmt.Sprint(i + 1), "date": s.Date, "session": body}))
	}
	return b.String(), nil
}

func longMemEvalSessionBody(turns []json.RawMessage, opt HistoryOptions) (string, error) {
	kept := make([]json.RawMessage, 0, len(turns))
	var nl strings.Builder
	for _, t := range turns {
		var rc struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal(t, &rc); err != nil {
			return "", err
		}
		if opt.UserOnly && rc.Role != "user" {
			continue
		}
		kept = append(kept, t)
		nl.WriteString(Must(LongMemEvalHistoryTurnNL).MustFill(map[string]string{"role": rc.Role, "content": textnorm.Strip(rc.Content)}))
	}
	if opt.Format == "nl" {
		return nl.String(), nil
	}
	if opt.Format != "" && opt.Format != "json" {
		return "", fmt.Errorf("history format %q: want json or nl", opt.Format)
	}
	parts := make([]string, len(kept))
	for i, t := range kept {
		v, err := python.Loads(string(t))
		if err != nil {
			return "", fmt.Errorf("json.loads: %w", err)
		}
		parts[i] = v.Without("has_answer").Dumps()
	}
	return "\n[" + strings.Join(parts, ", ") + "]", nil
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
	if err == nil && opt.MaxTokens > 0 {
		h, cut, err = TruncateHistory(h, opt.MaxTokens)
	}
	if err != nil {
		return "", false, fmt.Errorf("longmemeval %s: %w", rec.ID, err)
	}
	date, _ := rec.MetaString("question_date")
	return LongMemEvalGeneration(h, date, rec.Question, con), cut, nil
}
