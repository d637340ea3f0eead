package record

// This file keeps the members of an object that its type does not know, verbatim (see codec.go).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	gojson "github.com/goccy/go-json"
)

var (
	// scores and score_errors are read from their last member alone, as qa-score reads them: it
	// splices the one it writes in place of every member of the key.
	recordKeys = lastAlone(pointers(written(keySet("schema", "id", "dataset", "split", "lang", "type", "question", "turns",
		"answers", "rubric", "context", "sequence", "meta", "prediction", "judgments"), "schema", "id"), "sequence", "prediction"), "scores", "score_errors")
	passageKeys    = written(keySet("title", "date", "text", "sentences"), "text")
	predictionKeys = pointers(written(keySet("text", "cut", "model", "provider", "usage", "cost_usd", "latency_ms", "attempts",
		"cached", "error", "prompt_sha256", "score", "supporting_facts", "notes", "reasoning", "batch"), "text"),
		"usage", "cost_usd", "score", "batch")
	judgmentKeys = pointers(keySet("score", "label", "mode", "model", "prompt_sha256", "raw", "reasoning",
		"thinking", "cut", "usage", "cost_usd", "attempts", "cached", "error"), "score", "usage", "cost_usd")
	sequenceKeys = written(keySet("id", "position"), "id", "position")
	usageKeys    = keySet("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens")
	batchKeys    = written(keySet("first", "index", "size"), "first", "index", "size")
)

// keyRole says how a type's decoder reads a member of the JSON object it decodes.
type keyRole uint8

const (
	unknownKey keyRole = iota // not the type's own: kept verbatim among its unknown members
	knownKey                  // read by the JSON decoder, a key given twice as it reads one
	// writtenKey: a knownKey whose field the encoder writes whatever its value, so only null,
	// which it would write as "" or 0, needs keeping (see emptyMembers).
	writtenKey
	// pointerKey: a knownKey whose field is a pointer, which the encoder writes unless it is
	// null (nil), so only null needs keeping.
	pointerKey
	// lastKey and up: read from its last member alone when given twice (see decodeKnown). Each
	// such key of a set has a role of its own, lastKey+i, so that one given twice is told from
	// two such keys given once.
	lastKey
)

// maxLastKeys is the most keys of one set that lastAlone can mark (unknownFields notes them in a
// uint64).
const maxLastKeys = 64

// keySet returns the roles of a type's keys, each of keys known.
func keySet(keys ...string) map[string]keyRole {
	m := make(map[string]keyRole, len(keys))
	for _, k := range keys {
		m[k] = knownKey
	}
	return m
}

// written marks keys of set as keys whose fields are always written (writtenKey), and returns set.
func written(set map[string]keyRole, keys ...string) map[string]keyRole {
	for _, k := range keys {
		set[k] = writtenKey
	}
	return set
}

// pointers marks keys of set as keys whose fields are pointers (pointerKey), and returns set.
func pointers(set map[string]keyRole, keys ...string) map[string]keyRole {
	for _, k := range keys {
		set[k] = pointerKey
	}
	return set
}

// lastAlone adds keys to set as keys read from their last member alone, and returns set.
func lastAlone(set map[string]keyRole, keys ...string) map[string]keyRole {
	if len(keys) > maxLastKeys {
		panic("record: too many keys read from their last member")
	}
	for i, k := range keys {
		set[k] = lastKey + keyRole(i)
	}
	return set
}

// checkExtra returns an error when the unknown member k: v of an object of the type whose keys
// are known could not be written as it is: under a key of the type's own, which the line would
// then give twice (the reader takes the last), or with a value that is no JSON, or holds a line
// end, which would cut the record's line. A value read by the Reader is neither; a value a
// program set may be.
//
// Note: encoding/json's Valid took 3 µs for a 1 kB value, a third of encoding a record holding
// it; the JSON library's own takes a tenth of that, and IndexByte finds a line end faster than
// ContainsAny.
func checkExtra(k string, v json.RawMessage, known map[string]keyRole) error {
	if _, own := known[k]; own {
		return fmt.Errorf("unknown member %q: the key is the schema's own field", k)
	}
	if bytes.IndexByte(v, '\n') >= 0 || bytes.IndexByte(v, '\r') >= 0 || !gojson.Valid(v) {
		return fmt.Errorf("unknown member %q: its value is no JSON on one line: %.40q", k, v)
	}
	return nil
}

// appendExtra splices extra members, in sorted key order, into the encoded object obj, whose
// type's own keys are known: an extra member under one of them, or whose value is no JSON, is an
// error (see checkExtra).
func appendExtra(obj []byte, extra map[string]json.RawMessage, known map[string]keyRole) ([]byte, error) {
	if len(extra) == 0 {
		return obj, nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := bytes.TrimRight(obj, " \n")
	out = out[:len(out)-1] // drop '}'
	empty := len(bytes.TrimSpace(out)) == 1
	for _, k := range keys {
		if !empty {
			out = append(out, ',')
		}
		empty = false
		kb, err := marshal(k)
		if err != nil {
			return nil, err
		}
		out = append(out, kb...)
		out = append(out, ':')
		v := extra[k]
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		if err := checkExtra(k, v, known); err != nil {
			return nil, err
		}
		out = append(out, v...)
	}
	return append(out, '}'), nil
}

// encodeWithExtra encodes v, the plain form of a type (without its MarshalJSON), followed by
// the empty members it was decoded with that the encoding leaves out, and extra, its unknown
// members.
func encodeWithExtra(v any, empty emptyMembers, extra map[string]json.RawMessage, known map[string]keyRole) ([]byte, error) {
	b, err := marshal(v)
	if err != nil {
		return nil, err
	}
	if b, err = empty.restore(b); err != nil {
		return nil, err
	}
	return appendExtra(b, extra, known)
}

// decodeWithExtra decodes the members of b whose keys are in known into v, the plain form of a
// type (without its UnmarshalJSON), and returns the others and the empty ones (see
// emptyMembers); an error is placed in field.
func decodeWithExtra(b []byte, known map[string]keyRole, field string, v any) (map[string]json.RawMessage, emptyMembers, error) {
	_, extra, empty, err := decodeKnown(b, known, v)
	if err != nil {
		return nil, nil, inField(field, err)
	}
	return extra, empty, nil
}

// unknownFields returns the members of the JSON object b whose keys are not in known, or nil, the
// members of known keys whose values read as empty (see emptyValue), and whether a key of a
// lastKey role is given more than once. It walks the top level without decoding values and
// allocates only for unknown and empty members.
//
// Note: an earlier version decoded the whole object a second time into map[string]RawMessage;
// that doubled the decode cost and allocations of every stage.
func unknownFields(b []byte, known map[string]keyRole) (map[string]json.RawMessage, emptyMembers, bool, error) {
	var extra map[string]json.RawMessage
	var empty emptyMembers
	var seen uint64 // bit i: a member of role lastKey+i has been seen
	repeated := false
	err := walkMembers(b, func(q []byte, escaped bool, kStart, vStart, vEnd int) error {
		var key string
		var role keyRole
		if escaped {
			var err error
			if key, err = decodeKey(q, escaped); err != nil {
				return err
			}
			role = known[key]
		} else {
			role = known[string(q[1:len(q)-1])] // this conversion does not allocate
		}
		if role != unknownKey {
			if role >= lastKey {
				bit := uint64(1) << (role - lastKey)
				repeated = repeated || seen&bit != 0
				seen |= bit
			}
			v := b[vStart:vEnd]
			nullOnly := role == pointerKey || role == writtenKey // only null needs keeping
			if nullOnly && string(v) == "null" || !nullOnly && emptyValue(v) {
				if !escaped {
					key = string(q[1 : len(q)-1])
				}
				if role < lastKey && v[0] == '{' && filledBefore(b, kStart, key, false) {
					// The decoder reads an object from every member of its key: an
					// earlier one filled it, and this one leaves it so.
					return nil
				}
				if role == writtenKey && filledBefore(b, kStart, key, true) {
					// The decoder leaves a string or a number as it was for a null: an
					// earlier member gave it a value, which the encoder writes.
					return nil
				}
				empty = empty.with(key, v, role == writtenKey)
			} else if len(empty) > 0 {
				if !escaped {
					key = string(q[1 : len(q)-1])
				}
				empty = empty.without(key) // a later member of the key is not empty
			}
			return nil
		}
		if !escaped {
			key = string(q[1 : len(q)-1])
		}
		if extra == nil {
			extra = make(map[string]json.RawMessage)
		}
		extra[key] = append(json.RawMessage(nil), b[vStart:vEnd]...)
		return nil
	})
	return extra, empty, repeated, err
}

// decodeKnown decodes the members of the JSON object b whose keys are in known into v, and returns
// the others and the empty ones, as unknownFields does, and the object the decoder was given: b,
// or b without the members below, which is what later looks at the known members must read.
//
// Note: the decoder matches a member to a field case-insensitively, as encoding/json does, so an
// unknown member "ID" or "Question" would overwrite the record's own id or question (and, written
// back, stand beside it). A member whose key differs from a known key only in case is therefore
// taken out of what the decoder sees: it stays an unknown member, kept verbatim. Such keys are
// rare, so the object is rebuilt only when one is there.
//
// The decoder also reads every member of a key given twice into the same field, which merges two
// objects into one map. A key of a lastKey role is read from its last member alone: the others
// are taken out of what the decoder sees, when there are others. The decoder type-checks every
// member, too, where a later member of the key replaces an earlier one's value: an object it
// refuses is decoded again from its last values (see LastValues) when a member was replaced.
//
// Note: only an object the decoder refused is looked at again, so a record pays nothing for it:
// taking the replaced members out changes nothing the decoder reads from an object it accepts.
func decodeKnown(b []byte, known map[string]keyRole, v any) ([]byte, map[string]json.RawMessage, emptyMembers, error) {
	extra, empty, repeated, err := unknownFields(b, known)
	if err != nil {
		// Not an object a decoder accepts: its error says what is wrong.
		if derr := unmarshal(b, v); derr != nil {
			return b, nil, nil, derr
		}
		if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
			// The decoder takes null for an object with no member; the type that calls this
			// wants an object, as a record line or a passage in context must be.
			return b, nil, nil, &gojson.UnmarshalTypeError{Value: "null", Type: reflect.TypeOf(v)}
		}
		return b, nil, nil, err
	}
	shadowed := repeated
	for k := range extra {
		if shadowed {
			break
		}
		shadowed = foldsToKnown(k, known)
	}
	src := b
	if shadowed {
		src = withoutShadowed(b, known)
	}
	if err := unmarshal(src, v); err != nil {
		last := LastValues(src, reflect.TypeOf(v))
		if last == nil {
			return src, nil, nil, err
		}
		reflect.ValueOf(v).Elem().SetZero() // what the failed decoding left
		if err := unmarshal(last, v); err != nil {
			return last, nil, nil, err
		}
		if _, empty, _, err = unknownFields(last, known); err != nil {
			return last, nil, nil, err
		}
		return last, extra, empty, nil
	}
	return src, extra, empty, nil
}

// foldsToKnown reports whether key, which is not in known, equals a known key but for case.
func foldsToKnown(key string, known map[string]keyRole) bool {
	if !mayFold(key) {
		return false // the known keys are lower-case ASCII: so must a key be that folds to one but for case
	}
	for k := range known {
		if strings.EqualFold(key, k) {
			return true
		}
	}
	return false
}

// mayFold reports whether key has an upper-case ASCII letter or a non-ASCII byte (the Kelvin sign
// folds to k, the long s to s): a key without either folds to no other lower-case ASCII key.
func mayFold(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; 'A' <= c && c <= 'Z' || c >= 0x80 {
			return true
		}
	}
	return false
}

// withoutShadowed returns the object b without the members its decoder must not see: those whose
// keys are case variants of known keys, and those of a key of a lastKey role but the last (b has
// been walked already, so it scans).
func withoutShadowed(b []byte, known map[string]keyRole) []byte {
	last := map[string]int{} // where the last member of each key of a lastKey role starts
	_ = walkMembers(b, func(q []byte, escaped bool, kStart, _, _ int) error {
		if key, err := decodeKey(q, escaped); err == nil && known[key] >= lastKey {
			last[key] = kStart
		}
		return nil
	})
	return dropMembers(b, func(key string, kStart int) bool {
		role := known[key]
		return role == unknownKey && foldsToKnown(key, known) || role >= lastKey && last[key] != kStart
	})
}

// LastValues returns the JSON object b, which the decoder reads into a value of type t (a struct or
// a map, or a pointer to one), as the decoder reads it but with no value it replaces: b without
// the members that a later member of their key replaces, or nil when there are none. Decoding an
// object the decoder accepts gives the same value from what LastValues returns; an object it
// refuses only for a member that a later one replaces is one it accepts then, as a key given twice
// reads as its last value. The decoder type-checks every member, the replaced ones too.
//
// Of a struct's key given twice, the members before the last are taken out, or, for a string,
// number or bool field, which the decoder leaves as it was for a null, those before the last that
// is not null. The members of a map field after its last that is no object are objects the decoder
// merges: they become one object; a last member that is no object is kept alone. So are those of
// a struct field (or a pointer to one) whose type has no UnmarshalJSON, which the decoder fills
// from each object in turn (a null, which leaves a struct that is no pointer as it was, does not
// part them there); one whose type has, as the record's own types do, reads the last alone. Of a map's name
// given twice, the last member is kept. The objects kept are looked into the same way, as their
// fields' or the map's values' types say (a list's elements are not). Other members stay as they
// are, in their places.
//
// b must be JSON: a member no JSON is a syntax error, which no later member takes away; for b that
// is not, LastValues returns nil.
//
// Note: it is for an object the decoder refused (see decodeKnown), so it walks and allocates freely.
func LastValues(b []byte, t reflect.Type) []byte {
	if !gojson.Valid(b) {
		return nil
	}
	return lastValues(b, t)
}

// lastValues is LastValues of b, which is JSON.
func lastValues(b []byte, t reflect.Type) []byte {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		return lastFields(b, t)
	case reflect.Map:
		return lastEntries(b, t.Elem())
	}
	return nil
}

// lastFields is LastValues of b for the struct type t.
func lastFields(b []byte, t reflect.Type) []byte {
	ms, err := Members(b)
	if err != nil {
		return nil
	}
	fields := fieldsOf(t)
	byKey := map[string][]int{} // the members of each of t's keys, in order
	var keys []string
	for i, m := range ms {
		if _, ok := fields.types[m.Key]; ok {
			if byKey[m.Key] == nil {
				keys = append(keys, m.Key)
			}
			byKey[m.Key] = append(byKey[m.Key], i)
		}
	}
	drop := make([]bool, len(ms))
	values := map[int][]byte{} // a member's value, as LastValues gives it
	changed := false
	value := func(i int) []byte { return b[ms[i].ValueStart:ms[i].End] }
	for _, key := range keys {
		idx := byKey[key]
		ft := fields.types[key]
		keep := idx[len(idx)-1]
		switch ft.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			for _, i := range slices.Backward(idx) {
				if string(value(i)) != "null" {
					keep = i
					break
				}
			}
		case reflect.Map, reflect.Pointer, reflect.Struct:
			if !mergedField(ft) {
				break
			}
			// A null sets a map or a pointer anew, and leaves a struct as it was.
			nullKeeps := ft.Kind() == reflect.Struct
			from := 0 // the first of the objects merged
			for j, i := range idx {
				if v := value(i); v[0] != '{' && !(nullKeeps && string(v) == "null") {
					from = j + 1
				}
			}
			if from < len(idx)-1 {
				values[keep], changed = mergeObjects(b, ms, idx[from:]), true
			}
		}
		v, ok := values[keep]
		if !ok {
			v = value(keep)
		}
		if v[0] == '{' {
			if sub := lastValues(v, ft); sub != nil {
				values[keep], changed = sub, true
			}
		}
		for _, i := range idx {
			if i < keep {
				drop[i], changed = true, true
			}
		}
	}
	if !changed {
		return nil
	}
	out := []byte{'{'}
	for i, m := range ms {
		if drop[i] {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		if v, ok := values[i]; ok {
			out = append(append(out, b[m.Start:m.ValueStart]...), v...)
		} else {
			out = append(out, b[m.Start:m.End]...)
		}
	}
	return append(out, '}')
}

// mergedField reports whether the decoder fills a field of type t from every object member of its
// key, one after the other, merging them: a map, or a struct (or a pointer to one) without an
// UnmarshalJSON of its own, which would read each member anew.
func mergedField(t reflect.Type) bool {
	if t.Kind() == reflect.Map {
		return true
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	p := reflect.PointerTo(t)
	return !p.Implements(reflect.TypeFor[json.Unmarshaler]()) && !p.Implements(reflect.TypeFor[gojson.UnmarshalerContext]())
}

// lastEntries is LastValues of b for a map whose values are of type elem.
func lastEntries(b []byte, elem reflect.Type) []byte {
	ms, err := Members(b)
	if err != nil {
		return nil
	}
	last := make(map[string]int, len(ms)) // the last member of each name
	for i, m := range ms {
		last[m.Key] = i
	}
	changed := len(last) < len(ms)
	out := []byte{'{'}
	for i, m := range ms {
		if last[m.Key] != i {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		v := b[m.ValueStart:m.End]
		if v[0] == '{' {
			if sub := lastValues(v, elem); sub != nil {
				v, changed = sub, true
			}
		}
		out = append(append(out, b[m.Start:m.ValueStart]...), v...)
	}
	if !changed {
		return nil
	}
	return append(out, '}')
}

// mergeObjects returns one object holding the members of the objects that are the values of the
// members idx of ms, members of b, in order.
func mergeObjects(b []byte, ms []Member, idx []int) []byte {
	out := []byte{'{'}
	for _, i := range idx {
		obj := b[ms[i].ValueStart:ms[i].End]
		inner, err := Members(obj)
		if err != nil {
			continue
		}
		for _, m := range inner {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, obj[m.Start:m.End]...)
		}
	}
	return append(out, '}')
}
