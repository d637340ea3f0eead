package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/record"
)

type evaLearnProblem struct {
	ID              jsonRaw  `json:"id"`
	Type            string   `json:"type"`
	Source          jsonRaw  `json:"source"`
	Level           jsonRaw  `json:"level"`
	Prompt          []string `json:"prompt"`
	Rubric          string   `json:"rubric"`
	CanonicalAnswer jsonRaw  `json:"canonical_answer"`

	answer string // canonical_answer's text: str() of a number, as in every benchmark's format

	// typeRaw is the type as the file gives it ("" or null) when Type is "", nil when it gives
	// none (a record of type "", which qa-learncurve counts as "unknown"); and one holding a lone
	// surrogate, which Type holds as U+FFFD, so that "A\ud800" and "A\ud801" stay two types, as
	// in EvaLearn's results.
	typeRaw jsonRaw

	// raw is the problem as its file gives it, when it has members that are not the format's
	// own (keepUnknown gives them to each record that asks it), else nil.
	raw jsonRaw

	// fault is the fault of a problem whose prompt ends with no question, or that does not
	// decode (a prompt that holds a number, say) though its id reads, named by the problem
	// file's line: each record that would ask it is a bad item that says so, rather than one
	// that says its id is not in the file.
	fault *record.Error
}

type evaLearnSequence struct {
	SequenceID  jsonRaw   `json:"sequence_id"`
	Type        string    `json:"type"`
	QuestionIDs []jsonRaw `json:"question_ids"`
}

// evaLearnProblemKeys and evaLearnSequenceKeys are the members of a problem and of a sequence
// that the format reads.
var (
	evaLearnProblemKeys  = jsonKeys(evaLearnProblem{})
	evaLearnSequenceKeys = jsonKeys(evaLearnSequence{})
)

// EvaLearn loads the EvaLearn dataset from its pair of files, EvaLearn_Problem.json and
// EvaLearn_Sequence.json: one record per (sequence, position), id evalearn:<sequence>:<position>
// with positions from 1, the sequence being sequence_id as evaluate_metric.py groups results by
// it, a Python dict key (evalearn.Key, as EvaLearnResults names it): 3 and 3.0 are the sequence 3,
// and the string "3" is the sequence "3", quotes included, never the number's. The problem's prompt list is kept exactly in turns (the question is its
// last element), with the rubric and the task type; answers hold canonical_answer when it is not
// empty or null, a number as str() of it (upstream withholds it: the reference answer is inside the
// rubric). meta keeps problem_id, source and level, and sequence_type the sequence's type when it
// is not the problem's: the type evaluate.py's student system prompt names at every position of the
// sequence, while its results (and so the record's type) keep the problem's. A question id names
// the problem whose id equals it in Python, as upstream looks it up (3.0 is 3, the string "3" is
// not); of problems with equal ids the last one counts. A problem whose prompt ends with no
// question, or that does not decode, makes each record that would ask it a bad item, named by the
// problem's line in its file. A sequence without question_ids (absent or null), or with an empty
// list, is a bad item. A problem's or a sequence's members that the format does not read go to
// the meta of each record made of it (keepUnknown; the problem's first, on a clash). A record's
// line, given to emit, is its sequence's in the sequence file.
func EvaLearn(problems, sequences Input, opt Options, emit Emit) error {
	byID := make(map[string]*evaLearnProblem)
	err := eachItem(problems, opt, emit, itemID(""), func(raw jsonRaw, line int, emit Emit) error {
		return addEvaLearnProblem(problems, raw, line, emit, byID)
	})
	if err != nil {
		return err
	}
	return eachItem(sequences, opt, emit, itemID(""), func(raw jsonRaw, line int, emit Emit) error {
		return emitEvaLearnSequence(sequences, raw, line, emit, byID)
	})
}

// addEvaLearnProblem takes in raw, the problem at line of problems, under its id in byID, with
// its fault when its prompt ends with no question or its canonical answer is no text; one that
// does not decode is evaLearnBadProblem's, and one whose id does not read is a bad item.
func addEvaLearnProblem(problems Input, raw jsonRaw, line int, emit Emit, byID map[string]*evaLearnProblem) error {
	p := new(evaLearnProblem)
	if err := decodeItem(problems, line, "", raw, p); err != nil {
		return evaLearnBadProblem(problems, line, raw, err, byID, emit)
	}
	id, err := idText("id", p.ID)
	if err != nil {
		return emit(nil, 0, badf(problems, line, "", "%v", err))
	}
	err = evaLearnQuestion(raw, p.Prompt)
	if p.Type == "" || strings.ContainsRune(p.Type, utf8.RuneError) {
		var t struct {
			Type jsonRaw `json:"type"`
		}
		_ = jsonUnmarshal(raw, &t) // decoded as p before
		if p.Type == "" || holdsLoneSurrogate(t.Type) {
			p.typeRaw = t.Type
		}
	}
	if a := p.CanonicalAnswer; len(a) > 0 && !isNull(a) {
		var answerErr error
		if p.answer, answerErr = answerText("canonical_answer", a); err == nil {
			err = answerErr
		}
	}
	if ms, _ := record.UnknownMembers(raw, evaLearnProblemKeys); len(ms) > 0 {
		p.raw = slices.Clone(raw)
		if unknownErr := keepUnknown(&record.Record{}, raw, evaLearnProblemKeys); err == nil {
			err = unknownErr
		}
	}
	if err != nil {
		p.fault = badf(problems, line, "", "problem %s: %v", id, err)
	}
	byID[evaLearnKey(p.ID)] = p // a later problem with an equal id replaces it, as in upstream's dict
	return nil
}

// emitEvaLearnSequence emits a record for each position of raw, the sequence at line of
// sequences, asking the problems of byID; a sequence that does not decode, or has no
// question_ids, is a bad item; one whose sequence_id does not read is one that says how many
// positions are skipped with it, as one that does not decode.
func emitEvaLearnSequence(sequences Input, raw jsonRaw, line int, emit Emit, byID map[string]*evaLearnProblem) error {
	var s evaLearnSequence
	if err := decodeRecord(sequences, line, "evalearn:", "sequence_id", raw, &s); err != nil {
		return emit(nil, 0, withItems(err, len(s.QuestionIDs), "position", "positions"))
	}
	if _, err := idText("sequence_id", s.SequenceID); err != nil {
		return emit(nil, 0, withItems(badf(sequences, line, "", "%v", err), len(s.QuestionIDs), "position", "positions"))
	}
	// The sequence as evaluate_metric.py groups its results, by sequence_id as a Python
	// dict key, as EvaLearnResults names it: 3 and 3.0 are one sequence, the string "3"
	// (kept quoted) another.
	seq := evaLearnKey(s.SequenceID)
	switch {
	case s.QuestionIDs == nil: // absent or null (a misspelt key): upstream stops on a KeyError
		return emit(nil, 0, badf(sequences, line, "evalearn:"+seq, "%v", noValue(raw, "question_ids", "a list of problem ids")))
	case len(s.QuestionIDs) == 0:
		return emit(nil, 0, badf(sequences, line, "evalearn:"+seq, "question_ids: want a list of problem ids, got an empty list"))
	}
	if err := keepUnknown(&record.Record{}, raw, evaLearnSequenceKeys); err != nil {
		return emit(nil, 0, withItems(badf(sequences, line, "evalearn:"+seq, "%v", err), len(s.QuestionIDs), "position", "positions"))
	}
	for i, q := range s.QuestionIDs {
		rec, bad := evaLearnRecord(sequences, line, seq, i+1, q, byID)
		if rec != nil {
			_ = keepUnknown(rec, raw, evaLearnSequenceKeys) // its error is returned above
		}
		if rec != nil && s.Type != "" && s.Type != rec.Type {
			// evaluate.py names the sequence's type, not the problem's, in the student's
			// system prompt of every position (system_prompts[seq['type']])
			setMeta(rec, "sequence_type", strconv.AppendQuote(nil, s.Type))
		}
		if err := emit(rec, line, bad); err != nil {
			return err
		}
	}
	return nil
}

// evaLearnBadProblem takes in raw, a problem at line that did not decode (err): one whose id
// reads takes its place in byID with its fault, reported by each record that asks it; any other
// is a bad item of its own, which no sequence can name.
func evaLearnBadProblem(problems Input, line int, raw jsonRaw, err error, byID map[string]*evaLearnProblem, emit Emit) error {
	var head struct {
		ID jsonRaw `json:"id"`
	}
	re, ok := err.(*record.Error)
	if !ok || jsonUnmarshal(raw, &head) != nil {
		return emit(nil, 0, err)
	}
	id, idErr := idText("id", head.ID)
	if idErr != nil {
		return emit(nil, 0, err)
	}
	byID[evaLearnKey(head.ID)] = &evaLearnProblem{ID: head.ID, fault: badf(problems, line, "", "problem %s: %v", id, re.Err)}
	return nil
}

// evaLearnRecord is the record of position pos of sequence seq, whose question id is raw, the
// JSON value at question_ids[pos-1]: a string or a number, as a problem's id is.
func evaLearnRecord(in Input, line int, seq string, pos int, raw jsonRaw, byID map[string]*evaLearnProblem) (*record.Record, error) {
	id := fmt.Sprintf("evalearn:%s:%d", seq, pos)
	qid, err := fieldText(fmt.Sprintf("question_ids[%d]", pos-1), raw)
	if err != nil { // a list, an object or null names no problem
		return nil, badf(in, line, id, "%v", err)
	}
	p := byID[evaLearnKey(raw)]
	if p == nil && isString(raw) { // quoted, so that "3" is told from 3, which it does not match
		return nil, badf(in, line, id, "question id %s is not in the problem file", strconv.Quote(qid))
	}
	if p == nil {
		return nil, badf(in, line, id, "question id %s is not in the problem file", qid)
	}
	if p.fault != nil {
		bad := *p.fault
		bad.ID = id
		return nil, &bad
	}
	rec := newRecord(id, "evalearn", "")
	rec.Type = p.Type
	// "" (or null) is a type of its own in EvaLearn's results, which its metrics key by value,
	// apart from a missing one ("unknown"): qa-learncurve reads it from meta, as from a results
	// file's (setMeta leaves out a type not given).
	setMeta(rec, "evalearn_type", p.typeRaw)
	rec.Turns = p.Prompt
	if n := len(p.Prompt); n > 0 {
		rec.Question = p.Prompt[n-1]
	}
	rec.Rubric = p.Rubric
	rec.Answers = []string{}
	if p.answer != "" {
		rec.Answers = []string{p.answer}
	}
	rec.Sequence = &record.Sequence{ID: seq, Position: pos}
	setMeta(rec, "problem_id", p.ID)
	setMeta(rec, "source", p.Source)
	setMeta(rec, "level", p.Level)
	if p.raw != nil {
		_ = keepUnknown(rec, p.raw, evaLearnProblemKeys) // its error is the problem's fault
	}
	return rec, nil
}

// evaLearnKey returns the key that finds a problem by its id, raw (a JSON string, number or
// boolean), as upstream's evaluate.py finds it: in a dict keyed by the ids json.load decoded, so
// ids match when they are equal in Python (evalearn.Key): 3, 3.0 and 3e0 are one id and true is
// 1, while the string "3" is not the number 3.
func evaLearnKey(raw jsonRaw) string {
	key, _, _ := evalearn.Key(raw)
	return key
}

// evaLearnQuestion returns the error of a problem's prompt that ends with no question: none (absent
// or null, in raw, the problem), an empty list, or a last element that is empty or only blanks.
func evaLearnQuestion(raw jsonRaw, prompt []string) error {
	if prompt == nil {
		return noValue(raw, "prompt", "a list that ends with the question")
	}
	if len(prompt) == 0 {
		return errors.New("prompt: want a list that ends with the question, got an empty list")
	}
	return emptyQuestion(fmt.Sprintf("prompt[%d]", len(prompt)-1), prompt[len(prompt)-1])
}

// EvaLearnPair sorts the files given for the evalearn format into the problem file and the
// sequence file, by content. When only one is given, the other is looked for beside it under its
// upstream name (EvaLearn_Problem.json or EvaLearn_Sequence.json); when it is not there, or two
// files of one kind are given, the error says what was given and what is missing.
func EvaLearnPair(paths []string) (problems, sequences string, err error) {
	if len(paths) > 2 {
		return "", "", errors.New("evalearn reads two files: EvaLearn_Problem.json and EvaLearn_Sequence.json")
	}
	var blank []string // files with no text, which say nothing of their kind
	for _, p := range paths {
		kind, err := evaLearnKind(p)
		if err != nil {
			return "", "", err
		}
		slot := &problems
		switch kind {
		case "":
			blank = append(blank, p)
			continue
		case "sequence":
			slot = &sequences
		}
		if *slot != "" {
			return "", "", fmt.Errorf("%s and %s are both EvaLearn %s files: evalearn reads a problem file (EvaLearn_Problem.json) and a sequence file (EvaLearn_Sequence.json)", *slot, p, kind)
		}
		*slot = p
	}
	// An empty file takes the place left, or the one its name says when both are left.
	for _, p := range blank {
		switch {
		case problems == "" && sequences == "":
			if strings.Contains(strings.ToLower(filepath.Base(p)), "sequence") {
				sequences = p
			} else {
				problems = p
			}
		case problems == "":
			problems = p
		default:
			sequences = p
		}
	}
	switch {
	case problems == "" && sequences != "":
		problems, err = evaLearnBeside(sequences, "sequence", "problem", "EvaLearn_Problem.json")
	case sequences == "" && problems != "":
		sequences, err = evaLearnBeside(problems, "problem", "sequence", "EvaLearn_Sequence.json")
	}
	return problems, sequences, err
}

// evaLearnBeside returns the path of the EvaLearn file named name beside given, a file of kind
// has, whose other file (of kind want) was not given; an error that says so when it is not there,
// which os.Open's "open EvaLearn_Problem.json: no such file or directory" left unsaid.
//
// The other file is looked for gzip-compressed too (EvaLearn_Problem.json.gz), first when given is
// (its name ends in .gz), else after the plain name.
func evaLearnBeside(given, has, want, name string) (string, error) {
	p := filepath.Join(filepath.Dir(given), name)
	tries := []string{p, p + ".gz"}
	if format.TrimGz(given) != given {
		tries[0], tries[1] = tries[1], tries[0]
	}
	for _, t := range tries {
		if _, err := os.Stat(t); !errors.Is(err, fs.ErrNotExist) {
			return t, nil
		}
	}
	return "", fmt.Errorf("%s is an EvaLearn %s file, and its %s file was neither given nor found beside it as %s (or %s): name both files", given, has, want, tries[0], tries[1])
}

// evaLearnKind tells an EvaLearn file's kind by its start: "sequence" for one like
// EvaLearn_Sequence.json, "problem" for any other text, and "" for a file of blanks alone (an
// empty file) or an empty JSON list, which hold no item of either kind.
func evaLearnKind(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head, err := bufio.NewReaderSize(textfile.NewReader(f), 4096).Peek(4096)
	if _, ok := errors.AsType[*textfile.FormatError](err); ok {
		return "", fmt.Errorf("read %s: %w", path, err) // a tar archive, say: neither kind
	}
	switch {
	case len(bytes.TrimSpace(head)) == 0, isEmptyList(head):
		return "", nil
	case bytes.Contains(head, []byte(`"question_ids"`)):
		return "sequence", nil
	}
	return "problem", nil
}

// isEmptyList reports whether head, all of a file, is a JSON list of nothing ("[]", blanks
// around and within it).
func isEmptyList(head []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(head), []byte("["))
	return ok && string(bytes.TrimSpace(rest)) == "]"
}
