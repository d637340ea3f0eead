package judge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/pkg/record"
)

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

// compared reports whether r is compared on the judgments at places, as items takes it: it has
// a verdict of each, none of them failed.
func (r judgedRecord) compared(places []int32) bool {
	for _, k := range places {
		if v, ok := r.verdict(k); !ok || v.failed {
			return false
		}
	}
	return true
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
// A record with a score outside 0 to 1 in a judgment compared (of names, --names; every one when
// it is nil) is a bad line (outOfRange). A signal (ctx) stops it before the next record.
func readJudged(ctx context.Context, src *command.Source, threshold float64, names []string) (*judgedSet, error) {
	s := &judgedSet{seen: map[string]int32{}, types: map[string]string{}}
	err := src.EachUntil(ctx, func(rec *record.Record) error {
		if err := outOfRange(rec, names); err != nil {
			return src.Reject(rec.ID, err)
		}
		s.add(rec, src, threshold)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// outOfRange returns the error of the first judgment of rec, in order of name, among names (every
// one when names is nil) whose score is outside 0 to 1, or nil. Such a score (the 5 of a 1-5
// rubric, -1, in a hand-made file) makes the line bad, as a null score does, rather than a
// verdict by --threshold, which took 5 for 1 and -1 for 0 without a word, on EvaLearn records
// too: agreement is no figure of EvaLearn's, whose script's reading (above 0) qa-learncurve keeps.
// A judgment not compared is not read, so a rubric's beside the judges compared is no fault.
func outOfRange(rec *record.Record, names []string) error {
	for _, name := range slices.Sorted(maps.Keys(rec.Judgments)) {
		if names != nil && !slices.Contains(names, name) {
			continue
		}
		if err := rec.Judgments[name].ScoreError(name); err != nil {
			return err
		}
	}
	return nil
}

// add keeps rec, read from src: its id, its type and a verdict for each judgment that has one
// or failed, its name given a place when first seen (a judgment given as null has no name seen).
// The judgments are taken in order of name, so that the first reply the unread warning names,
// when one record holds several, is the same on every run, not the one a Go map gave first.
func (s *judgedSet) add(rec *record.Record, src *command.Source, threshold float64) {
	at := src.At(rec.ID, nil)
	s.ids.Add(rec.ID, at.File, at.Line)
	typ, ok := s.types[rec.Type]
	if !ok {
		typ = rec.Type
		s.types[typ] = typ
	}
	jr := judgedRecord{id: rec.ID, typ: typ}
	for _, name := range slices.Sorted(maps.Keys(rec.Judgments)) {
		j := rec.Judgments[name]
		if j == nil {
			// A judgment given as null is none, as qa-score and qa-learncurve read it: its
			// name is no judge to compare.
			continue
		}
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
	if w := s.rowless(places, items); w != "" {
		rep.warnings = append(rep.warnings, w)
	}
	if w := s.unread.warning(places, func(i int) bool { return s.recs[i].compared(places) }); w != "" {
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

// rowless names the types whose every record was left out (a compared judgment missing or
// failed), with their records and failed ones: no record of theirs is among items, the records
// compared, so the report has no row for them, and a breakdown without them would read as the
// whole, as qa-score's summary warns of its types with no scored record. "" when there are none,
// or when no record was compared at all, which its own warning says.
func (s *judgedSet) rowless(places []int32, items []Item) string {
	if len(items) == 0 {
		return ""
	}
	compared := make(map[string]bool)
	for _, it := range items {
		compared[it.Type] = true
	}
	type count struct{ left, failed int }
	lost := make(map[string]*count)
	for _, r := range s.recs {
		if r.typ == "" || compared[r.typ] {
			continue
		}
		c := lost[r.typ]
		if c == nil {
			c = &count{}
			lost[r.typ] = c
		}
		c.left++
		if slices.ContainsFunc(places, func(k int32) bool { v, _ := r.verdict(k); return v.failed }) {
			c.failed++
		}
	}
	if len(lost) == 0 {
		return ""
	}
	var names []string
	for _, t := range slices.Sorted(maps.Keys(lost)) {
		c := lost[t]
		n := english.Count(c.left, "record", "records") + " left out"
		if c.failed > 0 {
			n += fmt.Sprintf(", %d with a failed judgment", c.failed)
		}
		names = append(names, fmt.Sprintf("%s (%s)", cell.Value(t), n))
	}
	return "types with no record compared, so with no row: " + english.FirstOf(names, 10)
}

// unreadReplies lists, in input order, the replies on EvaLearn records in which EvaLearn's rule
// found no score, which Category takes for 0 as EvaLearn does and a reader would not tell from a
// reply graded 0, for a warning as qa-score's and qa-learncurve's: each with its judgment's name
// (by its place among the names seen), its record (by its index among those read) and its place.
//
// Note: the warning counts those on the records compared alone, which are known only once the
// names compared are: a reply on a record left out (another judgment missing or failed) was
// given no verdict, and counting it said "verdict 0" of a record in no figure.
type unreadReplies []unreadReply

type unreadReply struct {
	name int32
	rec  int
	at   *record.Error
}

// add notes that the reply of the judgment at place k on the record read rec-th held no score
// when why says why; at gives its place.
func (u *unreadReplies) add(k int32, rec int, why string, at func() *record.Error) {
	if why == "" {
		return
	}
	*u = append(*u, unreadReply{name: k, rec: rec, at: at()})
}

// warning says how many replies of the judgments compared (at places), on the records compared
// (by compared, given a record's index), held no score and which was the first, or returns "".
func (u unreadReplies) warning(places []int32, compared func(rec int) bool) string {
	n := 0
	var first *record.Error
	for _, r := range u {
		if slices.Contains(places, r.name) && compared(r.rec) {
			if n++; first == nil {
				first = r.at
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s no score by EvaLearn's rule: verdict 0, as in EvaLearn%s%v",
		english.Count(n, "EvaLearn judge reply", "EvaLearn judge replies"), english.Form(n, "holds", "hold"),
		english.Form(n, ": ", "; the first is "), first)
}
