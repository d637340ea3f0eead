package score

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/internal/stats"
)

// warnings puts the caveats a reader of the summary should not miss before the warnings of its
// parts (degenerate intervals, LongMemEval's types, the corpus metrics).
func (s *Summary) warnings() {
	var w []string
	if s.Records == 0 {
		w = append(w, "no records: every count is zero")
	}
	if s.Errors > 0 {
		w = append(w, s.errorsWarning())
	}
	if s.MissingAsZero > 0 {
		w = append(w, s.missingWarning())
	}
	if s.Unscored > 0 {
		w = append(w, unscoredWarning(s.Unscored, s.Records, s.unpredicted, s.unjudged, s.unjudgedBare, s.zeroNote))
	}
	if s.RepeatedIDs > 0 {
		w = append(w, english.Count(s.RepeatedIDs, "record repeats", "records repeat")+" the id of an earlier record: each counts in every figure as a record of its own ("+repeat.Causes+"?)"+
			english.Form(s.RepeatedIDs, ": ", "; the first is ")+s.firstRepeat)
	}
	if warn := s.modelsWarning(); warn != "" {
		w = append(w, warn)
	}
	if n := s.WithoutType; n > 0 {
		w = append(w, fmt.Sprintf("%d of %d records %s no type: %s in overall but in no type's group", n, s.Records,
			english.Form(n, "has", "have"), english.Form(n, "it is", "they are")))
	}
	if warn := s.unvaluedWarning(); warn != "" {
		w = append(w, warn)
	}
	w = append(w, s.byMissing()...)
	w = append(w, valueless("types", s.ByType)...)
	for _, p := range slices.Sorted(maps.Keys(s.By)) {
		w = append(w, valueless("--by "+p+": groups", s.By[p].Groups)...)
	}
	if warn := s.factsWarning(); warn != "" {
		w = append(w, warn)
	}
	if warn := s.answerWarning(); warn != "" {
		w = append(w, warn)
	}
	if warn := s.uncategorisedWarning(); warn != "" {
		w = append(w, warn)
	}
	if warn := s.chineseLatinWarning(); warn != "" {
		w = append(w, warn)
	}
	if warn := s.blankGoldWarning(); warn != "" {
		w = append(w, warn)
	}
	if warn := s.unreadGoldWarning(); warn != "" {
		w = append(w, warn)
	}
	if few := stats.FewResamples(s.Bootstrap, s.Level, stats.DefaultResamples); few != "" && s.Records > 0 {
		w = append(w, few)
	}
	w = append(w, s.unreliable()...)
	s.Warnings = append(w, s.Warnings...)
}

// modelsWarning says that the figures pool the answers of more than one model (s.models), as two
// runs' records given together do, and how to keep them apart; "" when they do not.
func (s *Summary) modelsWarning() string {
	if len(s.models) < 2 {
		return ""
	}
	n := english.Count(len(s.models), "model", "models")
	if s.modelsCapped {
		n = fmt.Sprintf("%d or more models", len(s.models))
	}
	return fmt.Sprintf("the records hold the answers of %s (%s), which every figure pools as one run's: --by prediction.model gives each its own rows",
		n, command.QuotedList(s.models))
}

// valueless names the groups (what names them) whose records gave no metric a value (all failed,
// or no metric applies), with their records and errors: the table, Markdown and csv formats have
// no row for them, so that a breakdown without them would read as the whole.
func valueless(what string, groups map[string]*Group) []string {
	var names []string
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		g := groups[k]
		if g.Records == 0 || hasValue(g) {
			continue
		}
		n := english.Count(g.Records, "record", "records")
		if g.Errors > 0 {
			n += fmt.Sprintf(", %d with errors", g.Errors)
		}
		names = append(names, fmt.Sprintf("%s (%s)", cell.Value(k), n))
	}
	if len(names) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s with no scored record, so with no row in the table, Markdown or csv: %s", what, listGroups(names))}
}

// hasValue reports whether a metric has a value in g.
func hasValue(g *Group) bool {
	for _, st := range g.Metrics {
		if st.Count > 0 {
			return true
		}
	}
	return false
}

// unvaluedWarning names the metrics --metrics names itself (not by default) that no record gave a
// value: none applied (judge_score without judgments, cmrc_f1 without Chinese records, sp_* of
// --metrics hotpot when no prediction carries supporting facts, …) or every record that would
// have failed. Their mean is null, and the table, Markdown and csv have no row for them, which
// would otherwise pass without a word. A group's are named after it, as --metrics names them.
func (s *Summary) unvaluedWarning() string {
	if s.Scored == 0 || s.Overall == nil { // no metric has a value, as other warnings say
		return ""
	}
	unvalued := func(names []string) (none []string) {
		for _, n := range names {
			if st := s.Overall.Metrics[n]; st == nil || st.Count == 0 {
				none = append(none, n)
			}
		}
		return none
	}
	var parts []string
	n := 0
	if none := unvalued(s.named); len(none) > 0 {
		parts, n = append(parts, strings.Join(none, ", ")), len(none)
	}
	for _, g := range s.grouped {
		if none := unvalued(g.members); len(none) > 0 {
			parts, n = append(parts, fmt.Sprintf("%s (%s)", strings.Join(none, ", "), g.name)), n+len(none)
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("--metrics names %s, which no record gave a value: %s no row in the table, Markdown or csv",
		strings.Join(parts, "; "), english.Form(n, "it has", "they have"))
}

// errorsWarning says how the records that carry a prediction or judge error (s.Errors, one at
// least) count: as 0 under --errors-as-zero, but for those no selected metric reads, which are
// unscored; without it, they are excluded.
func (s *Summary) errorsWarning() string {
	switch zeroed := s.Errors - s.failedUnscored; {
	case s.ErrorsAsZero && zeroed == s.Errors:
		return english.Count(s.Errors, "record carries a prediction or judge error and counts", "records carry prediction or judge errors and count") + " as 0 (--errors-as-zero)"
	case s.ErrorsAsZero:
		// A failed record that no selected metric reads (no answers, no judgment for
		// judge_score) gets no 0: it is among the unscored.
		return fmt.Sprintf("%s: %d %s as 0 (--errors-as-zero), %d no selected metric reads (unscored)",
			english.Count(s.Errors, "record carries a prediction or judge error", "records carry prediction or judge errors"),
			zeroed, english.Form(zeroed, "counts", "count"), s.failedUnscored)
	default:
		return fmt.Sprintf("%s excluded (--errors-as-zero counts %s as 0)",
			english.Count(s.Errors, "record carries a prediction or judge error and is", "records carry prediction or judge errors and are"), english.Form(s.Errors, "it", "them"))
	}
}

// missingWarning says that the records --missing-as-zero scores 0 (s.MissingAsZero, one at
// least) have no prediction, or one without what a metric reads, and in which metrics they count
// as 0, as the benchmark's script scores them.
func (s *Summary) missingWarning() string {
	n := s.MissingAsZero
	if s.missingPart == 0 {
		return fmt.Sprintf("%s no prediction and %s as 0 in %s, as the benchmark's script scores a question it has no answer for (--missing-as-zero)",
			english.Count(n, "record has", "records have"), english.Form(n, "counts", "count"), strings.Join(s.missingIn, ", "))
	}
	if s.missingPart == n {
		return fmt.Sprintf("%s a prediction without the answer or the supporting facts a metric reads and %s as 0 in %s, as the benchmark's script scores a question it has no answer or facts for (--missing-as-zero)",
			english.Count(n, "record has", "records have"), english.Form(n, "counts", "count"), strings.Join(s.missingIn, ", "))
	}
	return fmt.Sprintf("%s no prediction (%d) or one without the answer or the supporting facts a metric reads (%d), and %s as 0 in %s, as the benchmark's script scores a question it has no answer or facts for (--missing-as-zero)",
		english.Count(n, "record has", "records have"), n-s.missingPart, s.missingPart, english.Form(n, "counts", "count"), strings.Join(s.missingIn, ", "))
}

// factsWarning says, when some records have HotpotQA's supporting-fact scores and others have
// gold facts but a prediction without any, that the means are over the first alone, where
// hotpot_evaluate_v1.py counts the others as 0 ("missing sp fact") and divides by all; else "".
//
// Note: scoring those records 0 would make the scores of a run that predicts no facts at all
// zeros, where none apply; the warning says how the official means would differ instead.
func (s *Summary) factsWarning() string {
	if s.factsUnpredicted == 0 || s.Overall == nil {
		return ""
	}
	var names, counted []string
	n, same := 0, true
	for _, name := range []string{"sp_em", "sp_f1", "sp_prec", "sp_recall", "joint_em", "joint_f1", "joint_prec", "joint_recall"} {
		if st := s.Overall.Metrics[name]; st != nil && st.Count > 0 {
			same = same && (n == 0 || st.Count == n)
			names, n = append(names, name), max(n, st.Count)
			counted = append(counted, fmt.Sprintf("%s over %d", name, st.Count))
		}
	}
	if n == 0 {
		return ""
	}
	if !same {
		// The joint scores need the answer too: a prediction of facts alone has sp scores and
		// no joint ones, so their counts differ, and so do the script's denominators.
		return fmt.Sprintf("%s: the means leave out %s gold facts and a prediction without any, which hotpot_evaluate_v1.py scores 0 and counts in its means (%s)",
			strings.Join(counted, ", "), english.Count(s.factsUnpredicted, "record that has", "records that have"), countsSo(english.Form(s.factsUnpredicted, "it", "them"), nil))
	}
	return fmt.Sprintf("%s: the means are over the %s whose prediction carries supporting facts; %s gold facts and a prediction without any, which hotpot_evaluate_v1.py scores 0 and counts in its means (over %d)",
		strings.Join(names, ", "), english.Count(n, "record", "records"), english.Count(s.factsUnpredicted, "more record has", "more records have"), n+s.factsUnpredicted)
}

// scoredOf returns the metrics of names, in their order, that the overall group has a figure of.
func (s *Summary) scoredOf(names []string) []string {
	var scored []string
	for _, name := range names {
		if s.Overall.Metrics[name] != nil {
			scored = append(scored, name)
		}
	}
	return scored
}

// answerWarning says, when records have a prediction of HotpotQA's supporting facts alone (its
// official file gave their "sp" and no "answer") and an answer metric hotpot_evaluate_v1.py
// scores is selected, that those leave the records out, where the script counts them 0
// ("missing answer") and divides by all; else "".
func (s *Summary) answerWarning() string {
	if s.answerUnpredicted == 0 || s.Overall == nil {
		return ""
	}
	names := s.scoredOf([]string{"em", "f1", "hotpot_em", "hotpot_f1", "hotpot_prec", "hotpot_recall", "joint_em", "joint_f1", "joint_prec", "joint_recall"})
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%s supporting facts and no answer: %s %s %s out, where hotpot_evaluate_v1.py scores %s 0 (\"missing answer\") and counts %s in its means (%s)",
		english.Count(s.answerUnpredicted, "record's prediction carries", "records' predictions carry"), strings.Join(names, ", "),
		english.Form(len(names), "leaves", "leave"), english.Form(s.answerUnpredicted, "it", "them"), english.Form(s.answerUnpredicted, "it", "them"), english.Form(s.answerUnpredicted, "it", "them"), countsSo(english.Form(s.answerUnpredicted, "it", "them"), nil))
}

// chineseLatinWarning says how many Chinese records (lang zh) the metrics that read English text
// scored (latinMetrics, those selected), whose figures there are no measure of the answer: the
// CMRC metrics are; else "".
func (s *Summary) chineseLatinWarning() string {
	if s.chineseLatin == 0 || s.Overall == nil {
		return ""
	}
	names := s.scoredOf(latinMetrics)
	return fmt.Sprintf("%s scored by %s, which read English: rouge-score drops every character that is not ASCII (Chinese text alone scores 0), and BLEU, METEOR and SQuAD's and HotpotQA's F1 split words at white space alone; cmrc_em and cmrc_f1 are the Chinese records' metrics",
		english.Count(s.chineseLatin, "Chinese record (lang zh) was", "Chinese records (lang zh) were"), english.List(names))
}

// blankGoldWarning says how many unanswerable records (answers [""]) the metrics of blankMetrics
// scored, which score them 0 whatever the prediction, the empty answer that declines too, so that
// their means mix a fixed 0 in; else "".
func (s *Summary) blankGoldWarning() string {
	if s.blankGold == 0 || s.Overall == nil {
		return ""
	}
	return fmt.Sprintf("%s the empty gold answer \"\" alone (an unanswerable question) and %s 0 by %s whatever the prediction, the empty answer that declines too, as their scripts score it; em, squad2_em and squad2_f1 score a declining answer 1 there",
		english.Count(s.blankGold, "record has", "records have"), english.Form(s.blankGold, "was scored", "were scored"), english.List(s.blankIn))
}

// unreadGoldWarning says how many records of another language than Chinese the ROUGE scores
// scored though their gold answers hold no ASCII letter or digit, all that rouge-score's
// tokenizer keeps (Japanese, Korean, Russian text): they score 0 whatever the prediction; else "".
func (s *Summary) unreadGoldWarning() string {
	if s.unreadGold == 0 || s.Overall == nil {
		return ""
	}
	names := s.scoredOf(rougeMetrics)
	return fmt.Sprintf("%s no ASCII letter or digit in %s gold answers, all that rouge-score's tokenizer keeps (Japanese, Korean or Cyrillic text alone scores 0), so %s scored %s 0 whatever the prediction",
		english.Count(s.unreadGold, "record has", "records have"), english.Form(s.unreadGold, "its", "their"), english.List(names), english.Form(s.unreadGold, "it", "them"))
}

// uncategorisedWarning says, when locomo_f1 or judge_score is selected, how many LoCoMo records
// (dataset locomo) have no category, neither in meta.category nor as a LoCoMo type: locomo_f1,
// whose rules go by the category, and the summary's LoCoMo sections, by category, leave them out,
// which would otherwise pass without a word; else "".
func (s *Summary) uncategorisedWarning() string {
	if s.uncategorised == 0 || s.Overall == nil {
		return ""
	}
	var what []string
	if s.Overall.Metrics["locomo_f1"] != nil {
		what = append(what, "locomo_f1 and its locomo section")
	}
	if s.Overall.Metrics["judge_score"] != nil {
		what = append(what, "the locomo_judge section")
	}
	if len(what) == 0 {
		return ""
	}
	return fmt.Sprintf("%s no LoCoMo category (meta.category 1 to 5, or the type multi_hop, temporal, open_domain, single_hop or adversarial), so %s left out of %s",
		english.Count(s.uncategorised, "LoCoMo record (dataset locomo) has", "LoCoMo records (dataset locomo) have"),
		english.Form(s.uncategorised, "it is", "they are"), english.List(what))
}

// unscoredWarning says that unscored of records records got no score, and why that may be:
// unpredicted of them have no prediction and unjudged no judgment for judge_score (none at all:
// a stage run before qa-predict or qa-judge, which it names), or what else the metrics read;
// otherwise they would be silent, for they take no part in any mean. bare of the unjudged have no
// gold answers either, which the warning adds: the metrics need them, and so do most judge modes
// (EvaLearn's grades by a rubric, and the rules grade a question to decline without), so qa-judge
// alone may not score them. zero, when some of the unpredicted have none (not all), follows their
// count: which benchmarks' scripts score them 0 (aggregator.zeroNote).
func unscoredWarning(unscored, records, unpredicted, unjudged, bare int, zero string) string {
	const why = "lacking what the selected metrics read: prediction text, answers, the judgment, the language or fields a metric needs; or a metric error reported above"
	head := fmt.Sprintf("%d of %d records got no score", unscored, records)
	if unscored == records {
		head = "no record got a score"
	}
	noAnswers := "" // "N of them have no gold answers either, …"
	if bare > 0 {
		noAnswers = fmt.Sprintf("%s no gold answers either, which the metrics and most judge modes need", english.Count(bare, "of them has", "of them have"))
	}
	var lack []string
	if unpredicted > 0 {
		lack = append(lack, english.Count(unpredicted, "has no prediction", "have no prediction")+zero)
	}
	if unjudged > 0 {
		l := english.Count(unjudged, "has no judgment", "have no judgment")
		if noAnswers != "" {
			l += " (" + noAnswers + ")"
		}
		lack = append(lack, l)
	}
	switch {
	case unpredicted == records:
		return head + ": none has a prediction (run qa-predict first)"
	case unjudged == records && bare == 0:
		return head + ": none has a judgment (run qa-judge first)"
	case unjudged == records:
		return head + ": none has a judgment (run qa-judge first); " + noAnswers
	case len(lack) == 0:
		return fmt.Sprintf("%s (%s)", head, why)
	case unpredicted+unjudged == unscored:
		return head + ": " + strings.Join(lack, ", ")
	}
	return fmt.Sprintf("%s (%s); of them, %s", head, why, strings.Join(lack, ", "))
}

// countsSo is how every warning of records that qa-score leaves out, where a benchmark's script
// scores them 0, names the flag that counts them (who: "it", "them") so, in the metrics in (all
// the warning names when nil): "--missing-as-zero counts them so in em, f1".
func countsSo(who string, in []string) string {
	so := "--missing-as-zero counts " + who + " so"
	if len(in) > 0 {
		so += " in " + strings.Join(in, ", ")
	}
	return so
}

// missingScripts names the benchmarks' scripts that score a question they have no answer for 0,
// for the metrics names that follow them under --missing-as-zero (the families' missing rules):
// evaluate-v1.1.py for em and f1, hotpot_evaluate_v1.py for hotpot_*, sp_* and joint_*,
// cmrc2018_evaluate.py for cmrc_*, LoCoMo's evaluate_qa.py stats for locomo_f1.
func missingScripts(names []string) []string {
	var scripts []string
	for _, name := range names {
		var script string
		switch {
		case name == "em" || name == "f1":
			script = "evaluate-v1.1.py (SQuAD v1.1)"
		case strings.HasPrefix(name, "hotpot_"), strings.HasPrefix(name, "sp_"), strings.HasPrefix(name, "joint_"):
			script = "hotpot_evaluate_v1.py (HotpotQA)"
		case strings.HasPrefix(name, "cmrc_"):
			script = "cmrc2018_evaluate.py (CMRC 2018)"
		case name == "locomo_f1":
			script = "LoCoMo's evaluate_qa.py stats"
		}
		if script != "" && !slices.Contains(scripts, script) {
			scripts = append(scripts, script)
		}
	}
	return scripts
}

// zeroNote is what the warning of unscored records adds to the count of those without a
// prediction when the benchmarks' scripts score some of them 0 (aggregator.zeroable, without
// --missing-as-zero): which scripts, and that --missing-as-zero counts them so; "" for none.
func (a *aggregator) zeroNote() string {
	if a.zeroable == 0 {
		return ""
	}
	var in []string
	for k, z := range a.zeroableIn {
		if z {
			in = append(in, a.names[k])
		}
	}
	scripts := missingScripts(in)
	which := "which"
	if a.zeroable < a.unpredicted {
		which = fmt.Sprintf("%d of which", a.zeroable)
	}
	return fmt.Sprintf(", %s %s %s 0 (%s)", which, english.List(scripts), english.Form(len(scripts), "scores", "score"),
		countsSo(english.Form(a.zeroable, "it", "them"), in))
}
