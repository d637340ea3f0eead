package load

import (
	"fmt"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
)

// Mapping names, for each record field, the source field it comes from in the generic jsonl and
// csv formats: in jsonl a path into nested objects and lists, in csv a column (see sourcePath).
// Unmapped record fields come from the source field of the same name, unless the mapping gives
// that source to another record field (see takenBy).
type Mapping map[string]string

// mappable lists the record fields a Mapping may name: prediction, prediction_model,
// prediction_score and prediction_supporting_facts fill prediction.text, .model, .score and
// .supporting_facts (see takePrediction).
var mappable = []string{"id", "question", "answers", "type", "context", "rubric", "lang", "dataset", "split",
	"prediction", "prediction_model", "prediction_score", "prediction_supporting_facts"}

// ParseMap parses `question=q,answers=gold,id=qid,type=category`, a source being a path
// (answers.text, resps[0][0], see sourcePath). A source that is no path is an error, and so is
// a field mapped twice, or a source mapped to two fields: a field takes its source's value away
// from the record, so the later would be lost without a word; so is a mapping that gives the
// field "question" to another field without naming the question's own (split=question), which
// every record would lack. A comma escaped with a backslash is
// part of its source (see splitPairs).
func ParseMap(s string) (Mapping, error) {
	m := Mapping{}
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	for _, pair := range splitPairs(s) {
		field, src, ok := strings.Cut(pair, "=")
		field, src = strings.TrimSpace(field), strings.TrimSpace(src)
		if !ok || src == "" {
			return nil, fmt.Errorf("map %q: want field=source", pair)
		}
		if !slices.Contains(mappable, field) {
			return nil, fmt.Errorf("map %q: %q is not one of %v%s", pair, field, mappable, english.DidYouMean(field, mappable))
		}
		path, err := sourcePath(src)
		if err != nil {
			return nil, fmt.Errorf("map %q: source %q: %v", pair, src, err)
		}
		// One spelling for each source, as the checks below and takenBy compare them: go\ld
		// is gold, which it read without refusing --map answers=gold,type=go\ld.
		src = pathName(path)
		if prev, ok := m[field]; ok {
			return nil, fmt.Errorf("map %q: %s is mapped twice (from %q and from %q)", pair, field, prev, src)
		}
		for f, s := range m {
			if s == src { // the first field would take the source, leaving the other empty
				return nil, fmt.Errorf("map %q: source %q is mapped twice (to %s and to %s)", pair, src, f, field)
			}
		}
		m[field] = src
	}
	if g := m.takenBy("question"); g != "" {
		// The question would have no source: every record would be a bad item for it.
		return nil, fmt.Errorf("%s=question makes field \"question\" the %s and leaves the question without a source; give question=SOURCE too", g, g)
	}
	return m, nil
}

// splitPairs splits a --map value at its commas, but for a comma escaped with a backslash, which
// sourcePath reads as part of a name (a column "answers (a, b, or c)" is answers (a\, b\, or c)).
func splitPairs(s string) []string {
	var pairs []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // the escaped character, a comma or another
		case ',':
			pairs = append(pairs, s[start:i])
			start = i + 1
		}
	}
	return append(pairs, s[start:])
}

// source returns the source field for record field f: the one the mapping names, else the field
// of f's own name, unless the mapping names that field as another record field's source (see
// takenBy): then f has none, "".
func (m Mapping) source(f string) string {
	if s, ok := m[f]; ok {
		return s
	}
	if m.takenBy(f) != "" {
		return ""
	}
	return f
}

// takenBy returns the record field that the mapping gives the source field named as the record
// field f, which f does not map (split for f "type", under --map split=type), or "".
//
// Note: f read that source too, the field first in mappable's order taking it from the other, so
// that --map split=type loaded the type field as the records' type and gave them no split, and
// --map type=id gave them no type, without a word. A source given to a field is that field's
// alone, as a source given to two fields is refused: the mapping renames it.
func (m Mapping) takenBy(f string) string {
	if _, ok := m[f]; ok {
		return ""
	}
	for _, g := range mappable {
		if m[g] == f {
			return g
		}
	}
	return ""
}

// unfound returns the record fields of m, in their order, whose source is not in found, each
// source once.
func (m Mapping) unfound(found map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range mappable {
		if src, ok := m[f]; ok && !found[src] && !seen[src] {
			seen[src] = true
			out = append(out, f)
		}
	}
	return out
}
