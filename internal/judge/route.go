package judge

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

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
	ds := strings.ToLower(rec.Dataset)
	for _, k := range []string{ds + "/" + rec.Type, ds, "*"} {
		if m, ok := r[k]; ok {
			return m, nil
		}
	}
	return "", fmt.Errorf("no route for dataset %q type %q", rec.Dataset, rec.Type)
}

// LoadRoutes reads a JSON object {"dataset/type" | "dataset" | "*": mode} from path and lays it
// over the default table. Dataset names are kept lower-cased, as Route looks them up.
func LoadRoutes(path string) (Routes, error) {
	b, err := textfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var over map[string]string
	if err := json.Unmarshal(b, &over); err != nil {
		return nil, fmt.Errorf("route file %s: %w", path, err)
	}
	r := DefaultRoutes()
	for k, m := range over {
		if ds, typ, ok := strings.Cut(k, "/"); ok {
			k = strings.ToLower(ds) + "/" + typ
		} else {
			k = strings.ToLower(k)
		}
		if m != ModeSkip && m != ModeAuto && contains(Modes, m) {
			r[k] = m
			continue
		}
		if m == ModeSkip {
			r[k] = m
			continue
		}
		return nil, fmt.Errorf("route file %s: key %q: unknown mode %q (want one of %s, skip)", path, k, m,
			strings.Join(Modes[1:], ", "))
	}
	return r, nil
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
