package score

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// benchOutcome is one judged (or locomo_f1-scored) benchmark record: LongMemEval's when typ is one
// of its types, else LoCoMo's of category cat in conversation conv.
type benchOutcome struct {
	typ   string
	abs   bool
	cat   int
	conv  string
	score float64
}

func (b benchOutcome) outcome() outcome {
	if b.cat == 0 {
		return outcome{typ: b.typ, dataset: "longmemeval", abstention: b.abs, vals: []float64{b.score}}
	}
	return outcome{typ: record.LoCoMoType(b.cat), dataset: "locomo", locomoCat: b.cat, locomoConv: b.conv, vals: []float64{b.score}}
}

// benchSummary summarises records under metric, with reps resamples.
func benchSummary(metric string, reps int, recs []benchOutcome) *Summary {
	keep := keepValues
	if reps == 0 {
		keep = keepFigures
	}
	a := newAggregator([]string{metric}, false, keep, nil)
	for _, r := range recs {
		a.add(r.outcome())
	}
	return a.summarize(reps, 1, 0.95, 0, nil)
}

// sectionFigures lists every figure of the benchmark sections, by row name, with its interval.
func sectionFigures(s *Summary) map[string]Stat {
	out := map[string]Stat{}
	if l := s.LongMemEval; l != nil {
		for t, st := range l.ByType {
			out["lme type "+t] = st
		}
		out["lme task-averaged"] = Stat{Mean: l.TaskAveraged, Count: l.lmeTasks(), CI: l.TaskAveragedCI}
		out["lme overall"] = l.Overall
		out["lme abstention"] = l.Abstention
	}
	if l := s.LoCoMo; l != nil {
		for _, c := range l.Categories {
			out[fmt.Sprintf("locomo category %d", c.Category)] = c.stat()
		}
		out["locomo overall"] = l.Overall
	}
	if l := s.LoCoMoJudge; l != nil {
		for _, c := range l.Categories {
			out[fmt.Sprintf("judge category %d", c.Category)] = c.stat()
		}
		out["judge overall"] = l.Overall
		out["judge without 5"] = l.WithoutCategory5
		if ca := l.ConversationAveraged; ca != nil {
			for _, c := range ca.Categories {
				out[fmt.Sprintf("judge conv category %d", c.Category)] = c.stat()
			}
			out["judge conv overall"] = ca.Overall
		}
	}
	return out
}

// lmeRecords is n copies of twelve LongMemEval questions over the six types, two of them
// abstention questions, with scores that differ within every type.
func lmeRecords(n int) []benchOutcome {
	base := []benchOutcome{
		{typ: "single-session-user", score: 1}, {typ: "single-session-user", score: 0},
		{typ: "single-session-assistant", score: 1}, {typ: "single-session-assistant", score: 0},
		{typ: "single-session-preference", score: 0}, {typ: "single-session-preference", score: 1},
		{typ: "multi-session", score: 1}, {typ: "multi-session", abs: true, score: 0},
		{typ: "knowledge-update", score: 1}, {typ: "knowledge-update", score: 0},
		{typ: "temporal-reasoning", score: 0}, {typ: "temporal-reasoning", abs: true, score: 1},
	}
	var out []benchOutcome
	for range n {
		out = append(out, base...)
	}
	return out
}

// locomoRecords is n copies of twelve LoCoMo questions in two conversations, all five categories,
// every other copy with the scores turned round (1 - score), so that they differ within every
// category of every conversation.
func locomoRecords(n int) []benchOutcome {
	base := []benchOutcome{
		{cat: 1, conv: "locomo:conv-26", score: 1}, {cat: 2, conv: "locomo:conv-26", score: 0.8},
		{cat: 4, conv: "locomo:conv-26", score: 0.6}, {cat: 5, conv: "locomo:conv-26", score: 1},
		{cat: 1, conv: "locomo:conv-30", score: 0}, {cat: 4, conv: "locomo:conv-30", score: 0.5},
		{cat: 4, conv: "locomo:conv-30", score: 1}, {cat: 3, conv: "locomo:conv-30", score: 0.4},
		{cat: 5, conv: "locomo:conv-30", score: 0}, {cat: 2, conv: "locomo:conv-30", score: 0.2},
		{cat: 3, conv: "locomo:conv-26", score: 0}, {cat: 1, conv: "locomo:conv-26", score: 0.5},
	}
	var out []benchOutcome
	for i := range n {
		for _, b := range base {
			if i%2 == 1 {
				b.score = 1 - b.score
			}
			out = append(out, b)
		}
	}
	return out
}

// TestBenchmarkSectionIntervals: every figure of the benchmark sections has a bootstrap interval,
// as each group's metrics have, that holds its point estimate and narrows as the records grow;
// none with --bootstrap 0; and the point estimates are those of a run without intervals, to the bit.
func TestBenchmarkSectionIntervals(t *testing.T) {
	for _, tt := range []struct {
		name, metric string
		recs         func(int) []benchOutcome
		figures      int
	}{
		{"longmemeval", "judge_score", lmeRecords, 9},
		{"locomo_f1", "locomo_f1", locomoRecords, 6},
		{"locomo_judge", "judge_score", locomoRecords, 13},
	} {
		t.Run(tt.name, func(t *testing.T) {
			small := sectionFigures(benchSummary(tt.metric, 1000, tt.recs(3)))
			large := sectionFigures(benchSummary(tt.metric, 1000, tt.recs(30)))
			none := sectionFigures(benchSummary(tt.metric, 0, tt.recs(3)))
			if len(small) != tt.figures {
				t.Fatalf("%d figures, want %d: %v", len(small), tt.figures, small)
			}
			for name, st := range small {
				if st.CI == nil {
					t.Errorf("%s: no interval", name)
					continue
				}
				if lo, hi, m := st.CI[0], st.CI[1], *st.Mean; !(lo <= m && m <= hi && lo < hi) {
					t.Errorf("%s: interval [%v, %v] does not hold the mean %v, or is a point", name, lo, hi, m)
				}
				if l := large[name]; !(l.CI != nil && l.CI[1]-l.CI[0] < st.CI[1]-st.CI[0]) {
					t.Errorf("%s: interval over ten times the records %v, not narrower than %v", name, l.CI, st.CI)
				}
				if n := none[name]; n.CI != nil || *n.Mean != *st.Mean || n.Count != st.Count {
					t.Errorf("%s: --bootstrap 0 gives (%v, %d, %v), want (%v, %d, no interval)", name, *n.Mean, n.Count, n.CI, *st.Mean, st.Count)
				}
			}
		})
	}
}

// TestBenchmarkSectionIntervalsPoint: where every value a figure averages is the same, its
// interval is its point estimate, the script's sum over count (0.1 37 times sums to a hair above
// 3.7), not the value; and a figure averaged over strata whose values are each all the same (a
// type, a conversation all right, another all wrong) has its point for both bounds however the
// strata differ, since each stratum is resampled alone, while the pooled figures vary.
func TestBenchmarkSectionIntervalsPoint(t *testing.T) {
	var lme, locomo []benchOutcome
	for i := range 37 {
		for _, typ := range record.LongMemEvalTypes {
			lme = append(lme, benchOutcome{typ: typ, abs: i%5 == 0, score: 0.1})
		}
		for cat := 1; cat <= 5; cat++ {
			locomo = append(locomo, benchOutcome{cat: cat, conv: fmt.Sprintf("locomo:conv-%d", i%3), score: 0.1})
		}
	}
	for _, s := range []*Summary{benchSummary("judge_score", 200, lme), benchSummary("locomo_f1", 200, locomo), benchSummary("judge_score", 200, locomo)} {
		for name, st := range sectionFigures(s) {
			if st.CI == nil || st.CI[0] != *st.Mean || st.CI[1] != *st.Mean {
				t.Errorf("%s: interval %v, want [%v, %v]", name, st.CI, *st.Mean, *st.Mean)
			}
		}
	}

	var strata []benchOutcome
	for i, typ := range record.LongMemEvalTypes {
		for range 10 {
			strata = append(strata, benchOutcome{typ: typ, score: float64(i % 2)})
		}
	}
	for i := range 20 {
		strata = append(strata, benchOutcome{cat: 1 + i%4, conv: "locomo:a", score: 1}, benchOutcome{cat: 1 + i%4, conv: "locomo:b", score: 0})
	}
	s := benchSummary("judge_score", 200, strata)
	f := sectionFigures(s)
	for _, name := range []string{"lme task-averaged", "judge conv overall", "judge conv category 1", "judge conv category 4"} {
		if st := f[name]; st.CI == nil || st.CI[0] != *st.Mean || st.CI[1] != *st.Mean || *st.Mean != 0.5 {
			t.Errorf("%s: (%v, %v), want 0.5 with the interval [0.5, 0.5]", name, *st.Mean, st.CI)
		}
	}
	for _, name := range []string{"lme overall", "judge overall", "judge category 1"} {
		if st := f[name]; st.CI == nil || !(st.CI[0] < 0.5 && st.CI[1] > 0.5) {
			t.Errorf("%s: interval %v, want one about 0.5 (pooled over the strata)", name, st.CI)
		}
	}
}

// TestBenchmarkSectionIntervalsDraws: the sections' intervals are the same on every run, and a
// LongMemEval type's is its type group's where both hold the same values (drawn alike); a
// type's stays as it is when records of another type are added.
func TestBenchmarkSectionIntervalsDraws(t *testing.T) {
	recs := lmeRecords(4)
	a, b := benchSummary("judge_score", 500, recs), benchSummary("judge_score", 500, recs)
	if fa, fb := sectionFigures(a), sectionFigures(b); !reflect.DeepEqual(fa, fb) {
		t.Errorf("two runs differ:\n%v\n%v", fa, fb)
	}
	for _, typ := range record.LongMemEvalTypes {
		if got, want := a.LongMemEval.ByType[typ].CI, a.ByType[typ].Metrics["judge_score"].CI; *got != *want {
			t.Errorf("longmemeval type %s: interval %v, want the type group's %v", typ, *got, *want)
		}
	}
	if got, want := a.LongMemEval.Overall.CI, a.Overall.Metrics["judge_score"].CI; *got != *want {
		t.Errorf("longmemeval overall: interval %v, want the overall group's %v", *got, *want)
	}
	more := append(recs, benchOutcome{typ: "multi-session", score: 1}, benchOutcome{typ: "multi-session", score: 0})
	c := benchSummary("judge_score", 500, more)
	if got, want := c.LongMemEval.ByType["knowledge-update"].CI, a.LongMemEval.ByType["knowledge-update"].CI; *got != *want {
		t.Errorf("knowledge-update: interval %v after multi-session records were added, want %v", *got, *want)
	}
}

// TestBenchmarkSectionIntervalsJobs: the sections' intervals are the same whatever --jobs, as
// the groups' are: the records reach the summary in input order.
func TestBenchmarkSectionIntervalsJobs(t *testing.T) {
	in := mixedRecords(600)
	args := []string{"--metrics", "judge_score,locomo_f1"}
	one, _ := summaryOf(t, in, append(args, "--jobs", "1"))
	if one.LongMemEval == nil || one.LongMemEval.TaskAveragedCI == nil || one.LoCoMo == nil || one.LoCoMo.Overall.CI == nil || one.LoCoMoJudge == nil {
		t.Fatalf("the records give no benchmark section with intervals: %+v", one)
	}
	for _, jobs := range []string{"2", "7"} {
		s, _ := summaryOf(t, in, append(args, "--jobs", jobs))
		if a, b := sectionFigures(one), sectionFigures(s); !reflect.DeepEqual(a, b) {
			t.Errorf("--jobs %s: the sections' figures differ from --jobs 1's:\n%v\n%v", jobs, b, a)
		}
	}
}

// TestLoCoMoJudgeIntervalsMemory: the locomo_judge section's pooled figures (each category's, the
// micro averages with and without category 5) are drawn from one copy of the judge scores, not a
// copy for each figure, so that a summary holds what the README's memory section says: with one
// resample, the copy (8 bytes a record) and the draws' unit counts (4 bytes a record for each
// figure drawn over it: the categories, the two micro averages, the conversations' categories)
// come to well under 32 bytes a record.
func TestLoCoMoJudgeIntervalsMemory(t *testing.T) {
	recs := locomoRecords(20000)
	a := newAggregator([]string{"judge_score"}, false, keepValues, nil)
	for _, r := range recs {
		a.add(r.outcome())
	}
	s := &Summary{Bootstrap: 1, Seed: 1, Level: 0.95}
	l := a.locomoJudgeSummary(s) // the figures, and their intervals once
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a.locomoJudgeIntervals(s, l)
	runtime.ReadMemStats(&after)
	if per := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(recs)); per > 32 {
		t.Errorf("the locomo_judge intervals allocate %.1f bytes a record, want at most 32", per)
	}
}

// TestLoCoMoCategoryIntervalsOwnRecords: a LoCoMo category's interval (locomo_f1's and
// locomo_judge's pooled one, and locomo_judge's micro average without category 5) rests on that
// category's records alone, as a group's does: it stays as it is when a record of another category
// is added, even one that comes first in its conversation.
func TestLoCoMoCategoryIntervalsOwnRecords(t *testing.T) {
	for _, scores := range []struct {
		name  string
		score func(conv string, i int) float64
	}{
		{"0 or 1", func(conv string, i int) float64 { // as mem0's judge scores
			if (conv == "locomo:conv-B") == (i%4 != 0) {
				return 1
			}
			return 0
		}},
		{"all different", func(conv string, i int) float64 { // so that any reordering of them shows
			if conv == "locomo:conv-A" {
				return float64(i*7%20)/40 + 0.01
			}
			return float64(i*7%20) / 20
		}},
	} {
		var recs []benchOutcome
		for _, conv := range []string{"locomo:conv-B", "locomo:conv-A"} {
			for i := range 20 {
				recs = append(recs, benchOutcome{cat: 1, conv: conv, score: scores.score(conv, i)})
			}
		}
		for _, tt := range []struct {
			name, metric, figure string
			extra                benchOutcome
		}{
			{"judge, category 2 first", "judge_score", "judge category 1", benchOutcome{cat: 2, conv: "locomo:conv-A", score: 1}},
			{"judge, category 5 first", "judge_score", "judge without 5", benchOutcome{cat: 5, conv: "locomo:conv-A", score: 0}},
			{"judge, conversation-averaged", "judge_score", "judge conv category 1", benchOutcome{cat: 2, conv: "locomo:conv-C", score: 1}},
			{"locomo_f1, category 2 first", "locomo_f1", "locomo category 1", benchOutcome{cat: 2, conv: "locomo:conv-A", score: 1}},
		} {
			t.Run(scores.name+"/"+tt.name, func(t *testing.T) {
				want := sectionFigures(benchSummary(tt.metric, 1000, recs))[tt.figure]
				got := sectionFigures(benchSummary(tt.metric, 1000, append([]benchOutcome{tt.extra}, recs...)))[tt.figure]
				if want.CI == nil || got.CI == nil {
					t.Fatalf("%s: no interval: %+v, %+v", tt.figure, want, got)
				}
				if *got.CI != *want.CI || *got.Mean != *want.Mean {
					t.Errorf("%s: %v %v with a record of another category first, want %v %v", tt.figure, *got.Mean, *got.CI, *want.Mean, *want.CI)
				}
			})
		}
	}
}
