package record

import (
	"errors"
	"unicode/utf8"
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

// UnknownMembers lists, in order, the top-level members of the JSON object b whose keys are not
// in known, or none. b must be valid JSON, as for Members; it allocates only for the members it
// lists (and keys with escapes), so that a loader can look at every item of a benchmark's file for
// fields its format does not read at little cost.
func UnknownMembers(b []byte, known map[string]bool) ([]Member, error) {
	var ms []Member
	err := walkMembers(b, func(q []byte, escaped bool, kStart, vStart, vEnd int) error {
		if !escaped && known[string(q[1:len(q)-1])] { // this conversion does not allocate
			return nil
		}
		key, err := decodeKey(q, escaped)
		if err == nil && !known[key] {
			ms = append(ms, Member{Key: key, Start: kStart, ValueStart: vStart, End: vEnd})
		}
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
