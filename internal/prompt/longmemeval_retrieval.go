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
