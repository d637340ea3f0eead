package score

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/english"
)

// minReliable is the number of resampled units below which a bootstrap interval is flagged as
// unreliable.
const minReliable = 30

// units are what a group's intervals resample: records for most metrics, query groups for pn,
// pairwise_acc, mrr and map, whose records are not independent.
type units struct {
	records int      // the largest count of a metric whose unit is the record
	queries int      // the most query groups a metric whose unit is the query group resamples
	names   []string // the metrics whose unit is the query group, sorted
	// few lists, when records is not too few, the metrics whose unit is the record and whose
	// count is, sorted: in a mixed corpus a metric can apply to a handful of a group's records
	// (cmrc_* to its Chinese ones, sp_* to those with predicted facts).
	few []flatMetric
}

// fewList writes few as "sp_em 1, sp_f1 1".
func fewList(few []flatMetric) string {
	parts := make([]string, len(few))
	for i, f := range few {
		parts[i] = fmt.Sprintf("%s %d", f.name, f.n)
	}
	return strings.Join(parts, ", ")
}

// unitsOf returns the units g's intervals resample.
func unitsOf(g *Group) units {
	var u units
	names := slices.Sorted(maps.Keys(g.Metrics))
	for _, name := range names {
		st := g.Metrics[name]
		if st.queries == 0 {
			u.records = max(u.records, st.Count)
			continue
		}
		u.queries = max(u.queries, st.queries)
		u.names = append(u.names, name)
	}
	for _, name := range names {
		if st := g.Metrics[name]; st.queries == 0 && small(st.Count) && !small(u.records) {
			u.few = append(u.few, flatMetric{name, st.Count})
		}
	}
	return u
}

// small reports whether n units, some, are too few for a reliable interval.
func small(n int) bool { return n > 0 && n < minReliable }

// unreliable says which groups (overall, each type, each --by value) have too few units for their
// intervals: scored records, and query groups for the metrics that resample those. Without
// intervals (--bootstrap 0) there are none to call unreliable.
func (s *Summary) unreliable() []string {
	if s.Bootstrap == 0 {
		return nil
	}
	var w []string
	u := unitsOf(s.Overall)
	if small(u.records) {
		w = append(w, fmt.Sprintf("overall: %s (< %d): the intervals are unreliable", english.Count(u.records, "scored record", "scored records"), minReliable))
	}
	if len(u.few) > 0 {
		w = append(w, fmt.Sprintf("overall: metrics with fewer than %d scored records, whose intervals are unreliable: %s", minReliable, fewList(u.few)))
	}
	if small(u.queries) {
		w = append(w, fmt.Sprintf("overall: %s %s %s (< %d): their intervals are unreliable", strings.Join(u.names, ", "),
			english.Form(len(u.names), "resamples", "resample"), english.Count(u.queries, "query group", "query groups"), minReliable))
	}
	w = append(w, smallGroups("types", s.ByType)...)
	for _, p := range slices.Sorted(maps.Keys(s.By)) {
		w = append(w, smallGroups("--by "+p+": groups", s.By[p].Groups)...)
	}
	return w
}

// smallGroups says which of groups (what names them) have too few scored records, and which too
// few query groups, for their intervals.
func smallGroups(what string, groups map[string]*Group) []string {
	var records, few, queries, names []string
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		u := unitsOf(groups[k])
		if small(u.records) {
			records = append(records, fmt.Sprintf("%s (%d)", cell.Value(k), u.records))
		}
		if len(u.few) > 0 {
			few = append(few, fmt.Sprintf("%s (%s)", cell.Value(k), fewList(u.few)))
		}
		if small(u.queries) {
			queries = append(queries, fmt.Sprintf("%s (%d)", cell.Value(k), u.queries))
			names = append(names, u.names...)
		}
	}
	var w []string
	if len(records) > 0 {
		w = append(w, fmt.Sprintf("%s with fewer than %d scored records, whose intervals are unreliable: %s", what, minReliable, listGroups(records)))
	}
	if len(few) > 0 {
		w = append(w, fmt.Sprintf("%s with metrics of fewer than %d scored records, whose intervals are unreliable: %s", what, minReliable, listGroups(few)))
	}
	if len(queries) > 0 {
		slices.Sort(names)
		names = slices.Compact(names)
		w = append(w, fmt.Sprintf("%s in which %s %s fewer than %d query groups, so that their intervals are unreliable: %s",
			what, strings.Join(names, ", "), english.Form(len(names), "resamples", "resample"), minReliable, listGroups(queries)))
	}
	return w
}

// maxGroupWarnings is how many groups a warning names, and how many groups' warnings of one kind
// are given, before the rest are counted: a --by field of thousands of values (or as many types)
// wrote every group's name into one line, and a line for each group, megabytes of them on
// stderr and in the summary, where the figures hold them all.
const maxGroupWarnings = 10

// listGroups joins the groups a warning names, the first maxGroupWarnings of them and then how
// many more there are.
func listGroups(groups []string) string { return english.FirstOf(groups, maxGroupWarnings) }

// capGroupWarnings keeps, of ws, one warning a group in a stable order, overall's and those of the
// first maxGroupWarnings other groups; more counts the rest, what (the end of a sentence about
// them) says of them, or is "" when none is left out.
func capGroupWarnings(ws []string, what string) (kept []string, more string) {
	others := 0
	for _, w := range ws {
		if strings.HasPrefix(w, "overall: ") {
			kept = append(kept, w)
			continue
		}
		if others++; others <= maxGroupWarnings {
			kept = append(kept, w)
		}
	}
	if others > maxGroupWarnings {
		more = english.Count(others-maxGroupWarnings, "more group has", "more groups have") + " " + what
	}
	return kept, more
}
