package learncurve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/pkg/record"
)

// reading is what run keeps of the records it reads: their verdicts, grouped, the counts of
// records placed and not, the repeats, and the judgment names and models seen.
type reading struct {
	g                *Grouper
	unplaced, placed int
	skippedNotes     recordNotes // one line a record, for the first few
	repeated         int         // records whose sequence and position an earlier one had
	firstRepeated    *record.Error
	names            map[string]bool // the judgment names the records carry
	models           map[string]bool // the models that answered (prediction.model), up to maxNames
}

// readRecords reads the records of src, each one's verdict under cfg.Judge. A signal (ctx) stops
// it before the next record.
func readRecords(ctx context.Context, cfg Config, src *command.Source, stderr io.Writer) (*reading, error) {
	rd := &reading{g: NewGrouper(cfg.Problems), names: map[string]bool{}, models: map[string]bool{}}
	if err := src.EachUntil(ctx, func(r *record.Record) error { rd.add(r, cfg.Judge, src, stderr); return nil }); err != nil {
		return nil, err
	}
	return rd, nil
}

// add takes in r, read from src: its judgment names, its model and its verdict under judge,
// noted when it failed, has none or one read from no score; a record without a place in a
// sequence is skipped, with a note on stderr.
func (rd *reading) add(r *record.Record, judge string, src *command.Source, stderr io.Writer) {
	// In order of name, so that which names a record of more than are kept takes is one on
	// every run, not a Go map's order.
	if len(rd.names) < maxNames {
		for _, name := range slices.Sorted(maps.Keys(r.Judgments)) {
			if len(rd.names) < maxNames {
				rd.names[name] = true
			}
		}
	}
	o, err := observe(r, judge)
	if errors.Is(err, ErrNoSequence) {
		rd.unplaced++
		rd.skippedNotes.note(stderr, fmt.Sprintf("qa-learncurve: %v; skipped", src.At(r.ID, err)))
		return
	}
	rd.placed++
	if p := r.Prediction; p != nil && p.Error == "" && p.Model != "" && len(rd.models) < maxNames {
		rd.models[p.Model] = true
	}
	// The grouper keeps each note while its record's verdict counts: a record replaced by a
	// later one of the same sequence and position is reported as it is counted, not at all.
	msg := failure(r, judge)
	switch _, has, _ := evalearn.Verdict(r.Judgments[judge]); {
	case msg != "":
		o.Note = &Note{Kind: Failed, At: src.At(r.ID, errors.New(msg))}
	case !has: // a failed record has no verdict either; it is counted as failed only
		o.Note = &Note{Kind: NoVerdict, At: src.At(r.ID, nil)}
	case o.Unread != "":
		o.Note = &Note{Kind: Unread, At: src.At(r.ID, errors.New(o.Unread))}
	case outOfRange(r.Judgments[judge]) != "":
		o.Note = &Note{Kind: OutOfRange, At: src.At(r.ID, errors.New(outOfRange(r.Judgments[judge])))}
	}
	if rd.g.Add(o) {
		if rd.repeated++; rd.firstRepeated == nil {
			rd.firstRepeated = src.At(r.ID, nil)
		}
	}
}

// notes prints the notes of the records read: the failed records counted as wrong, those ignored
// (their positions past problems), and how many more of each kind, with the skipped ones, were
// not shown. It returns the notes of the records counted (Grouper.Noted), and their count.
func (rd *reading) notes(stderr io.Writer, problems int) (noted [noteKinds][]*record.Error, counted int) {
	var failedNotes recordNotes // one line a record, for the first few
	noted, counted = rd.g.Noted()
	for _, at := range noted[Failed] {
		failedNotes.note(stderr, fmt.Sprintf("qa-learncurve: %v; counted as wrong", at))
	}
	var ignoredNotes recordNotes // failed records at positions the report does not read
	for _, at := range rd.g.Ignored()[Failed] {
		ignoredNotes.note(stderr, fmt.Sprintf("qa-learncurve: warning: %v; ignored: its position is not among 1-%d", at, problems))
	}
	rd.skippedNotes.rest(stderr, "record without a sequence id or position skipped", "records without a sequence id or position skipped")
	failedNotes.rest(stderr, "failed record counted as wrong", "failed records counted as wrong")
	ignoredNotes.rest(stderr, "failed record ignored", "failed records ignored")
	return noted, counted
}

// warnings are the warnings about the records read, given their notes (noted, of counted
// records): answers of several models, records without a verdict of judge or whose judge reply
// held no score, and records that repeat an earlier one's place.
func (rd *reading) warnings(judge string, noted [noteKinds][]*record.Error, counted int) []string {
	failed, unjudged, unread := len(noted[Failed]), len(noted[NoVerdict]), len(noted[Unread])
	var warns []string
	if w := modelsWarning(rd.models); w != "" {
		warns = append(warns, w)
	}
	if unjudged > 0 {
		first := ""
		if unjudged < counted-failed { // when none has one, the error below says so
			first = english.Form(unjudged, ": ", "; the first is ") + noted[NoVerdict][0].Place()
		}
		warns = append(warns, fmt.Sprintf("%s no %q verdict (no score, empty reply): counted as wrong%s", english.Count(unjudged, "record has", "records have"), judge, first))
	}
	if unread > 0 {
		warns = append(warns, fmt.Sprintf("%s %q judge %s no score by EvaLearn's rule: counted as wrong, as in EvaLearn%s%v",
			english.Count(unread, "record's", "records'"), judge, english.Form(unread, "reply holds", "replies hold"),
			english.Form(unread, ": ", "; the first is "), noted[Unread][0]))
	}
	if n := len(noted[OutOfRange]); n > 0 {
		warns = append(warns, fmt.Sprintf("%s %q judgment %s outside 0 to 1: counted right when above 0, as EvaLearn counts an answer_score (so a 1 of a 1-5 rubric, its worst, is right)%s%v",
			english.Count(n, "record's", "records'"), judge, english.Form(n, "score is", "scores are"),
			english.Form(n, ": ", "; the first is "), noted[OutOfRange][0]))
	}
	if rd.repeated > 0 {
		warns = append(warns, fmt.Sprintf("%s the sequence and position of an earlier record, whose verdict %s (as in EvaLearn; a file beside a copy of it, or files that overlap?)%s",
			english.Count(rd.repeated, "record repeats", "records repeat"), english.Form(rd.repeated, "it replaces", "they replace"),
			english.Form(rd.repeated, ": ", "; the first is ")+rd.firstRepeated.Place()))
	}
	return warns
}

// modelsWarning says that the records hold the answers of more than one model (models, the
// names in prediction.model of the answers), which the report pools as the answers of one, or
// returns "".
//
// Note: the answers of two models' runs, given together, made one report without a word where
// they were of different sequences (two shards, say), and where they were of the same ones
// only the later verdicts counted, with a warning of records that repeat.
func modelsWarning(models map[string]bool) string {
	if len(models) < 2 {
		return ""
	}
	n := english.Count(len(models), "model", "models")
	if len(models) == maxNames {
		n = fmt.Sprintf("%d or more models", maxNames)
	}
	return fmt.Sprintf("the records hold the answers of %s (%s), which the report pools as one run's: to compare models, give each one's records alone",
		n, command.QuotedList(slices.Sorted(maps.Keys(models))))
}

// recordNotes prints a line for each of the first maxRecordNotes records of one kind, and counts
// the others: a file of records from another benchmark would otherwise print a line a record.
type recordNotes struct{ shown, more int }

const maxRecordNotes = 10

func (n *recordNotes) note(w io.Writer, line string) {
	if n.shown == maxRecordNotes {
		n.more++
		return
	}
	n.shown++
	fmt.Fprintln(w, line)
}

// rest says how many records of the kind were not shown.
func (n *recordNotes) rest(w io.Writer, one, many string) {
	if n.more > 0 {
		fmt.Fprintf(w, "qa-learncurve: %s (not shown one by one)\n", english.Count(n.more, "more "+one, "more "+many))
	}
}

// maxNames is how many judgment names noVerdictError lists at most.
const maxNames = 20

// noVerdictError says that no record has a verdict under judge, and what the records have
// instead: a misspelt --judge, or records not judged yet, whose report would read 0 throughout.
// flag names where judge came from ("--judge from QA_JUDGE"; "" for "--judge").
//
// Note: where the records carried judge's own judgments, none with a verdict that counted (a judge
// run that failed on some records and was not run on the others, or an unjudged run given after
// a judged one), the error listed judge among the records' judgments and asked "did you mean" it.
func noVerdictError(judge, flag string, names map[string]bool) string {
	if flag == "" {
		flag = "--judge"
	}
	if len(names) == 0 {
		return fmt.Sprintf("no record has a verdict under %q, nor any judgment: judge them first (qa-judge --mode evalearn, or qa-predict's sequential judge)", judge)
	}
	if names[judge] {
		// judge is no misspelling: its judgments failed, are empty, or are of records that do not
		// count; the others are listed, and the nearest of them suggested, as before.
		others := ""
		if known := slices.DeleteFunc(slices.Sorted(maps.Keys(names)), func(n string) bool { return n == judge }); len(known) > 0 {
			others = fmt.Sprintf("; the records' other judgments: %s%s", command.QuotedList(known), english.DidYouMean(judge, known))
		}
		return fmt.Sprintf("no record has a verdict under %q (%s), though records carry judgments of that name: they failed or are empty, "+
			"or their records do not count (replaced by a later one of the same sequence and position, or past --problems)%s", judge, flag, others)
	}
	known := slices.Sorted(maps.Keys(names))
	return fmt.Sprintf("no record has a verdict under %q (%s); the records' judgments: %s%s", judge, flag, command.QuotedList(known),
		english.DidYouMean(judge, known))
}

// observe is Observe reading the verdicts of the named judge.
func observe(r *record.Record, judge string) (Observation, error) {
	if judge == JudgeName {
		return Observe(r)
	}
	shadow := *r
	shadow.Judgments = map[string]*record.Judgment{JudgeName: r.Judgments[judge]}
	return Observe(&shadow)
}

// outOfRange says what j's score is when it is outside 0 to 1 (5 of a 1-5 rubric, 2, -1, in a
// hand-made file; qa-judge writes none), or returns "". Such a score counts as EvaLearn's
// evaluate_metric.py counts an answer_score, "1 if score > 0 else 0", with a warning (see
// reading.warnings): the figures are EvaLearn's, which an error, counting the answer wrong or
// leaving it out, would change, where qa-score's judge_score, a metric, makes it an error.
func outOfRange(j *record.Judgment) string {
	if j == nil || j.Score == nil || *j.Score >= 0 && *j.Score <= 1 {
		return ""
	}
	return "score " + strconv.FormatFloat(*j.Score, 'g', -1, 64)
}

// failure says why r's answer counts as wrong for an error, or returns "" when it has none: a
// failed prediction, or a failed judgment under judge. Another judge's error (a second judge run
// for agreement) decides nothing here: the verdict read is judge's.
func failure(r *record.Record, judge string) string {
	if r.Prediction != nil && r.Prediction.Error != "" {
		return "prediction error: " + r.Prediction.Error
	}
	if j := r.Judgments[judge]; j != nil && j.Error != "" {
		return "judgment " + judge + " error: " + j.Error
	}
	return ""
}
