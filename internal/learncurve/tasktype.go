package learncurve

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/internal/python"
)

// TaskType is a sequence's task type as evaluate_metric.py holds it: the "type" value of the
// sequence's first record ("unknown" when it has none), used as a dict key. Types are nearly
// always names (strings), but a results file may hold "", null or a number there, and upstream
// then groups, sorts and prints that value as Python does.
type TaskType struct {
	Key  string // identity: types with equal Keys are one group, as equal dict keys are
	Name string // str() of the value: the console report's "Type: …"
	JSON string // the key json.dump writes for it in the report
	kind typeKind
}

// typeKind orders types the way Python's sorted() can compare them.
type typeKind uint8

const (
	noType         typeKind = iota // the zero TaskType: a record without a type
	strType                        // compared by code point
	numberType                     // int, float and bool compare by value
	noneType                       // None compares with nothing
	unhashableType                 // a list or dict: not a dict key at all
)

// nonStrKey starts the Key of every type that is not a string; no decoded JSON string holds the
// byte 0xff, so such a Key never equals a name.
const nonStrKey = "\xff"

// NamedType is the type called name.
func NamedType(name string) TaskType {
	return TaskType{Key: name, Name: name, JSON: name, kind: strType}
}

// RawType is the type of a record whose "type" field is the JSON value raw, as json.load gives it
// to evaluate_metric.py.
func RawType(raw []byte) TaskType {
	v, err := python.Loads(string(raw))
	if err != nil {
		return NamedType(strings.TrimSpace(string(raw)))
	}
	if v.Kind == python.Str {
		// A lone surrogate, kept apart in Key and JSON (json.dump escapes it), is U+FFFD in
		// the name the text report and the plot print: WTF-8 is no UTF-8.
		t := NamedType(v.S)
		t.Name = python.UTF8(v.S)
		return t
	}
	// json.dump writes a dict key that is not a str as json.dumps writes the value.
	t := TaskType{Name: v.Str(), JSON: v.Dumps()}
	switch v.Kind {
	case python.None:
		t.Key, t.kind = nonStrKey+"None", noneType
	case python.Bool, python.Int, python.Float:
		key, _, _ := evalearn.Key(raw)
		t.Key, t.kind = nonStrKey+key, numberType
	default:
		t.Key, t.kind = nonStrKey+t.JSON, unhashableType
	}
	return t
}

// isZero reports whether t is the zero TaskType, which stands for a record without a type ("" is
// a type).
func (t TaskType) isZero() bool { return t.kind == noType }

// sortTypes returns types as sorted(type_sequences.keys()) orders them. Where upstream stops
// with a TypeError (a list or dict as a type; types of kinds Python does not compare, such as a
// name and a number, or None among others) it returns names first, then numbers, then None, then
// the rest, and a warning saying so.
func sortTypes(types []TaskType) ([]TaskType, string) {
	out := slices.Clone(types)
	slices.SortStableFunc(out, compareTypes)
	var warn string
	kinds := map[typeKind]bool{}
	for _, t := range out {
		kinds[t.kind] = true
	}
	switch {
	case kinds[unhashableType]:
		warn = "a task type is a list or an object, which EvaLearn's evaluate_metric.py cannot group (TypeError: unhashable type)"
	case len(out) > 1 && (len(kinds) > 1 || kinds[noneType]):
		warn = "task types of different kinds (" + kindNames(out) + ") cannot be sorted by EvaLearn's evaluate_metric.py (TypeError); listed here names first, then numbers, then null" +
			sameJSONKey(out)
	}
	return out, warn
}

// sameJSONKey says which types of different kinds the JSON report writes under one key (the
// name "1" and the number 1, "null" and null), of which a reader of the report keeps one, or
// returns "". Types of one kind never share a key.
func sameJSONKey(types []TaskType) string {
	first := map[string]TaskType{}
	var pairs []string
	for _, t := range types {
		if u, ok := first[t.JSON]; ok {
			pairs = append(pairs, fmt.Sprintf("%s and %s as %q", typeValue(u), typeValue(t), t.JSON))
			continue
		}
		first[t.JSON] = t
	}
	if len(pairs) == 0 {
		return ""
	}
	return "; the JSON report writes types under one key, of which a reader keeps one: " + strings.Join(pairs, ", ")
}

// typeValue is t as its results file spells it: a name quoted, a number or null as JSON.
func typeValue(t TaskType) string {
	if t.kind == strType {
		return strconv.Quote(t.Name)
	}
	return t.JSON
}

func kindNames(types []TaskType) string {
	var names []string
	for _, t := range types {
		n := [...]string{"", "names", "numbers", "null", "lists or objects"}[t.kind]
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

func compareTypes(a, b TaskType) int {
	if a.kind != b.kind {
		return int(a.kind) - int(b.kind)
	}
	switch a.kind {
	case strType:
		return strings.Compare(a.Key, b.Key) // UTF-8 byte order is code point order
	case numberType:
		return numberValue(a).Cmp(numberValue(b))
	}
	return strings.Compare(a.Key, b.Key)
}

// numberValue is the value of a number type's key (exact for integers; ±inf as ±huge), for
// comparing types as Python compares int, float and bool.
func numberValue(t TaskType) *big.Float {
	key := strings.TrimPrefix(t.Key, nonStrKey)
	switch key {
	case "inf":
		return new(big.Float).SetInf(false)
	case "-inf":
		return new(big.Float).SetInf(true)
	case "nan":
		return new(big.Float) // NaN compares false with everything upstream; any place will do
	}
	f, _, err := big.ParseFloat(key, 10, 4096, big.ToNearestEven)
	if err != nil {
		return new(big.Float) // not reached: evalearn.Key writes numbers in forms ParseFloat reads
	}
	return f
}
