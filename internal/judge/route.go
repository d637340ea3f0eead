package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/record"
)

// Modes a judge can run in. Auto routes each record to one of the others.
const (
	ModeAuto         = "auto"
	ModeLongMemEval  = "longmemeval"
	ModeLoCoMo       = "locomo-continuous"
	ModeMem0         = "mem0"
	ModeEvaLearn     = "evalearn"
	ModeAdversarial  = "adversarial"
	ModeUnanswerable = "unanswerable"
	ModeRules        = "rules"
	ModeCustom       = "custom"
	// ModeSkip in a route leaves the record without a judgment under this name.
	ModeSkip = "skip"
)

// Modes lists the modes --mode accepts.
var Modes = []string{ModeAuto, ModeLongMemEval, ModeLoCoMo, ModeMem0, ModeEvaLearn, ModeAdversarial,
	ModeUnanswerable, ModeRules}

// Routes maps "dataset/type", "dataset" or "*" to a mode; the most specific key wins.
type Routes map[string]string

// DefaultRoutes is the auto table: LoCoMo → MAGMA continuous (which decides category 5 by its
// rule), LongMemEval → its official yes/no templates, EvaLearn → its rubric judge, anything else →
// the approximate rules. It has no dataset/type keys, so that a route file's dataset key decides
// every record of the dataset: {"locomo": "mem0"} skips category 5 as mem0 does.
func DefaultRoutes() Routes {
	return Routes{
		"locomo":      ModeLoCoMo,
		"longmemeval": ModeLongMemEval,
		"evalearn":    ModeEvaLearn,
		"*":           ModeRules,
	}
}

// Route returns the mode for rec. Dataset names match whatever their case.
func (r Routes) Route(rec *record.Record) (string, error) {
	if k, ok := r.Key(rec); ok {
		return r[k], nil
	}
	return "", fmt.Errorf("no route for dataset %q type %q", rec.Dataset, rec.Type)
}

// Key returns the key that routes rec: the most specific of "dataset/type", "dataset" and "*"
// the table has, the dataset lower-cased.
func (r Routes) Key(rec *record.Record) (string, bool) {
	ds := strings.ToLower(rec.Dataset)
	for _, k := range []string{ds + "/" + rec.Type, ds, "*"} {
		if _, ok := r[k]; ok {
			return k, true
		}
	}
	return "", false
}

// LoadRoutes reads a JSON object {"dataset/type" | "dataset" | "*": mode} from path and lays it
// over the default table. Dataset names are kept lower-cased, as Route looks them up. It also
// returns the file's keys as written, by the key of the table each became. Its errors begin with
// path, after which qa-judge puts the flag: "--route: r.json: key …" (it read "--route: route
// file r.json: key …").
func LoadRoutes(path string) (Routes, map[string]string, error) {
	b, err := textfile.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var over map[string]json.RawMessage
	if err := json.Unmarshal(b, &over); err != nil {
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			return nil, nil, fmt.Errorf(`%s: want an object of "dataset/type", "dataset" or "*" to a mode, got %s`, path, record.Kind(b))
		}
		return nil, nil, textfile.JSONError(path, b, err)
	}
	r := DefaultRoutes()
	written := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(over)) { // the first fault named is the same every run
		var m string
		if v := over[k]; len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &m) != nil {
			return nil, nil, fmt.Errorf("%s: key %q: want a mode name, got %s", path, k, record.Kind(v))
		}
		w := k
		if ds, typ, ok := strings.Cut(k, "/"); ok {
			k = strings.ToLower(ds) + "/" + typ
		} else {
			k = strings.ToLower(k)
		}
		if other, ok := written[k]; ok {
			a, b := min(other, w), max(other, w) // map order: sorted, so the message is always the same
			return nil, nil, fmt.Errorf("%s: keys %q and %q name the same route (dataset names match in any case)", path, a, b)
		}
		written[k] = w
		if m != ModeSkip && m != ModeAuto && contains(Modes, m) {
			r[k] = m
			continue
		}
		if m == ModeSkip {
			r[k] = m
			continue
		}
		return nil, nil, fmt.Errorf("%s: key %q: unknown mode %q (want one of %s, skip)%s", path, k, m,
			strings.Join(Modes[1:], ", "), english.DidYouMean(m, append(slices.Clip(Modes[1:]), ModeSkip)))
	}
	return r, written, nil
}

// String lists the table, sorted, one "key → mode" per line.
func (r Routes) String() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(r)) {
		fmt.Fprintf(&b, "%s -> %s\n", k, r[k])
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// maxSeenRoutes bounds the records' dataset/type pairs a routeUse remembers for its warning.
const maxSeenRoutes = 20

// routeUse tracks which keys of a route file route some record, so that a warning can name the
// keys that routed none: a misspelt dataset or a type in another case would otherwise leave the
// default table in force without a word.
type routeUse struct {
	path  string
	keys  map[string]string // the file's keys as written, by table key
	used  map[string]bool
	seen  []string // the records' "dataset/type", up to maxSeenRoutes
	more  bool     // more were seen
	table Routes
}

func newRouteUse(path string, table Routes, keys map[string]string) *routeUse {
	return &routeUse{path: path, keys: keys, used: map[string]bool{}, table: table}
}

// note counts the key that routes rec as used.
func (u *routeUse) note(rec *record.Record) {
	if k, ok := u.table.Key(rec); ok {
		u.used[k] = true
	}
	pair := strings.ToLower(rec.Dataset)
	if rec.Type != "" {
		pair += "/" + rec.Type
	}
	switch {
	case slices.Contains(u.seen, pair):
	case len(u.seen) < maxSeenRoutes:
		u.seen = append(u.seen, pair)
	default:
		u.more = true
	}
}

// warning names the file's keys that routed no record, with the records' datasets and types,
// or returns "" when every key routed one.
func (u *routeUse) warning() string {
	var unused []string
	for k, w := range u.keys {
		if !u.used[k] {
			unused = append(unused, w)
		}
	}
	if len(unused) == 0 {
		return ""
	}
	slices.Sort(unused)
	seen := slices.Sorted(slices.Values(u.seen))
	pairs := "none"
	if len(seen) > 0 {
		pairs = command.QuotedList(seen)
		if u.more {
			pairs += ", …"
		}
	}
	return fmt.Sprintf("warning: --route %s: no record routed by %s (a dataset matches in any case, a type only as written; the records' dataset/type: %s)",
		u.path, command.QuotedList(unused), pairs)
}
