package score

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/record"
)

// The summary is broken down by record type; --by PATH adds a breakdown by the value of another
// field (meta.level, prediction.model, dataset, …): one group per distinct value, summarised as a
// type's group is. A worker reads the values from the line; the aggregator keeps each group's
// running figures, and, for the intervals, each record's metric values once more per breakdown.

// byFields are the --by paths, in the order given, without repeats.
type byFields []fieldPath

// parseBy parses the --by values; each may hold several comma-separated paths.
func parseBy(values []string) (byFields, error) {
	var b byFields
	seen := map[string]bool{}
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			p, err := parsePath(s)
			if err != nil {
				return nil, inList(v, s, err)
			}
			if p.String() == "type" { // its rows would repeat the by-type ones, warnings and all
				return nil, fmt.Errorf("the summary is broken down by type already")
			}
			if !seen[p.String()] {
				seen[p.String()] = true
				b = append(b, p)
			}
		}
	}
	return b, nil
}

// inList returns err, parsePath's for s, one of the comma-separated paths of v: naming v when s
// is blank, which says nothing of where it was ("a,,b" holds an empty path).
func inList(v, s string, err error) error {
	if strings.TrimSpace(s) == "" && strings.Contains(v, ",") {
		return fmt.Errorf("%q holds an empty path", v)
	}
	return err
}

// byValue is a record's value at a --by path: a string as itself, a number or boolean as written;
// ok is false when the record has none there (absent, null, an object or a list).
type byValue struct {
	text string
	ok   bool
}

// values reads the record's value at each path from its line. With known, when a path has
// none, it also returns the paths the record has values at (knownPaths), for a suggestion.
func (b byFields) values(data []byte, known bool) ([]byValue, []string, error) {
	top, err := topMembers(data)
	if err != nil {
		return nil, nil, err
	}
	vs := make([]byValue, len(b))
	missed := false
	for i, p := range b {
		if raw, ok := p.lookup(top); ok {
			vs[i].text, vs[i].ok = rawLabel(raw)
		}
		missed = missed || !vs[i].ok
	}
	if !known || !missed {
		return vs, nil, nil
	}
	var paths []string
	knownPaths(top, "", 1, &paths)
	return vs, paths, nil
}

// byKnownLines is how many lines at the start of each input give knownPaths: a misspelt path
// is most likely one the first records have, and looking further would cost every record.
const byKnownLines = 16

// knownPaths appends to paths those under prefix in obj at which --by finds a value (a string,
// number or boolean), down to three levels (meta.level, prediction.usage.model), but not type,
// which --by refuses. Lists are not entered: a path into one names one element. A key that holds
// a dot or a bracket is passed over, with what is under it: no path names it (a path's dots and
// brackets part its segments), and suggesting it would name the path that was just not found.
func knownPaths(obj map[string]json.RawMessage, prefix string, depth int, paths *[]string) {
	for k, raw := range obj {
		if strings.ContainsAny(k, ".[]") {
			continue
		}
		p := prefix + k
		if _, ok := rawLabel(raw); ok && p != "type" {
			*paths = append(*paths, p)
			continue
		}
		var sub map[string]json.RawMessage
		if depth < 3 && len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '{' && record.Unmarshal(raw, &sub) == nil {
			knownPaths(sub, p+".", depth+1, paths)
		}
	}
}

// suggestPath returns the path of known that p, at which no record had a value, most likely
// misspells, or "": one near it whole ("meta.levle" for meta.level), else one whose last segment
// is near p's, when only one path ends so ("level" or "levl" for meta.level).
func suggestPath(p string, known []string) string {
	if s := english.Suggest(p, known); s != "" {
		return s
	}
	byLast := map[string]string{} // last segment → its one path, "" when several end so
	var lasts []string
	for _, k := range known {
		last := k[strings.LastIndexByte(k, '.')+1:]
		if _, seen := byLast[last]; seen {
			byLast[last] = ""
			continue
		}
		byLast[last] = k
		lasts = append(lasts, last)
	}
	if s := english.Suggest(p[strings.LastIndexByte(p, '.')+1:], lasts); byLast[s] != p {
		return byLast[s]
	}
	return ""
}

// byAcc collects one breakdown: a group per value, and the count of records without one.
type byAcc struct {
	groups  map[string]*groupAcc
	without int
}

// Breakdown is the summary by the values of one --by field.
type Breakdown struct {
	// Groups holds a group per value.
	Groups map[string]*Group `json:"groups"`
	// Without counts the records with no value at the field (in no group).
	Without int `json:"without"`
}

// breakdowns summarises the --by groups into s.By.
func (a *aggregator) breakdowns(reps int, seed uint64, s *Summary) {
	if len(a.byPaths) == 0 {
		return
	}
	s.By = map[string]*Breakdown{}
	for i, p := range a.byPaths {
		b := a.by[i]
		bd := &Breakdown{Groups: map[string]*Group{}, Without: b.without}
		for _, v := range slices.Sorted(maps.Keys(b.groups)) {
			g := b.groups[v]
			bd.Groups[v] = a.group(p.String()+" "+v, p.String()+" "+cell.Value(v), g.records, g.failed, g.cols, reps, seed, false, s)
		}
		s.By[p.String()] = bd
	}
}

// byMissing says how many records had no value at each --by field (all of them: most likely a
// misspelt path, for which it suggests one the first records have).
func (s *Summary) byMissing() []string {
	var w []string
	for _, p := range slices.Sorted(maps.Keys(s.By)) {
		switch n := s.By[p].Without; {
		case n == s.Records && n > 0:
			w = append(w, fmt.Sprintf("--by %s%s: no record has a value there (a string, number or boolean), so it has no groups%s", p, s.byFrom,
				english.Hint(suggestPath(p, s.byKnown))))
		case n > 0:
			w = append(w, fmt.Sprintf("--by %s%s: %d of %d records %s no value there and %s in none of its groups", p, s.byFrom, n, s.Records,
				english.Form(n, "has", "have"), english.Form(n, "is", "are")))
		}
	}
	return w
}
