package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/record"
)

// hotpotItem is one record of the official HotpotQA files.
type hotpotItem struct {
	ID              string            `json:"_id"`
	Question        *string           `json:"question"`
	Answer          jsonRaw           `json:"answer"`
	Type            string            `json:"type"`
	Level           jsonRaw           `json:"level"`
	SupportingFacts jsonRaw           `json:"supporting_facts"`
	Context         []hotpotParagraph `json:"context"`
}

// hotpotKeys are the members of a HotpotQA item that its format reads.
var hotpotKeys = jsonKeys(hotpotItem{})

// hotpotParagraph is a context entry [title, [sentence, ...]].
type hotpotParagraph struct {
	Title     string
	Sentences []string
}

func (p *hotpotParagraph) UnmarshalJSON(b []byte) error {
	var pair []jsonRaw
	if err := jsonUnmarshal(b, &pair); err != nil {
		return err
	}
	if len(pair) != 2 {
		return errors.New("context paragraph: want [title, sentences]")
	}
	if err := jsonUnmarshal(pair[0], &p.Title); err != nil {
		return err
	}
	if err := jsonUnmarshal(pair[1], &p.Sentences); err != nil {
		return err
	}
	if hasNull(pair[0], pair[1]) {
		return errors.New("context paragraph: null in place of a title or sentence") // hotpotContextError words it
	}
	return nil
}

// hasNull reports whether a title (null itself) or a sentence list (null, or with a null
// element) holds a null, which decodes as "" or no sentence without a word: Python's "".join
// of such sentences fails.
func hasNull(title, sentences jsonRaw) bool {
	if isNull(title) || isNull(sentences) {
		return true
	}
	if !bytes.Contains(sentences, []byte("null")) { // most often: no second decoding
		return false
	}
	var list []jsonRaw
	_ = jsonUnmarshal(sentences, &list) // decoded as []string already
	return slices.ContainsFunc(list, func(s jsonRaw) bool { return isNull(s) })
}

// hotpotContextFault returns bad, the bad item of raw, an item that did not decode, with its fault
// worded by hotpotContextError when the fault is in its context: a type error would name the
// paragraph's Go struct ("want a list of objects") and not say which pair is at fault. Only an
// item that failed is decoded again, so that the items that load pay nothing for it.
func hotpotContextFault(raw jsonRaw, bad error) error {
	var item struct {
		hotpotItem
		Context jsonRaw `json:"context"`
	}
	re, ok := bad.(*record.Error)
	if !ok || re.Err != nil && re.Err.Error() == missingField("_id").Error() || jsonUnmarshal(raw, &item) != nil {
		return bad // (an item without an _id is named so first: decodeRecord)
	}
	if err := hotpotContextError(item.Context); err != nil {
		moved := *re
		moved.Err = err
		return &moved
	}
	return bad
}

// hotpotContextError returns the fault of a context that is not a list of [title, [sentence,
// ...]] pairs, worded as the record reader words a supporting fact's, or nil.
func hotpotContextError(raw jsonRaw) error {
	if len(raw) == 0 || isNull(raw) {
		return nil
	}
	var pairs []jsonRaw
	if jsonUnmarshal(raw, &pairs) != nil {
		return fmt.Errorf("context: want a list of [title, sentences] pairs, got %s", record.Kind(raw))
	}
	for i, b := range pairs {
		var pair []jsonRaw
		if jsonUnmarshal(b, &pair) != nil || isNull(b) {
			return fmt.Errorf("context[%d]: want a [title, sentences] pair, got %s", i, record.Kind(b))
		}
		if len(pair) != 2 {
			return fmt.Errorf("context[%d]: want [title, sentences], got %s", i, english.Count(len(pair), "element", "elements"))
		}
		var p hotpotParagraph
		if err := jsonUnmarshal(pair[0], &p.Title); err != nil {
			return fmt.Errorf("context[%d] title: %s", i, record.DescribeDecodeError(err))
		}
		if isNull(pair[0]) {
			return fmt.Errorf("context[%d] title: want a string, got null", i)
		}
		if err := jsonUnmarshal(pair[1], &p.Sentences); err != nil {
			return fmt.Errorf("context[%d] sentences: %s", i, record.DescribeDecodeError(err))
		}
		var sentences []jsonRaw
		if jsonUnmarshal(pair[1], &sentences) != nil || sentences == nil {
			return fmt.Errorf("context[%d] sentences: want a list of strings, got null", i)
		}
		if j := slices.IndexFunc(sentences, func(s jsonRaw) bool { return isNull(s) }); j >= 0 {
			return fmt.Errorf("context[%d] sentences[%d]: want a string, got null", i, j)
		}
	}
	return nil
}

// HotpotQA loads the official HotpotQA format, a JSON array or JSON Lines. Each context paragraph
// becomes a passage whose sentences are kept (supporting facts index them) and whose text is the
// sentences concatenated as they are: HotpotQA sentences carry their own leading spaces, so this
// restores the original paragraph. supporting_facts and level go to meta. An item without an
// answer (the test files withhold it) has no answers, when it has no supporting_facts, type or
// level either, as the test files' items have not: one that has any of them (its answer misspelt,
// say) is a bad item, as hotpot_evaluate_v1.py stops on it; a null answer is a bad item, never the
// empty answer "" that marks a question unanswerable; a number answer is str() of it (answerText).
// An item of the Hugging Face hotpot_qa dataset's export reads as the official item it holds
// (hfHotpot).
func HotpotQA(in Input, opt Options, emit Emit) error {
	id := itemID("hotpotqa:", "_id", "id") // "id": the Hugging Face export's
	return eachItem(in, opt, emit, id, func(raw jsonRaw, line int, emit Emit) error {
		if official, hf, err := hfHotpot(raw); hf && err != nil {
			return emit(nil, 0, badf(in, line, id(raw), "%v", err))
		} else if hf {
			raw = official
		}
		var it hotpotItem
		if err := decodeRecord(in, line, "hotpotqa:", "_id", raw, &it); err != nil {
			return emit(nil, 0, hotpotContextFault(raw, err))
		}
		rec, err := hotpotRecord(in, line, raw, &it)
		if err != nil {
			return emit(nil, 0, err)
		}
		if err := keepUnknown(rec, raw, hotpotKeys); err != nil {
			return emit(nil, 0, badf(in, line, rec.ID, "%v", err))
		}
		return emit(rec, line, nil)
	})
}

func hotpotRecord(in Input, line int, raw jsonRaw, it *hotpotItem) (*record.Record, error) {
	if it.ID == "" {
		return nil, badf(in, line, "", "%v", noID(raw, "_id"))
	}
	id := "hotpotqa:" + it.ID
	if it.Question == nil {
		return nil, badf(in, line, id, "%v", noQuestion(raw, "question"))
	}
	rec := newRecord(id, "hotpotqa", "en")
	rec.Type = it.Type
	rec.Question = *it.Question
	rec.Answers = []string{}
	if len(it.Answer) == 0 {
		// hotpot_evaluate_v1.py stops on dp['answer'] with a KeyError: only a test file's item, which
		// has none of these either, goes without an answer (a misspelt "answers", say)
		if obj, _, ok := members(raw); ok {
			for _, k := range []string{"supporting_facts", "type", "level"} {
				if _, has := obj[k]; has {
					return nil, badf(in, line, id, "%v (only a test file's items go without it, and they have no %q either)", missingField("answer"), k)
				}
			}
		}
	} else {
		// null is no answer: "" would make the question unanswerable
		a, err := answerText("answer", it.Answer)
		if err != nil {
			return nil, badf(in, line, id, "%v", err)
		}
		rec.Answers = []string{a}
	}
	// qa-score reads the facts for sp_* and joint_* and drops a record whose facts do not read,
	// its answer's scores too: such a record is refused here, before a model is asked.
	if len(it.SupportingFacts) > 0 {
		if err := record.FactsError("supporting_facts", it.SupportingFacts); err != nil {
			return nil, badf(in, line, id, "%v", err)
		}
	}
	for _, p := range it.Context {
		rec.Context = append(rec.Context, record.Passage{
			Title: p.Title, Text: strings.Join(p.Sentences, ""), Sentences: p.Sentences})
	}
	setMeta(rec, "supporting_facts", it.SupportingFacts)
	setMeta(rec, "level", it.Level)
	return rec, nil
}

// eachItem calls fn for every item of a JSON array or JSON Lines input, with the line it starts
// on and the emit for its records and bad items (see itemEmit). A bad JSONL line (one longer
// than opt.MaxLine too) is passed to emit as a bad item, named by id when it is not JSON; other
// read errors are fatal.
func eachItem(in Input, opt Options, emit Emit, id func([]byte) string, fn func(raw jsonRaw, line int, emit Emit) error) error {
	return eachItemAt(in, opt, emit, id, func(raw jsonRaw, at itemAt, emit Emit) error { return fn(raw, at.line, emit) })
}

// eachItemAt is eachItem, calling fn with where the item starts, its column too.
func eachItemAt(in Input, opt Options, emit Emit, id func([]byte) string, fn func(raw jsonRaw, at itemAt, emit Emit) error) error {
	it, err := newItems(in, bufio.NewReaderSize(in.R, 1<<16), opt.MaxLine, id)
	if err != nil {
		return err
	}
	for {
		raw, at, err := it.next()
		if err == io.EOF {
			return nil
		}
		var bad *record.Error
		switch {
		case errors.As(err, &bad):
			err = emit(nil, 0, bad)
		case err == nil && isNull(raw):
			// Decoded into an item's struct, null reads as an object with no member: as a list
			// or a number does, it says what it is.
			err = itemEmit(in, at, emit)(nil, 0, badf(in, at.line, "", nullItem))
		case err == nil:
			err = fn(raw, at, itemEmit(in, at, emit))
		}
		if err != nil {
			return err
		}
	}
}

// itemEmit returns emit for the item at at of in, which names each bad item at the item's line
// by the item's index in its array too, `[36]: missing field "_id"` (as jq '.[36]' and Python's
// data[36] find it), when the line does not find the item: when the item does not begin it, as
// in an array written on one line (HotpotQA's files, json.dump's default), whose every item is at
// line 1. A SQuAD file's questions are named by their path likewise.
func itemEmit(in Input, at itemAt, emit Emit) Emit {
	if !at.inLine {
		return emit
	}
	return func(rec *record.Record, line int, bad error) error {
		re, ok := bad.(*record.Error)
		if ii, under := errors.AsType[*inItem](bad); ok && under {
			// a value inside the item, named by its path in the item: the path from the array
			moved := *re
			moved.Err = fmt.Errorf("[%d].%s: %w", at.index, ii.path, ii.err)
			bad = &moved
		} else if ok && re.File == in.DisplayName() && re.Line == at.line {
			moved := *re
			moved.Err = fmt.Errorf("[%d]: %w", at.index, re.Err)
			bad = &moved
		}
		return emit(rec, line, bad)
	}
}

// inItem is the fault err of a value inside an item that its line does not find (a LoCoMo
// question of a file written on one line), at path in the item: qa[5]: missing field "question".
// itemEmit puts the item's own index in its array before the path where its line does not find
// the item either, [0].qa[5], as a SQuAD file's questions are named by their path, data[3]….
//
// Note: itemEmit named such a value by the index of the item that holds it alone, [0], as if a
// LoCoMo conversation were at fault and not its question.
type inItem struct {
	path string
	err  error
}

func (e *inItem) Error() string { return e.path + ": " + e.err.Error() }
func (e *inItem) Unwrap() error { return e.err }

// underItem returns bad, a bad item's *record.Error, with its fault put at path in the item
// (inItem); any other error as it is.
func underItem(bad error, path string) error {
	re, ok := bad.(*record.Error)
	if !ok {
		return bad
	}
	moved := *re
	moved.Err = &inItem{path: path, err: re.Err}
	return &moved
}

// hfHotpot rewrites raw, an item of the Hugging Face hotpot_qa dataset as its export writes it,
// as the official files hold it: its context and supporting_facts are objects of parallel lists,
// {"title": [...], "sentences": [[...], ...]} and {"title": [...], "sent_id": [...]}, which become
// the pairs [title, sentences] and [title, sent_id], and its id, "id", becomes "_id" (the same
// value: the dataset keeps the official ids). Every other member is kept as it is, in its place.
// The test split's items (hotpot_test_fullwiki_v1.json's) lack answer, type, level and
// supporting_facts, which the dataset's script fills in with None and no facts: an item whose
// answer is null is one of them, and its null answer, type and level and its empty facts are left
// out, as the official item has them not (rather than a null answer, a bad item).
// ok is false for an item whose context is no object (an official one, or a bad one, which the
// reader words); err is the fault of lists that do not pair.
func hfHotpot(raw jsonRaw) (out jsonRaw, ok bool, err error) {
	ms, err := record.Members(raw)
	if err != nil {
		return nil, false, nil
	}
	i := slices.IndexFunc(ms, func(m record.Member) bool { return m.Key == "context" })
	if i < 0 || raw[ms[i].ValueStart] != '{' {
		return nil, false, nil
	}
	official := slices.ContainsFunc(ms, func(m record.Member) bool { return m.Key == "_id" })
	// a test item: its answer null, and type, level and supporting_facts (where it has them) the
	// script's fill too; an item with a null answer and a type or facts is no test item, but a bad
	// one, its answer null, rather than one the official files would have without an answer
	test := slices.ContainsFunc(ms, func(m record.Member) bool {
		return m.Key == "answer" && isNull(raw[m.ValueStart:m.End])
	}) && !slices.ContainsFunc(ms, func(m record.Member) bool {
		switch m.Key {
		case "type", "level", "supporting_facts":
			return !hfTestFill(m.Key, raw[m.ValueStart:m.End])
		}
		return false
	})
	var b bytes.Buffer
	b.WriteByte('{')
	for _, m := range ms {
		key, v := raw[m.Start:m.ValueStart], raw[m.ValueStart:m.End]
		if test && hfTestFill(m.Key, v) {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		switch {
		case m.Key == "context":
			if v, err = hfPairs("context", v, "sentences"); err != nil {
				return nil, true, err
			}
		case m.Key == "supporting_facts" && v[0] == '{':
			if v, err = hfPairs("supporting_facts", v, "sent_id"); err != nil {
				return nil, true, err
			}
		case m.Key == "id" && !official:
			key = []byte(`"_id":`)
		}
		b.Write(key)
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), true, nil
}

// hfTestFill reports whether v, the member key of a test item of the Hugging Face export, is what
// the dataset's script fills in for a key the official test item lacks: a null answer, type or
// level, or supporting_facts without a fact.
func hfTestFill(key string, v jsonRaw) bool {
	switch key {
	case "answer", "type", "level":
		return isNull(v)
	case "supporting_facts":
		var obj map[string][]jsonRaw
		return jsonUnmarshal(v, &obj) == nil && len(obj) == 2 && obj["title"] != nil && obj["sent_id"] != nil &&
			len(obj["title"]) == 0 && len(obj["sent_id"]) == 0
	}
	return false
}

// hfPairs returns v, the object {"title": [...], second: [...]} of the member name, as the list
// of pairs [title, second's element], or the fault of an object of another shape.
func hfPairs(name string, v jsonRaw, second string) (jsonRaw, error) {
	var obj map[string]jsonRaw
	if err := jsonUnmarshal(v, &obj); err != nil {
		return nil, fmt.Errorf("%s: %s", name, record.DescribeDecodeError(err))
	}
	var lists [2][]jsonRaw
	for i, k := range []string{"title", second} {
		switch raw, ok := obj[k]; {
		case !ok:
			return nil, missingField(name + "." + k)
		case jsonUnmarshal(raw, &lists[i]) != nil || isNull(raw):
			return nil, wrongKind(name+"."+k, "a list", raw)
		}
	}
	titles, seconds := lists[0], lists[1]
	if len(titles) != len(seconds) {
		return nil, fmt.Errorf("%s: %s and %d %s: the lists pair title with %s, one for one",
			name, english.Count(len(titles), "title", "titles"), len(seconds), second, second)
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range titles {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		b.Write(titles[i])
		b.WriteByte(',')
		b.Write(seconds[i])
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}
