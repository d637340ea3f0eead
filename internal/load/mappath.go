package load

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// A --map source of the generic jsonl format is a path: a dot separates the names of the
// members it goes through (answers.text is the member text of the object under answers, as a
// Hugging Face export of SQuAD holds its answers), [N] after a name or another index is the item
// N of a list, counted from 0 (resps[0][0] is the first item of the first list under resps, as
// lm-evaluation-harness writes its samples; [-1] is the last item), and a backslash makes the
// character after it part of a name (a\.b names the member "a.b", a\[0] the member "a[0]", a\\b
// the member "a\b"). A CSV file has no nested fields: there the path names the column written as
// the path without its escapes, so answers.text is the column pandas' json_normalize writes for
// it, and resps[0][0] the column "resps[0][0]".
//
// Note: looking a source up as the whole member first, then as a path, was rejected: it would read
// --map answers=a.b one way or the other record by record, as each has a member "a.b" or not,
// without a word; the escape says which is meant once for the whole file.

// A step is one step of a --map source's path: the member name of an object, or, when list is
// set, the item index of a list (negative: counted from the end, -1 the last).
type step struct {
	name  string
	index int
	list  bool
}

// sourcePath splits the --map source src into the steps of its path. It reports an error for
// an empty name (a.b., a..b), a backslash at the end, and an index that is not [N], N a whole
// number written without a sign (but - for one counted from the end) or a leading zero, after a
// name or another index and followed by a dot, another index or the end.
func sourcePath(src string) ([]step, error) {
	const emptyName = `a name of its path is empty (a dot within a name is written \.)`
	var path []step
	var name strings.Builder
	afterIndex := false // the last step read is an index, with nothing after it yet
	for i := 0; i < len(src); i++ {
		c := src[i]
		if afterIndex && c != '.' && c != '[' {
			return nil, fmt.Errorf(`index %s is followed by %q, not by a dot, another index or the end`, path[len(path)-1].text(), src[i:])
		}
		switch {
		case c == '\\' && i+1 == len(src):
			return nil, errors.New(`a backslash ends it (\. is a dot within a name, \[ a bracket, \\ a backslash)`)
		case c == '\\':
			i++
			name.WriteByte(src[i])
		case c == '.' && name.Len() == 0 && !afterIndex:
			return nil, errors.New(emptyName)
		case c == '.':
			if name.Len() > 0 {
				path = append(path, step{name: name.String()})
				name.Reset()
			}
			afterIndex = false
		case c == '[':
			if name.Len() == 0 && !afterIndex {
				return nil, errors.New(`an index [N] follows no name (a [ within a name is written \[)`)
			}
			if name.Len() > 0 {
				path = append(path, step{name: name.String()})
				name.Reset()
			}
			end := strings.IndexByte(src[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf(`index %s is not closed with ] (a [ within a name is written \[)`, src[i:])
			}
			n, err := listIndex(src[i+1 : i+end])
			if err != nil {
				return nil, fmt.Errorf(`index %s: %v (a [ within a name is written \[)`, src[i:i+end+1], err)
			}
			path = append(path, step{index: n, list: true})
			i += end
			afterIndex = true
		default:
			name.WriteByte(c)
		}
	}
	if name.Len() > 0 {
		return append(path, step{name: name.String()}), nil
	}
	if !afterIndex {
		return nil, errors.New(emptyName)
	}
	return path, nil
}

// text returns the step as a path writes it, without escapes: its name, or [N].
func (s step) text() string {
	if s.list {
		return "[" + strconv.Itoa(s.index) + "]"
	}
	return s.name
}

// listIndex reads the N of an index [N]: a whole number in decimal digits, without a leading zero
// or a sign, but - for an index counted from the end of the list. One spelling for each index,
// so that a CSV column's name, the path as written, is the index's one.
func listIndex(s string) (int, error) {
	digits := strings.TrimPrefix(s, "-")
	switch {
	case digits == "" || strings.Trim(digits, "0123456789") != "":
		return 0, errors.New("want a whole number, 0 for the first item or -1 for the last")
	case digits[0] == '0' && (len(digits) > 1 || s != digits):
		n := strings.TrimLeft(digits, "0")
		if n == "" {
			return 0, errors.New("write it 0")
		}
		return 0, fmt.Errorf("write it %s%s, without a leading zero", s[:len(s)-len(digits)], n)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, errors.New("too large a number")
	}
	return n, nil
}

// pathHead returns the first name of the path of the --map source src: the top-level member it is
// in. ParseMap has checked src.
func pathHead(src string) string {
	path, _ := sourcePath(src)
	return path[0].name
}

// column returns the CSV column that the --map source src names: its path written without
// escapes, the names joined with dots, each index [N] after the name it follows. ParseMap has
// checked src.
func column(src string) string {
	path, _ := sourcePath(src)
	var b strings.Builder
	for i, s := range path {
		if i > 0 && !s.list {
			b.WriteByte('.')
		}
		b.WriteString(s.text())
	}
	return b.String()
}

// throughList reports whether a path goes through a list (has an index).
func throughList(path []step) bool {
	return slices.ContainsFunc(path, func(s step) bool { return s.list })
}

// fields are the members of one generic item (a JSON object's top-level members, or a CSV row's
// cells by column name), from which the record's fields are taken by their --map source.
type fields struct {
	obj    map[string]jsonRaw
	nested bool // sources are paths into the members (jsonl), not column names (csv)
}

// has reports whether the item holds the source src (null or not).
func (f fields) has(src string) bool {
	if !f.nested {
		_, ok := f.obj[column(src)]
		return ok
	}
	path, _ := sourcePath(src)
	raw, ok := f.obj[path[0].name]
	if !ok {
		return false
	}
	_, _, found, err := extract(raw, path[1:], path[:1])
	return found && err == nil
}

// take returns the value of the source src and takes it out of the item, so that it does not
// also go to meta: a member whole, or the member at the end of a path, the object that held it
// kept without it (an object left empty goes too). A path through a list takes nothing out: the
// top-level member goes to meta whole, as a list without one of its items would shift the others'
// indexes (resps[0][0] keeps resps). found is false when the item lacks the source (a name an
// object on the path has not, an index past a list's end); a null on the path reads as a null
// value. The error says which step of the path does not hold an object or a list, or is given
// twice.
func (f fields) take(src string) (raw jsonRaw, found bool, err error) {
	if !f.nested {
		name := column(src)
		raw, found = f.obj[name]
		delete(f.obj, name)
		return raw, found, nil
	}
	path, _ := sourcePath(src)
	top, ok := f.obj[path[0].name]
	if !ok {
		return nil, false, nil
	}
	val, rest, found, err := extract(top, path[1:], path[:1])
	switch {
	case err != nil || !found:
		return nil, false, err
	case throughList(path):
	case rest == nil:
		delete(f.obj, path[0].name)
	default:
		f.obj[path[0].name] = rest
	}
	return val, true, nil
}

// extract returns the value at path in raw (the value at the path before, for errors), and raw
// without it: nil when nothing is left of raw (the value itself, or an object whose members all
// went); a list on the path is left whole. A null on the path is the value. found is false when an
// object on the path lacks the next name, or a list is too short for the next index.
func extract(raw jsonRaw, path, before []step) (val, rest jsonRaw, found bool, err error) {
	if len(path) == 0 || isNull(raw) {
		return raw, nil, true, nil
	}
	next := append(slices.Clip(before), path[0])
	if path[0].list {
		var items []jsonRaw
		if trimSpace(raw)[0] != '[' || jsonUnmarshal(raw, &items) != nil {
			return nil, nil, false, wrongKind(pathName(before), "a list", raw)
		}
		i := path[0].index
		if i < 0 {
			i += len(items)
		}
		if i < 0 || i >= len(items) {
			return nil, nil, false, nil
		}
		val, _, found, err := extract(items[i], path[1:], next)
		if err != nil || !found {
			return nil, nil, found, err
		}
		return val, raw, true, nil
	}
	if trimSpace(raw)[0] != '{' {
		return nil, nil, false, wrongKind(pathName(before), "an object", raw)
	}
	ms, merr := record.Members(raw)
	if merr != nil {
		return nil, nil, false, wrongKind(pathName(before), "an object", raw) // not reached for valid JSON
	}
	at := -1
	for i, m := range ms {
		if m.Key != path[0].name {
			continue
		}
		if at >= 0 {
			return nil, nil, false, &givenTwice{pathName(next)}
		}
		at = i
	}
	if at < 0 {
		return nil, nil, false, nil
	}
	m := ms[at]
	val, inner, found, err := extract(raw[m.ValueStart:m.End], path[1:], next)
	if err != nil || !found {
		return nil, nil, found, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, o := range ms {
		v := raw[o.ValueStart:o.End]
		if i == at && inner == nil {
			continue
		}
		if i == at {
			v = inner
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(raw[o.Start:o.ValueStart]) // the key and its colon, as written
		b.Write(v)
	}
	if b.Len() == 1 {
		return val, nil, true, nil
	}
	b.WriteByte('}')
	return val, b.Bytes(), true, nil
}

// pathName writes a path back as a --map source (a\.b for the name "a.b", a\[0] for "a[0]", a\,b
// for "a,b", as --map splits its pairs at a comma that is not escaped; [N] for an index).
func pathName(path []step) string {
	var b strings.Builder
	for i, s := range path {
		if s.list {
			b.WriteString(s.text())
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		name := strings.ReplaceAll(s.name, `\`, `\\`)
		name = strings.ReplaceAll(name, ",", `\,`)
		name = strings.ReplaceAll(name, "[", `\[`)
		b.WriteString(strings.ReplaceAll(name, ".", `\.`))
	}
	return b.String()
}

// givenTwice is the error of a name on a path that its object gives twice: which of the two
// values is meant cannot be told, as of a top-level member given twice.
type givenTwice struct{ path string }

func (e *givenTwice) Error() string { return fmt.Sprintf("field %q is given twice", e.path) }

// pathID returns the function that names a generic JSONL line by the id at the --map source src,
// for its error, or "": as peekID does, it looks in a line that is no JSON at the members whole
// before the fault.
func pathID(src string) func([]byte) string {
	path, _ := sourcePath(src)
	if len(path) == 1 {
		return itemID("", path[0].name)
	}
	return func(raw []byte) string {
		ms, _ := record.Members(raw)
		obj := make(map[string]jsonRaw, len(ms))
		for _, m := range ms {
			obj[m.Key] = raw[m.ValueStart:m.End]
		}
		v, found, err := fields{obj: obj, nested: true}.take(src)
		if id, ok := scalarText(v); found && err == nil && ok && !isNull(v) {
			return id
		}
		return ""
	}
}
