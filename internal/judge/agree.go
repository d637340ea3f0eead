package judge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/pkg/record"
)

// Item is one record's verdicts from the judges being compared (categories, in judge order).
type Item struct {
	ID, Type string
	Ratings  []int
}

// Agreement summarises how often judges agree over a set of items.
type Agreement struct {
	Group   string
	N       int
	Raw     float64
	RawCI   stats.Interval
	Kappa   float64 // Cohen's κ for two judges, Fleiss' κ for more
	KappaCI stats.Interval
}

// KappaName names the coefficient used for k judges.
func KappaName(k int) string {
	if k == 2 {
		return "Cohen's kappa"
	}
	return "Fleiss' kappa"
}

// Agree computes raw agreement and κ over items with percentile bootstrap intervals (resampling
// items), overall (the first row, Group "overall") and per type, types sorted (a type may be
// named "overall" too: the rows are told apart by their place). Items without a type are in the
// overall row alone.
func Agree(items []Item, reps int, level float64, seed uint64) []Agreement {
	groups := map[string][]Item{}
	for _, it := range items {
		if it.Type != "" {
			groups[it.Type] = append(groups[it.Type], it)
		}
	}
	types := make([]string, 0, len(groups))
	for t := range groups {
		types = append(types, t)
	}
	sort.Strings(types)
	out := []Agreement{agreement("overall", items, reps, level, seed)}
	for _, t := range types {
		out = append(out, agreement(t, groups[t], reps, level, seed))
	}
	return out
}

func agreement(group string, items []Item, reps int, level float64, seed uint64) Agreement {
	ratings := make([][]int, len(items))
	for i, it := range items {
		ratings[i] = it.Ratings
	}
	pick := func(idx []int) [][]int {
		r := make([][]int, len(idx))
		for i, k := range idx {
			r[i] = ratings[k]
		}
		return r
	}
	a := Agreement{Group: group, N: len(items), Raw: stats.RawAgreement(ratings), Kappa: kappa(ratings)}
	a.RawCI = stats.Bootstrap(stats.NewRand(seed), len(items), reps, level, func(idx []int) float64 { return stats.RawAgreement(pick(idx)) })
	a.KappaCI = stats.Bootstrap(stats.NewRand(seed), len(items), reps, level, func(idx []int) float64 { return kappa(pick(idx)) })
	return a
}

func kappa(ratings [][]int) float64 {
	if len(ratings) > 0 && len(ratings[0]) == 2 {
		a, b := make([]int, len(ratings)), make([]int, len(ratings))
		for i, r := range ratings {
			a[i], b[i] = r[0], r[1]
		}
		return stats.CohenKappa(a, b)
	}
	return stats.FleissKappa(ratings)
}

// Category turns rec's judgment j into a category: 1 if its score is at least threshold, else 0.
// On an EvaLearn record (dataset evalearn) the score is evalearn.Verdict's, as qa-score's
// judge_score and qa-learncurve read it: the judgment's score, else the judge's raw reply read by
// EvaLearn's rule (EvaLearn's own results, qa-load --format evalearn-results, hold the reply
// alone); unread then says why a reply gave no score by the rule (category 0, EvaLearn's
// outcome). ok is false when j is nil, failed (it carries an error) or holds no verdict.
//
// Note: the rule is not applied to a raw reply alone on other benchmarks' records, as in
// qa-score: it reads EvaLearn's {"answer_score": N} and would take any other judge's reply for 0.
func Category(rec *record.Record, j *record.Judgment, threshold float64) (cat int, ok bool, unread string) {
	if j == nil || j.Error != "" {
		return 0, false, ""
	}
	var score float64
	switch {
	case rec.InDataset("evalearn"):
		score, ok, unread = evalearn.Verdict(j)
	case j.Score != nil:
		score, ok = *j.Score, true
	}
	if !ok {
		return 0, false, ""
	}
	if score >= threshold {
		return 1, true, unread
	}
	return 0, true, unread
}

type agreeConfig struct {
	names     []string
	threshold float64
	reps      int
	seed      uint64
	level     float64
	maxList   int
	format    string // --format: agreeText or agreeJSON
	strict    bool   // --strict: the first bad line stops the run
	maxLine   int    // --max-line
}

// agreeCommand is qa-judge's agree subcommand, reading from stdin and writing to stdout and stderr.
func agreeCommand(stdin io.Reader, stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:        "agree",
		Usage:       "agreement between two or more judges on the same records",
		ArgsUsage:   "[FILE ...]",
		Description: agreeDescription,
		Flags:       agreeFlags(),
		Before:      func(c *cli.Context) error { return command.CheckInputs(c.Args().Slice()) },
		Action: func(c *cli.Context) error {
			if w := flagsBeforeAgree(c); w != "" {
				fmt.Fprintf(stderr, "qa-judge agree: warning: %s\n", w)
			}
			cfg, err := parseAgreeConfig(c)
			if err != nil {
				return err
			}
			return runAgree(c.Context, c.Args().Slice(), cfg, stdin, stdout, stderr)
		},
	}
}

// agreeDescription is the agree subcommand's --help text.
const agreeDescription = `Reads judged records and prints, overall and per type, the raw agreement (all judges give the
same verdict) and Cohen's kappa (two judges) or Fleiss' kappa (more), with percentile bootstrap
confidence intervals over records (95%, or --level: its columns are headed "90% CI" at 0.9), then
lists the disagreements. With --bootstrap 0 there are no intervals, and the table leaves out its
"95% CI" columns (as it does whenever no figure has one).
A verdict is 1 when the judgment's score is at least --threshold, else 0. On EvaLearn records
(dataset evalearn) a judgment without a score is read as qa-score's judge_score and qa-learncurve
read it: from the judge's raw reply by EvaLearn's rule (EvaLearn's own results, qa-load --format
evalearn-results, hold the reply alone); a reply in which the rule finds no score is 0, as in
EvaLearn, with a warning. Records where a compared judge is missing (no score, or no reply) or
failed are left out and counted; a failed judgment among them makes the exit code 3. The rows are
named as qa-score's summary names its groups: "overall" (every record compared), then "type" and
each type's name, so that a type named "overall" is not taken for it.
Records without a type count in "overall" alone. A record's judgments are compared on its own line,
not joined by id: records that repeat an earlier one's id (an input given twice, or files of the
same records judged apart) count as records of their own, with a warning naming the first, as in
qa-score's summary. Kappa has no value ("-", with a warning) where every verdict is the same:
agreement by chance is then 1. A type, id or judge name that is empty, has white space at an end,
starts with a quote or holds a line break, tab or other unprintable character is named Go-quoted in
the table, the list and the warnings ("two\nlines"), as in qa-score's summary; a record without a
type lists as "". The JSON's keys and fields hold them as they are.

--format json prints the same report as one JSON document, for scripts, keyed as qa-score's summary
is: judges, kappa_method (cohen or fleiss), threshold, compared, left_out (of them left_out_missing
and left_out_failed), bad_lines, repeated_ids (when any), bootstrap, seed, level; overall and
by_type, each with its records, agreement and kappa as {"value": x, "ci": [lo, hi]}, a value null
where it has none, with a "reason", and "ci" left out where there is no interval (by_type is left
out when no record compared has a type; when only some have one, without_type counts the others);
then the disagreements (count, and the listed ones with id, type and each judge's verdict) and the
warnings, which go to stderr as well. Its figures are exact; the table rounds them to 3 places.

` + command.ExitCodesHelp

// agreeFlags are the agree subcommand's flags.
func agreeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "names", EnvVars: []string{"QA_AGREE_NAMES"}, Usage: "comma-separated judgment names to compare (default: every name seen)"},
		&cli.Float64Flag{Name: "threshold", Value: 0.5, EnvVars: []string{"QA_AGREE_THRESHOLD"}, Usage: "score, 0 to 1, at or above which a verdict counts as correct"},
		&cli.IntFlag{Name: "bootstrap", Value: stats.DefaultResamples, EnvVars: []string{"QA_BOOTSTRAP"}, Usage: "bootstrap resamples (0: no intervals; at most 1000000)"},
		command.LevelFlag("confidence `LEVEL` of the intervals (0.9: 90% intervals, the 5th and 95th percentiles)"),
		&cli.Int64Flag{Name: "seed", Value: 1, EnvVars: []string{"QA_SEED"}, Usage: "random seed of the bootstrap"},
		&cli.IntFlag{Name: "list", Value: 50, EnvVars: []string{"QA_AGREE_LIST"}, Usage: "most disagreements listed (-1: all)"},
		&cli.StringFlag{Name: "format", Value: agreeText, EnvVars: []string{"QA_AGREE_FORMAT"}, Usage: "report format: text (a table for people) or json (one document for scripts)"},
		&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}, Usage: "stop at the first bad input line"},
		command.MaxLineFlag("longest input line accepted, in bytes"),
	}
}

// parseAgreeConfig reads and checks the agree subcommand's flags.
func parseAgreeConfig(c *cli.Context) (agreeConfig, error) {
	cfg := agreeConfig{reps: c.Int("bootstrap"), seed: uint64(c.Int64("seed")),
		maxList: c.Int("list"), format: c.String("format"), strict: c.Bool("strict")}
	var err error
	if s := c.String("names"); s != "" {
		if cfg.names, err = parseAgreeNames(s); err != nil {
			return cfg, err
		}
	}
	if cfg.reps, err = command.Bootstrap(c); err != nil {
		return cfg, err
	}
	if cfg.level, err = command.Level(c); err != nil {
		return cfg, err
	}
	if cfg.threshold, err = command.FloatBetween(c, "threshold", 0, 1); err != nil {
		return cfg, err // judgments' scores are 0 to 1: beyond, every verdict would be the same
	}
	if cfg.maxList < -1 {
		return cfg, command.Usagef("--list: want -1 (all) or a count, got %d", cfg.maxList)
	}
	if !slices.Contains(agreeFormats, cfg.format) {
		return cfg, command.Usagef("--format: unknown format %q (want %s or %s)%s", cfg.format, agreeText, agreeJSON,
			english.DidYouMean(cfg.format, agreeFormats))
	}
	if cfg.maxLine, err = command.MaxLine(c); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// parseAgreeNames reads --names, s: the comma-separated judgment names, trimmed, empty ones left
// out; a name given twice, or a single name, is a usage error.
func parseAgreeNames(s string) ([]string, error) {
	var names []string
	for n := range strings.SplitSeq(s, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if slices.Contains(names, n) { // compared with itself, or counted twice among raters
			return nil, command.Usagef("--names: %q given twice: a judge compared with itself", n)
		}
		names = append(names, n)
	}
	if len(names) == 1 { // found before any input is read
		return nil, command.Usagef("--names: need at least two judgment names, got 1 (%s)", command.QuotedList(names))
	}
	return names, nil
}

// flagsBeforeAgree is the warning that qa-judge's own flags typed before "agree" (qa-judge --seed 3
// agree) do nothing, agree reading only those after its name; "" when none was typed. Its
// variables (QA_JUDGE_*, exported for a pipeline's judging stage) are not named.
func flagsBeforeAgree(c *cli.Context) string {
	lineage := c.Lineage()
	if len(lineage) < 2 {
		return ""
	}
	typed := command.TypedFlags(lineage[1])
	if len(typed) == 0 {
		return ""
	}
	own := "" // agree's own flag of the name, where it has one
	for i, n := range typed {
		if own == "" && slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), n) }) {
			own = fmt.Sprintf(" (qa-judge agree --%s ...)", n)
		}
		typed[i] = "--" + n
	}
	return fmt.Sprintf("%s, given before agree, %s nothing: agree reads only the flags after its name%s",
		strings.Join(typed, ", "), english.Form(len(typed), "does", "do"), own)
}

// judgedRecord is what agree keeps of a record until the names compared are known: its id and
// type, and a verdict for each judgment that has one or failed.
//
// Note: a map of categories by name in each record took 1.1 GB of memory over a million records,
// the verdicts, which name their judgment by its place among the names seen, half that.
type judgedRecord struct {
	id, typ  string
	verdicts []verdict
}

// verdict is a judgment's category, or its failure (it carries an error), and the place of its
// name among the names seen.
type verdict struct {
	name   int32
	cat    int32
	failed bool
}

// verdict returns r's verdict of the judgment whose name is at place k.
func (r judgedRecord) verdict(k int32) (verdict, bool) {
	for _, v := range r.verdicts {
		if v.name == k {
			return v, true
		}
	}
	return verdict{}, false
}

// runAgree reads the judged records and prints the agreement. It makes no call, so a signal
// (ctx) stops it at once, before the next record or before the report.
func runAgree(ctx context.Context, inputs []string, cfg agreeConfig, stdin io.Reader, stdout, stderr io.Writer) error {
	interrupt.NoCalls(ctx, "qa-judge agree")
	src := &command.Source{Args: inputs, Stdin: stdin, Stderr: stderr, Prog: "qa-judge agree", Strict: cfg.strict, MaxLine: cfg.maxLine}
	set, err := readJudged(ctx, src, cfg.threshold)
	if err != nil {
		return err
	}
	names, err := set.compared(cfg.names, src.Bad, stderr)
	if err != nil {
		return err
	}
	rep := set.report(names, cfg, src.Bad)
	if err := rep.print(stdout, stderr); err != nil {
		return err
	}
	// Failed judgments are errors, as qa-score and qa-learncurve count them; the message names
	// them after the bad lines, as every command does.
	return command.BadRecords(src.Bad, command.Count{N: rep.failed, Singular: "record left out with a failed judgment (see its error field)",
		Plural: "records left out with a failed judgment (see their error fields)"})
}

// judgedSet is what agree keeps of the records it reads: each one's verdicts, their ids, the
// judgment names seen and the replies EvaLearn's rule read no score from.
type judgedSet struct {
	recs   []judgedRecord
	ids    repeat.IDs
	seen   map[string]int32  // the judgment names seen, each with its place
	types  map[string]string // each type once, shared by its records
	unread unreadReplies
}

// readJudged reads the judged records of src, each judgment's category by threshold (Category).
// A signal (ctx) stops it before the next record.
func readJudged(ctx context.Context, src *command.Source, threshold float64) (*judgedSet, error) {
	s := &judgedSet{seen: map[string]int32{}, types: map[string]string{}}
	err := src.Each(func(rec *record.Record) error {
		if err := interrupt.Err(ctx); err != nil {
			return err
		}
		s.add(rec, src, threshold)
		return nil
	})
	if err == nil {
		err = interrupt.Err(ctx)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// add keeps rec, read from src: its id, its type and a verdict for each judgment that has one
// or failed, its name given a place when first seen.
func (s *judgedSet) add(rec *record.Record, src *command.Source, threshold float64) {
	at := src.At(rec.ID, nil)
	s.ids.Add(rec.ID, at.File, at.Line)
	typ, ok := s.types[rec.Type]
	if !ok {
		typ = rec.Type
		s.types[typ] = typ
	}
	jr := judgedRecord{id: rec.ID, typ: typ}
	for name, j := range rec.Judgments {
		k, ok := s.seen[name]
		if !ok {
			k = int32(len(s.seen))
			s.seen[name] = k
		}
		if c, ok, why := Category(rec, j, threshold); ok {
			jr.verdicts = append(jr.verdicts, verdict{name: k, cat: int32(c)})
			s.unread.add(k, len(s.recs), why, func() *record.Error { return src.At(rec.ID, errors.New(why)) })
		} else if j != nil && j.Error != "" {
			jr.verdicts = append(jr.verdicts, verdict{name: k, failed: true})
		}
	}
	s.recs = append(s.recs, jr)
}

// compared returns the judgment names to compare: given (--names), each of which some record
// must have, else every name seen, sorted. Fewer than two is a usage error; no records at all
// but bad ones (bad lines) are reported as such, with a warning to stderr.
func (s *judgedSet) compared(given []string, bad int, stderr io.Writer) ([]string, error) {
	if err := s.checkNames(given); err != nil {
		return nil, err
	}
	names := given
	if names == nil {
		for n := range s.seen {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	switch {
	case given == nil && len(s.recs) == 0 && bad > 0:
		// Every line was bad: they were counted and skipped, exit 3 as for any bad line. The
		// names they held are unknown, not missing, so this is no usage error.
		fmt.Fprintln(stderr, "qa-judge agree: warning: no records compared")
		return nil, command.BadRecords(bad)
	case given == nil && len(s.recs) == 0:
		return nil, command.Usagef("no records, so no judgment names to compare: give them with --names")
	case len(names) == 0:
		return nil, command.Usagef("need at least two judgment names, found none: no record has a judgment")
	case len(names) < 2:
		return nil, command.Usagef("need at least two judgment names, found %d (%s)", len(names), command.QuotedList(names))
	}
	return names, nil
}

// checkNames refuses a name of given (--names) that no record has a judgment under, when there
// are records.
func (s *judgedSet) checkNames(given []string) error {
	for _, n := range given {
		if _, ok := s.seen[n]; !ok && len(s.recs) > 0 { // with no record at all, the report compares none
			if len(s.seen) == 0 {
				return command.Usagef("--names: no record has a judgment named %q, nor any other judgment", n)
			}
			// The names Go-quoted, as the other commands list them, so that one with a line
			// break or a comma reads as one name.
			known := slices.Sorted(maps.Keys(s.seen))
			return command.Usagef("--names: no record has a judgment named %q (the records' judgments: %s)%s", n, command.QuotedList(known),
				english.DidYouMean(n, known))
		}
	}
	return nil
}

// report compares the records on the judgments names: their agreement, the records left out
// and the warnings. bad is the count of bad input lines.
func (s *judgedSet) report(names []string, cfg agreeConfig, bad int) *agreeReport {
	places := make([]int32, len(names)) // every name compared was seen, when there are records
	for i, n := range names {
		places[i] = s.seen[n]
	}
	items, left, failed := s.items(places)
	rep := &agreeReport{names: names, items: items, rows: Agree(items, cfg.reps, cfg.level, cfg.seed),
		leftOut: left, failed: failed, badLines: bad, repeated: s.ids.Count(), cfg: cfg}
	rep.warnings = agreeWarnings(items, rep.rows, cfg.reps, cfg.level)
	if w := s.unread.warning(places); w != "" {
		rep.warnings = append(rep.warnings, w)
	}
	if f := s.ids.First(); f != nil {
		rep.warnings = append(rep.warnings, repeatedWarning(s.ids.Count(), f.Place()))
	}
	return rep
}

// items returns the records with a verdict of each judgment compared (their names at places),
// in input order, and counts the records left out, and of those the ones with a failed one.
func (s *judgedSet) items(places []int32) (items []Item, left, failed int) {
	for _, r := range s.recs {
		it := Item{ID: r.id, Type: r.typ}
		for _, k := range places {
			v, ok := r.verdict(k)
			if !ok || v.failed {
				break
			}
			it.Ratings = append(it.Ratings, int(v.cat))
		}
		if len(it.Ratings) != len(places) {
			left++
			if slices.ContainsFunc(places, func(k int32) bool { v, _ := r.verdict(k); return v.failed }) {
				failed++
			}
			continue
		}
		items = append(items, it)
	}
	return items, left, failed
}

// repeatedWarning says that n records repeat the id of an earlier record, the first of them at
// first (file:line and id), as qa-score's summary says it: each is compared as a record of its
// own. A record's judgments are compared on its own line, so two files of the same records, each
// judged by one judge, are not joined by id either: the warning says how to compare them.
func repeatedWarning(n int, first string) string {
	return english.Count(n, "record repeats", "records repeat") + " the id of an earlier record: each counts in every figure as a record " +
		"of its own (an input given twice? files of the same records judged apart are not joined: judge one file with each judge in turn)" +
		english.Form(n, ": ", "; the first is ") + first
}

// agreeWarnings are the report's caveats: no record compared, or too few for the intervals (from
// reps resamples) to mean much; rows with records but no kappa; and how many records compared
// have no type when others have one.
func agreeWarnings(items []Item, rows []Agreement, reps int, level float64) []string {
	var w, undefined []string
	switch {
	case len(items) == 0:
		w = append(w, "no records compared")
	case len(items) < 10 && reps > 0: // with --bootstrap 0 there are no intervals to call rough, as in qa-score
		w = append(w, fmt.Sprintf("only %s compared; the intervals are rough", english.Count(len(items), "record", "records")))
	}
	if few := stats.FewResamples(reps, level, stats.DefaultResamples); few != "" && len(items) > 0 {
		w = append(w, few)
	}
	for i, a := range rows {
		if a.N > 0 && math.IsNaN(a.Kappa) {
			undefined = append(undefined, rowName(i, a))
		}
	}
	if len(undefined) > 0 {
		w = append(w, fmt.Sprintf("kappa has no value for %s: every verdict there is the same, so agreement by chance is 1 and kappa is 0/0",
			strings.Join(undefined, ", ")))
	}
	untyped := 0
	for _, it := range items {
		if it.Type == "" {
			untyped++
		}
	}
	if untyped > 0 && untyped < len(items) {
		w = append(w, fmt.Sprintf("%d of %d records compared %s no type: %s in the overall row but in no type's row",
			untyped, len(items), english.Form(untyped, "has", "have"), english.Form(untyped, "it is", "they are")))
	}
	return w
}

// unreadReplies counts, for each judgment name (by its place among the names seen), the replies
// on EvaLearn records in which EvaLearn's rule found no score, which Category takes for 0 as
// EvaLearn does and a reader would not tell from a reply graded 0; it keeps the first one's
// place, for a warning as qa-score's and qa-learncurve's. It holds one entry per name.
type unreadReplies map[int32]*unreadReply

type unreadReply struct {
	n     int
	rec   int // the first one's record, by its index among those read
	first *record.Error
}

// add notes that the reply of the judgment at place k on the record read rec-th held no score
// when why says why; at is called for the first such reply of each name only.
func (u *unreadReplies) add(k int32, rec int, why string, at func() *record.Error) {
	if why == "" {
		return
	}
	if *u == nil {
		*u = unreadReplies{}
	}
	r := (*u)[k]
	if r == nil {
		r = &unreadReply{rec: rec, first: at()}
		(*u)[k] = r
	}
	r.n++
}

// warning says how many replies of the judgments compared (at places) held no score and which
// was the first, or returns "".
func (u unreadReplies) warning(places []int32) string {
	n := 0
	var first *unreadReply
	for _, k := range places {
		if r := u[k]; r != nil {
			n += r.n
			if first == nil || r.rec < first.rec {
				first = r
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s no score by EvaLearn's rule: verdict 0, as in EvaLearn%s%v",
		english.Count(n, "EvaLearn judge reply", "EvaLearn judge replies"), english.Form(n, "holds", "hold"),
		english.Form(n, ": ", "; the first is "), first.first)
}
