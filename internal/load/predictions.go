package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Predictions are the answers of a benchmark's official prediction file, held whole and
// attached to the records loaded by their official id (qa-load --predictions): SQuAD's (and CMRC
// 2018's) {"qid": "answer"}, HotpotQA's {"answer": {id: text}, "sp": {id: [[title, sent_id],
// ...]}} and LongMemEval's hypotheses, JSON Lines of {"question_id": ..., "hypothesis": ...}.
//
// Note: the file is held and the records streamed, not the other way round: a prediction file
// holds a few short answers per question (SQuAD's dev set's are under 1 MB), where the records it
// answers can hold gigabytes of context (LongMemEval's), and its ids are matched as they come.
type Predictions struct {
	Name   string // the file, for warnings
	Format string // squad (CMRC 2018's too), hotpotqa or longmemeval
	byID   map[string]*official
	// Missing counts the records written without an answer (Written counts them all),
	// FirstMissing names the first, and FactsAlone those of them whose prediction carries
	// HotpotQA's supporting facts alone; Kept counts the records written that carried one
	// already, kept in place of the file's, and LabelsLeft those of them whose line in the file
	// has an autoeval_label, left off as it judged the file's hypothesis, not the answer kept.
	// KeptJudgments counts the records written that carried the judgment their autoeval_label
	// makes, kept in place of it; FirstKeptJudgment names the first's judgment.
	// ReplacedFailed counts those whose judgment of that name had failed, which the label
	// replaced; FirstReplacedFailed names the first's, with its error.
	Missing, Written, Kept, FactsAlone, LabelsLeft, KeptJudgments, ReplacedFailed int
	FirstMissing, FirstKeptJudgment, FirstReplacedFailed                          string
}

// Kept is what Attach found a record carrying already where the file gives it one too.
type Kept struct {
	Prediction bool // a prediction, kept in place of the file's
	// LabelLeft: the file's autoeval_label of the id was left off the record, which kept a
	// prediction of its own: the label judged the file's hypothesis, not it.
	LabelLeft bool
	// Judgment is the name of the judgment that the file's autoeval_label makes, which the
	// record carried already and kept; "" when it carried none.
	Judgment string
	// Failed is the error of the judgment of that name that the record carried, failed, which
	// the label replaced; "" when it carried none that failed.
	Failed string
}

// official is one question's prediction in the file: its answer, if the file gives one (HotpotQA's
// may give supporting facts alone), and its supporting facts.
type official struct {
	text    string
	hasText bool
	facts   []record.Fact
	used    bool // a record read has its id
	// notString is the kind of the file's answer when it is no string ("a number"), text its
	// str(): CMRC 2018's script reads it so, where SQuAD's and HotpotQA's stop on it.
	notString string
	// label is the verdict of LongMemEval's judge on the hypothesis (its autoeval_label), nil
	// when its line has none; labelErr, where the line's autoeval_label does not read, says
	// why, naming the file's line.
	label    *autoevalLabel
	labelErr string
}

// judged reports whether pr, a record's own prediction, is the hypothesis o's label judged: a
// saved run of the file's hypotheses, loaded again with their labels.
func (o *official) judged(pr *record.Prediction) bool {
	return pr.Error == "" && pr.HasText() && o.hasText && pr.Text == o.text
}

// autoevalLabel is an autoeval_label of evaluate_qa.py's results: the judge model it called
// and its verdict, label = 'yes' in the reply.
type autoevalLabel struct {
	model   string
	correct bool
}

// ReadPredictions reads the official prediction file name (see Predictions).
func ReadPredictions(name string) (*Predictions, error) {
	b, err := textfile.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return parsePredictions(name, b)
}

// parsePredictions reads the prediction file name, whose text is b: one JSON object is SQuAD's
// or HotpotQA's (one with an object "answer", or with an object "sp" alone), one or more objects with a "question_id" (or a
// JSON array of them) LongMemEval's.
func parsePredictions(name string, b []byte) (*Predictions, error) {
	p := &Predictions{Name: name, byID: map[string]*official{}}
	dec := json.NewDecoder(bytes.NewReader(b))
	var first jsonRaw
	if err := dec.Decode(&first); err == io.EOF {
		return nil, fmt.Errorf("%s: empty: no predictions (want a JSON object, or JSON Lines of objects with question_id and hypothesis)", name)
	} else if err != nil {
		return nil, jsonFault(name, b)
	}
	end := dec.InputOffset()
	_, err := dec.Token()
	more := err != io.EOF // a second value, or text that is none
	obj, _, isObj := members(first)
	switch {
	case trimSpace(first)[0] == '[' || isObj && obj["question_id"] != nil:
		p.Format = "longmemeval"
		return p, p.readHypotheses(b)
	case !isObj:
		return nil, fmt.Errorf("%s: not a prediction file: want a JSON object, or JSON Lines of objects with question_id and hypothesis, got %s", name, record.Kind(first))
	case more:
		next := end + int64(len(b[end:])-len(bytes.TrimLeft(b[end:], " \t\r\n")))
		line, col := lineColumn(b, next)
		return nil, fmt.Errorf("%s:%d: more after the JSON object at column %d: want one object of predictions, or JSON Lines of objects with question_id and hypothesis", name, line, col)
	}
	// HotpotQA's file without its "answer" (supporting facts alone, scored by sp_*) is one member
	// "sp" holding an object, which as SQuAD's would be the answer of a question whose id is "sp".
	answers, hasAnswers := obj["answer"]
	sp, hasSP := obj["sp"]
	if hasAnswers && trimSpace(answers)[0] == '{' || !hasAnswers && hasSP && len(obj) == 1 && trimSpace(sp)[0] == '{' {
		p.Format = "hotpotqa"
		return p, p.readHotpotQA(obj)
	}
	p.Format = "squad"
	return p, p.readTexts(obj, "")
}

// jsonFault returns the error of b, the text of the prediction file name, which is no JSON: the
// line and column of the byte at fault with the decoder's words, as syntaxAt names a streamed
// file's (a file of thousands of answers is no help without them), and "not a prediction file"
// when that byte is the first of the text; the end of the input is named at its last line.
func jsonFault(name string, b []byte) error {
	se, ok := errors.AsType[*json.SyntaxError](jsonUnmarshal(b, new(jsonRaw)))
	if !ok { // not reached: b's first value failed to decode
		return fmt.Errorf("%s: invalid JSON", name)
	}
	line, col, words, python := textfile.JSONSyntax(b, se)
	if col == 0 {
		return fmt.Errorf("%s:%d: invalid JSON: %s", name, line, words)
	}
	what := "invalid JSON"
	if bad := max(se.Offset-1, 0); len(bytes.TrimLeft(b, " \t\r\n")) == len(b)-int(bad) {
		what = "not a prediction file"
	}
	return fmt.Errorf("%s:%d: %s: %s at column %d%s", name, line, what, words, col, python)
}

// lineColumn returns the line and the column (in bytes, from 1) of the byte at off in b.
func lineColumn(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	start := bytes.LastIndexByte(b[:off], '\n') + 1
	return bytes.Count(b[:off], []byte("\n")) + 1, int(off) - start + 1
}

// readTexts takes the answers of obj, {id: text}; in names the member holding obj ("" for the
// file itself) for errors. An answer is a string, or in SQuAD's layout any other value, which CMRC
// 2018's script reads as its str() (str(prediction_file[query_id]): None for null) and SQuAD's
// stops on (see Refused); HotpotQA's answers are strings, as its script stops on any other.
func (p *Predictions) readTexts(obj map[string]jsonRaw, in string) error {
	for _, id := range slices.Sorted(maps.Keys(obj)) { // the first fault named is the same every run
		raw := obj[id]
		var s string
		switch {
		case isString(raw) && jsonUnmarshal(raw, &s) == nil:
		case in == "":
			var err error
			if s, err = python.StrOfJSON(raw); err != nil {
				return fmt.Errorf("%s: %sprediction %q: %v", p.Name, in, id, err)
			}
			p.at(id).notString = record.Kind(raw)
		default:
			return fmt.Errorf("%s: %sprediction %q: want a string, got %s", p.Name, in, id, record.Kind(raw))
		}
		p.at(id).text, p.at(id).hasText = s, true
	}
	return nil
}

// readHotpotQA takes HotpotQA's answers and supporting facts.
func (p *Predictions) readHotpotQA(obj map[string]jsonRaw) error {
	answers, _, _ := members(obj["answer"])
	if err := p.readTexts(answers, `"answer": `); err != nil {
		return err
	}
	sp, ok := obj["sp"]
	if !ok || isNull(sp) {
		return nil
	}
	var facts map[string]jsonRaw
	if err := jsonUnmarshal(sp, &facts); err != nil {
		return fmt.Errorf(`%s: "sp": want an object of [title, sentence index] lists by id: %v`, p.Name, err)
	}
	for _, id := range slices.Sorted(maps.Keys(facts)) { // the first fault named is the same every run
		raw := facts[id]
		// A null list would make the official script fail (it iterates it); a list of none is
		// a prediction of no supporting facts.
		var fs []record.Fact
		if isNull(raw) {
			return fmt.Errorf(`%s: "sp": prediction %q: want a list of [title, sentence index] pairs, got null`, p.Name, id)
		}
		if err := record.FactsError("", raw); err != nil {
			// the pair at fault by its index ("[1][1]: want an integer, got null"), or the kind of a
			// value that is no list
			return fmt.Errorf(`%s: "sp": prediction %q: %s`, p.Name, id, strings.TrimPrefix(err.Error(), ": "))
		}
		if err := jsonUnmarshal(raw, &fs); err != nil {
			return fmt.Errorf(`%s: "sp": prediction %q: want a list of [title, sentence index] pairs: %v`, p.Name, id, err)
		}
		p.at(id).facts = fs
	}
	return nil
}

// readHypotheses takes LongMemEval's hypotheses: JSON Lines, or a JSON array, of objects with a
// string question_id and a hypothesis, and the autoeval_label that evaluate_qa.py's results add
// (other members are left). A hypothesis that is no string is read as evaluate_qa.py puts it in
// the judge prompt, str() of it (3 as "3"), as the answers are; a null one is refused, as a null
// answer is. An autoeval_label that does not read (readLabel) is no fault of the file's but of
// the records with its id that the run writes (Refused), as a hypothesis that is no string is.
func (p *Predictions) readHypotheses(b []byte) error {
	type hypothesis struct {
		QuestionID jsonRaw `json:"question_id"`
		Hypothesis jsonRaw `json:"hypothesis"`
	}
	var items []json.RawMessage
	var lines []int
	unended := false // the last line has no line end
	if t := trimSpace(b); len(t) > 0 && t[0] == '[' {
		if err := jsonUnmarshal(b, &items); err != nil {
			return jsonFault(p.Name, b)
		}
	} else {
		split := bytes.Split(b, []byte("\n"))
		for i, line := range split {
			if len(trimSpace(line)) > 0 {
				items, lines = append(items, line), append(lines, i+1)
				unended = i == len(split)-1
			}
		}
	}
	for i, raw := range items {
		at := fmt.Sprintf("%s: item %d", p.Name, i+1)
		// A JSON array whose first item is no hypothesis is most likely another layout of
		// predictions written as a list: say which layouts are one object.
		hint := ""
		if lines != nil {
			at = fmt.Sprintf("%s:%d", p.Name, lines[i])
			if !json.Valid(raw) {
				return lineFault(at, raw, unended && i == len(items)-1)
			}
		} else if i == 0 {
			hint = ` (a JSON array is read as LongMemEval's hypotheses; SQuAD's, CMRC 2018's and HotpotQA's predictions are one JSON object, {"qid": "answer"} or {"answer": {...}, "sp": {...}})`
		}
		var h hypothesis
		if _, _, ok := members(raw); !ok || jsonUnmarshal(raw, &h) != nil {
			return fmt.Errorf("%s: want an object with question_id and hypothesis, got %s%s", at, record.Kind(raw), hint)
		}
		if err := foldedKey(raw, &h); err != nil {
			return fmt.Errorf("%s: %v", at, err)
		}
		var id string
		switch {
		case h.QuestionID == nil:
			return fmt.Errorf("%s: %v%s", at, missingField("question_id"), hint)
		case !isString(h.QuestionID) || jsonUnmarshal(h.QuestionID, &id) != nil:
			return fmt.Errorf("%s: question_id: want a string, got %s", at, record.Kind(h.QuestionID))
		case h.Hypothesis == nil:
			return fmt.Errorf("%s (id %q): %v", at, id, missingField("hypothesis"))
		case isNull(h.Hypothesis):
			return fmt.Errorf("%s (id %q): hypothesis: want a string, got null", at, id)
		case p.byID[id] != nil:
			return fmt.Errorf("%s (id %q): a second hypothesis for the question (which is meant cannot be told)", at, id)
		}
		text, err := python.StrOfJSON(h.Hypothesis)
		if err != nil {
			return fmt.Errorf("%s (id %q): hypothesis: %v", at, id, err)
		}
		o := p.at(id)
		o.text, o.hasText = text, true
		if obj, _, _ := members(raw); obj["autoeval_label"] != nil {
			if o.label, err = readLabel(obj["autoeval_label"]); err != nil {
				o.labelErr = fmt.Sprintf("%s: autoeval_label%v", at, err)
			}
		}
	}
	return nil
}

// lineFault returns the error of raw, a JSON Lines line of hypotheses at at (FILE:LINE) that is no
// JSON: the decoder's words and the column of the byte at fault, and the line's question_id when
// the members before the fault give it, as a benchmark's bad JSON Lines item is named; last says
// that it is the file's last line and has no line end (a file cut short).
func lineFault(at string, raw []byte, last bool) error {
	if id := peekID(raw, "question_id"); id != "" {
		at = fmt.Sprintf("%s (id %q)", at, id)
	}
	err := jsonUnmarshal(raw, new(jsonRaw))
	se, ok := errors.AsType[*json.SyntaxError](err)
	if !ok { // not reached: raw is no valid JSON
		return fmt.Errorf("%s: invalid JSON: %v", at, err)
	}
	_, col, words, python := textfile.JSONSyntax(raw, se)
	if col > 0 {
		words = fmt.Sprintf("%s at column %d%s", words, col, python)
	}
	return fmt.Errorf("%s: %w", at, record.CutLine(fmt.Errorf("invalid JSON: %s", words), raw, last))
}

// readLabel reads an autoeval_label as evaluate_qa.py writes it, {"model": "...", "label": true or
// false} (its label is 'yes' in the judge's reply, a bool); its error begins with the member at
// fault (".label: want true or false, got a string") or ": " for the whole.
func readLabel(raw jsonRaw) (*autoevalLabel, error) {
	obj, _, ok := members(raw)
	if !ok {
		return nil, fmt.Errorf(`: want an object with model and label, got %s`, record.Kind(raw))
	}
	var l autoevalLabel
	switch m := obj["model"]; {
	case m == nil:
		return nil, fmt.Errorf(": %v", missingField("model"))
	case !isString(m) || jsonUnmarshal(m, &l.model) != nil:
		return nil, fmt.Errorf(".model: want a string, got %s", record.Kind(m))
	case strings.TrimSpace(l.model) == "":
		return nil, fmt.Errorf(".model: want the judge model's name, got %s", m)
	}
	switch v := obj["label"]; {
	case v == nil:
		return nil, fmt.Errorf(": %v", missingField("label"))
	case !isBool(v):
		return nil, fmt.Errorf(".label: want true or false (evaluate_qa.py's 'yes' in the judge's reply), got %s", record.Kind(v))
	default:
		l.correct = string(trimSpace(v)) == "true"
	}
	return &l, nil
}

// at returns the prediction of id, made if the file has not given one yet.
func (p *Predictions) at(id string) *official {
	o := p.byID[id]
	if o == nil {
		o = &official{}
		p.byID[id] = o
	}
	return o
}

// Len returns the number of questions the file gives a prediction for.
func (p *Predictions) Len() int { return len(p.byID) }

// Attach gives rec the prediction the file holds for its official id: its id without the
// "DATASET:" that qa-load puts before it (hotpotqa:5a8b57f2 is 5a8b57f2), or the id itself for a
// record whose id has none (a generic one). A record that carries a prediction already keeps it,
// and Attach reports that it did when the file has one for it too (for Count, once the record is
// written). It is given every record read, so that the file's answers to records that
// the selection leaves out are not taken for answers to no record (see Unused). An answer that
// is no string attaches to a CMRC 2018 record alone, as its str(); another record is left without
// one, for Refused to find once the selection has kept it. The hypothesis's autoeval_label, if
// its line has one, is attached with it (attachLabel).
func (p *Predictions) Attach(rec *record.Record) (kept Kept) {
	o := p.byID[officialID(rec)]
	if o != nil {
		o.used = true
	}
	switch {
	case rec.Prediction != nil:
		if o == nil {
			return Kept{}
		}
		kept.Prediction = true
		if o.label != nil || o.labelErr != "" {
			// A saved run of the file's hypotheses, loaded again with their labels, has the
			// hypothesis as its answer: the label judged that. (One that does not read was
			// refused then: see Refused.)
			if o.label != nil && o.judged(rec.Prediction) {
				kept.Judgment, kept.Failed = attachLabel(rec, o.label)
			} else {
				kept.LabelLeft = true
			}
		}
		return kept
	case o != nil && o.notString != "" && rec.Dataset != "cmrc2018":
		// see Refused
	case o != nil && o.hasText:
		rec.Prediction = &record.Prediction{Text: o.text, SupportingFacts: o.facts}
		if o.label != nil {
			kept.Judgment, kept.Failed = attachLabel(rec, o.label)
		}
	case o != nil && o.facts != nil:
		// HotpotQA's supporting facts without an answer: hotpot_evaluate_v1.py scores them and
		// counts the answer missing, so the prediction carries the facts and no text, which the
		// answer's metrics and the judges take for no answer.
		rec.Prediction = &record.Prediction{SupportingFacts: o.facts}
		rec.Prediction.ClearText()
	}
	return kept
}

// attachLabel gives rec, whose answer is the hypothesis that l judged, the judgment that qa-judge
// --mode longmemeval --model MODEL writes, MODEL l's: named longmemeval/MODEL, of mode
// longmemeval, score 1 for a label true and 0 for false, labelled yes or no, with the model and
// the sha256 of the template that LongMemEval's judge fills for rec (none for a type it has no
// template for). evaluate_qa.py keeps no reply, so there is no raw. A record that carries a
// judgment of that name keeps it: its name is returned, for the warning that counts them; unless
// it failed, which gives no verdict (qa-judge's "no prediction to judge" of a record the file now
// answers, a call that failed on the hypothesis the label judged): the label replaces it, and its
// error is returned, for the warning that counts those.
func attachLabel(rec *record.Record, l *autoevalLabel) (kept, failed string) {
	name := judgeModeLongMemEval + "/" + l.model
	if j := rec.Judgments[name]; j != nil {
		if j.Error == "" {
			return name, ""
		}
		failed = j.Error
	}
	score, label := 0.0, "no"
	if l.correct {
		score, label = 1, "yes"
	}
	jg := &record.Judgment{Score: &score, Label: label, Mode: judgeModeLongMemEval, Model: l.model}
	if abs, err := rec.Abstention(); err == nil {
		if t, err := prompt.LongMemEvalJudgeTemplate(abs, rec.Type); err == nil {
			jg.PromptSHA256 = t.SHA256
		}
	}
	if rec.Judgments == nil {
		rec.Judgments = map[string]*record.Judgment{}
	}
	rec.Judgments[name] = jg
	return "", failed
}

// judgeModeLongMemEval is qa-judge's mode of LongMemEval's judge, the mode of its judgments and
// the first part of their default name.
const judgeModeLongMemEval = "longmemeval"

// officialID is rec's id as the prediction file gives it: without the "DATASET:" that qa-load
// puts before it (hotpotqa:5a8b57f2 is 5a8b57f2), or the id itself for a record without one. A
// CMRC 2018 id is also stripped of white space around it, as cmrc2018_evaluate.py v5 (beside the
// data files in CMRC's repository) looks its prediction up by qas['id'].strip() (by
// query_id.strip() in CMRC's first layout), so that the question " DEV_1 " is answered by the
// file's "DEV_1", and not by its " DEV_1 ", as there; v6 (baseline/) does not strip it.
func officialID(rec *record.Record) string {
	if k, ok := strings.CutPrefix(rec.ID, rec.Dataset+":"); ok && rec.Dataset != "" {
		if rec.Dataset == "cmrc2018" {
			return textnorm.Strip(k)
		}
		return k
	}
	return rec.ID
}

// Refused returns the error of rec, a record the selection's filters keep, whose answer in the
// file is no string, which only CMRC 2018's script reads (as its str()), where SQuAD's stops on
// it, or whose hypothesis's autoeval_label does not read; else nil. It is asked after the
// filters, so that the records they leave out (another shard's) are no bad items of this run.
func (p *Predictions) Refused(rec *record.Record) error {
	o := p.byID[officialID(rec)]
	if o != nil && o.labelErr != "" && (rec.Prediction == nil || o.judged(rec.Prediction)) {
		// A record that keeps an answer of its own gets no label (see Attach), so one that does
		// not read is none of its faults.
		return fmt.Errorf("--predictions %s", o.labelErr)
	}
	if o == nil || o.notString == "" || rec.Dataset == "cmrc2018" || rec.Prediction != nil {
		return nil
	}
	return fmt.Errorf("--predictions %s: prediction %q: want a string, got %s (only CMRC 2018's script reads one, as its str(); this record is not CMRC 2018's)", p.Name, officialID(rec), o.notString)
}

// Count counts rec, a record written, in Written, in Kept when Attach kept the prediction it
// carried (kept; in LabelsLeft too when it left the file's autoeval_label off), in KeptJudgments
// when Attach kept the judgment it carried in place of the label, and in Missing when it has no
// answer: no prediction (the file had none for it), or one of supporting facts alone (HotpotQA's
// "missing answer" with its "sp"), also counted in FactsAlone.
func (p *Predictions) Count(rec *record.Record, kept Kept) {
	p.Written++
	if kept.Prediction {
		p.Kept++
	}
	if kept.LabelLeft {
		p.LabelsLeft++
	}
	if kept.Judgment != "" {
		if p.KeptJudgments++; p.KeptJudgments == 1 {
			p.FirstKeptJudgment = fmt.Sprintf("id %q, judgment %q", rec.ID, kept.Judgment)
		}
	}
	if kept.Failed != "" {
		if p.ReplacedFailed++; p.ReplacedFailed == 1 {
			p.FirstReplacedFailed = fmt.Sprintf("id %q: %s", rec.ID, kept.Failed)
		}
	}
	pr := rec.Prediction
	if pr == nil || !pr.HasText() && pr.Error == "" && pr.SupportingFacts != nil {
		if p.Missing++; p.Missing == 1 {
			p.FirstMissing = rec.ID
		}
		if pr != nil {
			p.FactsAlone++
		}
	}
}

// Unused returns the number of the file's predictions whose id no record read has, and the first
// of them in sorted order.
func (p *Predictions) Unused() (n int, first string) {
	for id, o := range p.byID {
		if !o.used {
			if n++; n == 1 || id < first {
				first = id
			}
		}
	}
	return n, first
}
