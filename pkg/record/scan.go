package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// errScan is returned for input the member scanner cannot walk. Callers scan bytes a JSON decoder
// has accepted, so it signals a bug rather than bad input.
var errScan = errors.New("malformed JSON object")

// Member is one top-level member of a JSON object: b[Start:End] spans its key through its value,
// and b[ValueStart:End] is the value.
type Member struct {
	Key               string
	Start, ValueStart int
	End               int
}

// Members lists the top-level members of the JSON object b, in order, without decoding values.
// b must be valid JSON (a decoder has accepted it). Stages that change one member use it to pass
// every other byte of a line through untouched. On other input (a decode error's message walks a
// line the decoder stopped in) it returns an error, with the members whole before the point where
// it stopped (their values not empty).
func Members(b []byte) ([]Member, error) {
	var ms []Member
	err := walkMembers(b, func(q []byte, escaped bool, kStart, vStart, vEnd int) error {
		key, err := decodeKey(q, escaped)
		ms = append(ms, Member{Key: key, Start: kStart, ValueStart: vStart, End: vEnd})
		return err
	})
	return ms, err
}

// walkMembers calls fn for each top-level member of the object b with its quoted key q (escaped
// when q holds a backslash or invalid UTF-8), the key's offset and the value's bounds.
func walkMembers(b []byte, fn func(q []byte, escaped bool, kStart, vStart, vEnd int) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errScan
	}
	for i = skipSpace(b, i+1); i < len(b) && b[i] != '}'; {
		kEnd, escaped, err := skipString(b, i)
		if err != nil {
			return err
		}
		colon := skipSpace(b, kEnd)
		if colon >= len(b) || b[colon] != ':' {
			return errScan
		}
		vStart := skipSpace(b, colon+1)
		vEnd, err := skipValue(b, vStart)
		if err != nil {
			return err
		}
		if err := fn(b[i:kEnd], escaped || !utf8.Valid(b[i:kEnd]), i, vStart, vEnd); err != nil {
			return err
		}
		i = skipSpace(b, vEnd)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if i >= len(b) {
		return errScan
	}
	return nil
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
			if v := b[vStart:vEnd]; role != writtenKey && (role == pointerKey && string(v) == "null" || role != pointerKey && emptyValue(v)) {
				if !escaped {
					key = string(q[1 : len(q)-1])
				}
				if role < lastKey && v[0] == '{' && filledBefore(b, kStart, key) {
					// The decoder reads an object from every member of its key: an
					// earlier one filled it, and this one leaves it so.
					return nil
				}
				empty = empty.with(key, b[vStart:vEnd])
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

// emptyMembers are the members of a decoded object whose keys are its type's own and whose values
// read as empty: "", 0, false, null, [] or {} (emptyValue). The decoder reads each as the field's
// zero value, which the encoder leaves out (omitempty), so a stage that decodes an object and
// writes it again would take the member away; restore puts back those the encoding leaves out.
//
// Note: such members are rare (a script that writes every key, "type": "" or "meta": {} for a
// record without them), so they are kept as a list that is nil for most objects, and the encoding
// is walked again only when there is one.
type emptyMembers []emptyMember

type emptyMember struct {
	key   string
	value json.RawMessage
}

// with returns m with key's member set to value (a copy): the last member of a key given twice
// is the one the decoder reads.
func (m emptyMembers) with(key string, value []byte) emptyMembers {
	value = append(json.RawMessage(nil), value...)
	for i := range m {
		if m[i].key == key {
			m[i].value = value
			return m
		}
	}
	return append(m, emptyMember{key, value})
}

// filledBefore reports whether the object b has a member of key before the one at kStart whose
// value is an object that is not empty.
func filledBefore(b []byte, kStart int, key string) bool {
	filled := false
	_ = walkMembers(b, func(q []byte, escaped bool, at, vStart, vEnd int) error {
		if at >= kStart {
			return errStop
		}
		k := string(q[1 : len(q)-1])
		if escaped {
			k, _ = decodeKey(q, escaped)
		}
		if v := b[vStart:vEnd]; k == key && v[0] == '{' && !emptyValue(v) {
			filled = true
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
// since is in obj, and stays as the stage wrote it.
func (m emptyMembers) restore(obj []byte) ([]byte, error) {
	if len(m) == 0 {
		return obj, nil
	}
	var add []emptyMember
	for _, e := range m {
		if lastMember(obj, e.key) == nil {
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

// emptyValue reports whether v, a JSON value, is one the decoder reads as a field's zero value and
// the encoder leaves out under omitempty: "", 0, false, null, or an empty list or object, blanks
// inside it or not.
func emptyValue(v []byte) bool {
	switch len(v) {
	case 1:
		return v[0] == '0'
	case 2:
		return string(v) == `""` || string(v) == "[]" || string(v) == "{}"
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
// are taken out of what the decoder sees, when there are others.
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
		return src, nil, nil, err
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
	out := []byte{'{'}
	_ = walkMembers(b, func(q []byte, escaped bool, kStart, _, vEnd int) error {
		if key, err := decodeKey(q, escaped); err == nil {
			switch role := known[key]; {
			case role == unknownKey && foldsToKnown(key, known), role >= lastKey && last[key] != kStart:
				return nil
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, b[kStart:vEnd]...)
		return nil
	})
	return append(out, '}')
}

// decodeKey returns the value of the quoted key q; keys with escapes or invalid UTF-8 go through
// the decoder, so they come out exactly as a decoder gives them.
func decodeKey(q []byte, escaped bool) (string, error) {
	if !escaped {
		return string(q[1 : len(q)-1]), nil
	}
	var key string
	err := unmarshal(q, &key)
	return key, err
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] and whether it has escapes.
func skipString(b []byte, i int) (int, bool, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, false, errScan
	}
	escaped := false
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i + 1, escaped, nil
		}
	}
	return 0, false, errScan
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errScan
	}
	switch b[i] {
	case '"':
		end, _, err := skipString(b, i)
		return end, err
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, _, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errScan
	default:
		start := i
		for ; i < len(b); i++ {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if i == start { // no value: `{"a":}`, `{"a":,"b":1}`
					return 0, errScan
				}
				return i, nil
			}
		}
		return i, nil
	}
}

// EscapeLineBreaks writes U+0085, U+2028 and U+2029 in b as \u escapes. JSON allows them raw, but
// Python's str.splitlines() breaks lines at them and would cut a record in two. In valid JSON these
// UTF-8 sequences occur only inside strings, where the escape means the same character. b is
// returned unchanged (not copied) when it holds none.
func EscapeLineBreaks(b []byte) []byte {
	if bytes.IndexByte(b, 0xC2) < 0 && bytes.IndexByte(b, 0xE2) < 0 {
		return b
	}
	for _, r := range []string{"\u0085", "\u2028", "\u2029"} {
		if bytes.Contains(b, []byte(r)) {
			b = bytes.ReplaceAll(b, []byte(r), fmt.Appendf(nil, `\u%04x`, []rune(r)[0]))
		}
	}
	return b
}

// LineSafe returns a writer that passes what it is given to w with U+0085, U+2028 and U+2029
// escaped (see EscapeLineBreaks), for JSON a json.Encoder writes: each Write must hold whole
// characters of valid JSON, as the encoder's one Write per value does. The commands' other JSON
// lines (dry runs, summaries, reports) so survive Python's splitlines() as records do.
func LineSafe(w io.Writer) io.Writer { return lineSafe{w} }

type lineSafe struct{ w io.Writer }

func (l lineSafe) Write(p []byte) (int, error) {
	if _, err := l.w.Write(EscapeLineBreaks(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// lastMember returns the value of the last top-level member of the object b whose key is key, or
// nil.
func lastMember(b []byte, key string) []byte {
	var val []byte
	_ = walkMembers(b, func(q []byte, escaped bool, _, vStart, vEnd int) error { // b has been decoded
		match := string(q[1:len(q)-1]) == key // this comparison does not allocate
		if escaped {
			k, err := decodeKey(q, escaped)
			match = err == nil && k == key
		}
		if match {
			val = b[vStart:vEnd]
		}
		return nil
	})
	return val
}
