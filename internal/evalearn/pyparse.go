package evalearn

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// pyParser accepts exactly the documents Python's json.loads (C scanner, strict=True) accepts,
// and keeps only what the judge rule needs: the kind of the top-level value and, for an object,
// its last "answer_score" member.
type pyParser struct {
	s   string
	i   int
	why string // set where a failure has a clearer reason than its byte offset
}

type pyKind int

const (
	kindOther pyKind = iota
	kindObject
)

// pyScore is the class of a JSON value for Python's `value > 0`.
type pyScore int

const (
	scoreNotPositive pyScore = iota // a number ≤ 0, NaN, false
	scorePositive                   // a number > 0, true
	scoreTypeError                  // string, null, list, dict: comparing raises
)

type pyValue struct {
	kind     pyKind
	score    pyScore // this value's class when compared with 0
	hasScore bool    // for objects: an "answer_score" member exists
	member   pyScore // for objects: the class of the last "answer_score" member
}

const maxDepth = 10000

func (p *pyParser) ws() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) value(depth int) (pyValue, bool) {
	if p.i >= len(p.s) || depth > maxDepth {
		return pyValue{}, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		_, ok := p.str()
		return pyValue{score: scoreTypeError}, ok
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	for _, lit := range []struct {
		text  string
		score pyScore
	}{{"null", scoreTypeError}, {"true", scorePositive}, {"false", scoreNotPositive},
		{"NaN", scoreNotPositive}, {"Infinity", scorePositive}} {
		if strings.HasPrefix(p.s[p.i:], lit.text) {
			p.i += len(lit.text)
			return pyValue{score: lit.score}, true
		}
	}
	return pyValue{}, false
}

func (p *pyParser) object(depth int) (pyValue, bool) {
	v := pyValue{kind: kindObject, score: scoreTypeError}
	if p.open('}') {
		return v, true
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return v, false
		}
		key, ok := p.str()
		if !ok {
			return v, false
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return v, false
		}
		p.i++
		p.ws()
		member, ok := p.value(depth + 1)
		if !ok {
			return v, false
		}
		if key == "answer_score" {
			v.hasScore, v.member = true, member.score
		}
		if done, ok := p.next('}'); done || !ok {
			return v, ok
		}
	}
}

// open consumes a container's opening bracket and the whitespace after it, and reports whether
// the container is empty (its closer follows, and is consumed too).
func (p *pyParser) open(closer byte) bool {
	p.i++
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == closer {
		p.i++
		return true
	}
	return false
}

// next reads what follows a container's element: a comma (and whitespace) means another element,
// closer ends the container (done); anything else is a syntax error (!ok).
func (p *pyParser) next(closer byte) (done, ok bool) {
	p.ws()
	if p.i >= len(p.s) {
		return false, false
	}
	switch p.s[p.i] {
	case closer:
		p.i++
		return true, true
	case ',':
		p.i++
		p.ws()
		return false, true
	}
	return false, false
}

func (p *pyParser) array(depth int) (pyValue, bool) {
	v := pyValue{score: scoreTypeError}
	if p.open(']') {
		return v, true
	}
	for {
		if _, ok := p.value(depth + 1); !ok {
			return v, false
		}
		if done, ok := p.next(']'); done || !ok {
			return v, ok
		}
	}
}

// str decodes a string starting at the opening quote. Control characters are refused (strict),
// escapes are JSON's, and lone surrogates are allowed (Python keeps them).
func (p *pyParser) str() (string, bool) {
	var b strings.Builder
	p.i++ // "
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), true
		case c < 0x20:
			return "", false
		case c == '\\':
			if !p.escape(&b) {
				return "", false
			}
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r)
			p.i += size
		}
	}
	return "", false
}

func (p *pyParser) escape(b *strings.Builder) bool {
	if p.i+1 >= len(p.s) {
		return false
	}
	c := p.s[p.i+1]
	p.i += 2
	if simple := strings.IndexByte(`"\/bfnrt`, c); simple >= 0 {
		b.WriteByte("\"\\/\b\f\n\r\t"[simple])
		return true
	}
	if c != 'u' {
		return false
	}
	r, ok := p.hex4()
	if !ok {
		return false
	}
	if utf16.IsSurrogate(r) && r < 0xdc00 && strings.HasPrefix(p.s[p.i:], `\u`) {
		save := p.i
		p.i += 2
		if lo, ok := p.hex4(); ok && lo >= 0xdc00 && lo <= 0xdfff {
			r = utf16.DecodeRune(r, lo)
		} else {
			p.i = save
		}
	}
	b.WriteRune(r)
	return true
}

func (p *pyParser) hex4() (rune, bool) {
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

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? (or -Infinity) and classifies it as
// Python would: an int by its digits, a float by float().
func (p *pyParser) number() (pyValue, bool) {
	start := p.i
	if strings.HasPrefix(p.s[p.i:], "-Infinity") {
		p.i += len("-Infinity")
		return pyValue{score: scoreNotPositive}, true
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	intStart := p.i
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if !p.digits() {
		return pyValue{}, false
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
	if !isFloat {
		if len(intDigits) > maxIntDigits {
			p.why = fmt.Sprintf("an integer of %d digits, more than Python's int() accepts", len(intDigits))
			return pyValue{}, false // int() raises ValueError
		}
		if text[0] != '-' && strings.Trim(intDigits, "0") != "" {
			return pyValue{score: scorePositive}, true
		}
		return pyValue{score: scoreNotPositive}, true
	}
	f, _ := strconv.ParseFloat(text, 64) // out of range gives ±Inf or 0, as float() does
	if f > 0 {
		return pyValue{score: scorePositive}, true
	}
	return pyValue{score: scoreNotPositive}, true
}

func (p *pyParser) digits() bool {
	start := p.i
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		p.i++
	}
	return p.i > start
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
