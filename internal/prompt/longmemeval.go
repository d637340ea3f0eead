package prompt

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
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
		strings.Join(longMemEvalTypes, ", "), english.DidYouMean(questionType, longMemEvalTypes))
}

// longMemEvalTypes are the question types LongMemEvalJudgeTemplate knows, as the data writes them.
var longMemEvalTypes = []string{"single-session-user", "single-session-assistant", "single-session-preference",
	"multi-session", "temporal-reasoning", "knowledge-update"}

// LongMemEvalSession is one haystack session: its date string and its turns as raw JSON objects
// (key order and value types are kept, so the json history is exactly Python's json.dumps).
type LongMemEvalSession struct {
	ID    string // haystack_session_ids: what retrieval results name
	Date  string
	Turns []json.RawMessage
}

// HistoryOptions selects how LongMemEval renders its chat history.
type HistoryOptions struct {
	// Format is "json" (the recommended default) or "nl".
	Format string
	// Retriever is what the history shows: one of the Retriever constants ("" is
	// RetrieverSession).
	Retriever string
	// TopK keeps the last TopK sessions (turns with RetrieverTurn) in file order, or the first
	// TopK retrieved blocks; 0 keeps all (the recommended 1000).
	TopK int
	// UserOnly keeps only user turns.
	UserOnly bool
	// MaxTokens, when positive, cuts the rendered history to its first MaxTokens o200k_base
	// tokens (TruncateHistory), as the reader does for GPT models.
	MaxTokens int
	// KeyExpansion is run_generation.py's merge_key_expansion_into_value: "" (or "none"),
	// "merge" (each retrieved block shown with its retrieval text, the facts or summary the
	// retrieval index was expanded with) or "replace" (the retrieval text in place of the block).
	KeyExpansion string
}

// FromRetrievalLog reports whether the history is what a retrieval log ranks (flat-session,
// flat-turn), read from the record's meta.retrieval_corpus_ids.
func (o HistoryOptions) FromRetrievalLog() bool {
	return o.Retriever == RetrieverFlatSession || o.Retriever == RetrieverFlatTurn
}

// LongMemEval readers' history sources (run_generation.py's retriever_type).
const (
	RetrieverSession     = "orig-session" // every session, one block each: the full-history-session setting
	RetrieverTurn        = "orig-turn"    // every turn, one block each: full-history-turn
	RetrieverNone        = "no-retrieval" // no history: the question alone
	RetrieverFlatSession = "flat-session" // the sessions a retrieval log ranks, best first
	RetrieverFlatTurn    = "flat-turn"    // the rounds (a turn and the next) a retrieval log ranks
	// The oracle settings read an oracle file (evidence sessions only) as orig-session and
	// orig-turn do, but keep the first TopK blocks, not the last.
	RetrieverOracleSession = "oracle-session"
	RetrieverOracleTurn    = "oracle-turn"
)

// The meta keys of a record's retrieval ranking, as qa-load keeps LongMemEval's retrieval log
// (retrieval_results.ranked_items): the corpus ids, best first, and their texts.
const (
	LongMemEvalRetrievalMeta      = "retrieval_corpus_ids"
	LongMemEvalRetrievalTextsMeta = "retrieval_texts"
)

// LongMemEvalHistory renders the {history} of the full-history settings: the sessions (or, with
// RetrieverTurn, the turns) of the record, the last TopK of them kept, stably sorted by date
// string, one history_session block each. Token truncation is left to TruncateHistory (see
// HistoryOptions.MaxTokens). The retrieval settings need a record's ranking: see
// LongMemEvalPrompt.
func LongMemEvalHistory(sessions []LongMemEvalSession, opt HistoryOptions) (string, error) {
	chunks, err := historyChunks(sessions, nil, opt)
	if err != nil {
		return "", err
	}
	return renderChunks(chunks, opt.Format)
}

// renderChunks renders chunks as the {history} in format, sorted by date.
func renderChunks(chunks []historyChunk, format string) (string, error) {
	dates, bodies := make([]string, len(chunks)), make([]string, len(chunks))
	for i, c := range chunks {
		body, err := c.body(format)
		if err != nil {
			return "", fmt.Errorf("history block %d: %w", i+1, err)
		}
		dates[i], bodies[i] = c.date, body
	}
	return historyBlocks(dates, bodies), nil
}

// historyChunk is one block of history as the reader keeps it: a list of turns (a session, or
// a round of a retrieved turn and the next), or one turn.
type historyChunk struct {
	date  string
	turns []turn
	// one is a lone turn (RetrieverTurn or RetrieverOracleTurn, or a turn id among flat-session
	// results): upstream's clean-up, which pops has_answer from the turns of each kept block,
	// loops over a lone turn's keys instead, so its has_answer stays, unless the same turn also
	// sits in a kept list (the turn objects are shared, and the pop is on them).
	one bool
	// expansion is the block's retrieval text (KeyExpansion merge or replace); replaced says the
	// block is that text alone.
	expansion json.RawMessage
	replaced  bool
}

// turn is one turn of a session: its JSON object, the role and content read from it, and where
// it is (session and turn index), which tells shared turns apart.
type turn struct {
	raw           json.RawMessage
	role, content string
	session, at   int
	hasAnswer     bool // has_answer is still on it when the history is written
}

// historyChunks returns the chunks opt's retriever shows of sessions: for the full-history ones
// the last TopK (all when 0) of every session or turn, UserOnly applied; for the retrieval ones
// the first TopK (all when 0) of what the ranked corpus ids name.
func historyChunks(sessions []LongMemEvalSession, ranked *ranking, opt HistoryOptions) ([]historyChunk, error) {
	switch opt.KeyExpansion {
	case "", "none", "merge", "replace":
	default:
		return nil, fmt.Errorf("key expansion %q: want none, merge or replace", opt.KeyExpansion)
	}
	if opt.KeyExpansion == "merge" && !opt.FromRetrievalLog() && opt.Retriever != RetrieverNone {
		return nil, fmt.Errorf("key expansion merge: needs a retrieval log's blocks, not %s (upstream fails on it)", opt.Retriever)
	}
	parsed := make([][]turn, len(sessions))
	for i, s := range sessions {
		parsed[i] = make([]turn, len(s.Turns))
		for j, raw := range s.Turns {
			var rc struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			}
			if err := json.Unmarshal(raw, &rc); err != nil {
				return nil, fmt.Errorf("session %d: %w", i+1, err)
			}
			parsed[i][j] = turn{raw: raw, role: rc.Role, content: rc.Content, session: i, at: j}
		}
	}
	userTurns := func(ts []turn) []turn {
		if !opt.UserOnly {
			return ts
		}
		var kept []turn
		for _, t := range ts {
			if t.role == "user" {
				kept = append(kept, t)
			}
		}
		return kept
	}
	var chunks []historyChunk
	switch opt.Retriever {
	case RetrieverNone:
		return nil, nil
	case "", RetrieverSession, RetrieverTurn, RetrieverOracleSession, RetrieverOracleTurn:
		for i, s := range sessions {
			kept := userTurns(parsed[i])
			if opt.Retriever != RetrieverTurn && opt.Retriever != RetrieverOracleTurn {
				chunks = append(chunks, historyChunk{date: s.Date, turns: kept})
				continue
			}
			for _, t := range kept {
				chunks = append(chunks, historyChunk{date: s.Date, turns: []turn{t}, one: true})
			}
		}
		switch {
		case opt.TopK == 0 || len(chunks) <= opt.TopK:
		case opt.Retriever == RetrieverOracleSession || opt.Retriever == RetrieverOracleTurn:
			chunks = chunks[:opt.TopK] // upstream keeps the latest only for orig-*
		default:
			chunks = chunks[len(chunks)-opt.TopK:]
		}
	case RetrieverFlatSession, RetrieverFlatTurn:
		var err error
		if chunks, err = retrievedChunks(sessions, parsed, ranked, opt, userTurns); err != nil {
			return nil, err
		}
		if opt.TopK > 0 && len(chunks) > opt.TopK {
			chunks = chunks[:opt.TopK]
		}
	default:
		return nil, fmt.Errorf("retriever %q: want %s, %s, %s, %s, %s, %s or %s", opt.Retriever, RetrieverSession,
			RetrieverTurn, RetrieverOracleSession, RetrieverOracleTurn, RetrieverFlatSession, RetrieverFlatTurn, RetrieverNone)
	}
	// The clean-up: has_answer leaves every turn of a kept list, and a lone turn keeps it unless
	// it is one of those.
	popped := map[[2]int]bool{}
	for _, c := range chunks {
		if !c.one {
			for _, t := range c.turns {
				popped[[2]int{t.session, t.at}] = true
			}
		}
	}
	for i := range chunks {
		if c := &chunks[i]; c.one {
			t := c.turns[0]
			t.hasAnswer = !popped[[2]int{t.session, t.at}]
			c.turns = []turn{t}
		}
	}
	return chunks, nil
}

// ranking is a record's retrieval log: the ranked corpus ids, best first, and their texts (nil
// when the record has none).
type ranking struct {
	ids   []string
	texts []json.RawMessage
}

// retrievedChunks returns the chunks of the ranked corpus ids, as run_generation.py's
// flat-session and flat-turn read them. Both first turn "noans_" into "answer_" in an id (the
// retrieval log's mark of an evidence session without the answer). flat-session takes the
// session (or the lone turn, for an id "<session>_<k>") the id names; an unknown id is an error
// (upstream stops with KeyError). flat-turn reads an id as "<session>_<k>" and takes turn k (from
// 1; Python's int() and negative indexing) with the next turn if there is one; an id naming no
// session or turn is skipped, as upstream skips it, and a k that is no integer is an error.
// With a key expansion each block carries the text its corpus id has in the ranking (the last
// one, if the id comes twice).
func retrievedChunks(sessions []LongMemEvalSession, parsed [][]turn, ranked *ranking, opt HistoryOptions, userTurns func([]turn) []turn) ([]historyChunk, error) {
	expand := opt.KeyExpansion == "merge" || opt.KeyExpansion == "replace"
	switch {
	case ranked == nil || ranked.ids == nil:
		return nil, fmt.Errorf("retriever %s: the record has no retrieval results (meta.%s)", opt.Retriever, LongMemEvalRetrievalMeta)
	case expand && len(ranked.texts) != len(ranked.ids):
		return nil, fmt.Errorf("key expansion %s: the record has %d retrieval texts for %d results (meta.%s; qa-load keeps them with --context full)",
			opt.KeyExpansion, len(ranked.texts), len(ranked.ids), LongMemEvalRetrievalTextsMeta)
	case opt.UserOnly && opt.Retriever == RetrieverFlatTurn && opt.KeyExpansion != "replace":
		return nil, fmt.Errorf("retriever %s: no user-only reading (upstream fails on it)", opt.Retriever)
	}
	texts := map[string]json.RawMessage{} // corpusid2retvalue
	if expand {
		for i, id := range ranked.ids {
			texts[id] = ranked.texts[i]
		}
	}
	// with completes a chunk of the ranked id as the key expansion asks.
	with := func(c historyChunk, id string) historyChunk {
		if expand {
			c.expansion = texts[id]
		}
		if opt.KeyExpansion == "replace" {
			c.turns, c.one, c.replaced = nil, false, true
		}
		return c
	}
	// corpusid2entry: a session's id names it, "<id>_<k>" its turn k; later ones overwrite.
	type ref struct{ session, at int } // at is -1 for the whole session
	index := map[string]ref{}
	for i, s := range sessions {
		index[s.ID] = ref{i, -1}
		for j := range parsed[i] {
			index[s.ID+"_"+strconv.Itoa(j+1)] = ref{i, j}
		}
	}
	var chunks []historyChunk
	for _, original := range ranked.ids {
		id := strings.ReplaceAll(original, "noans_", "answer_")
		if opt.Retriever == RetrieverFlatSession {
			r, ok := index[id]
			var c historyChunk
			switch {
			case !ok:
				return nil, fmt.Errorf("retrieval result %q names no session or turn of the record", id)
			case r.at < 0:
				c = historyChunk{date: sessions[r.session].Date, turns: userTurns(parsed[r.session])}
			case opt.UserOnly && opt.KeyExpansion != "replace":
				return nil, fmt.Errorf("retrieval result %q is a turn: user-only reading needs sessions (upstream fails on it)", id)
			default:
				c = historyChunk{date: sessions[r.session].Date, turns: []turn{parsed[r.session][r.at]}, one: true}
			}
			chunks = append(chunks, with(c, original))
			continue
		}
		cut := strings.LastIndexByte(id, '_')
		k, ok := pyInt(id[cut+1:])
		if !ok {
			return nil, fmt.Errorf("retrieval result %q: %q is no turn number (upstream stops on int())", id, id[cut+1:])
		}
		if cut < 0 {
			cut = 0 // "_".join of nothing
		}
		r, found := index[id[:cut]]
		if !found || r.at >= 0 {
			continue // no session there: upstream's except skips it
		}
		ts := parsed[r.session]
		at, ok := pyIndex(len(ts), k-1)
		if !ok {
			continue
		}
		round := []turn{ts[at]}
		if k < int64(len(ts)) { // converted_next_turn_id < len(...)
			next, _ := pyIndex(len(ts), k)
			round = append(round, ts[next])
		}
		chunks = append(chunks, with(historyChunk{date: sessions[r.session].Date, turns: round}, original))
	}
	return chunks, nil
}

// pyInt is Python's int() of s, in the range of an int64: surrounding whitespace, a sign, and
// decimal digits of any script.
func pyInt(s string) (int64, bool) {
	s = textnorm.Strip(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" {
		return 0, false
	}
	var n int64
	for _, r := range s {
		d, ok := textnorm.DecimalValue(r)
		if !ok {
			return 0, false
		}
		if n > (math.MaxInt64-int64(d))/10 {
			n = math.MaxInt64 / 2 // out of any list's range, as Python's big number would be
			continue
		}
		n = n*10 + int64(d)
	}
	if neg {
		n = -n
	}
	return n, true
}

// pyIndex is Python's list index i into a list of length n: negative counts from the end.
func pyIndex(n int, i int64) (int, bool) {
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		return 0, false
	}
	return int(i), true
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

// body renders the chunk's session content in format json (a newline, then json.dumps of what
// it holds, see entry; under a merge, of {"session_summary_facts": text, "original_session":
// entry}) or nl (each turn "role: content", content stripped, after a blank line unless the
// turn is alone; under a merge, after "\n\nSession summary and facts:" and the text). A
// replaced block has no nl form: upstream fails on it.
func (c historyChunk) body(format string) (string, error) {
	entry, err := c.entry()
	if err != nil {
		return "", err
	}
	merged := c.expansion != nil && !c.replaced
	switch format {
	case "nl":
		var b strings.Builder
		if merged {
			v, err := python.Loads(string(c.expansion))
			if err != nil || v.Kind != python.Str {
				return "", fmt.Errorf("nl history: the retrieval text %.40s is no string (upstream fails on it)", c.expansion)
			}
			b.WriteString("\n\nSession summary and facts:" + v.S)
		}
		if c.replaced {
			return "", errors.New("nl history: a replaced block is a retrieval text, not turns (upstream fails on it)")
		}
		var turns strings.Builder
		for _, t := range c.turns {
			turns.WriteString(Must(LongMemEvalHistoryTurnNL).MustFill(map[string]string{"role": t.role, "content": textnorm.Strip(t.content)}))
		}
		if c.one {
			b.WriteString(strings.TrimPrefix(turns.String(), "\n\n"))
		} else {
			b.WriteString(turns.String())
		}
		return b.String(), nil
	case "", "json":
		if merged {
			facts, err := dumpsRaw(c.expansion)
			if err != nil {
				return "", err
			}
			return "\n{\"session_summary_facts\": " + facts + ", \"original_session\": " + entry + "}", nil
		}
		return "\n" + entry, nil
	}
	return "", fmt.Errorf("history format %q: want json or nl", format)
}

// entry is json.dumps of what the chunk holds: its turn list, has_answer dropped; its lone turn,
// has_answer kept unless a kept list shares the turn; or, replaced, its retrieval text.
func (c historyChunk) entry() (string, error) {
	if c.replaced {
		return replacedEntry(c.expansion)
	}
	parts := make([]string, len(c.turns))
	for i, t := range c.turns {
		v, err := python.Loads(string(t.raw))
		if err != nil {
			return "", fmt.Errorf("json.loads: %w", err)
		}
		if c.one && t.hasAnswer {
			return v.Dumps(), nil
		}
		if c.one {
			return v.Without("has_answer").Dumps(), nil
		}
		parts[i] = v.Without("has_answer").Dumps()
	}
	return "[" + strings.Join(parts, ", ") + "]", nil
}

// replacedEntry is json.dumps of a replaced block's retrieval text after upstream's clean-up,
// which loops over the block as over a session's turns: a list's dicts lose has_answer, a
// string or dict is left as it is, and a number, boolean or null stops the script (TypeError,
// then a failed unpacking), so it is an error here.
func replacedEntry(raw json.RawMessage) (string, error) {
	v, err := python.Loads(string(raw))
	if err != nil {
		return "", fmt.Errorf("json.loads: %w", err)
	}
	switch v.Kind {
	case python.List:
		items := make([]python.Value, len(v.Items))
		for i, it := range v.Items {
			items[i] = it
			if it.Kind == python.Dict {
				items[i] = it.Without("has_answer")
			}
		}
		v.Items = items
	case python.Str, python.Dict:
	default:
		return "", fmt.Errorf("the retrieval text %.40s is neither a string, a list nor a dict (upstream fails on it)", raw)
	}
	return v.Dumps(), nil
}

// dumpsRaw is json.dumps of the value raw holds.
func dumpsRaw(raw json.RawMessage) (string, error) {
	v, err := python.Loads(string(raw))
	if err != nil {
		return "", fmt.Errorf("json.loads: %w", err)
	}
	return v.Dumps(), nil
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
