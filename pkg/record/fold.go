package record

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// FoldedKey looks in the JSON value b, which is to be decoded into a value of type t, for a member
// whose key differs only in case from the key of a field of a struct it is decoded into, at any
// depth: {"text": "France", "Text": "Spain"} for an answer read into a struct with a field "text".
// The standard library's decoder (and the one behind Unmarshal) matches keys case-insensitively,
// so it would read that member as the field, where Python's json module, and with it a benchmark's
// own script, does not. It returns the member's path in b ("answers[1].Text") and the field's
// ("answers[1].text"), or two empty strings when there is none. b must be valid JSON (a decoder
// has accepted it, or will be asked to); a value of another kind than t wants is not looked into,
// as its decoding fails, and neither is one of a type that decodes itself (json.RawMessage, a
// json.Unmarshaler), whose decoder sees it. It allocates only for what it returns.
func FoldedKey(b []byte, t reflect.Type) (path, field string) {
	var f fold
	if !f.walk(b, t) {
		return "", ""
	}
	return f.path(f.key), f.path(f.want)
}

// fold is the state of a FoldedKey search: the key found and the field it folds to, and the
// path above them, innermost first.
type fold struct {
	key, want string
	above     []string // ".name" or "[i]", innermost first
}

func (f *fold) path(last string) string {
	var b strings.Builder
	for i := len(f.above) - 1; i >= 0; i-- {
		b.WriteString(f.above[i])
	}
	b.WriteString("." + last)
	return strings.TrimPrefix(b.String(), ".")
}

// errFound stops a walk of members at the member found.
var errFound = errors.New("found")

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// walk reports whether b, decoded into t, holds a member found; if so, f holds it.
func (f *fold) walk(b []byte, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return false
	}
	switch t.Kind() {
	case reflect.Struct:
		fs := fieldsOf(t)
		err := walkMembers(b, func(q []byte, escaped bool, _, vStart, vEnd int) error {
			kb := q[1 : len(q)-1]
			if escaped {
				key, err := decodeKey(q, escaped)
				if err != nil {
					return err
				}
				kb = []byte(key)
			}
			if ft, ok := fs.types[string(kb)]; ok { // no allocation
				if f.walk(b[vStart:vEnd], ft) {
					f.above = append(f.above, "."+string(kb))
					return errFound
				}
				return nil
			}
			if !fs.upper && !mayFoldBytes(kb) {
				return nil // lower-case ASCII folds to no other lower-case ASCII key
			}
			for _, k := range fs.keys {
				if bytes.EqualFold(kb, []byte(k)) {
					f.key, f.want = string(kb), k
					return errFound
				}
			}
			return nil
		})
		return err == errFound
	case reflect.Map:
		et := t.Elem()
		err := walkMembers(b, func(q []byte, escaped bool, _, vStart, vEnd int) error {
			if !f.walk(b[vStart:vEnd], et) {
				return nil
			}
			key, err := decodeKey(q, escaped)
			if err != nil {
				return err
			}
			f.above = append(f.above, "."+key)
			return errFound
		})
		return err == errFound
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return false // []byte: a base64 string
		}
		et := t.Elem()
		found := false
		walkElements(b, func(n, start, end int) bool {
			if f.walk(b[start:end], et) {
				f.above = append(f.above, "["+strconv.Itoa(n)+"]")
				found = true
			}
			return found
		})
		return found
	}
	return false
}

// structFields are the JSON keys of a struct type's fields, with their types.
type structFields struct {
	keys  []string
	types map[string]reflect.Type
	upper bool // a key is not all lower-case ASCII
}

var fieldCache sync.Map // reflect.Type → *structFields

// fieldsOf returns the keys the decoder reads into the struct type t: each exported field's name,
// or its tag's, the fields of an embedded struct without a tag among them.
func fieldsOf(t reflect.Type) *structFields {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*structFields)
	}
	fs := &structFields{types: map[string]reflect.Type{}}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			ft := sf.Type
			if sf.Anonymous && name == "" {
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					add(ft)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			if _, dup := fs.types[name]; !dup {
				fs.keys = append(fs.keys, name)
				fs.types[name] = ft
				fs.upper = fs.upper || mayFold(name)
			}
		}
	}
	add(t)
	got, _ := fieldCache.LoadOrStore(t, fs)
	return got.(*structFields)
}

// mayFoldBytes is mayFold of a key's bytes.
func mayFoldBytes(key []byte) bool {
	for _, c := range key {
		if 'A' <= c && c <= 'Z' || c >= 0x80 {
			return true
		}
	}
	return false
}

// walkElements calls fn with the index and bounds of each element of the JSON array b, until fn
// returns true; b not an array (or not valid) stops it.
func walkElements(b []byte, fn func(n, start, end int) bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return
	}
	for i, n := skipSpace(b, i+1), 0; i < len(b) && b[i] != ']'; n++ {
		end, err := skipValue(b, i)
		if err != nil || fn(n, i, end) {
			return
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}
