package python

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the Python type of a Value.
type Kind uint8

// The kinds json.loads returns.
const (
	None Kind = iota
	Bool
	Int
	Float
	Str
	List
	Dict
)

// Value is what json.loads returns, as Python holds it: an int exactly (its decimal digits), a
// float, a str (WTF-8), a list, or a dict whose keys are unique and in first-insertion order with
// the last value given for each (json.loads keeps the last of repeated keys, where the first was).
type Value struct {
	Kind  Kind
	B     bool    // Bool
	N     string  // Int: "-"? digits, no leading zeros, "-0" written "0"
	F     float64 // Float
	S     string  // Str
	Items []Value // List
	Keys  []string
	Vals  []Value // Dict: Vals[i] belongs to Keys[i]
}

// Get returns the value of key in a dict.
func (v Value) Get(key string) (Value, bool) {
	for i, k := range v.Keys {
		if k == key {
			return v.Vals[i], true
		}
	}
	return Value{}, false
}

// Error is a document json.loads refuses, with the byte offset where it fails.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("%s at byte %d", e.Msg, e.Offset) }

// maxIntDigits is CPython 3.11's default int_max_str_digits: json.loads raises on longer ints.
const maxIntDigits = 4300

// maxDepth bounds nesting. CPython raises RecursionError somewhat below 1000 levels, a limit this
// package does not reproduce; this bound only keeps the stack small.
const maxDepth = 10000

// Loads parses s as json.loads(s) does (the C scanner, strict=True): JSON plus NaN, Infinity and
// -Infinity, no control characters inside strings, lone surrogates kept, integers exact (up to
// 4,300 digits), floats as float() reads them (1e400 is inf), whitespace " \t\n\r" around.
func Loads(s string) (Value, error) {
	p := &parser{s: s}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	if p.ws(); p.i != len(p.s) {
		return Value{}, p.fail("extra data")
	}
	return v, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) fail(msg string) error { return &Error{Offset: p.i, Msg: msg} }

func (p *parser) ws() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *parser) value(depth int) (Value, error) {
	if p.i >= len(p.s) {
		return Value{}, p.fail("expecting value")
	}
	if depth > maxDepth {
		return Value{}, p.fail("nested too deeply")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '[':
		return p.list(depth)
	case c == '"':
		s, err := p.str()
		return Value{Kind: Str, S: s}, err
	case c == '-' || isDigit(c):
		return p.number()
	}
	for _, lit := range []struct {
		text string
		v    Value
	}{
		{"null", Value{}}, {"true", Value{Kind: Bool, B: true}}, {"false", Value{Kind: Bool}},
		{"NaN", Value{Kind: Float, F: nan()}}, {"Infinity", Value{Kind: Float, F: inf(1)}},
	} {
		if strings.HasPrefix(p.s[p.i:], lit.text) {
			p.i += len(lit.text)
			return lit.v, nil
		}
	}
	return Value{}, p.fail("expecting value")
}

func (p *parser) dict(depth int) (Value, error) {
	v := Value{Kind: Dict}
	var index map[string]int // key → position, once the dict is large
	if p.open('}') {
		return v, nil
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return v, p.fail("expecting property name enclosed in double quotes")
		}
		key, err := p.str()
		if err != nil {
			return v, err
		}
		if p.ws(); p.i >= len(p.s) || p.s[p.i] != ':' {
			return v, p.fail("expecting ':' delimiter")
		}
		p.i++
		p.ws()
		member, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		v.set(key, member, &index)
		if done, err := p.next('}', "expecting ',' delimiter"); done || err != nil {
			return v, err
		}
	}
}

// set gives key the value member, where the key already is or at the end.
func (v *Value) set(key string, member Value, index *map[string]int) {
	if *index == nil && len(v.Keys) >= 16 {
		*index = make(map[string]int, 2*len(v.Keys))
		for i, k := range v.Keys {
			(*index)[k] = i
		}
	}
	if *index != nil {
		if i, ok := (*index)[key]; ok {
			v.Vals[i] = member
			return
		}
		(*index)[key] = len(v.Keys)
	} else {
		for i, k := range v.Keys {
			if k == key {
				v.Vals[i] = member
				return
			}
		}
	}
	v.Keys = append(v.Keys, key)
	v.Vals = append(v.Vals, member)
}

func (p *parser) list(depth int) (Value, error) {
	v := Value{Kind: List, Items: []Value{}}
	if p.open(']') {
		return v, nil
	}
	for {
		item, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		v.Items = append(v.Items, item)
		if done, err := p.next(']', "expecting ',' delimiter"); done || err != nil {
			return v, err
		}
	}
}

// open consumes a container's opening bracket and the whitespace after it, and reports whether
// the container is empty (its closer follows, and is consumed too).
func (p *parser) open(closer byte) bool {
	p.i++
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == closer {
		p.i++
		return true
	}
	return false
}

// next reads what follows a container's element: a comma (and whitespace) means another element,
// closer ends the container (done); anything else is an error.
func (p *parser) next(closer byte, msg string) (done bool, err error) {
	p.ws()
	if p.i < len(p.s) {
		switch p.s[p.i] {
		case closer:
			p.i++
			return true, nil
		case ',':
			p.i++
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == closer {
				return false, p.fail("illegal trailing comma")
			}
			return false, nil
		}
	}
	return false, p.fail(msg)
}

// str decodes a string starting at its opening quote. Control characters are refused (strict),
// escapes are JSON's, and a lone surrogate is kept in WTF-8.
func (p *parser) str() (string, error) {
	p.i++ // "
	start := p.i
	for p.i < len(p.s) { // the common case: no escape
		c := p.s[p.i]
		if c == '"' {
			s := p.s[start:p.i]
			p.i++
			if utf8.ValidString(s) {
				return s, nil
			}
			return strings.ToValidUTF8(s, "\uFFFD"), nil
		}
		if c < 0x20 || c == '\\' {
			break
		}
		p.i++
	}
	var b strings.Builder
	b.WriteString(strings.ToValidUTF8(p.s[start:p.i], "\uFFFD"))
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", p.fail("invalid control character")
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r)
			p.i += size
		}
	}
	return "", p.fail("unterminated string")
}

func (p *parser) escape(b *strings.Builder) error {
	if p.i+1 >= len(p.s) {
		return p.fail("unterminated string")
	}
	c := p.s[p.i+1]
	if simple := strings.IndexByte(`"\/bfnrt`, c); simple >= 0 {
		p.i += 2
		b.WriteByte("\"\\/\b\f\n\r\t"[simple])
		return nil
	}
	if c != 'u' {
		return p.fail("invalid \\escape")
	}
	p.i += 2
	r, ok := p.hex4()
	if !ok {
		return p.fail("invalid \\uXXXX escape")
	}
	if utf16.IsSurrogate(r) && r < 0xdc00 && strings.HasPrefix(p.s[p.i:], `\u`) {
		save := p.i
		p.i += 2
		if lo, ok := p.hex4(); ok && lo >= 0xdc00 && lo <= 0xdfff {
			b.WriteRune(utf16.DecodeRune(r, lo))
			return nil
		}
		p.i = save
	}
	if utf16.IsSurrogate(r) {
		b.WriteString(surrogate(r))
		return nil
	}
	b.WriteRune(r)
	return nil
}

func (p *parser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil || strings.ContainsAny(p.s[p.i:p.i+4], "+-_") {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? (or -Infinity): an int when it has
// neither fraction nor exponent, else a float.
func (p *parser) number() (Value, error) {
	start := p.i
	if strings.HasPrefix(p.s[p.i:], "-Infinity") {
		p.i += len("-Infinity")
		return Value{Kind: Float, F: inf(-1)}, nil
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	intStart := p.i
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if !p.digits() {
		p.i = start
		return Value{}, p.fail("expecting value")
	}
	intDigits := p.s[intStart:p.i]
	isFloat := false
	if p.i+1 < len(p.s) && p.s[p.i] == '.' && isDigit(p.s[p.i+1]) {
		p.i++
		p.digits()
		isFloat = true
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		j := p.i + 1
		if j < len(p.s) && (p.s[j] == '+' || p.s[j] == '-') {
			j++
		}
		if j < len(p.s) && isDigit(p.s[j]) {
			p.i = j
			p.digits()
			isFloat = true
		}
	}
	text := p.s[start:p.i]
	if isFloat {
		f, _ := strconv.ParseFloat(text, 64) // out of range gives ±Inf or 0, as float() does
		return Value{Kind: Float, F: f}, nil
	}
	if len(intDigits) > maxIntDigits {
		p.i = start
		return Value{}, p.fail(fmt.Sprintf("an integer of %d digits, more than Python's int() accepts", len(intDigits)))
	}
	if text == "-0" {
		text = "0"
	}
	return Value{Kind: Int, N: text}, nil
}

func (p *parser) digits() bool {
	start := p.i
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		p.i++
	}
	return p.i > start
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
