package prompt

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

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
	if err := checkRanking(ranked, opt, expand); err != nil {
		return nil, err
	}
	rv := newRetrieval(sessions, parsed, ranked, opt, userTurns, expand)
	var chunks []historyChunk
	for _, original := range ranked.ids {
		id := strings.ReplaceAll(original, "noans_", "answer_")
		if opt.Retriever == RetrieverFlatSession {
			c, err := rv.sessionChunk(id)
			if err != nil {
				return nil, err
			}
			chunks = append(chunks, rv.with(c, original))
			continue
		}
		c, ok, err := rv.turnChunk(id)
		if err != nil {
			return nil, err
		}
		if ok {
			chunks = append(chunks, rv.with(c, original))
		}
	}
	return chunks, nil
}

// checkRanking refuses a record without a ranking, one without the texts a key expansion
// (expand) reads, and a user-only flat-turn reading, on which upstream fails.
func checkRanking(ranked *ranking, opt HistoryOptions, expand bool) error {
	switch {
	case ranked == nil || ranked.ids == nil:
		return fmt.Errorf("retriever %s: the record has no retrieval results (meta.%s)", opt.Retriever, LongMemEvalRetrievalMeta)
	case expand && len(ranked.texts) != len(ranked.ids):
		return fmt.Errorf("key expansion %s: the record has %d retrieval texts for %d results (meta.%s; qa-load keeps them with --context full)",
			opt.KeyExpansion, len(ranked.texts), len(ranked.ids), LongMemEvalRetrievalTextsMeta)
	case opt.UserOnly && opt.Retriever == RetrieverFlatTurn && opt.KeyExpansion != "replace":
		return fmt.Errorf("retriever %s: no user-only reading (upstream fails on it)", opt.Retriever)
	}
	return nil
}

// retrieval is what retrievedChunks looks the ranked ids up in: the record's sessions and
// their parsed turns, by corpus id, and the retrieval text of each id for a key expansion.
type retrieval struct {
	sessions  []LongMemEvalSession
	parsed    [][]turn
	opt       HistoryOptions
	userTurns func([]turn) []turn
	expand    bool
	texts     map[string]json.RawMessage // corpusid2retvalue
	index     map[string]corpusRef       // corpusid2entry
}

// corpusRef is what a corpus id names: a session, or its turn at (-1 for the whole session).
type corpusRef struct{ session, at int }

// newRetrieval indexes sessions and, with expand, the texts of ranked by corpus id.
func newRetrieval(sessions []LongMemEvalSession, parsed [][]turn, ranked *ranking, opt HistoryOptions, userTurns func([]turn) []turn, expand bool) *retrieval {
	rv := &retrieval{sessions: sessions, parsed: parsed, opt: opt, userTurns: userTurns, expand: expand,
		texts: map[string]json.RawMessage{}, index: map[string]corpusRef{}}
	if expand {
		for i, id := range ranked.ids {
			rv.texts[id] = ranked.texts[i]
		}
	}
	// corpusid2entry: a session's id names it, "<id>_<k>" its turn k; later ones overwrite.
	for i, s := range sessions {
		rv.index[s.ID] = corpusRef{i, -1}
		for j := range parsed[i] {
			rv.index[s.ID+"_"+strconv.Itoa(j+1)] = corpusRef{i, j}
		}
	}
	return rv
}

// with completes a chunk of the ranked id as the key expansion asks.
func (rv *retrieval) with(c historyChunk, id string) historyChunk {
	if rv.expand {
		c.expansion = rv.texts[id]
	}
	if rv.opt.KeyExpansion == "replace" {
		c.turns, c.one, c.replaced = nil, false, true
	}
	return c
}

// sessionChunk is flat-session's chunk of id: the session it names, or its lone turn; an id that
// names neither is an error.
func (rv *retrieval) sessionChunk(id string) (historyChunk, error) {
	r, ok := rv.index[id]
	switch {
	case !ok:
		return historyChunk{}, fmt.Errorf("retrieval result %q names no session or turn of the record", id)
	case r.at < 0:
		return historyChunk{date: rv.sessions[r.session].Date, turns: rv.userTurns(rv.parsed[r.session])}, nil
	case rv.opt.UserOnly && rv.opt.KeyExpansion != "replace":
		return historyChunk{}, fmt.Errorf("retrieval result %q is a turn: user-only reading needs sessions (upstream fails on it)", id)
	}
	return historyChunk{date: rv.sessions[r.session].Date, turns: []turn{rv.parsed[r.session][r.at]}, one: true}, nil
}

// turnChunk is flat-turn's chunk of id, "<session>_<k>": turn k of the session with the next
// turn if there is one. It reports false for an id naming no session or turn, which upstream
// skips; a k that is no integer is an error.
func (rv *retrieval) turnChunk(id string) (historyChunk, bool, error) {
	cut := strings.LastIndexByte(id, '_')
	k, ok := pyInt(id[cut+1:])
	if !ok {
		return historyChunk{}, false, fmt.Errorf("retrieval result %q: %q is no turn number (upstream stops on int())", id, id[cut+1:])
	}
	if cut < 0 {
		cut = 0 // "_".join of nothing
	}
	r, found := rv.index[id[:cut]]
	if !found || r.at >= 0 {
		return historyChunk{}, false, nil // no session there: upstream's except skips it
	}
	ts := rv.parsed[r.session]
	at, ok := pyIndex(len(ts), k-1)
	if !ok {
		return historyChunk{}, false, nil
	}
	round := []turn{ts[at]}
	if k < int64(len(ts)) { // converted_next_turn_id < len(...)
		next, _ := pyIndex(len(ts), k)
		round = append(round, ts[next])
	}
	return historyChunk{date: rv.sessions[r.session].Date, turns: round}, true, nil
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
