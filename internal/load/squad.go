package load

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

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
// passage (titled with the article). A v2.0 question (one with is_impossible) without answers gets
// answers [""] and type no_answer, the others has_answer: evaluate-v2.0.py goes by the answers, not
// by the flag. v1.1 questions have no type, and one whose answers list is empty keeps no answers (a
// test file's withheld answers look so): scored as unanswerable it would give made-up figures, left
// without answers qa-score warns that it is unscored. answer_start offsets go to meta as they are
// and are never used. An answer text that is null is a bad item, never the empty answer ""; one
// that is a number is str() of it (answerText).
func SQuAD(in Input, _ Options, emit Emit) error {
	return loadSQuAD(in, emit, "squad", "en")
}

// loadSQuAD streams a file of the SQuAD layout ({"data": [{"title", "paragraphs": [{"context",
// "qas": [...]}]}]}) with a token decoder, so that it holds one article at a time and names the
// line of every question it reports. Keys may come in any order (SQuAD v2.0 puts "qas" before
// "context"); unknown keys are skipped.
//
// An empty file (or one of blanks) holds no question, as an empty file of any format does.
func loadSQuAD(in Input, emit Emit, dataset, lang string) error {
	br := bufio.NewReaderSize(in.R, 1<<16)
	if first, err := firstByte(br); err != nil {
		return command.ReadError(in.DisplayName(), 0, err)
	} else if first == 0 {
		return nil
	}
	lines := &lineCounter{r: br}
	w := &squadWalker{in: in, dec: json.NewDecoder(lines), lines: lines}
	data := false // a "data" member was read
	err := w.object(func(key string) error {
		if key != "data" {
			return w.skip()
		}
		data = true
		return w.array(func() error {
			var art squadArticle
			if err := w.article(&art); err != nil {
				return err
			}
			for _, q := range art.qas {
				ctx := []record.Passage{{Title: art.title, Text: art.contexts[q.par]}}
				rec, bad := squadRecord(in, q, dataset, lang, ctx)
				if err := emit(rec, q.line, bad); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	if !data { // another file read as SQuAD would give no record without a word
		return fmt.Errorf(`%s: no "data" member, so no %s file (its questions are in {"data": [articles]})`, in.DisplayName(), dataset)
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return w.fail(errors.New("more JSON after the top-level object"))
	}
	return nil
}

// squadArticle is one article of a SQuAD file: its title, the contexts of its paragraphs and
// its questions, each with the paragraph it belongs to.
type squadArticle struct {
	title    string
	contexts []string
	qas      []squadItem
}

// squadItem is a question of a SQuAD file as it was read, with its line and paragraph.
type squadItem struct {
	raw  jsonRaw
	line int
	par  int
}

// squadWalker walks the JSON of a SQuAD file token by token.
type squadWalker struct {
	in    Input
	dec   *json.Decoder
	lines *lineCounter
}

func (w *squadWalker) article(art *squadArticle) error {
	return w.object(func(key string) error {
		switch key {
		case "title":
			return w.value(&art.title)
		case "paragraphs":
			return w.array(func() error {
				par := len(art.contexts)
				art.contexts = append(art.contexts, "")
				return w.object(func(key string) error {
					switch key {
					case "context":
						return w.value(&art.contexts[par])
					case "qas":
						return w.array(func() error {
							var raw jsonRaw
							if err := w.dec.Decode(&raw); err != nil {
								return w.fail(err)
							}
							line := w.lines.lineAt(w.dec.InputOffset() - int64(len(raw)))
							art.qas = append(art.qas, squadItem{raw, line, par})
							return nil
						})
					}
					return w.skip()
				})
			})
		}
		return w.skip()
	})
}

// object reads a JSON object, calling f with each key to read its value; null reads as {}.
func (w *squadWalker) object(f func(key string) error) error {
	if ok, err := w.open('{', "an object"); !ok || err != nil {
		return err
	}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return w.fail(err)
		}
		if err := f(tok.(string)); err != nil {
			return err
		}
	}
	return w.close()
}

// array reads a JSON array, calling f to read each element; null reads as [].
func (w *squadWalker) array(f func() error) error {
	if ok, err := w.open('[', "a list"); !ok || err != nil {
		return err
	}
	for w.dec.More() {
		if err := f(); err != nil {
			return err
		}
	}
	return w.close()
}

// open reads the delimiter that starts a value of the kind named, or null (false). A value of
// another kind is worded as the record reader words a line that is not an object: "want an
// object, got a list".
func (w *squadWalker) open(delim json.Delim, kind string) (bool, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return false, w.fail(err)
	}
	if tok == nil {
		return false, nil
	}
	if tok != delim {
		return false, fmt.Errorf("%s:%d: want %s, got %s", w.in.DisplayName(), w.lines.lineAt(w.dec.InputOffset()), kind, describeToken(tok))
	}
	return true, nil
}

func (w *squadWalker) close() error {
	if _, err := w.dec.Token(); err != nil {
		return w.fail(err)
	}
	return nil
}

// value decodes the next value into v.
func (w *squadWalker) value(v any) error {
	if err := w.dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) { // the value was read: name the line it ends on
			return fmt.Errorf("%s:%d: %s", w.in.DisplayName(), w.lines.lineAt(w.dec.InputOffset()), record.DescribeDecodeError(err))
		}
		return w.fail(err)
	}
	return nil
}

// skip reads past the next value.
func (w *squadWalker) skip() error {
	var raw jsonRaw
	return w.value(&raw)
}

// fail places a decoding error at the line where the decoder stopped (a syntax error at its byte,
// see syntaxAt), or at the end of the input when it ended early.
func (w *squadWalker) fail(err error) error {
	off := w.dec.InputOffset()
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = errors.New("unexpected end of JSON input")
		off = w.lines.read
	}
	if _, ok := errors.AsType[*lineError](err); ok {
		return atLine(w.in, w.lines.lineAt(off), err)
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return syntaxAt(w.in, w.dec, w.lines, se)
	}
	return fmt.Errorf("%s:%d: %s", w.in.DisplayName(), w.lines.lineAt(off), record.DescribeDecodeError(err))
}

// describeToken names the JSON value a token starts, in the record reader's words (see
// record.Kind).
func describeToken(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' || t == '}' {
			return "an object"
		}
		return "a list"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "true or false"
	}
	return fmt.Sprint(tok)
}

func squadRecord(in Input, item squadItem, dataset, lang string, ctx []record.Passage) (*record.Record, error) {
	var qa squadQA
	line := item.line
	if err := decodeRecord(in, line, dataset+":", "id", item.raw, &qa); err != nil {
		return nil, err
	}
	qid, err := idText("id", qa.ID)
	if err != nil {
		return nil, badf(in, line, "", "%v", err)
	}
	id := dataset + ":" + qid
	if qa.Question == nil {
		return nil, badf(in, line, id, "%v", missingField("question"))
	}
	if err := emptyQuestion("question", *qa.Question); err != nil {
		return nil, badf(in, line, id, "%v", err)
	}
	rec := newRecord(id, dataset, lang)
	rec.Question = *qa.Question
	rec.Context = ctx
	rec.Answers = []string{}
	var starts []json.RawMessage
	for i, a := range qa.Answers {
		// null is no text: "" would make the question unanswerable
		text, err := answerText(fmt.Sprintf("answers[%d].text", i), a.Text)
		if err != nil {
			return nil, badf(in, line, id, "%v", err)
		}
		rec.Answers = append(rec.Answers, text)
		starts = append(starts, a.AnswerStart)
	}
	if qa.IsImpossible != nil {
		rec.Type = "has_answer"
		if len(rec.Answers) == 0 {
			rec.Type = "no_answer"
			rec.Answers = []string{""}
		}
	}
	if len(starts) > 0 {
		if err := rec.SetMeta("answer_start", starts); err != nil {
			return nil, badf(in, line, id, "answer_start: %v", err)
		}
	}
	setMeta(rec, "plausible_answers", qa.PlausibleAnswers)
	return rec, nil
}
