package judge

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/pkg/record"
)

// agreeReport is what qa-judge agree reports: the judges compared, the rows of figures, the
// records compared and left out, the disagreements and the warnings.
type agreeReport struct {
	names    []string
	items    []Item // the records compared
	rows     []Agreement
	leftOut  int // records left out: a compared judgment missing or failed
	failed   int // of those, the records with a failed one
	badLines int
	repeated int // records that repeat an earlier record's id
	warnings []string
	cfg      agreeConfig
}

// print writes the report to stdout in its --format, then its warnings to stderr, those too when
// stdout failed (a full disk): they say what the report, lost, would have rested on.
func (r *agreeReport) print(stdout, stderr io.Writer) error {
	out := bufio.NewWriter(stdout) // keeps the first write error for Flush
	var err error
	if r.cfg.format == agreeJSON {
		err = r.writeJSON(out)
	} else {
		r.writeText(out)
	}
	if err == nil {
		err = out.Flush()
	}
	for _, w := range r.warnings {
		fmt.Fprintf(stderr, "qa-judge agree: warning: %s\n", w)
	}
	return err
}

// disagreements returns the records compared on which the judges' verdicts differ, in input order.
func (r *agreeReport) disagreements() []Item {
	var dis []Item
	for _, it := range r.items {
		for _, c := range it.Ratings[1:] {
			if c != it.Ratings[0] {
				dis = append(dis, it)
				break
			}
		}
	}
	return dis
}

// listed returns the first --list of dis (all of them for -1).
func (r *agreeReport) listed(dis []Item) []Item {
	if r.cfg.maxList >= 0 && len(dis) > r.cfg.maxList {
		return dis[:r.cfg.maxList]
	}
	return dis
}

// writeText prints the report as a table for people. A type, a record's id and a judge's name
// are written as qa-score's summary writes a group's value (cell.Value): Go-quoted when a line
// break, a tab or an escape sequence would split a row, move its columns or act on the terminal,
// or when it is empty. The table is aligned by cell.Columns, as qa-score's summary is, so that a
// long, quoted or Chinese type (its characters two terminal columns wide) keeps every row in
// line; cell.Trim drops the spaces it pads a line's last cell with.
func (r *agreeReport) writeText(w io.Writer) {
	w = cell.Trim(w)
	names := make([]string, len(r.names))
	for k, n := range r.names {
		names[k] = cell.Value(n)
	}
	fmt.Fprintf(w, "judges: %s (%s; verdict = score >= %g)\n", strings.Join(names, ", "), KappaName(len(r.names)), r.cfg.threshold)
	fmt.Fprintf(w, "records: %d compared, %d left out (a judgment missing or failed)\n\n", len(r.items), r.leftOut)
	tw := cell.NewColumns(w, cell.Left)
	for _, row := range r.table() {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush() // the bufio.Writer under w keeps the first write error, which runAgree returns
	dis := r.disagreements()
	fmt.Fprintf(w, "\ndisagreements: %d\n", len(dis))
	listed := r.listed(dis)
	for _, it := range listed {
		parts := make([]string, len(names))
		for k, n := range names {
			parts[k] = fmt.Sprintf("%s=%d", n, it.Ratings[k])
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\n", cell.Value(it.ID), cell.Value(it.Type), strings.Join(parts, " "))
	}
	if more := len(dis) - len(listed); more > 0 {
		fmt.Fprintf(w, "  ... %d more\n", more)
	}
}

// table is the report's table, heading first, as cells: the row's name (rowName), n, agreement,
// its interval, kappa, its interval. Without an interval in the table (--bootstrap 0, or no record
// compared) the two "95% CI" columns (at the default --level) are left out rather than printed
// empty, as qa-score's summary leaves out its own. The figures' columns are aligned to the
// right, each cell padded to its column's widest, so that cell.Columns, which aligns every
// column to the left, lines up their last digits; the names and intervals stay on the left.
func (r *agreeReport) table() [][]string {
	withCI := slices.ContainsFunc(r.rows, func(a Agreement) bool { return hasCI(a.RawCI) || hasCI(a.KappaCI) })
	heading := stats.Percent(r.cfg.level) + " CI"
	rows := [][]string{{"group", "n", "agree", heading, "kappa", heading}}
	for i, a := range r.rows {
		rows = append(rows, []string{rowName(i, a), strconv.Itoa(a.N), num(a.Raw), ci(a.RawCI), num(a.Kappa), ci(a.KappaCI)})
	}
	for _, col := range []int{1, 2, 4} {
		width := 0
		for _, row := range rows {
			width = max(width, cell.Width(row[col]))
		}
		for _, row := range rows {
			row[col] = strings.Repeat(" ", width-cell.Width(row[col])) + row[col]
		}
	}
	if !withCI {
		for k, row := range rows {
			rows[k] = []string{row[0], row[1], row[2], row[4]}
		}
	}
	return rows
}

// rowName is the name of Agree's i-th row as the table and the warnings write it, as qa-score's
// summary names its groups: "overall" for the first, then "type " and each type as cell.Value
// writes it ("type two\nlines" Go-quoted), so that a type named "overall" or "all" is not taken
// for the row of every record.
func rowName(i int, a Agreement) string {
	if i == 0 {
		return "overall"
	}
	return "type " + cell.Value(a.Group)
}

// Agreement report formats (--format).
const (
	agreeText = "text"
	agreeJSON = "json"
)

var agreeFormats = []string{agreeText, agreeJSON}

// agreeDoc is the report --format json writes, one JSON document named as qa-score's summary
// is: snake_case keys, "overall" and "by_type" groups, a figure with no value null (here with
// its reason), and its interval, [lo, hi], left out where it has none (with --bootstrap 0,
// everywhere). Beside the text report's figures it has the bad lines skipped and the warnings
// (also on stderr), as the summary does.
//
// Note: a disagreement's verdicts are an object by judge name, not an array in the order of
// judges, so that a script picks a judge's verdict by its name; kappa_method is a code, not the
// text's "Cohen's kappa", so that a script compares it without quoting an apostrophe.
type agreeDoc struct {
	Judges []string `json:"judges"`
	// KappaMethod is "cohen" (two judges) or "fleiss" (more).
	KappaMethod string  `json:"kappa_method"`
	Threshold   float64 `json:"threshold"`
	Compared    int     `json:"compared"`
	// LeftOut counts the records left out, LeftOutMissing those where a compared judgment is
	// missing (or has no score) and LeftOutFailed those where one failed, which make the exit
	// code 3.
	LeftOut        int `json:"left_out"`
	LeftOutMissing int `json:"left_out_missing"`
	LeftOutFailed  int `json:"left_out_failed"`
	BadLines       int `json:"bad_lines"`
	// RepeatedIDs counts the records that repeat an earlier record's id, as qa-score's summary
	// does; left out when none does.
	RepeatedIDs   int                   `json:"repeated_ids,omitempty"`
	Bootstrap     int                   `json:"bootstrap"`
	Seed          int64                 `json:"seed"`
	Level         float64               `json:"level"`
	Overall       agreeGroup            `json:"overall"`
	ByType        map[string]agreeGroup `json:"by_type,omitempty"` // omitted when no record compared has a type
	WithoutType   int                   `json:"without_type,omitempty"`
	Disagreements agreeDisagreements    `json:"disagreements"`
	Warnings      []string              `json:"warnings"`
}

// agreeGroup is one row of the report: overall or a type.
type agreeGroup struct {
	Records   int       `json:"records"`
	Agreement agreeStat `json:"agreement"`
	Kappa     agreeStat `json:"kappa"`
}

// agreeStat is a figure, null when it has no value, with Reason saying why, and its bootstrap
// interval when it has one.
type agreeStat struct {
	Value  *float64    `json:"value"`
	CI     *[2]float64 `json:"ci,omitempty"`
	Reason string      `json:"reason,omitempty"`
}

// agreeDisagreements counts the disagreements and lists the first --list of them.
type agreeDisagreements struct {
	Count  int                 `json:"count"`
	Listed []agreeDisagreement `json:"listed"`
}

// agreeDisagreement is one record on which the judges differ: each judge's verdict by name.
type agreeDisagreement struct {
	ID       string         `json:"id"`
	Type     string         `json:"type,omitempty"`
	Verdicts map[string]int `json:"verdicts"`
}

// Why a figure has no value.
const (
	noRecords   = "no records compared"
	sameVerdict = "every verdict is the same, so agreement by chance is 1 and kappa is 0/0"
)

// writeJSON writes the report as one JSON document (agreeDoc).
func (r *agreeReport) writeJSON(w io.Writer) error {
	method := "fleiss"
	if len(r.names) == 2 {
		method = "cohen"
	}
	doc := agreeDoc{Judges: r.names, KappaMethod: method, Threshold: r.cfg.threshold, Compared: len(r.items),
		LeftOut: r.leftOut, LeftOutMissing: r.leftOut - r.failed, LeftOutFailed: r.failed, BadLines: r.badLines, RepeatedIDs: r.repeated,
		Bootstrap: r.cfg.reps, Seed: int64(r.cfg.seed), Level: r.cfg.level, Warnings: r.warnings}
	doc.Overall = jsonGroup(r.rows[0]) // Agree's first row is every record; a type named "overall" follows it
	if len(r.rows) > 1 {
		doc.ByType = map[string]agreeGroup{}
		for _, a := range r.rows[1:] {
			doc.ByType[a.Group] = jsonGroup(a)
			doc.WithoutType -= a.N
		}
		doc.WithoutType += len(r.items)
	}
	dis := r.disagreements()
	doc.Disagreements = agreeDisagreements{Count: len(dis), Listed: []agreeDisagreement{}}
	for _, it := range r.listed(dis) {
		v := make(map[string]int, len(r.names))
		for k, n := range r.names {
			v[n] = it.Ratings[k]
		}
		doc.Disagreements.Listed = append(doc.Disagreements.Listed, agreeDisagreement{ID: it.ID, Type: it.Type, Verdicts: v})
	}
	if doc.Warnings == nil {
		doc.Warnings = []string{} // [] rather than null, as in qa-score's summary
	}
	enc := json.NewEncoder(record.LineSafe(w))
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// jsonGroup is a row as the JSON report has it.
func jsonGroup(a Agreement) agreeGroup {
	why := noRecords
	if a.N > 0 {
		why = sameVerdict // the one way κ has no value over records (see stats.CohenKappa)
	}
	return agreeGroup{Records: a.N, Agreement: jsonStat(a.Raw, a.RawCI, noRecords), Kappa: jsonStat(a.Kappa, a.KappaCI, why)}
}

// jsonStat is a figure x with its interval iv, and why when x has no value.
func jsonStat(x float64, iv stats.Interval, why string) agreeStat {
	if math.IsNaN(x) {
		return agreeStat{Reason: why}
	}
	st := agreeStat{Value: &x}
	if hasCI(iv) {
		st.CI = &[2]float64{iv.Lo, iv.Hi}
	}
	return st
}

func num(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.3f", x)
}

// hasCI reports whether iv is an interval: the bootstrap gives none with no resample, no item,
// or (κ) no resample where the statistic is defined.
func hasCI(iv stats.Interval) bool { return !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi) }

func ci(iv stats.Interval) string {
	if !hasCI(iv) {
		return "-"
	}
	return fmt.Sprintf("[%.3f, %.3f]", iv.Lo, iv.Hi)
}

// repeatedWarning says that n records repeat the id of an earlier record, the first of them at
// first (file:line and id), as qa-score's summary says it: each is compared as a record of its
// own, and the cause is guessed among repeat.Causes. A record's judgments are compared on its own line, so two files of the same records, each
// judged by one judge, are not joined by id either: the warning says how to compare them.
func repeatedWarning(n int, first string) string {
	return english.Count(n, "record repeats", "records repeat") + " the id of an earlier record: each counts in every figure as a record " +
		"of its own (" + repeat.Causes + "? files of the same records judged apart are not joined: judge one file with each judge in turn)" +
		english.Form(n, ": ", "; the first is ") + first
}

// agreeWarnings are the report's caveats: no record compared, or too few for the intervals (from
// reps resamples) to mean much, overall or in a type's row; rows with records but no kappa;
// kappa intervals over part of the resamples or none; intervals of a single value; and how many
// records compared have no type when others have one.
func agreeWarnings(items []Item, rows []Agreement, reps int, level float64) []string {
	var w, undefined []string
	switch {
	case len(items) == 0:
		w = append(w, "no records compared")
	case len(items) < 10 && reps > 0: // with --bootstrap 0 there are no intervals to call rough, as in qa-score
		w = append(w, fmt.Sprintf("only %s compared; the intervals are rough", english.Count(len(items), "record", "records")))
	case reps > 0:
		w = append(w, fewInTypes(rows)...)
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
	w = append(w, partialKappaCI(rows, reps)...)
	w = append(w, noKappaCI(rows, reps)...)
	w = append(w, degenerateCI(rows, reps)...)
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

// fewInTypes names the type rows of fewer than 10 records, when the overall row has more: their
// intervals resample a handful of records (two that agree give [1, 1]), as qa-score's summary
// names its small groups. Past ten rows it names the first ten and counts the others.
func fewInTypes(rows []Agreement) []string {
	var few []string
	for i, a := range rows[1:] {
		if a.N > 0 && a.N < 10 {
			few = append(few, fmt.Sprintf("%s (%d)", rowName(i+1, a), a.N))
		}
	}
	if len(few) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("fewer than 10 records compared in %s: %s intervals are rough", english.FirstOf(few, 10), english.Form(len(few), "its", "their"))}
}

// partialKappaCI names the rows whose kappa interval leaves out more than a tenth of the
// resamples, those where kappa had no value (every verdict in them the same): the interval is
// over the others alone, which in a small row are a biased few (two records that agree have
// kappa 0/0 in half of them). A smaller share moves the bounds little, and is not named; nor is
// a row whose every resample was left out, which has no interval ("-") to be read as over all:
// noKappaCI names it.
func partialKappaCI(rows []Agreement, reps int) []string {
	var parts []string
	for i, a := range rows {
		if a.KappaCI.Partial(reps) && !math.IsNaN(a.Kappa) && hasCI(a.KappaCI) {
			parts = append(parts, fmt.Sprintf("%s (over %d of %d)", rowName(i, a), reps-a.KappaCI.Undefined, reps))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("kappa's interval is over the resamples where kappa has a value, leaving out more than a tenth in which every verdict was the same, in %s", english.FirstOf(parts, 10))}
}

// noKappaCI names the rows whose kappa has a value but no interval ("-"): every one of the reps
// resamples drew records of one verdict throughout, where kappa is 0/0, which a handful of
// resamples of a few records does (one draws r1 twice of two records, r1 of one verdict), leaving
// none to place the bounds, as the warning of too few resamples says of the others.
func noKappaCI(rows []Agreement, reps int) []string {
	var none []string
	for i, a := range rows {
		if reps > 0 && a.N > 0 && !math.IsNaN(a.Kappa) && !hasCI(a.KappaCI) {
			none = append(none, rowName(i, a))
		}
	}
	if len(none) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("kappa has no interval in %s: every verdict was the same in %s, too few to place its bounds (give a larger --bootstrap)",
		english.FirstOf(none, 10), english.Form(reps, "the one resample", fmt.Sprintf("each of the %d resamples", reps)))}
}

// degenerateCI names the figures, by row, whose interval is a single value because every resample
// with a value gave the same one, as qa-score's summary names its metrics: agreement when every
// record of the row agrees (or none does), kappa when it is 1 throughout or a judge gives one
// verdict throughout (kappa 0 in every resample). [1, 1] over many records reads as certainty,
// where it says only that the records resampled show no spread. A row of one record, whose
// intervals can be nothing else, has the warning of too few records; one resample (--bootstrap 1)
// gives every interval equal bounds, so only more can agree.
func degenerateCI(rows []Agreement, reps int) []string {
	if reps < 2 {
		return nil
	}
	var parts []string
	figures := 0
	for i, a := range rows {
		var which []string
		if a.N > 1 && hasCI(a.RawCI) && a.RawCI.Same {
			which = append(which, "agreement")
		}
		if a.N > 1 && hasCI(a.KappaCI) && a.KappaCI.Same {
			which = append(which, "kappa")
		}
		if len(which) > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s)", rowName(i, a), strings.Join(which, ", ")))
			figures += len(which)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("every resample gives the same value, so %s degenerate: %s",
		english.Form(figures, "the interval is", "the intervals are"), english.FirstOf(parts, 10))}
}
