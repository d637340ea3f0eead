package record

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// errScan is returned for input the member scanner cannot walk; callers only scan bytes the JSON
// decoder has already accepted, so it signals a bug rather than bad input.
var errScan = errors.New("malformed object")

// unknownFields returns the members of the JSON object b whose keys are not in known, or nil. It
// walks the top level of the object without decoding values, so records with no unknown fields
// cost one pass over the bytes and no allocation.
//
// Note: an earlier version decoded the whole object a second time into map[string]RawMessage;
// that doubled the decode cost and allocations of every stage.
func unknownFields(b []byte, known map[string]bool) (map[string]json.RawMessage, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errScan
	}
	i++
	var extra map[string]json.RawMessage
	for {
		i = skipSpace(b, i)
		if i < len(b) && b[i] == '}' {
			return extra, nil
		}
		kStart := i
		kEnd, escaped, err := skipString(b, i)
		if err != nil {
			return nil, err
		}
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return nil, errScan
		}
		vStart := skipSpace(b, i+1)
		vEnd, err := skipValue(b, vStart)
		if err != nil {
			return nil, err
		}
		key, isUnknown, err := memberKey(b[kStart:kEnd], escaped, known)
		if err != nil {
			return nil, err
		}
		if isUnknown {
			if extra == nil {
				extra = make(map[string]json.RawMessage)
			}
			extra[key] = append(json.RawMessage(nil), b[vStart:vEnd]...)
		}
		i = skipSpace(b, vEnd)
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}

// memberKey reports whether the quoted key q is not in known, and returns it decoded if so. Known
// keys without escapes are looked up without allocating; keys with escapes or invalid UTF-8 go
// through the decoder, so they come out exactly as a decoder would give them.
func memberKey(q []byte, escaped bool, known map[string]bool) (string, bool, error) {
	if !escaped && utf8.Valid(q) {
		if known[string(q[1:len(q)-1])] {
			return "", false, nil
		}
		return string(q[1 : len(q)-1]), true, nil
	}
	var key string
	if err := unmarshal(q, &key); err != nil {
		return "", false, err
	}
	return key, !known[key], nil
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
		for ; i < len(b); i++ {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i, nil
			}
		}
		return i, nil
	}
}
