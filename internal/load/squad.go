package load

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/pkg/record"
)

type squadQA struct {
	ID               jsonRaw        `json:"id"`
	Question         *string        `json:"question"`
	Answers          *[]squadAnswer `json:"answers"`       // nil: missing or null
	IsImpossible     jsonRaw        `json:"is_impossible"` // its presence alone is read (squadVersion.shows); here for foldedKey
	PlausibleAnswers jsonRaw        `json:"plausible_answers"`
}

// squadQAKeys are the members of a SQuAD question that its format reads, and cmrcQAKeys those
// that CMRC 2018's SQuAD layout reads: all but is_impossible, which it keeps in meta (see
// squadVersion.shows).
var (
	squadQAKeys = jsonKeys(squadQA{})
	cmrcQAKeys  = func() map[string]bool {
		keys := jsonKeys(squadQA{})
		delete(keys, "is_impossible")
		return keys
	}()
)

type squadAnswer struct {
	Text        jsonRaw `json:"text"`
	AnswerStart jsonRaw `json:"answer_start"`
}

// SQuAD loads SQuAD v1.1 and v2.0 files: one record per question, the paragraph as the one
// passage (titled with the article). A v2.0 question (one with is_impossible, or any of a file
// that shows itself v2.0's, see squadVersion) without answers gets answers [""] and type
// no_answer, the others has_answer: evaluate-v2.0.py goes by the answers (bool(qa['answers'])),
// not by the flag, which it never reads, so is_impossible's presence marks a v2.0 question
// whatever its value (true, "true", null, 0). v1.1 questions have no type, and one whose answers list is empty keeps no
// answers (a test file's withheld answers look so, as does one without answers or with null
// there): scored as unanswerable it would give made-up figures, left without answers qa-score
// leaves it unscored, and qa-load warns of it (warnSQuADNoGold). A v2.0 question's answers missing
// or null is a bad item, as evaluate-v2.0.py fails on it; an empty list is unanswerable whatever
// is_impossible says, as that script has it. answer_start offsets go to meta as they are and are
// never used. An answer text that is null is a bad item, never the empty answer ""; one that is
// a number is str() of it (answerText).
//
// A Hugging Face export of SQuAD, a question an object (see loadSQuADExport), loads too, to the
// records its questions make in the official files; a question with is_impossible shows it
// v2.0's by the same rule (squadVersion.shows). CMRC 2018's SQuAD layout never reads the flag.
func SQuAD(in Input, opt Options, emit Emit) error {
	return loadSQuAD(in, opt, emit, "squad", "en")
}

// loadSQuAD streams a file of the SQuAD layout ({"data": [{"title", "paragraphs": [{"context",
// "qas": [...]}]}]}) with a token decoder, so that it holds one article at a time and names the
// line of every question it reports. Keys may come in any order (SQuAD v2.0 puts "qas" before
// "context"); unknown keys are skipped.
//
// An empty file (or one of blanks) holds no question, as an empty file of any format does. A
// Hugging Face export (format.SQuADExport) is read by loadSQuADExport.
func loadSQuAD(in Input, opt Options, emit Emit, dataset, lang string) error {
	br := bufio.NewReaderSize(in.R, 1<<16)
	empty, export, err := squadStart(in, br, dataset)
	if err != nil || empty {
		return err
	}
	if export {
		in.R = br
		return loadSQuADExport(in, opt, emit, dataset, lang)
	}
	lines := &lineCounter{r: br}
	w := &squadWalker{in: in, dec: json.NewDecoder(lines), lines: lines}
	data := false              // a "data" list was read
	var question, answers bool // the first object's keys: a question of its own?
	v := &squadVersion{cmrc: dataset == "cmrc2018"}
	_, _, err = w.object(func(key string) error {
		question, answers = question || key == "question", answers || key == "answers"
		switch {
		case key == "version" && !data && dataset == "squad":
			return w.version(v)
		case key != "data":
			return w.skip()
		}
		read, err := w.array(func() error {
			var art squadArticle
			if err := w.article(&art); err != nil {
				return err
			}
			return emitArticle(in, &art, emit, v, dataset, lang)
		})
		data = data || read
		return err
	})
	if err != nil {
		return err
	}
	v.warn(opt)
	if !data {
		return noSQuADData(in, dataset, question && answers)
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return w.fail(errors.New("more JSON after the top-level object"))
	}
	return nil
}

// squadStart reads the start of a SQuAD file from br: empty reports one of blanks alone, export
// a Hugging Face export (format.SQuADExport: a question a line, or a JSON array of them), and
// another JSON array (of articles, or of questions otherwise held) is an error.
func squadStart(in Input, br *bufio.Reader, dataset string) (empty, export bool, err error) {
	first, err := firstByte(br)
	if err != nil {
		return false, false, command.ReadError(in.DisplayName(), 0, err)
	} else if first == 0 {
		return true, false, nil
	}
	// The first object says what the file is: its own members, up to the first article of a
	// "data" list in a top-level object, which is SQuAD's layout whatever follows it.
	head := format.FirstObject(br, true)
	if format.SQuADExport(head) {
		return false, true, nil
	}
	if first != '[' {
		return false, false, nil
	}
	// An array is no SQuAD file; its first item says what it may be.
	switch keys := format.FirstMembers(head); {
	case keys["paragraphs"] != nil: // the "data" list alone
		return false, false, fmt.Errorf(`%s: a JSON array of articles, so no %s file (its articles are in {"data": [articles]}): wrap the array as {"data": [...]}`, in.DisplayName(), dataset)
	case keys["question"] != nil && keys["answers"] != nil: // questions, but not as a Hugging Face export holds them
		return false, false, fmt.Errorf(`%s: a JSON array of questions, so no %s file (its questions are in {"data": [articles]}); %s`, in.DisplayName(), dataset, hfHint)
	}
	return false, false, nil
}

// squadVersion is what a SQuAD file has shown of its version so far. evaluate-v2.0.py tells an
// answerable question by its answers alone (bool(qa['answers'])), is_impossible or not, so a
// question of a SQuAD v2.0 file is read as v2.0's (squadRecord) with or without the flag. The file
// is v2.0's when its "version", read before "data" (as the official files and json.dump of
// {"version", "data"} have it), names 2.0, or from its first question with is_impossible on (of
// any value, and a bad item for another reason too: the key says what file it is); the
// questions before that one are read as v1.1's (no type; no answers left unscored, as a test
// file's withheld answers), and the answered ones counted for a warning (warn).
//
// Note: holding the questions until the file shows its version (as loadSQuADExport holds an
// export's) was rejected: an official file states it first, and a file without it may be v1.1's
// from end to end, which would be held whole.
type squadVersion struct {
	v2, stated bool   // the file is v2.0's; its "version" said so
	before     int    // answered questions read as v1.1's before it showed to be v2.0's
	first      string // the first of them: FILE:LINE (id "ID")
	// cmrc is whether the file is CMRC 2018's, never v2.0's (see shows): flagged counts its
	// questions with is_impossible, and flaggedAt names the first.
	cmrc      bool
	flagged   int
	flaggedAt string
}

// v2Version reports whether a SQuAD file's "version" names SQuAD 2.0: "v2.0" as the official
// files have it, "2.0", "2", "V2.0", "v2.x". A version that merely begins with a 2, such as a
// date ("2024-05-01"), "20" or "21.3", does not: read as v2.0's, a file's withheld answers would
// be unanswerable questions, scored as such.
func v2Version(version string) bool {
	v := strings.TrimPrefix(strings.ToLower(version), "v")
	return v == "2" || strings.HasPrefix(v, "2.")
}

// version reads a SQuAD file's "version" into v: one that is no string says nothing.
func (w *squadWalker) version(v *squadVersion) error {
	var version any
	if err := w.value(&version); err != nil {
		return err
	}
	if s, ok := version.(string); ok && v2Version(s) {
		v.v2, v.stated = true, true
	}
	return nil
}

// question notes item, a question about to be read, and reports whether it is read as SQuAD
// v2.0's: its file has shown to be v2.0's, or it shows it (shows), whatever else is wrong with it.
func (v *squadVersion) question(in Input, item squadItem, id func([]byte) string) bool {
	if !v.v2 && v.shows(in, item.raw, item.line, id) {
		v.v2 = true
	}
	return v.v2
}

// shows reports whether raw, a question at line (id reads its id, "" when unknown), shows its
// file SQuAD v2.0's: it has a member "is_impossible" (hasImpossible), of any value. This is the
// one rule of both SQuAD layouts, the official file's and the export's (which an answers.text []
// shows v2.0's too, see loadSQuADExport). A CMRC 2018 file is never v2.0's: CMRC 2018 has no
// unanswerable question and cmrc2018_evaluate.py never reads the flag, so its questions with it
// are read as the others (no type, "answers": [] no answer), the member kept in meta as any other
// the format does not read, and counted for warn.
func (v *squadVersion) shows(in Input, raw jsonRaw, line int, id func([]byte) string) bool {
	if !hasImpossible(raw) {
		return false
	}
	if !v.cmrc {
		return true
	}
	if v.flagged++; v.flagged == 1 {
		v.flaggedAt = fmt.Sprintf("%s:%d", in.DisplayName(), line)
		if id := id(raw); id != "" {
			v.flaggedAt += fmt.Sprintf(" (id %q)", id)
		}
	}
	return false
}

// read notes rec, the record of item (nil: a bad item): an answered question read as v1.1's is
// counted. One with no answers is not: the warning of questions without gold answers
// (warnSQuADNoGold) counts and names it, with how to have it scored.
func (v *squadVersion) read(in Input, item squadItem, rec *record.Record) {
	if v.v2 || rec == nil || len(rec.Answers) == 0 {
		return
	}
	if v.before++; v.before == 1 {
		v.first = fmt.Sprintf("%s:%d (id %q)", in.DisplayName(), item.line, rec.ID)
	}
}

// hasImpossible reports whether raw, a SQuAD question as read, has a member "is_impossible", of
// any value: one that is no object has none.
func hasImpossible(raw jsonRaw) bool {
	ms, _ := record.Members(raw) // the members whole before a fault, which the decoder reports
	return slices.ContainsFunc(ms, func(m record.Member) bool { return m.Key == "is_impossible" })
}

// warn warns of the answered questions read as v1.1's in a file that later showed to be v2.0's,
// and of a CMRC 2018 file's questions with is_impossible.
func (v *squadVersion) warn(opt Options) {
	if opt.Warn == nil {
		return
	}
	if v.flagged > 0 {
		n := v.flagged
		opt.Warn(fmt.Sprintf("%s: %s is_impossible, which CMRC 2018's files have not: cmrc2018_evaluate.py never reads it "+
			"and CMRC 2018 has no unanswerable question, so %s read as CMRC 2018's other questions are (no type; \"answers\": [] is "+
			"no answer, not SQuAD v2.0's \"\"), the field kept in meta; a SQuAD v2.0 file of Chinese text loads as such with "+
			"--format squad --lang zh",
			v.flaggedAt, english.Count(n, "question has", "questions have"), english.Form(n, "it is", "they are")))
	}
	if !v.v2 || v.stated || v.before == 0 {
		return
	}
	n := v.before
	opt.Warn(fmt.Sprintf("%s: %s came before the file's first question with it, and no \"version\": \"v2.0\" before "+
		"\"data\" said the file is SQuAD v2.0's: read as v1.1's, %s no type, so qa-score's by_type leaves %s out of "+
		"has_answer, where evaluate-v2.0.py counts %s in HasAns; put \"version\": \"v2.0\" before \"data\" to have %s read as v2.0's",
		v.first, english.Count(n, "answered question without is_impossible", "answered questions without is_impossible"),
		english.Form(n, "it has", "they have"), english.Form(n, "it", "them"), english.Form(n, "it", "them"), english.Form(n, "it", "them")))
}

// emitArticle emits the records of art's questions, or their bad lines.
func emitArticle(in Input, art *squadArticle, emit Emit, v *squadVersion, dataset, lang string) error {
	id := itemID(dataset+":", "id")
	for _, q := range art.qas {
		if q.bad != nil {
			if err := emit(nil, 0, badf(in, q.line, "", "%v", q.bad)); err != nil {
				return err
			}
			continue
		}
		ctx := []record.Passage{{Title: art.title, Text: art.contexts[q.par]}}
		rec, bad := squadRecord(in, q, v.question(in, q, id), dataset, lang, ctx)
		v.read(in, q, rec)
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
// question and answers of its own, though not as a Hugging Face export holds them (or not within
// its first format.MaxHead bytes).
func noSQuADData(in Input, dataset string, hf bool) error {
	if hf { // a file of questions, a question a line
		return fmt.Errorf(`%s: no "data" list, so no %s file (its questions are in {"data": [articles]}); %s`, in.DisplayName(), dataset, hfHint)
	}
	// another file read as SQuAD would give no record without a word
	return fmt.Errorf(`%s: no "data" list, so no %s file (its questions are in {"data": [articles]})`, in.DisplayName(), dataset)
}

// hfHint says how a file of one question an object loads that is no Hugging Face export of SQuAD
// as squadExport reads one (its answers a list, say), which a name such as squad_qa.jsonl has
// detected as a SQuAD file.
const hfHint = `a file of one question an object loads with --format jsonl (see --map), and a Hugging Face export of SQuAD as squad when its first question has a context and "answers": {"text": [...], "answer_start": [...]}`

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
// lose its questions without a word. So is one whose title or context is no string, in place of
// its questions.
type squadItem struct {
	raw  jsonRaw
	line int
	par  int
	path string // data[0].paragraphs[1].qas[2], for a bad item without an id
	bad  error
}

// squadRecord makes the record of a SQuAD question, read as SQuAD v2.0's (evaluate-v2.0.py's:
// typed by its answers) when v2 (squadVersion.question says so). Its is_impossible is read only
// there: a CMRC 2018 question keeps it in meta, as a member its format does not read.
func squadRecord(in Input, item squadItem, v2 bool, dataset, lang string, ctx []record.Passage) (*record.Record, error) {
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
		return nil, badf(in, line, id, "%v", noQuestion(item.raw, "question"))
	}
	rec := newRecord(id, dataset, lang)
	rec.Question = *qa.Question
	rec.Context = ctx
	rec.Answers = []string{}
	if qa.Answers == nil && v2 {
		// evaluate-v2.0.py fails on it (a KeyError, or a TypeError for null); read as no answers
		// it would make an answerable question unanswerable, and an abstention right.
		return nil, badf(in, line, id, `field "answers" is missing or null; a SQuAD v2.0 question has a list of them, [] when it is unanswerable`)
	}
	var starts []json.RawMessage
	var answers []squadAnswer
	if qa.Answers != nil {
		answers = *qa.Answers
	}
	for i, a := range answers {
		// null is no text: "" would make the question unanswerable
		text, err := answerText(fmt.Sprintf("answers[%d].text", i), a.Text)
		if err != nil {
			return nil, badf(in, line, id, "%v", err)
		}
		rec.Answers = append(rec.Answers, text)
		starts = append(starts, a.AnswerStart)
	}
	if v2 {
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
	known := squadQAKeys
	if dataset == "cmrc2018" {
		known = cmrcQAKeys
	}
	if err := keepUnknown(rec, item.raw, known); err != nil {
		return nil, badf(in, line, id, "%v", err)
	}
	return rec, nil
}
