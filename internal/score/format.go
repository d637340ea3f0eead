package score

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
)

// formats are the --format values.
var formats = []string{"json", "table", "markdown", "csv"}

// write renders the summary in format.
func (s *Summary) write(w io.Writer, format string) error {
	switch format {
	case "json":
		if s.Warnings == nil {
			s.Warnings = []string{} // [] rather than null: a list to iterate over, empty or not
		}
		enc := json.NewEncoder(record.LineSafe(w))
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"group", "metric", "count", "mean", "ci_lo", "ci_hi"}) //nolint:errcheck // cw.Error reports it
		for _, r := range s.rows(exact) {
			cw.Write(r) //nolint:errcheck
		}
		cw.Flush()
		return cw.Error()
	case "table":
		return s.writeTable(w)
	case "markdown":
		return s.writeMarkdown(w)
	}
	return fmt.Errorf("unknown format %q", format)
}

// header is the one-line count of records for the human formats.
func (s *Summary) header() string {
	errs := "excluded"
	switch zeroed := s.Errors - s.failedUnscored; {
	case s.ErrorsAsZero && zeroed == s.Errors:
		errs = "counted as 0"
	case s.ErrorsAsZero:
		// those no selected metric reads are among the unscored (see errorsWarning)
		errs = fmt.Sprintf("%d counted as 0", zeroed)
	}
	intervals := fmt.Sprintf("%s bootstrap intervals from %s, seed %d", stats.Percent(s.Level), english.Count(s.Bootstrap, "resample", "resamples"), s.Seed)
	if s.Bootstrap == 0 {
		intervals = "no intervals (--bootstrap 0)"
	}
	missing := ""
	if s.MissingAsZero > 0 {
		missing = fmt.Sprintf(" (%d without a prediction, as 0)", s.MissingAsZero)
		if s.missingPart > 0 {
			missing = fmt.Sprintf(" (%d without a prediction or part of one, as 0)", s.MissingAsZero)
		}
	}
	// The records that lost a metric to an error (a failed embedding call, say) are named where
	// they are: the means of those metrics leave them out.
	metricErrs := ""
	if s.MetricErrors > 0 {
		metricErrs = fmt.Sprintf(", metric errors %d (see score_errors)", s.MetricErrors)
	}
	return fmt.Sprintf("records %d, scored %d%s, errors %d (%s), unscored %d, bad lines %d%s; %s",
		s.Records, s.Scored, missing, s.Errors, errs, s.Unscored, s.BadLines, metricErrs, intervals)
}

// judgedLine names the judgments judge_score read, with their records, for the people's formats
// ("judge_score read \"longmemeval/gpt-4o-2024-08-06\" on 500 records"); "" when it read none.
func (s *Summary) judgedLine() string {
	if len(s.Judgments) == 0 {
		return ""
	}
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(s.Judgments)) {
		parts = append(parts, fmt.Sprintf("%q on %s", n, english.Count(s.Judgments[n], "record", "records")))
	}
	return "judge_score read " + strings.Join(parts, ", ")
}

func (s *Summary) writeTable(w io.Writer) error {
	fmt.Fprintln(w, s.header())
	if l := s.judgedLine(); l != "" {
		fmt.Fprintln(w, l)
	}
	tw := cell.NewColumns(cell.Trim(w), cell.Left)
	rows := s.rows(num)
	withCI := hasInterval(rows)
	head := "group\tmetric\tcount\tmean"
	if withCI {
		head += "\t" + s.ciHeading()
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s", cell.Table(r[0]), cell.Table(r[1]), r[2], r[3])
		if withCI {
			fmt.Fprintf(tw, "\t%s", interval(r))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.Corpus != nil && s.Corpus.Classification != nil {
		if err := s.Corpus.Classification.writeTable(w); err != nil {
			return err
		}
	}
	for _, m := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
	return nil
}

func (s *Summary) writeMarkdown(w io.Writer) error {
	rows := s.rows(num)
	withCI := hasInterval(rows)
	fmt.Fprintf(w, "%s\n\n", s.header())
	if l := s.judgedLine(); l != "" {
		fmt.Fprintf(w, "%s\n\n", cell.Markdown(l))
	}
	if withCI {
		fmt.Fprintf(w, "| group | metric | count | mean | %s |\n|---|---|---:|---:|---|\n", s.ciHeading())
	} else {
		fmt.Fprint(w, "| group | metric | count | mean |\n|---|---|---:|---:|\n")
	}
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s |", cell.Markdown(r[0]), cell.Markdown(r[1]), r[2], r[3])
		if withCI {
			fmt.Fprintf(w, " %s |", interval(r))
		}
		fmt.Fprintln(w)
	}
	if len(s.Warnings) > 0 {
		fmt.Fprintln(w)
	}
	for _, m := range s.Warnings {
		if _, err := fmt.Fprintf(w, "- warning: %s\n", cell.Markdown(m)); err != nil {
			return err
		}
	}
	return nil
}

// ciHeading is the heading of the intervals' column in the people's formats: "95% CI" at the
// default --level.
func (s *Summary) ciHeading() string { return stats.Percent(s.Level) + " CI" }

// hasInterval reports whether any row has an interval. Without one (--bootstrap 0, or no metric
// with an interval) the people's formats leave the "95% CI" column out rather than print it
// empty; csv keeps its ci_lo and ci_hi columns, empty, so that a script reads the same columns
// from every run.
func hasInterval(rows [][]string) bool {
	return slices.ContainsFunc(rows, func(r []string) bool { return r[4] != "" })
}

// interval is a row's interval as "[lo, hi]", or "" when it has none.
func interval(r []string) string {
	if r[4] == "" {
		return ""
	}
	return "[" + r[4] + ", " + r[5] + "]"
}

// rows flattens the summary into (group, metric, count, mean, ci_lo, ci_hi), figures as num writes
// them, for the table, Markdown and csv formats,
// in a fixed order: overall, each type, then the benchmark aggregates.
func (s *Summary) rows(num func(*float64) string) [][]string {
	r := &summaryRows{num: num}
	r.addGroup("overall", s.Overall)
	for _, t := range slices.Sorted(maps.Keys(s.ByType)) {
		r.addGroup("type "+cell.Value(t), s.ByType[t])
	}
	for _, p := range slices.Sorted(maps.Keys(s.By)) {
		for _, v := range slices.Sorted(maps.Keys(s.By[p].Groups)) {
			r.addGroup(p+" "+cell.Value(v), s.By[p].Groups[v])
		}
	}
	if l := s.LoCoMo; l != nil {
		r.addLoCoMo(l)
	}
	if l := s.LongMemEval; l != nil {
		r.addLongMemEval(l)
	}
	if l := s.LoCoMoJudge; l != nil {
		r.addLoCoMoJudge(l)
	}
	return r.rows
}

// summaryRows gathers the rows that rows returns, figures as num writes them.
type summaryRows struct {
	num  func(*float64) string
	rows [][]string
}

// add adds the row of st, the value of metric in group.
func (r *summaryRows) add(group, metric string, st Stat) {
	lo, hi := "", ""
	if st.CI != nil {
		lo, hi = r.num(&st.CI[0]), r.num(&st.CI[1])
	}
	r.rows = append(r.rows, []string{group, metric, strconv.Itoa(st.Count), r.num(st.Mean), lo, hi})
}

// addGroup adds the rows of g's metrics, sorted, under name.
//
// Metrics that applied to no record of a group (cmrc_* on English records, sp_* without
// predicted supporting facts) are left out of the human formats; JSON keeps them with count 0.
func (r *summaryRows) addGroup(name string, g *Group) {
	for _, m := range slices.Sorted(maps.Keys(g.Metrics)) {
		if g.Metrics[m].Count > 0 {
			r.add(name, m, *g.Metrics[m])
		}
	}
}

// addLoCoMo adds the rows of LoCoMo's section: each category, then the micro average.
func (r *summaryRows) addLoCoMo(l *LoCoMo) {
	for _, c := range l.Categories {
		r.add(fmt.Sprintf("locomo category %d (%s)", c.Category, c.Type), l.Metric, c.stat())
	}
	r.add("locomo overall (micro)", l.Metric, l.Overall)
}

// addLongMemEval adds the rows of LongMemEval's section: each type, the task average, overall
// and abstention.
func (r *summaryRows) addLongMemEval(l *LongMemEval) {
	// A type's row is named as the type groups' are ("type " and its value, "" for the
	// empty one), so that a type named overall or task-averaged is not taken for those rows.
	for _, t := range slices.Sorted(maps.Keys(l.ByType)) {
		r.add("longmemeval type "+cell.Value(t), l.Metric, l.ByType[t])
	}
	r.add("longmemeval task-averaged", l.Metric, Stat{Mean: l.TaskAveraged, Count: l.lmeTasks(), CI: l.TaskAveragedCI})
	r.add("longmemeval overall", l.Metric, l.Overall)
	r.add("longmemeval abstention", l.Metric, l.Abstention)
}

// addLoCoMoJudge adds the rows of the LoCoMo judge's section: each category, the micro averages
// with and without category 5, then the conversation averages when there are any.
func (r *summaryRows) addLoCoMoJudge(l *LoCoMoJudge) {
	for _, c := range l.Categories {
		r.add(fmt.Sprintf("locomo_judge category %d (%s)", c.Category, c.Type), l.Metric, c.stat())
	}
	r.add("locomo_judge overall (micro)", l.Metric, l.Overall)
	r.add("locomo_judge without category 5 (micro)", l.Metric, l.WithoutCategory5)
	if ca := l.ConversationAveraged; ca != nil {
		for _, c := range ca.Categories {
			r.add(fmt.Sprintf("locomo_judge conversation-averaged category %d (%s)", c.Category, c.Type), l.Metric, c.stat())
		}
		r.add("locomo_judge conversation-averaged overall", l.Metric, ca.Overall)
	}
}

// stat is c's row figures: mean, count and interval.
func (c Category) stat() Stat { return Stat{Mean: c.Mean, Count: c.Count, CI: c.CI} }

// num prints a value with four decimals, or "-" for none; one of a billion or more (a perplexity
// can reach 1e300) with four decimals of its exponent form (1.6604e+152), not in its hundreds of
// digits.
func num(v *float64) string {
	if v == nil {
		return "-"
	}
	if math.Abs(*v) >= 1e9 {
		return strconv.FormatFloat(*v, 'e', 4, 64)
	}
	return strconv.FormatFloat(*v, 'f', 4, 64)
}

// exact formats a figure for csv, which scripts read: the shortest decimal that reads back as the
// same float64, written as the JSON writes it (1e-300, not 300 digits of 0.000…), and an empty
// cell for no value (a missing value to pandas).
func exact(v *float64) string {
	if v == nil {
		return ""
	}
	b, err := appendFloat(nil, *v)
	if err != nil { // no figure is NaN or infinite; should one be, it is written as Go writes it
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	return string(b)
}

// writeTable prints the per-class table and the confusion matrix.
func (c *Classification) writeTable(w io.Writer) error {
	rows := ""
	if !slices.Equal(c.Labels, slices.DeleteFunc(slices.Clone(c.CMLabels), func(l string) bool { return !slices.Contains(c.Labels, l) })) {
		rows = " (the rows below in --labels order)"
	}
	fmt.Fprintf(w, "\nclassification: %s, accuracy %s, average %s, zero division %g, labels in %s order%s\n",
		english.Count(c.Records, "record", "records"), num(&c.Accuracy), c.Average, c.ZeroDivision, c.LabelOrder, rows)
	tw := cell.NewColumns(cell.Trim(w), cell.Left)
	fmt.Fprintln(tw, "label\tprecision\trecall\tf1\tsupport\tpredicted")
	for i, l := range c.Labels {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\n", strconv.Quote(l), num(&c.Precision[i]), num(&c.Recall[i]), num(&c.F1[i]), c.Support[i], c.Predicted[i])
	}
	for _, a := range []struct {
		name string
		prf  *metric.PRF
	}{{"macro", &c.Macro}, {"micro", &c.Micro}, {"weighted", &c.Weighted}, {"binary", c.Binary}} {
		if a.prf != nil {
			fmt.Fprintf(tw, "%s avg\t%s\t%s\t%s\t\t\n", a.name, num(&a.prf.Precision), num(&a.prf.Recall), num(&a.prf.F1))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nconfusion matrix (rows: gold label, columns: predicted label)")
	tw = cell.NewColumns(cell.Trim(w), cell.Right)
	fmt.Fprint(tw, "gold \\ predicted\t")
	for _, l := range c.CMLabels {
		fmt.Fprintf(tw, "%s\t", strconv.Quote(l))
	}
	fmt.Fprintln(tw)
	for i, l := range c.CMLabels {
		fmt.Fprintf(tw, "%s\t", strconv.Quote(l))
		for _, n := range c.Confusion[i] {
			fmt.Fprintf(tw, "%d\t", n)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// summaryExtensions are the --summary file extensions (lower-cased) that name a format, which the
// summary is written in when --format is not given; any other file gets JSON.
var summaryExtensions = []struct{ ext, format string }{
	{".json", "json"}, {".csv", "csv"}, {".md", "markdown"}, {".markdown", "markdown"}, {".txt", "table"},
}

// extensionsHelp lists summaryExtensions for --format's help: ".json json, .csv csv, ...".
func extensionsHelp() string {
	parts := make([]string, len(summaryExtensions))
	for i, e := range summaryExtensions {
		parts[i] = e.ext + " " + e.format
	}
	return strings.Join(parts, ", ")
}

// summaryFormat returns the format of the summary written to the --summary file summary:
// --format's (or QA_SUMMARY_FORMAT's) when given, else the one the file's extension names (before
// a ".gz" ending, which compresses it: s.csv.gz is csv), else json (with a warning for a .tsv or
// .tab name, which says tab-separated values, a format no summary has). A --format that another extension names is kept, with a warning: --summary s.csv
// --format json is what was asked for, if not what the name says. .txt names no format of its
// own (any of them is text): it takes table unless told, without a warning.
//
// Note: --summary s.csv wrote JSON unless --format csv was given too, a file whose name said
// otherwise; the extension is now read as the format it names. s.csv.gz was read by its ".gz"
// alone, and got gzip-compressed JSON.
func summaryFormat(c *cli.Context, summary string) string {
	name := summary
	if command.GzipNamed(name) {
		name = name[:len(name)-len(".gz")]
	}
	ext, byExt := strings.ToLower(filepath.Ext(name)), ""
	for _, e := range summaryExtensions {
		if e.ext == ext {
			byExt = e.format
		}
	}
	f := c.String("format")
	if f == "" {
		if byExt == "" && summary != "-" && (ext == ".tsv" || ext == ".tab") {
			// A name that reads as tab-separated would otherwise get JSON without a word.
			fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: --summary %s: no summary format is tab-separated: writing json (--format csv writes comma-separated values)\n", summary)
		}
		if byExt == "" || summary == "-" {
			return "json"
		}
		return byExt
	}
	if byExt != "" && byExt != f && ext != ".txt" && slices.Contains(formats, f) {
		fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: --summary %s: writing %s (--format%s), not the %s its extension names\n",
			summary, f, command.FromEnv(c, "format"), byExt)
	}
	return f
}
