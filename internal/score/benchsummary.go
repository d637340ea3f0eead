package score

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/record"
)

// locomoSummary is LoCoMo's own report of locomo_f1, the figures of the stats file that
// evaluate_qa.py writes (task_eval/evaluation_stats.py's analyze_aggr_acc): each category's sum of
// the stored scores (locomoStored) over its count, and overall the category sums added in the order
// 4, 1, 2, 3, 5 over the count of all.
func (a *aggregator) locomoSummary(s *Summary) *LoCoMo {
	if len(a.locomo) == 0 {
		return nil
	}
	l := &LoCoMo{Metric: "locomo_f1"}
	for c := 1; c <= 5; c++ {
		m, ok := a.locomo[c]
		if !ok {
			continue
		}
		l.Categories = append(l.Categories, Category{Category: c, Type: record.LoCoMoType(c), Mean: m.mean(), Count: m.n})
	}
	var all meanAcc
	for _, c := range []int{4, 1, 2, 3, 5} {
		if m, ok := a.locomo[c]; ok {
			all.merge(m)
		}
	}
	l.Overall = Stat{Mean: all.mean(), Count: all.n}
	a.locomoIntervals(s, l)
	return l
}

// locomoStored is the score v of a question of category cat as evaluate_qa.py stores it for its
// stats, round(v, 3): numpy's rounding (v*1000 rounded half to even, over 1000) for category 1,
// whose F1 is a numpy mean, and Python's correctly rounded one for the others (0.0055 is 0.006 in
// category 1 and 0.005 in category 4).
func locomoStored(v float64, cat int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	if cat == 1 {
		return math.RoundToEven(v*1000) / 1000
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 3, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// convAcc is judge_score over one LoCoMo conversation: all its values, and by category; with
// intervals, its values by category too, in input order.
type convAcc struct {
	name string
	all  meanAcc
	cats map[int]*meanAcc
	vals map[int][]float64
}

// addLoCoMoJudge takes in the judge_score v of a LoCoMo record.
func (a *aggregator) addLoCoMoJudge(o outcome, v float64) {
	acc(a.locomoJudge, o.locomoCat).add(v)
	a.locomoAll[0].add(v) // summed in the records' order, as MAGMA sums them
	if o.locomoCat != 5 {
		a.locomoAll[1].add(v)
	}
	keep := a.keep == keepValues
	if o.locomoConv == "" {
		a.locomoNoConv++
		if keep {
			a.locomoNoConvVals[o.locomoCat] = append(a.locomoNoConvVals[o.locomoCat], v)
		}
		return
	}
	c := a.locomoConvAt[o.locomoConv]
	if c == nil {
		c = &convAcc{name: o.locomoConv, cats: map[int]*meanAcc{}, vals: map[int][]float64{}}
		a.locomoConvAt[o.locomoConv] = c
		a.locomoConvs = append(a.locomoConvs, c)
	}
	c.all.add(v)
	acc(c.cats, o.locomoCat).add(v)
	if keep {
		if c.vals[o.locomoCat] == nil { // the conversation's first record of the category
			a.locomoCatConvs[o.locomoCat] = append(a.locomoCatConvs[o.locomoCat], c)
		}
		c.vals[o.locomoCat] = append(c.vals[o.locomoCat], v)
	}
}

// locomoJudgeSummary is judge_score over LoCoMo records as the LoCoMo judges' own code reports it.
// mem0's generate_scores.py pools the questions of every conversation: the mean and count per
// category, and the mean over all (category 5 has no judgment under mem0's mode, so it is not
// among them). MAGMA's test_fixed_memory.py pools the questions of one conversation (a sample):
// per category, over all (with category 5 when it was judged) and over all but category 5; over
// several conversations it prints the mean of the conversations' means, each conversation
// weighing the same whatever its number of questions, and per category the mean over the
// conversations that have the category. Those are conversation_averaged, the conversation read
// from the record's id (locomo:<sample_id>:<index>); null, with a warning, when an id names none.
func (a *aggregator) locomoJudgeSummary(s *Summary) *LoCoMoJudge {
	if len(a.locomoJudge) == 0 {
		return nil
	}
	l := &LoCoMoJudge{Metric: "judge_score"}
	for c := 1; c <= 5; c++ {
		if m, ok := a.locomoJudge[c]; ok {
			l.Categories = append(l.Categories, Category{Category: c, Type: record.LoCoMoType(c), Mean: m.mean(), Count: m.n})
		}
	}
	l.Overall = Stat{Mean: a.locomoAll[0].mean(), Count: a.locomoAll[0].n}
	l.WithoutCategory5 = Stat{Mean: a.locomoAll[1].mean(), Count: a.locomoAll[1].n}
	if w := unjudgedWarning("locomo_judge", a.judgeNamed(), a.locomoUnjudged, a.locomoAll[0].n); w != "" {
		s.Warnings = append(s.Warnings, w)
	}
	if a.locomoNoConv > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("locomo_judge: %s no conversation (locomo:<sample_id>:<index>, as qa-load writes it): no conversation-averaged figures",
			english.Count(a.locomoNoConv, "record's id names", "records' ids name")))
		a.locomoJudgeIntervals(s, l)
		return l
	}
	l.Conversations = ptrInt(len(a.locomoConvs))
	// Summed in the conversations' order, as MAGMA sums its samples' figures in theirs (mean).
	ca := &ConversationAveraged{}
	var means []float64
	for _, c := range a.locomoConvs {
		means = append(means, *c.all.mean())
	}
	ca.Overall = Stat{Mean: ptr(mean(means)), Count: len(means)}
	for cat := 1; cat <= 5; cat++ {
		means = means[:0]
		for _, c := range a.locomoConvs {
			if m, ok := c.cats[cat]; ok {
				means = append(means, *m.mean())
			}
		}
		if len(means) > 0 {
			ca.Categories = append(ca.Categories, Category{Category: cat, Type: record.LoCoMoType(cat), Mean: ptr(mean(means)), Count: len(means)})
		}
	}
	l.ConversationAveraged = ca
	a.locomoJudgeIntervals(s, l)
	return l
}

// lmeSummary is LongMemEval's own report: accuracy per question type, the task-averaged accuracy
// (the mean of the means of LongMemEval's six question types), the overall accuracy and the
// accuracy on abstention questions. A type that is none of the six (a record without a type, a
// misspelt one) has its accuracy in by_type and its records in the overall accuracy, which counts
// every question (upstream's print_qa_metrics.py stops with a KeyError at such a type), but it is
// no task of the benchmark's, so it is left out of the task-averaged accuracy, with a warning.
func (a *aggregator) lmeSummary(s *Summary) *LongMemEval {
	if len(a.lme) == 0 {
		return nil
	}
	l := &LongMemEval{Metric: "judge_score", ByType: map[string]Stat{}}
	var all meanAcc
	var means []float64
	var others []string
	// The six type means are summed in print_qa_metrics.py's order (np.mean of six values adds
	// them in turn), so that the figure is upstream's to the last bit and the same on every run.
	for _, t := range slices.Sorted(maps.Keys(a.lme)) {
		m := a.lme[t]
		l.ByType[t] = Stat{Mean: m.mean(), Count: m.n}
		all.merge(m)
		if !slices.Contains(record.LongMemEvalTypes, t) {
			others = append(others, strconv.Quote(t))
		}
	}
	for _, t := range record.LongMemEvalTypes {
		if m, ok := a.lme[t]; ok {
			means = append(means, *m.mean())
		}
	}
	tasks := len(means)
	if tasks > 0 {
		l.TaskAveraged = ptr(sumOverCount(means))
	}
	l.Overall = Stat{Mean: all.mean(), Count: all.n}
	l.Abstention = Stat{Mean: a.lmeAbs.mean(), Count: a.lmeAbs.n}
	if w := unjudgedWarning("longmemeval", a.judgeNamed(), a.lmeUnjudged, all.n); w != "" {
		s.Warnings = append(s.Warnings, w)
	}
	if tasks != len(record.LongMemEvalTypes) {
		s.Warnings = append(s.Warnings, fmt.Sprintf("longmemeval: task-averaged accuracy is over %s, not the benchmark's 6", english.Count(tasks, "question type", "question types")))
	}
	if len(others) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("longmemeval: %s %s %s none of LongMemEval's six question types: %s in by_type and overall but not in the task-averaged accuracy",
			english.Form(len(others), "type", "types"), strings.Join(others, ", "), english.Form(len(others), "is", "are"), english.Form(len(others), "it is", "they are")))
	}
	a.lmeIntervals(s, l)
	return l
}

// unjudgedWarning says that a judge section (named section) is over judged records alone, not
// over the unjudged records with a prediction that the other metrics score (a results file that
// labels only some hypotheses, a judge run over part of the records); "" when there are none.
// named is the judgment the unjudged records lack, as judgeNamed gives it (they may carry others).
func unjudgedWarning(section, named string, unjudged, judged int) string {
	if unjudged == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %d of %d records with a prediction %s no judgment%s, so the judge accuracies leave %s out (judge them: qa-judge passes the judged ones through)",
		section, unjudged, unjudged+judged, english.Form(unjudged, "has", "have"), named, english.Form(unjudged, "it", "them"))
}

// judgeNamed is the judgment that --judge names, quoted with where it came from, after a space
// (` "longmemeval/gpt-4o-2024-08-06" (--judge)`), for the warnings of records without it; "" without
// --judge.
func (a *aggregator) judgeNamed() string {
	if a.judge == "" {
		return ""
	}
	flag := a.judgeFlag
	if flag == "" {
		flag = "--judge"
	}
	return fmt.Sprintf(" %q (%s)", a.judge, flag)
}

// sumOverCount is the mean of xs (at least one value) as a script's sum(xs)/len(xs), or np.mean
// of fewer than eight values, gives it: summed in order and divided by the count, not held to the
// values' range as mean holds it (six means of 0.1 give 0.09999999999999999, not 0.1). Only a
// sum that overflows takes mean's way, so that the figure is never infinite.
func sumOverCount(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	if m := s / float64(len(xs)); !math.IsInf(m, 0) && !math.IsNaN(m) {
		return m
	}
	return mean(xs)
}

// lmeTasks is how many of LongMemEval's six question types the task-averaged accuracy is over.
func (l *LongMemEval) lmeTasks() int {
	n := 0
	for _, t := range record.LongMemEvalTypes {
		if _, ok := l.ByType[t]; ok {
			n++
		}
	}
	return n
}
