package prompt

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

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
	if err := checkKeyExpansion(opt); err != nil {
		return nil, err
	}
	parsed, err := parseTurns(sessions)
	if err != nil {
		return nil, err
	}
	userTurns := func(ts []turn) []turn { return keepTurns(ts, opt.UserOnly) }
	var chunks []historyChunk
	switch opt.Retriever {
	case RetrieverNone:
		return nil, nil
	case "", RetrieverSession, RetrieverTurn, RetrieverOracleSession, RetrieverOracleTurn:
		chunks = fullHistoryChunks(sessions, parsed, opt, userTurns)
	case RetrieverFlatSession, RetrieverFlatTurn:
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
	markAnswers(chunks)
	return chunks, nil
}

// checkKeyExpansion refuses a key expansion that is not none, merge or replace, and merge over
// blocks that no retrieval log gave.
func checkKeyExpansion(opt HistoryOptions) error {
	switch opt.KeyExpansion {
	case "", "none", "merge", "replace":
	default:
		return fmt.Errorf("key expansion %q: want none, merge or replace", opt.KeyExpansion)
	}
	if opt.KeyExpansion == "merge" && !opt.FromRetrievalLog() && opt.Retriever != RetrieverNone {
		return fmt.Errorf("key expansion merge: needs a retrieval log's blocks, not %s (upstream fails on it)", opt.Retriever)
	}
	return nil
}

// parseTurns reads the role and content of every turn of sessions, by session. The keys are
// matched exactly, the last of a repeated one kept, as json.loads and run_generation.py's
// turn["role"] read them: a struct's fields would also take "Role" or "CONTENT", and the last of
// the keys of either case.
func parseTurns(sessions []LongMemEvalSession) ([][]turn, error) {
	parsed := make([][]turn, len(sessions))
	for i, s := range sessions {
		parsed[i] = make([]turn, len(s.Turns))
		for j, raw := range s.Turns {
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(raw, &keys); err != nil {
				return nil, fmt.Errorf("session %d, turn %d: %s, not an object", i+1, j+1, record.Kind(raw))
			}
			t := turn{raw: raw, session: i, at: j}
			for _, k := range []struct {
				key string
				v   *string
			}{{"role", &t.role}, {"content", &t.content}} {
				if m, ok := keys[k.key]; ok {
					if err := json.Unmarshal(m, k.v); err != nil {
						return nil, fmt.Errorf("session %d, turn %d: %s is %s, not a string", i+1, j+1, k.key, record.Kind(m))
					}
				}
			}
			parsed[i][j] = t
		}
	}
	return parsed, nil
}

// keepTurns returns ts, or with userOnly the user's turns among them.
func keepTurns(ts []turn, userOnly bool) []turn {
	if !userOnly {
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

// fullHistoryChunks returns the chunks of a full-history or oracle retriever: every session, or
// every turn, of sessions (parsed, kept by userTurns), cut to the last TopK, or for an oracle
// retriever the first TopK.
func fullHistoryChunks(sessions []LongMemEvalSession, parsed [][]turn, opt HistoryOptions, userTurns func([]turn) []turn) []historyChunk {
	var chunks []historyChunk
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
	return chunks
}

// markAnswers does upstream's clean-up: has_answer leaves every turn of a kept list, and a lone
// turn keeps it unless it is one of those.
func markAnswers(chunks []historyChunk) {
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
