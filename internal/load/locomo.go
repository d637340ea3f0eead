package load

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

type locomoConversation struct {
	SampleID     string             `json:"sample_id"`
	Conversation map[string]jsonRaw `json:"conversation"`
	QA           []jsonRaw          `json:"qa"` // decoded one by one, so that a bad item is skipped alone
}

type locomoQA struct {
	Question          *string `json:"question"`
	Answer            jsonRaw `json:"answer"`
	AdversarialAnswer jsonRaw `json:"adversarial_answer"`
	Evidence          jsonRaw `json:"evidence"`
	Category          jsonRaw `json:"category"`
}

// locomoQAKeys are the members of a LoCoMo question that its format reads.
var locomoQAKeys = jsonKeys(locomoQA{})

type locomoTurn struct {
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// LoCoMo loads locomo10.json: one record per QA item, id locomo:<sample_id>:<index in the qa list,
// from 0>. The context is the conversation's sessions in number order, one passage per session
// that exists (some conversations have more session dates than sessions), dated from
// session_N_date_time, with one `speaker: text` line per turn; the passage's extra field "turns"
// keeps the session's turn list verbatim (dia_id, blip_caption… for prompts that render image
// captions as upstream does), and meta keeps speaker_a and speaker_b. The category is a number or
// a string holding one (record.ParseLoCoMoCategory). Category 5 (adversarial) gold is
// adversarial_answer when present (see locomoGold); a non-string answer becomes str() of it, as
// upstream inserts it (2022 → "2022"). meta keeps category, evidence, adversarial_answer, and the answer when
// adversarial_answer took its place or when the gold answer is no string (2022, kept as it is). A bad QA item is reported with its own line and skipped
// alone (by its path, [0].qa[5], where its line does not find it); a conversation without a qa
// list is a bad item, and one that is bad as a whole (a session that does not decode) says how
// many QA items are skipped with it.
func LoCoMo(in Input, opt Options, emit Emit) error {
	return eachItem(in, opt, emit, itemID("locomo:", "sample_id"), func(raw jsonRaw, line int, emit Emit) error {
		var conv locomoConversation
		err := decodeRecord(in, line, "locomo:", "sample_id", raw, &conv)
		switch {
		case err != nil:
		case conv.SampleID == "":
			err = badf(in, line, "", "%v", noID(raw, "sample_id"))
		case conv.QA == nil: // absent or null (a misspelt key): upstream's loop over qa stops
			err = badf(in, line, "locomo:"+conv.SampleID, "%v", noValue(raw, "qa", "a list"))
		}
		if err != nil {
			return emit(nil, 0, withItems(err, len(conv.QA), "QA item", "QA items"))
		}
		ctx, err := locomoSessions(conv.Conversation)
		speakers := [2]jsonRaw{conv.Conversation["speaker_a"], conv.Conversation["speaker_b"]}
		if err != nil {
			return emit(nil, 0, withItems(badf(in, line, "locomo:"+conv.SampleID, "%v", err), len(conv.QA), "QA item", "QA items"))
		}
		lines, own := itemStarts(raw, line, conv.QA)
		for i, item := range conv.QA {
			rec, bad := locomoRecord(in, lines[i], conv.SampleID, i, item, ctx, opt)
			if !own[i] { // its line does not find it: its path does, [0].qa[5] (see itemEmit)
				bad = underItem(bad, fmt.Sprintf("qa[%d]", i))
			}
			if rec != nil {
				setMeta(rec, "speaker_a", speakers[0])
				setMeta(rec, "speaker_b", speakers[1])
			}
			if err := emit(rec, lines[i], bad); err != nil {
				return err
			}
		}
		return nil
	})
}

// itemLines returns the line each of items starts on, items being raw values that appear in
// order in parent, which starts on line first. An item not found (never, for values decoded as
// json.RawMessage, which keeps their bytes) gets the line of the one before it.
func itemLines(parent []byte, first int, items []jsonRaw) []int {
	lines, _ := itemStarts(parent, first, items)
	return lines
}

// itemStarts is itemLines, also reporting for each item whether it begins its line (only blanks
// before it there), so that its line alone finds it: in a file written on one line no item does,
// parent's own first line holding the '{' or '[' that opens parent before it.
func itemStarts(parent []byte, first int, items []jsonRaw) (lines []int, own []bool) {
	lines, own = make([]int, len(items)), make([]bool, len(items))
	at, line := 0, first // at: the end of the item before, on line
	for i, it := range items {
		j := bytes.Index(parent[at:], it)
		if j < 0 || len(it) == 0 {
			lines[i] = line
			continue
		}
		line += bytes.Count(parent[at:at+j], []byte("\n"))
		lines[i] = line
		// Only blanks between the line's start and the item: walked back over from the item, not
		// searched for from it, which in a file on one line is back to its start for every item.
		k := at + j
		for k > 0 && (parent[k-1] == ' ' || parent[k-1] == '\t' || parent[k-1] == '\r') {
			k--
		}
		own[i] = k > 0 && parent[k-1] == '\n'

		line += bytes.Count(it, []byte("\n"))
		at += j + len(it)
	}
	return lines, own
}

// locomoSessions returns the sessions of a conversation as passages, in session number order.
func locomoSessions(conv map[string]jsonRaw) ([]record.Passage, error) {
	var nums []int
	for k := range conv {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	ctx := make([]record.Passage, 0, len(nums))
	for _, n := range nums {
		key := fmt.Sprintf("session_%d", n)
		turns, err := locomoTurns(key, conv[key])
		if err != nil {
			return nil, err
		}
		extra := map[string]jsonRaw{"turns": compact(conv[key])}
		// LoCoMo's prompts put 'DATE: ' + the session's date_time before it: a KeyError when it
		// is missing, a TypeError when it is no string.
		raw, ok := conv[key+"_date_time"]
		if !ok {
			return nil, missingField(key + "_date_time")
		}
		var date string
		if !isString(raw) || jsonUnmarshal(raw, &date) != nil {
			return nil, wrongKind(key+"_date_time", "a string", raw)
		}
		var b strings.Builder
		for i, t := range turns {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.Speaker + ": " + t.Text)
		}
		ctx = append(ctx, record.Passage{Title: key, Date: date, Text: b.String(), Extra: extra})
	}
	return ctx, nil
}

// locomoTurns decodes the session key, a list of turns, or returns its fault: a turn that is
// null or lacks its speaker or text, which LoCoMo's prompts read (upstream stops without them),
// a session that is null, or a value of another kind.
func locomoTurns(key string, raw jsonRaw) ([]locomoTurn, error) {
	var turns []locomoTurn
	if msg := decodeExact(raw, &turns); msg != "" {
		if strings.HasPrefix(msg, "[") { // a turn's member: session_1[3].text
			return nil, fmt.Errorf("%s%s", key, msg)
		}
		return nil, fmt.Errorf("%s: %s", key, msg)
	}
	if turns == nil {
		return nil, fmt.Errorf("%s: want a list of turns, got null", key)
	}
	if !slices.ContainsFunc(turns, func(t locomoTurn) bool { return t.Speaker == "" || t.Text == "" }) {
		return turns, nil // most often: every member there, no second decoding
	}
	switch i, lacks := turnFault(raw, "speaker", "text"); {
	case i < 0:
		return turns, nil
	case lacks == "":
		return nil, fmt.Errorf("%s[%d]: want an object, got null", key, i)
	default:
		return nil, missingField(fmt.Sprintf("%s[%d].%s", key, i, lacks))
	}
}

func locomoRecord(in Input, line int, sample string, i int, item jsonRaw, ctx []record.Passage, opt Options) (*record.Record, error) {
	id := fmt.Sprintf("locomo:%s:%d", sample, i)
	var qa locomoQA
	if err := decodeItem(in, line, id, item, &qa); err != nil {
		return nil, err
	}
	if qa.Question == nil { // absent or null: a question of another kind did not decode
		return nil, badf(in, line, id, "%v", noQuestion(item, "question"))
	}
	if len(qa.Category) == 0 || isNull(qa.Category) {
		return nil, badf(in, line, id, "%v", missingField("category"))
	}
	category, err := record.ParseLoCoMoCategory(qa.Category)
	if err != nil {
		return nil, badf(in, line, id, "category: %v", err)
	}
	gold, field := locomoGold(&qa, category)
	adversarial := field == "adversarial_answer"
	answer, ok := pyStrAnswer(gold)
	switch {
	case len(gold) == 0 && adversarial:
		return nil, badf(in, line, id, `%v (a category-5 question's gold, or "answer" in its place, which LoCoMo's scripts read)`, missingField(field))
	case len(gold) == 0:
		return nil, badf(in, line, id, "%v", missingField(field))
	case !ok:
		return nil, badf(in, line, id, "%v", wrongKind(field, "a string or a number", gold))
	}
	rec := newRecord(id, "locomo", "en")
	rec.Type = record.LoCoMoType(category)
	rec.Question = *qa.Question
	rec.Answers = []string{answer}
	rec.Context = ctx
	setMeta(rec, "category", []byte(strconv.Itoa(category)))
	setMeta(rec, "evidence", qa.Evidence)
	setMeta(rec, "adversarial_answer", qa.AdversarialAnswer)
	if adversarial || trimSpace(gold)[0] != '"' {
		// the answer adversarial_answer replaced, or a gold that is no string (2022, 0, false), as
		// it is: MAGMA grades only a gold that is true to Python (0 is not, "0" is)
		setMeta(rec, "answer", qa.Answer)
	}
	if err := keepUnknown(rec, item, locomoQAKeys); err != nil {
		return nil, badf(in, line, id, "%v", err)
	}
	if opt.LoCoMoRead != nil {
		opt.LoCoMoRead(rec.Meta)
	}
	if err := locomoPrediction(rec, opt.LoCoMoModel); err != nil {
		return nil, badf(in, line, id, "%v", err)
	}
	return rec, nil
}

// locomoPrediction makes the answer of model that LoCoMo's evaluate_qa.py stored on rec's
// question, its member <model>_prediction (kept in meta as any member the format does not read),
// rec's prediction, with model as its model, and takes it out of meta (<model>_f1, the score
// upstream gave it, stays). A question without the member, or with null there, gets no
// prediction. The answer is stored as evaluate_qa.py scores it, a category-5 one as
// get_cat_5_answer gives it (the option picked, or the reply lowercased); one that is no string
// is an error: upstream's eval_question_answering stops on it (normalize_answer calls
// s.replace). model "" takes nothing.
func locomoPrediction(rec *record.Record, model string) error {
	if model == "" {
		return nil
	}
	key := model + "_prediction"
	raw, ok := rec.Meta[key]
	if !ok || isNull(raw) {
		return nil
	}
	var text string
	if !isString(raw) || jsonUnmarshal(raw, &text) != nil {
		return fmt.Errorf("%v (evaluate_qa.py scores a string)", wrongKind(strconv.Quote(key), "a string", raw))
	}
	delete(rec.Meta, key)
	rec.Prediction = &record.Prediction{Text: text, Model: model}
	return nil
}

// locomoGold returns the gold of qa, a question of the category given, and the field it comes
// from: a category-5 (adversarial) question's is its adversarial_answer, as locomo10.json gives
// it, or its answer when it has one and no adversarial_answer (LoCoMo's scripts read qa['answer']
// for every category); any other question's is its answer. A category-5 question with neither
// lacks its adversarial_answer, the field its gold belongs in.
func locomoGold(qa *locomoQA, category int) (jsonRaw, string) {
	if category != 5 {
		return qa.Answer, "answer"
	}
	if len(qa.Answer) > 0 && (len(qa.AdversarialAnswer) == 0 || isNull(qa.AdversarialAnswer)) {
		return qa.Answer, "answer"
	}
	return qa.AdversarialAnswer, "adversarial_answer"
}
