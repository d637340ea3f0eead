package load

import (
	"bufio"
	"encoding/json"
	"fmt"

	"github.com/qapipe/qapipe/pkg/record"
)

// squadFile is the SQuAD layout shared by SQuAD v1.1, v2.0 and CMRC 2018.
type squadFile struct {
	Version string `json:"version"`
	Data    []struct {
		Title      string `json:"title"`
		Paragraphs []struct {
			Context string    `json:"context"`
			QAs     []jsonRaw `json:"qas"`
		} `json:"paragraphs"`
	} `json:"data"`
}

type squadQA struct {
	ID               jsonRaw       `json:"id"`
	Question         *string       `json:"question"`
	Answers          []squadAnswer `json:"answers"`
	IsImpossible     *bool         `json:"is_impossible"`
	PlausibleAnswers jsonRaw       `json:"plausible_answers"`
}

type squadAnswer struct {
	Text        jsonRaw `json:"text"`
	AnswerStart jsonRaw `json:"answer_start"`
}

// SQuAD loads SQuAD v1.1 and v2.0 files: one record per question, the paragraph as the one
// passage (titled with the article). A v2.0 question with is_impossible gets answers [""] and type
// no_answer, the others has_answer; v1.1 questions have no type. answer_start offsets go to meta
// as they are and are never used.
func SQuAD(in Input, _ Options, emit Emit) error {
	return loadSQuAD(in, emit, "squad", "en")
}

// CMRC2018 loads CMRC 2018 files, which use the SQuAD v1.1 layout, as Chinese (lang zh). Some
// answer_start values are -1 (the answer is not a substring of the context): offsets are kept in
// meta and never trusted.
func CMRC2018(in Input, _ Options, emit Emit) error {
	return loadSQuAD(in, emit, "cmrc2018", "zh")
}

// Note: a SQuAD file is one JSON object (tens of megabytes at most), so it is decoded whole;
// errors inside it carry the question id but no line.
func loadSQuAD(in Input, emit Emit, dataset, lang string) error {
	var f squadFile
	dec := json.NewDecoder(bufio.NewReaderSize(in.R, 1<<16))
	if err := dec.Decode(&f); err != nil {
		return fmt.Errorf("%s: %s", in.DisplayName(), shortError(err))
	}
	for _, art := range f.Data {
		for _, par := range art.Paragraphs {
			ctx := []record.Passage{{Title: art.Title, Text: par.Context}}
			for _, raw := range par.QAs {
				rec, bad := squadRecord(in, raw, dataset, lang, ctx)
				if err := emit(rec, bad); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func squadRecord(in Input, raw jsonRaw, dataset, lang string, ctx []record.Passage) (*record.Record, error) {
	var qa squadQA
	if err := decodeItem(in, 0, "", raw, &qa); err != nil {
		return nil, err
	}
	qid, ok := scalarText(qa.ID)
	if !ok || qid == "" {
		return nil, badf(in, 0, "", `question without field "id"`)
	}
	id := dataset + ":" + qid
	if qa.Question == nil {
		return nil, badf(in, 0, id, `missing field "question"`)
	}
	rec := newRecord(id, dataset, lang)
	rec.Question = *qa.Question
	rec.Context = ctx
	rec.Answers = []string{}
	var starts []json.RawMessage
	for _, a := range qa.Answers {
		text, ok := scalarText(a.Text)
		if !ok {
			return nil, badf(in, 0, id, "answer text is not a string")
		}
		rec.Answers = append(rec.Answers, text)
		starts = append(starts, a.AnswerStart)
	}
	if qa.IsImpossible != nil {
		rec.Type = "has_answer"
		if *qa.IsImpossible {
			rec.Type = "no_answer"
			rec.Answers = []string{""}
		}
	}
	if len(starts) > 0 {
		if err := rec.SetMeta("answer_start", starts); err != nil {
			return nil, badf(in, 0, id, "answer_start: %v", err)
		}
	}
	setMeta(rec, "plausible_answers", qa.PlausibleAnswers)
	return rec, nil
}
