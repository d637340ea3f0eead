package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

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
	if empty, err := squadStart(in, br, dataset); err != nil || empty {
		return err
	}
	lines := &lineCounter{r: br}
	w := &squadWalker{in: in, dec: json.NewDecoder(lines), lines: lines}
	data := false              // a "data" list was read
	var question, answers bool // the first object's keys: a question of its own?
	_, _, err := w.object(func(key string) error {
		question, answers = question || key == "question", answers || key == "answers"
		if key != "data" {
			return w.skip()
		}
		read, err := w.array(func() error {
			var art squadArticle
			if err := w.article(&art); err != nil {
				return err
			}
			return emitArticle(in, &art, emit, dataset, lang)
		})
		data = data || read
		return err
	})
	if err != nil {
		return err
	}
	if !data {
		return noSQuADData(in, dataset, question && answers)
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return w.fail(errors.New("more JSON after the top-level object"))
	}
	return nil
}

// squadStart reads the start of a SQuAD file from br: empty reports one of blanks alone, and a
// JSON array of questions (a Hugging Face export) is an error.
func squadStart(in Input, br *bufio.Reader, dataset string) (empty bool, err error) {
	first, err := firstByte(br)
	if err != nil {
		return false, command.ReadError(in.DisplayName(), 0, err)
	} else if first == 0 {
		return true, nil
	}
	if head := firstLines(br); first == '[' && bytes.Contains(head, []byte(`"question"`)) && bytes.Contains(head, []byte(`"answers"`)) &&
		!bytes.Contains(head, []byte(`"paragraphs"`)) { // a Hugging Face export saved as a JSON array
		return false, fmt.Errorf(`%s: a JSON array of questions, so no %s file (its questions are in {"data": [articles]}); %s`, in.DisplayName(), dataset, hfHint)
	}
	return false, nil
}

// emitArticle emits the records of art's questions, or their bad lines.
func emitArticle(in Input, art *squadArticle, emit Emit, dataset, lang string) error {
	for _, q := range art.qas {
		if q.bad != nil {
			if err := emit(nil, 0, badf(in, q.line, "", "%v", q.bad)); err != nil {
				return err
			}
			continue
		}
		ctx := []record.Passage{{Title: art.title, Text: art.contexts[q.par]}}
		rec, bad := squadRecord(in, q, dataset, lang, ctx)
		if re, ok := bad.(*record.Error); ok && re.ID == "" {
			re.Err = fmt.Errorf("%s: %w", q.path, re.Err) // all one line: the path finds it
		}
		if err := emit(rec, q.line, bad); err != nil {
			return err
		}
	}
	return nil
}

// noSQuADData is the error of a file without a "data" list; hf says its first object has a
// question and answers of its own.
func noSQuADData(in Input, dataset string, hf bool) error {
	if hf { // a Hugging Face export: a question a line, named squad_v2-….jsonl
		return fmt.Errorf(`%s: no "data" list, so no %s file (its questions are in {"data": [articles]}); %s`, in.DisplayName(), dataset, hfHint)
	}
	// another file read as SQuAD would give no record without a word
	return fmt.Errorf(`%s: no "data" list, so no %s file (its questions are in {"data": [articles]})`, in.DisplayName(), dataset)
}

// hfHint says how a file of one question an object loads: a Hugging Face export of SQuAD, which a
// name such as squad_v2-validation.jsonl has detected as a SQuAD file.
const hfHint = "a file of one question an object, as a Hugging Face export holds them, loads with --format jsonl --map answers=answers.text"

// squadArticle is one article of a SQuAD file: its title, the contexts of its paragraphs and
// its questions, each with the paragraph it belongs to.
type squadArticle struct {
	title    string
	contexts []string
	qas      []squadItem
}

// squadItem is a question of a SQuAD file as it was read, with its line, path and paragraph, or (bad
// not nil) an article or paragraph that holds no list of questions, which the official scripts
// fail on (a KeyError, or a TypeError for null): one whose key is misspelt would otherwise
// lose its questions without a word.
type squadItem struct {
	raw  jsonRaw
	line int
	par  int
	path string // data[0].paragraphs[1].qas[2], for a bad item without an id
	bad  error
}

// squadWalker walks the JSON of a SQuAD file token by token, knowing the path of the value it
// reads (data[3].paragraphs[0].qas), which names a value out of place in a file that is all one
// line, as SQuAD's are.
type squadWalker struct {
	in    Input
	dec   *json.Decoder
	lines *lineCounter
	path  []string // the keys (".title") and indexes ("[3]") down to the value being read
}

// article reads an article of the "data" list. An article or a paragraph that is null, or has
// no list under "paragraphs" or "qas", is a bad item in art.qas, named by its path.
func (w *squadWalker) article(art *squadArticle) error {
	pars := false
	line, null, err := w.object(func(key string) error {
		switch key {
		case "title":
			return w.value(&art.title)
		case "paragraphs":
			read, err := w.array(func() error { return w.paragraph(art) })
			pars = pars || read
			return err
		}
		return w.skip()
	})
	if err == nil {
		w.missing(art, line, null, pars, "paragraphs")
	}
	return err
}

// paragraph reads a paragraph of an article's "paragraphs" list into art.
func (w *squadWalker) paragraph(art *squadArticle) error {
	par := len(art.contexts)
	art.contexts = append(art.contexts, "")
	qas := false
	line, null, err := w.object(func(key string) error {
		switch key {
		case "context":
			return w.value(&art.contexts[par])
		case "qas":
			read, err := w.array(func() error {
				var raw jsonRaw
				if err := w.dec.Decode(&raw); err != nil {
					return w.fail(err)
				}
				line := w.lines.lineAt(w.dec.InputOffset() - int64(len(raw)))
				art.qas = append(art.qas, squadItem{raw: raw, line: line, par: par, path: w.where()})
				return nil
			})
			qas = qas || read
			return err
		}
		return w.skip()
	})
	if err == nil {
		w.missing(art, line, null, qas, "qas")
	}
	return err
}

// missing adds to art the bad item of the object just read at line, the value at the walker's
// path, when it was null or had no list under key (read false).
func (w *squadWalker) missing(art *squadArticle, line int, null, read bool, key string) {
	switch {
	case null:
		art.qas = append(art.qas, squadItem{line: line, bad: fmt.Errorf("%s: want an object, got null", w.where())})
	case !read:
		art.qas = append(art.qas, squadItem{line: line, bad: missingField(w.where() + "." + key)})
	}
}

// where returns the path of the value being read ("" for the top-level value).
func (w *squadWalker) where() string { return strings.Join(w.path, "") }

// at prefixes msg with the path of the value being read, if it is not the top-level value.
func (w *squadWalker) at(msg string) string {
	if len(w.path) == 0 {
		return msg
	}
	return w.where() + ": " + msg
}

// object reads a JSON object, calling f with each key to read its value. It returns the line
// the object starts on, or that of null, which reads as {} (null true).
func (w *squadWalker) object(f func(key string) error) (line int, null bool, err error) {
	ok, err := w.open('{', "an object")
	if err != nil {
		return 0, false, err
	}
	line = w.lines.lineAt(w.dec.InputOffset())
	if !ok {
		return line, true, nil
	}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return line, false, w.fail(err)
		}
		key := tok.(string)
		if len(w.path) > 0 {
			key = "." + key
		}
		w.path = append(w.path, key)
		err = f(tok.(string))
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return line, false, err
		}
	}
	return line, false, w.close()
}

// array reads a JSON array, calling f to read each element; null reads as [] (read false).
func (w *squadWalker) array(f func() error) (read bool, err error) {
	if ok, err := w.open('[', "a list"); !ok || err != nil {
		return false, err
	}
	for i := 0; w.dec.More(); i++ {
		w.path = append(w.path, "["+strconv.Itoa(i)+"]")
		err := f()
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return true, err
		}
	}
	return true, w.close()
}

// open reads the delimiter that starts a value of the kind named, or null (false). A value of
// another kind is worded as the record reader words a line that is not an object, after the
// value's path: "data: want a list, got an object".
func (w *squadWalker) open(delim json.Delim, kind string) (bool, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return false, w.fail(err)
	}
	if tok == nil {
		return false, nil
	}
	if tok != delim {
		return false, fmt.Errorf("%s:%d: %s", w.in.DisplayName(), w.lines.lineAt(w.dec.InputOffset()),
			w.at(fmt.Sprintf("want %s, got %s", kind, describeToken(tok))))
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
			return fmt.Errorf("%s:%d: %s", w.in.DisplayName(), w.lines.lineAt(w.dec.InputOffset()), w.at(record.DescribeDecodeError(err)))
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
