package load

import (
	"bufio"
	"fmt"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/pkg/record"
)

// cmrcArticle is one passage of CMRC 2018's first data layout (the trial and dev files of its
// data/ folder, which its v5 evaluation script reads): a JSON array of these.
type cmrcArticle struct {
	ContextID   jsonRaw   `json:"context_id"`
	ContextText string    `json:"context_text"`
	Title       string    `json:"title"`
	QAs         []jsonRaw `json:"qas"` // decoded one by one, so that a bad question is skipped alone
	// Paragraphs makes the element a SQuAD-layout article ({title, paragraphs: [{context, qas}]}),
	// as in a file that holds a SQuAD file's "data" list alone.
	Paragraphs []jsonRaw `json:"paragraphs"`
}

// questions returns how many questions art holds, in either layout, as far as they could be
// decoded.
func (art *cmrcArticle) questions() int {
	n := len(art.QAs)
	for _, raw := range art.Paragraphs {
		var par cmrcParagraph
		_ = jsonUnmarshal(raw, &par) // a fault elsewhere in it: the questions decoded count
		n += len(par.QAs)
	}
	return n
}

// cmrcParagraph is a paragraph of a SQuAD-layout article in a CMRC 2018 array.
type cmrcParagraph struct {
	Context string    `json:"context"`
	QAs     []jsonRaw `json:"qas"`
}

type cmrcQuery struct {
	QueryID   jsonRaw   `json:"query_id"`
	QueryText *string   `json:"query_text"`
	Answers   []jsonRaw `json:"answers"` // nil: absent or null, where the script stops
}

// cmrcQueryKeys are the members of a query of the first layout that its format reads.
var cmrcQueryKeys = jsonKeys(cmrcQuery{})

// CMRC2018 loads CMRC 2018 files as Chinese (lang zh). Most use the SQuAD v1.1 layout (see
// SQuAD); some answer_start values are -1 (the answer is not a substring of the context), so
// offsets are kept in meta and never trusted. A file that is a JSON array is CMRC 2018's first
// layout ([{context_id, context_text, title, qas: [{query_id, query_text, answers: [text, …]}]}],
// as in its trial file): one record per query, id cmrc2018:<query_id>, the context_text as the
// one passage titled with the title, and the context_id in meta. Its dev file's answers include
// numbers (20.0), which the evaluation script reads with str(): answerText reads them so. A query
// whose answers are null or absent is a bad item, as the script stops on it ([] loads as no
// answer), and an article bad as a whole is named by its context_id, cmrc2018:<context_id>.
//
// An element of the array that has "paragraphs" is a SQuAD-layout article, read as SQuAD reads
// one (a file that is a SQuAD file's "data" list alone): the evaluation script (v6, baseline/)
// takes the paragraphs of an element that has them and the element itself as a paragraph
// otherwise. An element with neither "paragraphs" nor "qas", which the script fails on, is a bad
// item, as is a paragraph of an article without "qas".
//
// A Hugging Face export of CMRC 2018 (the cmrc2018 dataset's: SQuAD's features, without a title)
// loads as SQuAD's export does (loadSQuADExport), whether a question a line or a JSON array,
// but for a question whose answers.text is []: no answer and no type, as the official file's
// "answers": [] loads, CMRC 2018 having no unanswerable question.
//
// A question with is_impossible, in any of these layouts, is read as the others (no type,
// "answers": [] no answer), the member kept in meta as another the format does not read is:
// cmrc2018_evaluate.py never reads it. One warning counts them and names the first
// (squadVersion.shows).
func CMRC2018(in Input, opt Options, emit Emit) error {
	br := bufio.NewReaderSize(in.R, 1<<16)
	in.R = br
	first, err := firstByte(br)
	if err != nil {
		return command.ReadError(in.DisplayName(), 0, err)
	}
	if first != '[' || format.SQuADExport(format.FirstObject(br, false)) {
		return loadSQuAD(in, opt, emit, "cmrc2018", "zh")
	}
	v := &squadVersion{cmrc: true} // its questions with is_impossible, warned of
	err = eachItem(in, opt, emit, itemID(""), func(raw jsonRaw, line int, emit Emit) error {
		var art cmrcArticle
		// an article is named by its context_id, as a LoCoMo conversation is by its sample_id
		artID := itemID("cmrc2018:", "context_id")(raw)
		if err := decodeItem(in, line, artID, raw, &art); err != nil {
			// a key that differs from one only in case stops decodeItem before it decodes: the
			// questions are counted as the decoder reads them (a "Paragraphs"' too)
			var all cmrcArticle
			_ = jsonUnmarshal(raw, &all)
			return emit(nil, 0, withItems(err, all.questions(), "question", "questions"))
		}
		if art.Paragraphs != nil {
			return cmrcSQuADArticle(in, emit, v, raw, line, &art)
		}
		if art.QAs == nil { // absent or null: the script's para['qas'] fails
			return emit(nil, 0, badf(in, line, artID, "%v", noValue(raw, "qas", "a list")))
		}
		ctx := []record.Passage{{Title: art.Title, Text: art.ContextText}}
		lines, own := itemStarts(raw, line, art.QAs)
		queryID := itemID("cmrc2018:", "query_id")
		for i, q := range art.QAs {
			v.shows(in, q, lines[i], queryID) // never v2.0's: kept in meta, and counted
			rec, bad := cmrcRecord(in, lines[i], q, ctx)
			if !own[i] { // its line does not find it: its path does, [0].qas[1] (see itemEmit)
				bad = underItem(bad, fmt.Sprintf("qas[%d]", i))
			}
			if rec != nil {
				setMeta(rec, "context_id", art.ContextID)
			}
			if err := emit(rec, lines[i], bad); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	v.warn(opt)
	return nil
}

// cmrcSQuADArticle emits the records of art, a SQuAD-layout article of a CMRC 2018 array that
// starts on line, whose JSON is raw; v counts its questions with is_impossible.
func cmrcSQuADArticle(in Input, emit Emit, v *squadVersion, raw jsonRaw, line int, art *cmrcArticle) error {
	id := itemID("cmrc2018:", "id")
	parLines, parOwn := itemStarts(raw, line, art.Paragraphs)
	for i, praw := range art.Paragraphs {
		// An item whose line does not find it (a file on one line) is named by its path too.
		at := func(bad error, path string) error { return bad }
		if !parOwn[i] {
			at = underItem
		}
		var par cmrcParagraph
		if err := decodeItem(in, parLines[i], "", praw, &par); err != nil {
			// its context of the wrong kind, say: the questions decoded are skipped with it
			var qs struct {
				QAs []jsonRaw `json:"qas"`
			}
			_ = jsonUnmarshal(praw, &qs)
			err = withItems(err, len(qs.QAs), "question", "questions")
			if err := emit(nil, 0, at(err, fmt.Sprintf("paragraphs[%d]", i))); err != nil {
				return err
			}
			continue
		}
		if par.QAs == nil { // absent or null: the script's para['qas'] fails, as for an element
			bad := badf(in, parLines[i], "", "%v", noValue(praw, "qas", "a list"))
			if err := emit(nil, 0, at(bad, fmt.Sprintf("paragraphs[%d]", i))); err != nil {
				return err
			}
			continue
		}
		ctx := []record.Passage{{Title: art.Title, Text: par.Context}}
		lines, own := itemStarts(praw, parLines[i], par.QAs)
		for j, q := range par.QAs {
			item := squadItem{raw: q, line: lines[j]}
			rec, bad := squadRecord(in, item, v.question(in, item, id), "cmrc2018", "zh", ctx)
			if !own[j] {
				bad = underItem(bad, fmt.Sprintf("paragraphs[%d].qas[%d]", i, j))
			}
			if err := emit(rec, lines[j], bad); err != nil {
				return err
			}
		}
	}
	return nil
}

func cmrcRecord(in Input, line int, raw jsonRaw, ctx []record.Passage) (*record.Record, error) {
	var q cmrcQuery
	if err := decodeRecord(in, line, "cmrc2018:", "query_id", raw, &q); err != nil {
		return nil, err
	}
	qid, err := idText("query_id", q.QueryID)
	if err != nil {
		return nil, badf(in, line, "", "%v", err)
	}
	id := "cmrc2018:" + qid
	if q.QueryText == nil {
		return nil, badf(in, line, id, "%v", noQuestion(raw, "query_text"))
	}
	rec := newRecord(id, "cmrc2018", "zh")
	rec.Question = *q.QueryText
	rec.Context = ctx
	if q.Answers == nil {
		// the script reads qas['answers'] and takes max() of a score for each: absent, it stops on
		// a KeyError, null on a TypeError; loaded without answers, qa-score would leave the question
		// unscored without a word. [] is a list of no answer, loaded as such.
		return nil, badf(in, line, id, "%v", noValue(raw, "answers", "a list"))
	}
	rec.Answers = make([]string, 0, len(q.Answers))
	for i, a := range q.Answers {
		text, err := answerText(fmt.Sprintf("answers[%d]", i), a)
		if err != nil {
			return nil, badf(in, line, id, "%v", err)
		}
		rec.Answers = append(rec.Answers, text)
	}
	if err := keepUnknown(rec, raw, cmrcQueryKeys); err != nil {
		return nil, badf(in, line, id, "%v", err)
	}
	return rec, nil
}
