package score

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/pkg/record"
)

// judgeFamily is judge_score: the score of one judgment carried by the record (qa-judge wrote it),
// or the verdict of an EvaLearn judge reply (see verdict).
func judgeFamily() *family {
	return &family{
		names: []string{"judge_score"},
		about: "score of the judgment named by --judge (default: first judge name in sorted order)",
		applies: func(it *item) bool {
			_, ok, _ := it.verdict()
			return ok || judgeFailed(it) && it.rec.Prediction != nil
		},
		score: func(it *item, out []float64) { out[0], _, _ = it.verdict() },
	}
}

// verdict returns the score judge_score reads from the record's judgment, as evalearn.Counted
// reads it on an EvaLearn record (dataset evalearn): the judgment's score, else the judge's raw
// reply read by EvaLearn's rule, as qa-learncurve counts it, so that the mean judge_score is
// EvaLearn's overall accuracy over whole sequences (each position 1 to M once; qa-learncurve
// counts a missing one wrong and a repeated one once); unread says why a reply gave no score by
// the rule (0 then). An EvaLearn judgment with neither a score nor a reply (EvaLearn's results
// hold an empty gpt4judge where its judge failed) counts 0, unread as an empty reply: EvaLearn's
// rule scores it 0 and qa-learncurve counts it wrong. On other records only a score counts: ok is
// false when the judgment has none.
//
// Note: the rule is not applied to a raw reply alone on other benchmarks' records: it reads
// EvaLearn's {"answer_score": N} and would score any other judge's reply 0.
func (it *item) verdict() (score float64, ok bool, unread string) {
	j := it.judgment()
	switch {
	case j == nil:
		return 0, false, ""
	case it.rec.InDataset(evalearnDataset):
		return evalearn.Counted(j)
	case j.Score != nil:
		return *j.Score, true, ""
	}
	return 0, false, ""
}

// outOfRange says why the score of the judgment judge_score reads is none, when it is outside 0
// to 1 (5 of a 1-5 rubric, -1, 1.5, which a hand-made file can hold): judge_score is a metric, and
// such a score would be averaged as it is, a mean of 2.1 without a word; "" when the judgment has
// no score or one in range. The caller makes it a metric error of the record, as an auc score
// that is not a number is.
//
// Note: qa-learncurve takes such a score as EvaLearn's evaluate_metric.py takes an answer_score,
// correct when above 0, with a warning: its figures are EvaLearn's, which a score of 2 does not
// change. judge_score's mean is no figure of EvaLearn's but a metric's, and 2 would be in it.
func (it *item) outOfRange() string {
	name := it.judgmentName()
	if name == "" {
		return ""
	}
	if err := it.rec.Judgments[name].ScoreError(name); err != nil {
		return err.Error()
	}
	return ""
}

// evalearnDataset is the dataset of the records qa-load makes of EvaLearn's files.
const evalearnDataset = "evalearn"

// unreadReplies counts the EvaLearn judge replies that judge_score read no score from by
// EvaLearn's rule, and keeps where the first is, for a warning as qa-learncurve's: those
// records score 0, as EvaLearn counts them, which a reader would not tell from a reply graded 0.
type unreadReplies struct {
	n     int
	first *record.Error
}

// add notes the record with id, read at file:line, when why says its reply held no score.
func (u *unreadReplies) add(file string, line int, id, why string) {
	if why == "" {
		return
	}
	if u.n++; u.first == nil {
		u.first = &record.Error{File: file, Line: line, ID: id, Err: errors.New(why)}
	}
}

// warning says how many replies held no score and which was the first, or returns "".
func (u *unreadReplies) warning() string {
	if u.n == 0 {
		return ""
	}
	return fmt.Sprintf("%s EvaLearn judge %s no score by EvaLearn's rule: judge_score 0, as in EvaLearn%s%v",
		english.Count(u.n, "record's", "records'"), english.Form(u.n, "reply holds", "replies hold"),
		english.Form(u.n, ": ", "; the first is "), u.first)
}

// judgment returns the judgment judge_score reads, or nil.
func (it *item) judgment() *record.Judgment {
	name := it.judgmentName()
	if name == "" {
		return nil
	}
	return it.rec.Judgments[name]
}

// judgmentName returns the name of the judgment judge_score reads: --judge, or else the first
// name in sorted order of the record's judgments; "" when there is none.
func (it *item) judgmentName() string {
	if len(it.rec.Judgments) == 0 {
		return ""
	}
	if it.judge != "" {
		if it.rec.Judgments[it.judge] == nil {
			return ""
		}
		return it.judge
	}
	names := make([]string, 0, len(it.rec.Judgments))
	for n, j := range it.rec.Judgments {
		if j != nil {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return slices.Min(names)
}

// judgeNames counts the judgment names judge_score read without --judge, so that a run whose
// records were graded by different judges says so instead of averaging them unawares; with
// --judge it counts the names records carry, so that a misspelt name is pointed out. It is safe
// for concurrent use and holds at most maxJudgeNames names.
type judgeNames struct {
	mu     sync.Mutex
	counts map[string]int
	passed map[string]bool // other judgments on records, left unread (no --judge)
	missed int             // records with judgments, none of them --judge's
}

const maxJudgeNames = 64

// add counts name, unless maxJudgeNames other names are counted already and named is false:
// --judge's name (named) is always counted, so that others on records without it cannot crowd it
// out of the summary's judgments and into a warning that no record has it.
func (j *judgeNames) add(name string, named bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.counts == nil {
		j.counts = make(map[string]int)
	}
	if _, ok := j.counts[name]; ok || named || len(j.counts) < maxJudgeNames {
		j.counts[name]++
	}
}

// miss notes a record that carries judgments but not the one --judge names.
func (j *judgeNames) miss() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.missed++
}

// misnamed returns, when --judge NAME (named) is on no record though records carry other
// judgments (a misspelt name, most likely), how many records judge_score could not read; else 0.
func (j *judgeNames) misnamed(named string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	if named == "" || j.counts[named] > 0 {
		return 0
	}
	return j.missed
}

// pass notes a judgment a record carries beside the one judge_score read.
func (j *judgeNames) pass(name string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.passed == nil {
		j.passed = make(map[string]bool)
	}
	if len(j.passed) < maxJudgeNames {
		j.passed[name] = true
	}
}

// read returns the judgments judge_score read, by name, with how many records each, given
// --judge NAME (named; "" without): the names it counted without --judge, or NAME alone with it;
// nil when it read none. Past maxJudgeNames names, the further ones are not in it.
func (j *judgeNames) read(named string) map[string]int {
	j.mu.Lock()
	defer j.mu.Unlock()
	if named != "" {
		if n := j.counts[named]; n > 0 {
			return map[string]int{named: n}
		}
		return nil
	}
	if len(j.counts) == 0 {
		return nil
	}
	return maps.Clone(j.counts)
}

// warning says which judgments judge_score read when it read more than one name, or, with
// --judge NAME (named), that no record had NAME though records had other judgments; or, without
// --judge, that records carry other judgments than the one read (a second judge's run beside a
// first one's, whose name sorts first); else "". flag names where named came from: "--judge",
// or "--judge from QA_JUDGE" for the variable several commands read.
func (j *judgeNames) warning(named, flag string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if named == "" && len(j.counts) == 1 && len(j.passed) > 0 {
		read := slices.Collect(maps.Keys(j.counts))[0]
		return fmt.Sprintf("judge_score read the judgment %q, the first name in sorted order; records also carry %s: give --judge NAME to read another",
			read, command.QuotedList(slices.Sorted(maps.Keys(j.passed))))
	}
	if named != "" {
		if j.counts[named] > 0 || len(j.counts) == 0 {
			return ""
		}
		names := slices.Sorted(maps.Keys(j.counts))
		return fmt.Sprintf("no record has a judgment named %q (%s); the records' judgments: %s%s", named, judgeFlag(flag), command.QuotedList(names),
			english.DidYouMean(named, names))
	}
	if len(j.counts) < 2 {
		return ""
	}
	var parts []string
	last := 0 // the count the closing "records" agrees with
	for _, n := range slices.Sorted(maps.Keys(j.counts)) {
		last = j.counts[n]
		parts = append(parts, fmt.Sprintf("%q on %d", n, last))
	}
	return fmt.Sprintf("judge_score read different judgments on different records (%s %s): their scores are averaged together; give --judge NAME to read one",
		strings.Join(parts, ", "), english.Form(last, "record", "records"))
}
