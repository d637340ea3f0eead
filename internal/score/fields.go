package score

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/record"
)

// The corpus metrics read record fields the per-record view does not decode (meta.group,
// prediction.score, prediction.loss, ...), named by a dotted path. A line is decoded a second time,
// one level at a time, only when such a metric is selected.

// fieldPath is a dotted path into a record: "meta.label", "prediction.score", "answers.0". A
// segment that is a non-negative integer indexes an array; "answers[0]" is read as "answers.0".
type fieldPath []string

// parsePath parses a --*-field value.
// An error quotes the path as given, not as rewritten: "a[]", not "a.".
func parsePath(s string) (fieldPath, error) {
	given := strings.TrimSpace(s)
	s = strings.TrimSpace(strings.NewReplacer("[", ".", "]", "").Replace(s))
	if s == "" {
		return nil, errors.New("empty path")
	}
	p := fieldPath(strings.Split(s, "."))
	for _, seg := range p {
		if seg == "" {
			return nil, fmt.Errorf("path %q has an empty segment", given)
		}
	}
	return p, nil
}

func (p fieldPath) String() string { return strings.Join(p, ".") }

// topMembers decodes a record's line into its top-level members as the other stages read them:
// a key given twice is its last value, but two meta or judgments objects are merged, the later
// member's keys winning (README, Records), so that --by meta.level and --label-field meta.label
// find what qa-load and qa-judge would write. Only a line that names meta or judgments twice is
// read member by member.
func topMembers(data []byte) (map[string]json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := record.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	if bytes.Count(data, []byte(`"meta"`)) < 2 && bytes.Count(data, []byte(`"judgments"`)) < 2 {
		return top, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return top, nil
	}
	merged := map[string]map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return top, nil
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return top, nil
		}
		key, _ := t.(string)
		if key != "meta" && key != "judgments" {
			continue
		}
		var m map[string]json.RawMessage
		if record.Unmarshal(raw, &m) != nil || m == nil {
			delete(merged, key) // a later member that is no object replaces the earlier ones
			continue
		}
		if merged[key] == nil {
			merged[key] = m
			continue
		}
		for k, v := range m {
			merged[key][k] = v
		}
	}
	for key, m := range merged {
		raw, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		top[key] = raw
	}
	return top, nil
}

// lookup returns the raw JSON value at p in the object top (its members), or false when some
// segment is missing, null, or of the wrong kind.
func (p fieldPath) lookup(top map[string]json.RawMessage) (json.RawMessage, bool) {
	raw, ok := top[p[0]]
	for _, seg := range p[1:] {
		if !ok {
			return nil, false
		}
		raw, ok = child(raw, seg)
	}
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, false
	}
	return raw, true
}

// child returns member seg of an object, or element seg of an array.
func child(raw json.RawMessage, seg string) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	switch raw[0] {
	case '{':
		var m map[string]json.RawMessage
		if record.Unmarshal(raw, &m) != nil {
			return nil, false
		}
		v, ok := m[seg]
		return v, ok
	case '[':
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 {
			return nil, false
		}
		var a []json.RawMessage
		if record.Unmarshal(raw, &a) != nil || i >= len(a) {
			return nil, false
		}
		return a[i], true
	}
	return nil, false
}

// rawLabel reads a label: a JSON string as itself, a number as its literal ("1", "2.5"), a boolean
// as "true" or "false". Anything else is no label.
func rawLabel(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if record.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	case c == '-' || '0' <= c && c <= '9', string(raw) == "true", string(raw) == "false":
		return string(raw), true
	}
	return "", false
}

// rawNumber reads a JSON number, or a string holding one (some servers quote their scores, and
// a CSV column qa-load does not map reaches meta as text), as a number flag reads its value: a
// finite decimal number, blanks around it ignored (command.ParseDecimal). "NaN", an infinity
// and a hex float are no number: strconv.ParseFloat read them, so that a score "NaN" left its
// record out as one without a score, and "Infinity" ranked it first, with no error.
func rawNumber(raw json.RawMessage) (float64, bool) {
	s, ok := rawLabel(raw)
	if !ok {
		return 0, false
	}
	f, err := command.ParseDecimal(strings.TrimSpace(s))
	return f, err == nil
}

// parseClasses reads --labels: classes separated by commas, or a JSON list of them (strings or
// numbers, as a label reads them), which can name a class that holds a comma or is empty.
func parseClasses(arg string) ([]string, error) {
	if !strings.HasPrefix(strings.TrimSpace(arg), "[") {
		return strings.Split(arg, ","), nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(arg), &raw); err != nil {
		return nil, fmt.Errorf("a list that starts with [ is JSON: %w", err)
	}
	if len(raw) == 0 {
		return nil, errors.New("the list is empty: name a class, or leave --labels out for every label seen")
	}
	out := make([]string, len(raw))
	for i, r := range raw {
		l, ok := rawLabel(r)
		if !ok {
			return nil, fmt.Errorf("class %d is %s, not a string or number", i+1, strings.TrimSpace(string(r)))
		}
		out[i] = l
	}
	return out, nil
}

// labelMap is --label-map: lower-cased, trimmed answer → label.
type labelMap map[string]string

// parseLabelMap reads --label-map: inline pairs "yes=1,no=0", or the name of a file holding a JSON
// object {"yes": 1, "no": "0"}. Keys are trimmed and lower-cased; values are trimmed.
func parseLabelMap(arg string) (labelMap, error) {
	if arg == "" {
		return nil, nil
	}
	if strings.Contains(arg, "=") {
		return parseInlineMap(arg)
	}
	data, err := textfile.ReadFile(arg)
	if err != nil {
		return nil, fmt.Errorf("not KEY=VALUE pairs, and %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			return nil, fmt.Errorf("%s: want a JSON object of answer to label, got %s", arg, record.Kind(data))
		}
		return nil, textfile.JSONError(arg, data, err)
	}
	// The keys in sorted order: Go's map order differs from run to run, and two keys that match
	// one label ("Yes" and "yes") would otherwise map it to either, a run's figures left to chance.
	m, from := labelMap{}, map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		l, ok := rawLabel(raw[k])
		if !ok {
			return nil, fmt.Errorf("%s: label of %q is not a string or number", arg, k)
		}
		key, l := strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(l)
		if prev, dup := m[key]; dup && prev != l {
			return nil, fmt.Errorf("%s: keys %q and %q both match the label %q but map it to %q and %q (keys match trimmed, lower-cased labels)", arg, from[key], k, key, prev, l)
		}
		m[key], from[key] = l, k
	}
	return m, nil
}

func parseInlineMap(arg string) (labelMap, error) {
	m := labelMap{}
	for _, pair := range strings.Split(arg, ",") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not KEY=VALUE", pair)
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("key %q appears twice", k)
		}
		m[k] = strings.TrimSpace(v)
	}
	return m, nil
}

// normalize is the label rule, applied to gold and predicted labels alike. Without a map labels
// are compared exactly, as the reference does ("Yes" ≠ "yes", " 1" ≠ "1"). With a map: trim
// Unicode white space, then replace the label by the map's value for its lower-cased form when
// the map has one; a label the map lacks stays as trimmed (case kept), a class of its own.
func (m labelMap) normalize(s string) string {
	if m == nil {
		return s
	}
	s = strings.TrimSpace(s)
	if v, ok := m[strings.ToLower(s)]; ok {
		return v
	}
	return s
}
