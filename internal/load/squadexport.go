package load

// This file reads a Hugging Face export of SQuAD (see squad.go for the official files).

import (
	"bytes"
	"fmt"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/record"
)

// squadExportItem is a question of a Hugging Face export of SQuAD, as Dataset.to_json writes the
// squad and squad_v2 datasets: the official question with its article's title and its
// paragraph's context, and its answers as an object of parallel lists. is_impossible and
// plausible_answers, which the datasets do not hold, are read as the official question's when a
// file of this shape has them.
type squadExportItem struct {
	ID               jsonRaw            `json:"id"`
	Title            string             `json:"title"`
	Context          string             `json:"context"`
	Question         *string            `json:"question"`
	Answers          *squadExportAnswer `json:"answers"`
	IsImpossible     jsonRaw            `json:"is_impossible"` // its presence alone is read (squadVersion.shows); here for foldedKey
	PlausibleAnswers jsonRaw            `json:"plausible_answers"`
}

type squadExportAnswer struct {
	Text        *[]jsonRaw `json:"text"`
	AnswerStart *[]jsonRaw `json:"answer_start"`
}

// squadExportHold bounds the bytes of an export's questions held while it is not yet known to be
// SQuAD v2.0's (see loadSQuADExport).
var squadExportHold = 16 << 20 // a variable for the tests

// loadSQuADExport loads a Hugging Face export of SQuAD, a question a line (or a JSON array of
// them), as the official file's layout loads the same questions (squadRecord): the id
// DATASET:id, the context the one passage, titled with the title, the answer texts as answers
// and their answer_start in meta. The export has no is_impossible: a question whose
// answers.text is empty is SQuAD v2.0's unanswerable one, answers [""] and type no_answer, as
// evaluate-v2.0.py scores it against [""], and the answered questions of an export that holds
// one have type has_answer, as the v2.0 file's have; those of an export without one (SQuAD
// v1.1's, whose every question has answers) have no type, as the v1.1 file's have not. A
// question with an is_impossible of its own (a file of this shape made otherwise) shows the
// export v2.0's as an unanswerable one does, by the official layout's rule (squadVersion.shows).
// So that the records come out as the questions are read, in bounded memory, the questions are
// held until one that shows the export v2.0's comes, or the file ends, or squadExportHold bytes of
// them are held, which makes the export v1.1's: such a question after that (a v2.0 export whose
// first 16 MiB hold none) is warned of (opt.Warn), with the answered questions that went out
// untyped, and the answered ones after it have type has_answer. A CMRC 2018 export (dataset
// cmrc2018) is never v2.0's: its questions come out as they are read, answers.text [] giving
// answers [], an is_impossible kept in meta and warned of.
func loadSQuADExport(in Input, opt Options, emit Emit, dataset, lang string) error {
	q := &squadExportQueue{emit: emit}
	// CMRC 2018 has no unanswerable question, and its official file none with is_impossible: a
	// question of its export whose answers.text is [] loads as the file's "answers": [] does (no
	// answer, no type), one with is_impossible keeps it in meta (squadVersion.shows), and nothing
	// is held.
	v2Like := dataset == "squad"
	q.cmrc, q.decided = !v2Like, !v2Like
	id := itemID(dataset+":", "id")
	err := eachItemAt(in, opt, q.badEmit, id, func(raw jsonRaw, at itemAt, emit Emit) error {
		raw = bytes.Clone(raw) // the reader's buffer, which the next item is read into
		rec := func(v2 bool) (*record.Record, error) { return squadExportRecord(in, at.line, raw, v2, dataset, lang) }
		unanswerable := v2Like && squadExportUnanswerable(raw)
		// the official layout's rule (an is_impossible shows the file v2.0's), and the export's
		// own; once it is v2.0's, no question need be looked at for it (a CMRC 2018 export's
		// never is, and each is counted)
		shows := q.v2 || q.shows(in, raw, at.line, id) || unanswerable
		if shows && q.decided && !q.v2 && q.untyped > 0 && opt.Warn != nil {
			opt.Warn(fmt.Sprintf("%s:%d (id %q): a SQuAD v2.0 question (answers.text [], or is_impossible) after the first 16 MiB of a "+
				"SQuAD export held none, which read it as SQuAD v1.1's: %s before it went out without type "+
				"has_answer, so qa-score's by_type leaves them out of its has_answer group (the scores are "+
				"SQuAD v2.0's all the same); put such a question first to have them typed",
				in.DisplayName(), at.line, id(raw), english.Count(q.untyped, "answered question", "answered questions")))
		}
		q.v2 = q.v2 || shows
		if unanswerable {
			q.unanswerable++
		} else {
			q.answered = true
		}
		return q.add(len(raw), func() error {
			r, bad := rec(q.v2)
			if r != nil && r.Type == "" {
				q.untyped++
			}
			return emit(r, at.line, bad)
		})
	})
	if err != nil {
		// A read error (a cut .gz file): the questions held were read whole, and come out ahead
		// of it as another format's records read before it do. After an error of emit (--strict,
		// --limit, a signal) nothing is held, the queue having been flushed.
		if ferr := q.flush(); ferr != nil {
			return ferr
		}
		return err
	}
	if err := q.flush(); err != nil {
		return err
	}
	q.warn(opt)
	if !q.answered && q.unanswerable > 0 && opt.Warn != nil {
		// A split whose answers are withheld (a test split of a SQuAD-shaped dataset) reads as
		// all unanswerable, and a prediction that abstains would score 1 on every question.
		none := fmt.Sprintf("none of its %d questions has an answer (answers.text [] in every one): each is", q.unanswerable)
		if q.unanswerable == 1 {
			none = "its one question has no answer (answers.text []): it is"
		}
		opt.Warn(fmt.Sprintf("%s: %s scored as SQuAD v2.0's unanswerable question, right only "+
			"when the prediction is empty; if the split's answers are withheld (a test split), its scores mean nothing",
			in.DisplayName(), none))
	}
	return nil
}

// squadExportQueue holds the records of an export's questions until it is known whether the
// export is SQuAD v2.0's (v2), the bad items too, so that they come out in the file's order.
type squadExportQueue struct {
	emit    Emit
	held    []func() error
	bytes   int
	decided bool // the questions are no longer held
	// squadVersion's v2 is whether a question that shows the export v2.0's was read; a CMRC
	// 2018 export's questions with is_impossible are counted there.
	squadVersion
	untyped int // the answered questions that went out without a type
	// answered is whether a question with an answer was read, and unanswerable counts those
	// without one, for the warning of an export with none answered.
	answered     bool
	unanswerable int
}

// add holds out, which emits an item of size bytes, or calls it once the export is known.
func (q *squadExportQueue) add(size int, out func() error) error {
	if q.decided {
		return out()
	}
	q.held = append(q.held, out)
	if q.bytes += size; q.v2 || q.bytes > squadExportHold {
		return q.flush()
	}
	return nil
}

// badEmit is the emit of the bad items the reader finds itself (a line that is no JSON).
func (q *squadExportQueue) badEmit(rec *record.Record, line int, bad error) error {
	return q.add(0, func() error { return q.emit(rec, line, bad) })
}

// flush emits what is held, and what comes after at once.
func (q *squadExportQueue) flush() error {
	q.decided = true
	held := q.held
	q.held = nil
	for _, out := range held {
		if err := out(); err != nil {
			return err
		}
	}
	return nil
}

// squadExportUnanswerable reports whether raw, an export's question, has answers.text []: SQuAD
// v2.0's unanswerable question, whatever an is_impossible of its own says, as evaluate-v2.0.py
// goes by the answers alone.
func squadExportUnanswerable(raw jsonRaw) bool {
	var it struct {
		Answers struct {
			Text *[]jsonRaw `json:"text"`
		} `json:"answers"`
	}
	return jsonUnmarshal(raw, &it) == nil && it.Answers.Text != nil && len(*it.Answers.Text) == 0
}

// squadExportRecord makes the record of raw, an export's question at line, by squadRecord from
// the official question it holds: {id, question, answers: [{text, answer_start}, ...], and any
// other member}, read as SQuAD v2.0's when v2.
func squadExportRecord(in Input, line int, raw jsonRaw, v2 bool, dataset, lang string) (*record.Record, error) {
	var it squadExportItem
	if err := decodeRecord(in, line, dataset+":", "id", raw, &it); err != nil {
		return nil, err
	}
	id := ""
	if qid, err := idText("id", it.ID); err == nil {
		id = dataset + ":" + qid
	}
	if it.Answers == nil || it.Answers.Text == nil {
		return nil, badf(in, line, id, `field "answers.text" is missing or null; a question of a SQuAD export has "answers": {"text": [...], "answer_start": [...]}, "text": [] when it is unanswerable`)
	}
	texts := *it.Answers.Text
	var starts []jsonRaw
	if it.Answers.AnswerStart != nil {
		if starts = *it.Answers.AnswerStart; len(starts) != len(texts) {
			return nil, badf(in, line, id, "answers: %s and %s: the lists pair each text with its answer_start, one for one",
				english.Count(len(texts), "text", "texts"), english.Count(len(starts), "answer_start", "answer_starts"))
		}
	}
	var b bytes.Buffer
	b.WriteString(`{"answers":[`)
	for i, text := range texts {
		// null is no text: "" would make the question unanswerable
		if _, err := answerText(fmt.Sprintf("answers.text[%d]", i), text); err != nil {
			return nil, badf(in, line, id, "%v", err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"text":`)
		b.Write(text)
		if starts != nil {
			b.WriteString(`,"answer_start":`)
			b.Write(starts[i])
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	ms, err := record.Members(raw)
	if err != nil {
		return nil, badf(in, line, id, "%v", err) // not reached: raw decoded
	}
	for _, m := range ms {
		switch m.Key {
		case "title", "context", "answers": // the article's, the paragraph's, and read above
			continue
		}
		b.WriteByte(',')
		b.Write(raw[m.Start:m.End])
	}
	b.WriteByte('}')
	ctx := []record.Passage{{Title: it.Title, Text: it.Context}}
	return squadRecord(in, squadItem{raw: b.Bytes(), line: line}, v2, dataset, lang, ctx)
}
