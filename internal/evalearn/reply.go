package evalearn

import (
	"fmt"
	"strings"

	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// ParseReply reads an EvaLearn judge reply as evaluate_metric.py does. score is EvaLearn's
// official outcome, 1 if the answer is judged correct and 0 otherwise; ok reports whether a score
// was actually read, and when it is false score is 0 (the official outcome of a reply that raises
// or has no score) and reason says why.
//
// The rule: if the reply contains "```json", only the text between the first "```json" and the
// next "```" (or the end) counts: Python-stripped, it must be a JSON object by Python's json.loads
// grammar (NaN and Infinity included) whose "answer_score" (the last one if repeated) compares
// > 0; a missing "answer_score" is 0. Otherwise the first match of {"answer_score":\s*(\d+)}
// (Unicode \s and \d; no space after "{" or before "}") is read with int() and compared > 0.
//
// The JSON is read by python.Loads: integer literals of more than 4300 digits are refused, as
// Python 3.11's int() refuses them; the one Python limit not reproduced is its recursion limit on
// deeply nested JSON.
func ParseReply(raw string) (score float64, ok bool, reason string) {
	if _, after, found := strings.Cut(raw, "```json"); found {
		part, _, _ := strings.Cut(after, "```")
		return parseFenced(strings.TrimFunc(part, textnorm.IsSpace))
	}
	return parseInline(raw)
}

// maxIntDigits is Python's default int_max_str_digits.
const maxIntDigits = 4300

func parseFenced(text string) (float64, bool, string) {
	v, err := python.Loads(text)
	if err != nil {
		return 0, false, "invalid JSON in the json block: " + err.Error()
	}
	if v.Kind != python.Dict {
		return 0, false, "the json block is not a JSON object"
	}
	score, ok := v.Get("answer_score")
	if !ok {
		return 0, false, `no "answer_score" in the json block`
	}
	positive, ok := score.Positive()
	switch {
	case !ok:
		return 0, false, `"answer_score" is not a number or boolean, so it cannot be compared with 0`
	case positive:
		return 1, true, ""
	}
	return 0, true, ""
}

// parseInline applies re.search(r'{"answer_score":\s*(\d+)}') and int(group) > 0.
func parseInline(s string) (float64, bool, string) {
	const lit = `{"answer_score":`
	for from := 0; ; {
		i := strings.Index(s[from:], lit)
		if i < 0 {
			return 0, false, `no {"answer_score": N} in the reply`
		}
		rest := strings.TrimLeftFunc(s[from+i+len(lit):], textnorm.IsSpace)
		end := strings.IndexFunc(rest, func(r rune) bool { _, ok := textnorm.DecimalValue(r); return !ok })
		if end > 0 && rest[end] == '}' {
			digits := []rune(rest[:end])
			if len(digits) > maxIntDigits {
				return 0, false, fmt.Sprintf("answer_score has %d digits, more than Python's int() accepts", len(digits))
			}
			for _, d := range digits {
				if v, _ := textnorm.DecimalValue(d); v != 0 {
					return 1, true, ""
				}
			}
			return 0, true, ""
		}
		from += i + 1
	}
}
