package format

// Detection reads a head of up to MaxHead bytes, whose first object (a LongMemEval item's
// haystack, a SQuAD file's first article) may run to megabytes. It reads it once: firstMembers
// finds the first object's members by their quotes and brackets, json.Valid checks each value
// once, and the rules look into those values, valid JSON, without decoding them again (members,
// items). What they tell is what a json.Decoder over the head told before (FuzzDetectSame).
//
// Note: Detect decoded the head with encoding/json once for each rule that looked at it, and
// copied every value, in 0.6 s of CPU and 270 MB for a head of 16 MiB.

import (
	"bytes"
	"encoding/json"
	"io"
	"iter"
	"slices"
	"strconv"
	"unicode/utf8"
)

// firstObject is what firstMembers reads of the first JSON object of a head.
type firstObject struct {
	ms    map[string]json.RawMessage // the members whose values are whole in head (slices of it)
	whole bool                       // the object's closing brace was read
	open  string                     // the key of the value that runs to the end of head, if one does
	rest  []byte                     // head after that key (nil if none does)
	value []byte                     // that value, to the end of head; nil where it is known to be JSON cut short
}

// firstMembers reads the first JSON object that head opens, the top-level value or a top-level
// array's first item, as a json.Decoder's tokens read it: a member at a time, up to the end of
// head, or up to the first byte that no JSON holds there, or up to the object's end. Each value
// is found by its brackets and quotes (valueEnd) and checked by json.Valid, or by the grammar of
// a number or a literal (scalarEnd), and kept as a slice of head.
func firstMembers(head []byte) firstObject {
	f := firstObject{ms: map[string]json.RawMessage{}}
	i := skipSpace(head, 0)
	if i < len(head) && head[i] == '[' {
		i = skipSpace(head, i+1)
	}
	if i == len(head) || head[i] != '{' {
		return f
	}
	i++
	for member := 0; ; member++ {
		if i = skipSpace(head, i); i == len(head) || head[i] == ']' {
			return f
		}
		if head[i] == '}' {
			f.whole = true
			return f
		}
		if member > 0 { // a comma, then a key
			if head[i] != ',' {
				return f
			}
			if i = skipSpace(head, i+1); i == len(head) {
				return f
			}
		}
		if head[i] != '"' {
			return f
		}
		end := stringEnd(head[i+1:])
		if end < 0 {
			return f
		}
		end += i + 2
		key, ok := jsonKey(head[i:end])
		if !ok {
			return f
		}
		at := end
		if i = skipSpace(head, end); i == len(head) || head[i] != ':' {
			return f
		}
		if i = skipSpace(head, i+1); i == len(head) {
			return f // a key with no value: the input ended, not a value in it
		}
		switch head[i] {
		case '"', '{', '[':
			n := valueEnd(head[i:])
			if n < 0 { // cut, or no JSON: cut tells which
				f.open, f.rest, f.value = key, head[at:], head[i:]
				return f
			}
			if end = i + n; !json.Valid(head[i:end]) {
				return f
			}
		default:
			n, whole := scalarEnd(head[i:])
			switch {
			case n < 0:
				return f
			case !whole:
				f.open, f.rest = key, head[at:]
				return f
			}
			end = i + n
		}
		f.ms[key] = head[i:end:end]
		i = end
	}
}

// cut returns the key of the value that the end of head cuts short, and what head holds after
// that key ("" and nil where none is: head ends elsewhere, or in a value that is no JSON).
func (f firstObject) cut() (string, []byte) {
	if f.rest == nil { // (the key may be "")
		return "", nil
	}
	if f.value != nil {
		// Whether it is JSON cut short or no JSON, told as a json.Decoder tells it (not in
		// firstMembers: this is needed seldom, and would read a cut SQuAD file's whole article).
		if err := json.NewDecoder(bytes.NewReader(f.value)).Decode(new(json.RawMessage)); err != io.ErrUnexpectedEOF {
			return "", nil
		}
	}
	return f.open, f.rest
}

// members returns the members of raw, valid JSON (a value firstMembers gives, or one in it), by
// key, as json.Unmarshal gives them into a map (a key given twice gives its last), or nil where raw
// is no object.
func members(raw []byte) map[string]json.RawMessage {
	if !isObject(raw) {
		return nil
	}
	ms := map[string]json.RawMessage{}
	i := skipSpace(raw, bytes.IndexByte(raw, '{')+1)
	for raw[i] != '}' {
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
		end := i + 2 + stringEnd(raw[i+1:])
		key, _ := jsonKey(raw[i:end])
		i = skipSpace(raw, skipSpace(raw, end)+1) // past the colon
		end = i + validEnd(raw[i:])
		ms[key] = raw[i:end:end]
		i = skipSpace(raw, end)
	}
	return ms
}

// items returns the items of raw, a valid JSON list (a value firstMembers gives, or one in it).
func items(raw []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		i := skipSpace(raw, bytes.IndexByte(raw, '[')+1)
		for raw[i] != ']' {
			if raw[i] == ',' {
				i = skipSpace(raw, i+1)
			}
			end := i + validEnd(raw[i:])
			if !yield(raw[i:end:end]) {
				return
			}
			i = skipSpace(raw, end)
		}
	}
}

// validEnd returns the length of the valid JSON value that b opens with.
func validEnd(b []byte) int {
	switch b[0] {
	case '"', '{', '[':
		return valueEnd(b)
	}
	n, _ := scalarEnd(b)
	return n
}

// valueEnd returns the length of the string, object or list that b opens with (b[0] is '"', '{'
// or '['), as its quotes and brackets end it, or -1 where b ends first. Where b is valid JSON
// there, that is its value's length; where it is not, json.Valid tells that of the bytes it gives.
func valueEnd(b []byte) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			n := stringEnd(b[i+1:])
			if n < 0 {
				return -1
			}
			if i += n + 1; depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// stringEnd returns the index in b, the text of a JSON string after its opening quote, of the
// quote that closes it (one no backslash escapes), or -1 where there is none. It looks for quotes
// and backslashes with bytes.IndexByte: a context of megabytes is read at memory's speed.
func stringEnd(b []byte) int {
	i := 0 // b[:i] is read, and no backslash before i escapes b[i]
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		q += i
		for {
			bs := bytes.IndexByte(b[i:q], '\\')
			if bs < 0 {
				return q
			}
			if i += bs + 2; i > q { // the backslash escapes the quote
				break
			}
		}
	}
}

// scalarEnd returns the length of the number, true, false or null that b opens with, as a
// json.Decoder reads a value: up to the first byte that does not go on with it, or to the end of
// b, where whole reports whether the value may end there ("12", not "1." or "tr"); or -1 where b
// opens no such value (or a number or a literal that goes wrong: "-x", "1.e5", "nul!").
func scalarEnd(b []byte) (n int, whole bool) {
	switch b[0] {
	case 't':
		return literalEnd(b, "true")
	case 'f':
		return literalEnd(b, "false")
	case 'n':
		return literalEnd(b, "null")
	}
	i := 0
	if b[0] == '-' {
		i++
	}
	digits := func() (int, bool) { // one digit at least, at b[i]
		switch {
		case i == len(b):
			return i, false
		case !isDigit(b[i]):
			return -1, false
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
		return i, true
	}
	switch {
	case i == len(b):
		return i, false
	case b[i] == '0':
		i++
	case isDigit(b[i]):
		digits()
	default:
		return -1, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if n, ok := digits(); !ok {
			return n, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if n, ok := digits(); !ok {
			return n, false
		}
	}
	return i, true
}

// literalEnd is scalarEnd of b, which opens with lit's first letter.
func literalEnd(b []byte, lit string) (int, bool) {
	for i := 1; i < len(lit); i++ {
		switch {
		case i == len(b):
			return i, false
		case b[i] != lit[i]:
			return -1, false
		}
	}
	return len(lit), true
}

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipSpace returns the index of the first byte of b from i that is no JSON blank (len(b) if none).
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// jsonKey returns the text of raw, a JSON string with its quotes as valueEnd finds it, as
// json.Unmarshal gives it, and whether it is a valid one.
func jsonKey(raw []byte) (string, bool) {
	text := raw[1 : len(raw)-1]
	if !slices.ContainsFunc(text, func(c byte) bool { return c < 0x20 || c == '\\' }) && utf8.Valid(text) {
		return string(text), true // as it is
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// unquote returns the text of raw, a valid JSON string with its quotes.
func unquote(raw []byte) string {
	s, _ := jsonKey(raw)
	return s
}

// stringScripts is scripts of the text of raw, a valid JSON string with its quotes.
func stringScripts(raw []byte) (han, latin int) {
	text := raw[1 : len(raw)-1]
	if bytes.IndexByte(text, '\\') >= 0 {
		return scripts(unquote(raw))
	}
	// As it is: a byte that is no UTF-8 is U+FFFD here as in the decoded text, and counts as neither.
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf { // script's, for the ASCII that most text is
			if 'a' <= c|0x20 && c|0x20 <= 'z' {
				latin++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		h, l := script(r)
		han, latin, i = han+h, latin+l, i+n
	}
	return han, latin
}

// The kinds of token jsonTokens gives, besides the delimiters '{', '}', '[' and ']'.
const (
	tokenNone   = 0   // the end: of the text, or of the tokens a json.Decoder would give
	tokenString = '"' // a string, key or value
	tokenValue  = 'v' // a number, true, false or null
)

// The states of jsonTokens, as a json.Decoder's Token has them: what may come next.
const (
	atTopValue = iota
	atArrayStart
	atArrayValue
	atArrayComma
	atObjectStart
	atObjectKey
	atObjectColon
	atObjectValue
	atObjectComma
)

// jsonTokens reads JSON text a token at a time, as a json.Decoder's Token does, without decoding
// them: it gives the tokens Token would give, in order, and ends where Token would first return
// an error (at the end of the text, or where a token is no JSON, or comes where none may).
type jsonTokens struct {
	text  []byte
	i     int   // the bytes read
	state int   // what may come next (atTopValue...)
	stack []int // the states of the objects and lists open around this one
}

// next returns the next token's kind (a delimiter, tokenString, tokenValue, or tokenNone at the
// end) and, for a string, its text with its quotes.
func (t *jsonTokens) next() (kind byte, raw []byte) {
	for {
		if t.i = skipSpace(t.text, t.i); t.i == len(t.text) {
			return tokenNone, nil
		}
		switch c := t.text[t.i]; c {
		case '[', '{':
			if !t.valueAllowed() {
				return tokenNone, nil
			}
			t.i++
			t.stack = append(t.stack, t.state)
			t.state = atArrayStart
			if c == '{' {
				t.state = atObjectStart
			}
			return c, nil
		case ']', '}':
			if c == ']' && t.state != atArrayStart && t.state != atArrayComma ||
				c == '}' && t.state != atObjectStart && t.state != atObjectComma {
				return tokenNone, nil
			}
			t.i++
			t.state, t.stack = t.stack[len(t.stack)-1], t.stack[:len(t.stack)-1]
			t.valueEnd()
			return c, nil
		case ':':
			if t.state != atObjectColon {
				return tokenNone, nil
			}
			t.i++
			t.state = atObjectValue
			continue
		case ',':
			switch t.state {
			case atArrayComma:
				t.state = atArrayValue
			case atObjectComma:
				t.state = atObjectKey
			default:
				return tokenNone, nil
			}
			t.i++
			continue
		case '"':
			if t.state == atObjectStart || t.state == atObjectKey {
				n := stringToken(t.text[t.i:])
				if n < 0 {
					return tokenNone, nil
				}
				raw, t.i = t.text[t.i:t.i+n], t.i+n
				t.state = atObjectColon
				return tokenString, raw
			}
		}
		if !t.valueAllowed() {
			return tokenNone, nil
		}
		rest := t.text[t.i:]
		if rest[0] == '"' {
			n := stringToken(rest)
			if n < 0 {
				return tokenNone, nil
			}
			t.i += n
			t.valueEnd()
			return tokenString, rest[:n]
		}
		n, whole := scalarEnd(rest)
		if n < 0 || !whole {
			return tokenNone, nil
		}
		// A number is decoded as a float64, which one out of its range is an error of.
		if c := rest[0]; c == '-' || isDigit(c) {
			if _, err := strconv.ParseFloat(string(rest[:n]), 64); err != nil {
				return tokenNone, nil
			}
		}
		t.i += n
		t.valueEnd()
		return tokenValue, nil
	}
}

// valueAllowed reports whether a value may come next.
func (t *jsonTokens) valueAllowed() bool {
	switch t.state {
	case atTopValue, atArrayStart, atArrayValue, atObjectValue:
		return true
	}
	return false
}

// valueEnd moves on past a value.
func (t *jsonTokens) valueEnd() {
	switch t.state {
	case atArrayStart, atArrayValue:
		t.state = atArrayComma
	case atObjectValue:
		t.state = atObjectComma
	}
}

// stringToken returns the length of the JSON string that b opens with (b[0] is '"'), checked as
// encoding/json checks one (no control character, escapes that JSON has), or -1 where it is no
// JSON or b ends in it.
func stringToken(b []byte) int {
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i++; i == len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					if i++; i == len(b) || !isHex(b[i]) {
						return -1
					}
				}
			default:
				return -1
			}
		}
	}
	return -1
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }
