package load

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/python"

	"github.com/qapipe/qapipe/pkg/record"
)

type longMemEvalItem struct {
	QuestionID         string    `json:"question_id"`
	QuestionType       string    `json:"question_type"`
	Question           *string   `json:"question"`
	Answer             jsonRaw   `json:"answer"`
	QuestionDate       jsonRaw   `json:"question_date"`
	HaystackSessionIDs []*string `json:"haystack_session_ids"`
	HaystackDates      []jsonRaw `json:"haystack_dates"`
	HaystackSessions   []jsonRaw `json:"haystack_sessions"`
	AnswerSessionIDs   jsonRaw   `json:"answer_session_ids"`
	// RetrievalResults is what LongMemEval's retrieval script adds to an entry: its ranking.
	RetrievalResults *struct {
		RankedItems []struct {
			CorpusID string  `json:"corpus_id"`
			Text     jsonRaw `json:"text"`
		} `json:"ranked_items"`
	} `json:"retrieval_results"`
}

// longMemEvalKeys are the members of a LongMemEval item that its format reads.
var longMemEvalKeys = jsonKeys(longMemEvalItem{})

type longMemEvalTurn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// LongMemEval loads LongMemEval s, m and oracle files (JSON arrays of 0.3–3 GB), streaming them
// item by item. One record per question, id longmemeval:<question_id>, type the official
// question_type. Each haystack session is a passage titled with its session id, dated with its
// haystack date (str() of it, as run_generation.py prints it: null is None), with one
// `role: content` line per turn; its extra field "turns" keeps the turn
// list verbatim (with has_answer), as the reader prompts print it. A question_id holding _abs
// anywhere is an abstention question (print_qa_metrics.py's test): meta.abstention is true and the
// type stays the official one. A non-string answer becomes str() of it, as evaluate_qa.py inserts
// it in the judge prompt (3.0 → "3.0", a list → its repr), a list or an object kept in meta.answer.
// An entry without question_date is a bad item: LongMemEval's reader and retrieval scripts fail on
// it (KeyError). question_date (as it is, null too), haystack_session_ids, haystack_dates and
// answer_session_ids go to meta (those present). The haystack lists are parallel: an entry with sessions whose dates (or session ids,
// when given) are not as many is a bad item. An entry
// of a retrieval log (LongMemEval's run_retrieval.py output) keeps its ranking: the ranked items'
// corpus ids, best first, as meta.retrieval_corpus_ids, and their texts (JSON values as they are)
// as meta.retrieval_texts; the metrics are left out.
func LongMemEval(in Input, opt Options, emit Emit) error {
	return eachItem(in, opt, emit, itemID("longmemeval:", "question_id"), func(raw jsonRaw, line int, emit Emit) error {
		var it longMemEvalItem
		if err := decodeRecord(in, line, "longmemeval:", "question_id", raw, &it); err != nil {
			return emit(nil, 0, err)
		}
		rec, bad := longMemEvalRecord(in, line, raw, &it)
		if bad == nil {
			if err := keepUnknown(rec, raw, longMemEvalKeys); err != nil {
				rec, bad = nil, badf(in, line, rec.ID, "%v", err)
			}
		}
		return emit(rec, line, bad)
	})
}

// longMemEvalRecord makes the record of it, the item at line of in (raw its JSON).
func longMemEvalRecord(in Input, line int, raw jsonRaw, it *longMemEvalItem) (*record.Record, error) {
	if it.QuestionID == "" {
		return nil, badf(in, line, "", "%v", noID(raw, "question_id"))
	}
	id := "longmemeval:" + it.QuestionID
	answer, err := checkLongMemEvalItem(in, line, raw, id, it)
	if err != nil {
		return nil, err
	}
	rec := newRecord(id, "longmemeval", "en")
	rec.Type = it.QuestionType
	rec.Question = *it.Question
	rec.Answers = []string{answer}
	if rec.Context, err = longMemEvalHaystack(in, line, id, it); err != nil {
		return nil, err
	}
	if err := setLongMemEvalMeta(rec, it); err != nil {
		return nil, badf(in, line, id, "%v", err)
	}
	if strings.Contains(it.QuestionID, "_abs") {
		setMeta(rec, "abstention", []byte("true"))
	}
	return rec, nil
}

// checkLongMemEvalItem checks that it, the item id at line of in (raw its JSON), has a question,
// an answer and a question_date, and returns the answer as the judge's prompt gives it
// (longMemEvalAnswer).
func checkLongMemEvalItem(in Input, line int, raw jsonRaw, id string, it *longMemEvalItem) (string, error) {
	if it.Question == nil {
		return "", badf(in, line, id, "%v", noQuestion(raw, "question"))
	}
	answer, ok := longMemEvalAnswer(it.Answer)
	switch {
	case len(trimSpace(it.Answer)) == 0:
		return "", badf(in, line, id, "%v", missingField("answer"))
	case !ok:
		// what str() is read from; true and false are read too, but no dataset holds one
		return "", badf(in, line, id, "%v", wrongKind("answer", "a string, a number, a list or an object", it.Answer))
	case len(trimSpace(it.QuestionDate)) == 0:
		// run_generation.py reads entry['question_date'] in every reader setting, outside its
		// try (a KeyError that ends the run), as run_retrieval.py does; null is str()'d ("None")
		return "", badf(in, line, id, "%v", missingField("question_date"))
	}
	return answer, nil
}

// longMemEvalHaystack returns the passages of it's haystack sessions, the item id at line of in,
// each with its session id and date.
func longMemEvalHaystack(in Input, line int, id string, it *longMemEvalItem) ([]record.Passage, error) {
	var ctx []record.Passage
	if n := len(it.HaystackSessions); n > 0 && (len(it.HaystackDates) != n || it.HaystackSessionIDs != nil && len(it.HaystackSessionIDs) != n) {
		// the lists are parallel: a session without its date or id would be misplaced in time
		return nil, badf(in, line, id, "%s, %s and %s: the haystack lists differ in length",
			english.Count(n, "haystack session", "haystack sessions"),
			english.Count(len(it.HaystackDates), "haystack date", "haystack dates"),
			english.Count(len(it.HaystackSessionIDs), "haystack session id", "haystack session ids"))
	}
	for i, sid := range it.HaystackSessionIDs {
		if sid == nil {
			// the retrieval and generation scripts match these ids to answer_session_ids
			return nil, badf(in, line, id, "haystack session id %d: want a string, got null", i+1)
		}
	}
	for i, raw := range it.HaystackSessions {
		sess, err := longMemEvalSession(raw)
		if err != nil {
			return nil, badf(in, line, id, "haystack session %d%v", i+1, err)
		}
		p := record.Passage{Text: sessionText(sess), Extra: map[string]jsonRaw{"turns": compact(raw)}}
		if i < len(it.HaystackSessionIDs) {
			p.Title = *it.HaystackSessionIDs[i]
		}
		if i < len(it.HaystackDates) {
			// as run_generation.py prints a session's date, str() of it: null is None
			if p.Date, err = python.StrOfJSON(it.HaystackDates[i]); err != nil {
				return nil, badf(in, line, id, "haystack date %d: %v", i+1, err)
			}
		}
		ctx = append(ctx, p)
	}
	return ctx, nil
}

// setLongMemEvalMeta keeps in rec's meta what of it the record's fields do not hold: a list or
// object answer, the question date, the haystack ids and dates, the answer sessions and the
// retrieval log.
func setLongMemEvalMeta(rec *record.Record, it *longMemEvalItem) error {
	if a := trimSpace(it.Answer); a[0] == '[' || a[0] == '{' {
		setMeta(rec, "answer", a) // the items, which the judge's text does not give back
	}
	setMeta(rec, "question_date", it.QuestionDate)
	// The lists as they came, dates that are not strings (null) too; absent (or null), no meta
	// member, rather than a null one.
	if it.HaystackSessionIDs != nil {
		if err := rec.SetMeta("haystack_session_ids", it.HaystackSessionIDs); err != nil {
			return err
		}
	}
	if it.HaystackDates != nil {
		dates := make([]jsonRaw, len(it.HaystackDates))
		for i, d := range it.HaystackDates {
			dates[i] = compact(d)
		}
		if err := rec.SetMeta("haystack_dates", dates); err != nil {
			return err
		}
	}
	setMeta(rec, "answer_session_ids", it.AnswerSessionIDs)
	if r := it.RetrievalResults; r != nil {
		ids := make([]string, len(r.RankedItems))
		texts := make([]jsonRaw, len(r.RankedItems))
		for i, item := range r.RankedItems {
			ids[i], texts[i] = item.CorpusID, compact(item.Text)
			if len(texts[i]) == 0 {
				texts[i] = jsonRaw("null")
			}
		}
		if err := rec.SetMeta("retrieval_corpus_ids", ids); err != nil {
			return err
		}
		if err := rec.SetMeta("retrieval_texts", texts); err != nil {
			return err
		}
	}
	return nil
}

// longMemEvalAnswer is the answer as evaluate_qa.py puts it in the judge prompt, str() of the
// loaded value: a string as it is, 3 as "3", a list as its repr (['a', 'b']). It reports false
// for a missing or null answer.
func longMemEvalAnswer(raw jsonRaw) (string, bool) {
	raw = trimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return "", false
	}
	s, err := python.StrOfJSON(raw)
	return s, err == nil
}

// longMemEvalSession decodes a haystack session, a list of turns, or returns the fault after
// which the message names it: null, a turn that is null or lacks its role or content (which
// LongMemEval's scripts read, stopping without them), or a value of another kind.
func longMemEvalSession(raw jsonRaw) ([]longMemEvalTurn, error) {
	var sess []longMemEvalTurn
	if msg := decodeExact(raw, &sess); msg != "" {
		// a turn's member, [3].content, is named as a turn that lacks one is: turn 4: content
		if index, member, ok := strings.Cut(strings.TrimPrefix(msg, "["), "]."); ok && msg[0] == '[' {
			if j, err := strconv.Atoi(index); err == nil {
				return nil, fmt.Errorf(", turn %d: %s", j+1, member)
			}
		}
		return nil, fmt.Errorf(": %s", msg)
	}
	if sess == nil {
		return nil, errors.New(": want a list of turns, got null")
	}
	if !slices.ContainsFunc(sess, func(t longMemEvalTurn) bool { return t.Role == "" || t.Content == "" }) {
		return sess, nil // most often: every member there, no second decoding
	}
	switch j, lacks := turnFault(raw, "role", "content"); {
	case j < 0:
		return sess, nil
	case lacks == "":
		return nil, fmt.Errorf(", turn %d: want an object, got null", j+1)
	default:
		return nil, fmt.Errorf(", turn %d: %v", j+1, missingField(lacks))
	}
}

func sessionText(turns []longMemEvalTurn) string {
	var b strings.Builder
	for i, t := range turns {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t.Role + ": " + t.Content)
	}
	return b.String()
}
