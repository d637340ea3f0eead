package learncurve

import (
	"strings"
	"unicode"
)

// ReplyCorrect reports whether an EvaLearn judge reply marks the answer correct, decided exactly as
// evaluate_metric.py decides it: if the reply contains "```json", the text between the first
// "```json" and the next "```" (Python-stripped) must be a JSON object (Python's json.loads
// grammar, NaN and Infinity included) whose "answer_score" compares > 0; otherwise the first
// match of {"answer_score":\s*(\d+)} (Unicode \s and \d) must be a non-zero integer. Anything else,
// exceptions included, is wrong.
//
// Note: integer literals of more than 4300 digits are wrong, as Python 3.11's int() refuses them;
// the one Python limit not reproduced is its recursion limit on deeply nested JSON.
func ReplyCorrect(reply string) bool {
	if _, after, ok := strings.Cut(reply, "```json"); ok {
		part, _, _ := strings.Cut(after, "```")
		return fencedCorrect(strings.TrimFunc(part, isPySpace))
	}
	return patternCorrect(reply)
}

// maxIntDigits is Python's default int_max_str_digits.
const maxIntDigits = 4300

func fencedCorrect(text string) bool {
	p := &pyParser{s: text}
	p.ws()
	v, ok := p.value(0)
	if !ok {
		return false
	}
	p.ws()
	if p.i != len(p.s) || v.kind != kindObject {
		return false
	}
	// .get("answer_score", 0) is 0 when the member is absent.
	return v.hasScore && v.member.positive()
}

// patternCorrect applies re.search(r'{"answer_score":\s*(\d+)}') and int(group) > 0.
func patternCorrect(s string) bool {
	const lit = `{"answer_score":`
	for from := 0; ; {
		i := strings.Index(s[from:], lit)
		if i < 0 {
			return false
		}
		rest := s[from+i+len(lit):]
		rest = strings.TrimLeftFunc(rest, isPySpace)
		end := strings.IndexFunc(rest, func(r rune) bool { return !unicode.Is(unicode.Nd, r) })
		if end > 0 && rest[end] == '}' {
			digits := []rune(rest[:end])
			if len(digits) > maxIntDigits {
				return false
			}
			for _, d := range digits {
				if digitValue(d) != 0 {
					return true
				}
			}
			return false
		}
		from += i + 1
	}
}

// digitValue returns the value of a Unicode decimal digit (category Nd). Unicode encodes every
// set of decimal digits as ten consecutive code points from zero, so the value is the distance
// from the start of the run of Nd code points, modulo ten.
func digitValue(r rune) int {
	start := r
	for unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int(r-start) % 10
}

// isPySpace reports whether Python's str.isspace (and so str.strip and re's \s) treats r as
// whitespace: Unicode White_Space plus the ASCII separators U+001C..U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}
