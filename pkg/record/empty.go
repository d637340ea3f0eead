package record

// This file keeps a known member read with an empty value, to write it again (see extra.go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
)

// emptyMembers are the members of a decoded object whose keys are its type's own and whose values
// read as empty: "", 0, -0, false, null, [] or {} (emptyValue). The decoder reads each as the field's
// zero value, which the encoder leaves out (omitempty), so a stage that decodes an object and
// writes it again would take the member away; restore puts back those the encoding leaves out.
// Of a member the encoder writes whatever its value (a sequence's id and position, a batch's
// members, a passage's or a prediction's text) only a null is kept, which it would write as ""
// or 0: restore writes it as null again.
//
// Note: such members are rare (a script that writes every key, "type": "" or "meta": {} for a
// record without them), so they are kept as a list that is nil for most objects, and the encoding
// is walked again only when there is one.
type emptyMembers []emptyMember

type emptyMember struct {
	key   string
	value json.RawMessage
	// written is set for a member the encoder always writes (writtenKey), kept for its null
	// alone, which it would write as the field's zero value, "" or 0.
	written bool
}

// with returns m with key's member set to value (a copy) and its written flag: the last member of
// a key given twice is the one the decoder reads.
func (m emptyMembers) with(key string, value []byte, written bool) emptyMembers {
	value = append(json.RawMessage(nil), value...)
	for i := range m {
		if m[i].key == key {
			m[i].value, m[i].written = value, written
			return m
		}
	}
	return append(m, emptyMember{key, value, written})
}

// filledBefore reports whether the members of key in the object b before the one at kStart leave
// its field filled: for an object, one of them after the last that is no object (which a map
// field is set anew from) is an object that is not empty; when scalar, the last of them that is
// not null (which leaves a string or number as it was) is not empty.
func filledBefore(b []byte, kStart int, key string, scalar bool) bool {
	filled := false
	_ = walkMembers(b, func(q []byte, escaped bool, at, vStart, vEnd int) error {
		if at >= kStart {
			return errStop
		}
		k := string(q[1 : len(q)-1])
		if escaped {
			k, _ = decodeKey(q, escaped)
		}
		if v := b[vStart:vEnd]; k == key {
			switch {
			case scalar && string(v) != "null":
				filled = !emptyValue(v)
			case !scalar && v[0] != '{':
				filled = false
			case !scalar && !emptyValue(v):
				filled = true
			}
		}
		return nil
	})
	return filled
}

// errStop ends a walkMembers early.
var errStop = errors.New("stop")

// without returns m without key's member: the key was given again, not empty, and the last
// member of a key is the one the decoder reads (an object is read from every member, and one not
// empty makes it so).
func (m emptyMembers) without(key string) emptyMembers {
	return slices.DeleteFunc(m, func(e emptyMember) bool { return e.key == key })
}

// restore returns obj, an encoded object, with each of m's members that obj does not have added
// before its closing brace, in the order they were read: a field still empty is written as it
// came ("type": "", "meta": {}, "cost_usd": null), not left out. A field a stage has filled in
// since is in obj, and stays as the stage wrote it. A member the encoder always writes, read as
// null, is taken out of obj while it still holds the zero value the null decoded to ("" or 0),
// and added as null: a sequence's {"id":null} stays so, not {"id":""}.
func (m emptyMembers) restore(obj []byte) ([]byte, error) {
	if len(m) == 0 {
		return obj, nil
	}
	var add []emptyMember
	for _, e := range m {
		v := lastMember(obj, e.key)
		if v != nil && e.written && emptyValue(v) {
			obj, v = withoutMember(obj, e.key), nil
		}
		if v == nil {
			add = append(add, e)
		}
	}
	if len(add) == 0 {
		return obj, nil
	}
	out := bytes.TrimRight(obj, " \n")
	out = append([]byte(nil), out[:len(out)-1]...) // without its '}'
	empty := len(bytes.TrimSpace(out)) == 1
	for _, e := range add {
		if !empty {
			out = append(out, ',')
		}
		empty = false
		kb, err := marshal(e.key)
		if err != nil {
			return nil, err
		}
		out = append(append(append(out, kb...), ':'), e.value...)
	}
	return append(out, '}'), nil
}

// withoutMember returns the encoded object obj without its members of key.
func withoutMember(obj []byte, key string) []byte {
	return dropMembers(obj, func(k string, _ int) bool { return k == key })
}

// dropMembers returns the object b, which has been walked already, without the members for which
// drop reports true, given their key and where they start; a key that does not decode is kept.
func dropMembers(b []byte, drop func(key string, kStart int) bool) []byte {
	out := []byte{'{'}
	_ = walkMembers(b, func(q []byte, escaped bool, kStart, _, vEnd int) error {
		if key, err := decodeKey(q, escaped); err == nil && drop(key, kStart) {
			return nil
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, b[kStart:vEnd]...)
		return nil
	})
	return append(out, '}')
}

// emptyValue reports whether v, a JSON value, is one the decoder reads as a field's zero value and
// the encoder leaves out under omitempty: "", 0 (or -0, which an integer field reads as 0), false,
// null, or an empty list or object, blanks inside it or not.
func emptyValue(v []byte) bool {
	switch len(v) {
	case 1:
		return v[0] == '0'
	case 2:
		return string(v) == `""` || string(v) == "[]" || string(v) == "{}" || string(v) == "-0"
	case 4:
		return string(v) == "null"
	case 5:
		return string(v) == "false"
	}
	if len(v) > 2 && (v[0] == '[' || v[0] == '{') {
		return skipSpace(v, 1) == len(v)-1
	}
	return false
}
