package load

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// A --map source of the generic jsonl format is a path: a dot separates the names of the
// members it goes through (answers.text is the member text of the object under answers, as a
// Hugging Face export of SQuAD holds its answers), and a backslash makes the character after it
// part of a name (a\.b names the member "a.b", a\\b the member "a\b"). A CSV file has no nested
// fields: there the path names the column whose name is the path's names joined with dots, so
// answers.text is the column pandas' json_normalize writes for it.
//
// Note: looking a source up as the whole member first, then as a path, was rejected: it would read
// --map answers=a.b one way or the other record by record, as each has a member "a.b" or not,
// without a word; the escape says which is meant once for the whole file.

// sourcePath splits the --map source src into the names of its path. It reports an error for
// an empty name (a.b., a..b) or a backslash at the end.
func sourcePath(src string) ([]string, error) {
	var names []string
	var name strings.Builder
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\' && i+1 == len(src):
			return nil, errors.New(`a backslash ends it (\. is a dot within a name, \\ a backslash)`)
		case c == '\\':
			i++
			name.WriteByte(src[i])
		case c == '.' && name.Len() == 0:
			return nil, errors.New(`a name of its path is empty (a dot within a name is written \.)`)
		case c == '.':
			names = append(names, name.String())
			name.Reset()
		default:
			name.WriteByte(c)
		}
	}
	if name.Len() == 0 {
		return nil, errors.New(`a name of its path is empty (a dot within a name is written \.)`)
	}
	return append(names, name.String()), nil
}

// pathHead returns the first name of the path of the --map source src: the top-level member it is
// in. ParseMap has checked src.
func pathHead(src string) string {
	path, _ := sourcePath(src)
	return path[0]
}

// column returns the CSV column that the --map source src names: its path's names joined with
// dots. ParseMap has checked src.
func column(src string) string {
	path, _ := sourcePath(src)
	return strings.Join(path, ".")
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
	raw, ok := f.obj[path[0]]
	if !ok {
		return false
	}
	_, _, found, err := extract(raw, path[1:], path[:1])
	return found && err == nil
}

// take returns the value of the source src and takes it out of the item, so that it does not
// also go to meta: a member whole, or the member at the end of a path, the object that held it
// kept without it (an object left empty goes too). found is false when the item lacks the
// source; a null on the path reads as a null value. The error says which name of the path does
// not hold an object, or is given twice.
func (f fields) take(src string) (raw jsonRaw, found bool, err error) {
	if !f.nested {
		name := column(src)
		raw, found = f.obj[name]
		delete(f.obj, name)
		return raw, found, nil
	}
	path, _ := sourcePath(src)
	top, ok := f.obj[path[0]]
	if !ok {
		return nil, false, nil
	}
	val, rest, found, err := extract(top, path[1:], path[:1])
	if err != nil || !found {
		return nil, false, err
	}
	if rest == nil {
		delete(f.obj, path[0])
	} else {
		f.obj[path[0]] = rest
	}
	return val, true, nil
}

// extract returns the value at path in raw (the value at the path before, a list of names, for
// errors), and raw without it: nil when nothing is left of raw (the value itself, or an object
// whose members all went). A null on the path is the value. found is false when an object on the
// path lacks the next name.
func extract(raw jsonRaw, path, before []string) (val, rest jsonRaw, found bool, err error) {
	if len(path) == 0 || isNull(raw) {
		return raw, nil, true, nil
	}
	if trimSpace(raw)[0] != '{' {
		return nil, nil, false, wrongKind(pathName(before), "an object", raw)
	}
	ms, merr := record.Members(raw)
	if merr != nil {
		return nil, nil, false, wrongKind(pathName(before), "an object", raw) // not reached for valid JSON
	}
	next := append(slices.Clip(before), path[0])
	at := -1
	for i, m := range ms {
		if m.Key != path[0] {
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

// pathName writes the names of a path back as a --map source (a\.b for the name "a.b", a\,b for
// "a,b", as --map splits its pairs at a comma that is not escaped).
func pathName(path []string) string {
	quoted := make([]string, len(path))
	for i, name := range path {
		name = strings.ReplaceAll(name, `\`, `\\`)
		name = strings.ReplaceAll(name, ",", `\,`)
		quoted[i] = strings.ReplaceAll(name, ".", `\.`)
	}
	return strings.Join(quoted, ".")
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
		return itemID("", path[0])
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
