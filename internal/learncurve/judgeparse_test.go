package learncurve

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReplyCorrect(t *testing.T) {
	tests := []struct {
		name, reply string
		want        bool
	}{
		{"fenced 1", "[Grade]: 1 point\n[JSON]: ```json\n{\"answer_score\": 1}\n```", true},
		{"fenced 0", "```json\n{\"answer_score\": 0}\n```", false},
		{"fenced 2", "```json\n{\"answer_score\": 2}\n```", true},
		{"fenced pretty", "```json\n{\n  \"answer_score\": 1\n}\n```", true},
		{"fenced extra keys", "```json\n{\"answer_score\": 1, \"reason\": \"ok\"}\n```", true},
		{"fenced invalid trailing comma", "```json\n{\"answer_score\": 1,}\n```", false},
		{"fenced string score", "```json\n{\"answer_score\": \"1\"}\n```", false},
		{"fenced true", "```json\n{\"answer_score\": true}\n```", true},
		{"fenced false", "```json\n{\"answer_score\": false}\n```", false},
		{"fenced float", "```json\n{\"answer_score\": 0.5}\n```", true},
		{"fenced float zero", "```json\n{\"answer_score\": 0.0}\n```", false},
		{"fenced negative", "```json\n{\"answer_score\": -3}\n```", false},
		{"fenced null", "```json\n{\"answer_score\": null}\n```", false},
		{"fenced NaN", "```json\n{\"answer_score\": NaN}\n```", false},
		{"fenced Infinity", "```json\n{\"answer_score\": Infinity}\n```", true},
		{"fenced -Infinity", "```json\n{\"answer_score\": -Infinity}\n```", false},
		{"fenced exponent", "```json\n{\"answer_score\": 1e-3}\n```", true},
		{"fenced underflow", "```json\n{\"answer_score\": 1e-400}\n```", false},
		{"fenced overflow", "```json\n{\"answer_score\": 1e400}\n```", true},
		{"fenced big int", "```json\n{\"answer_score\": 123456789012345678901234567890}\n```", true},
		{"fenced too many digits", "```json\n{\"answer_score\": 1" + strings.Repeat("0", 4300) + "}\n```", false},
		{"fenced 4300 digits", "```json\n{\"answer_score\": 1" + strings.Repeat("0", 4299) + "}\n```", true},
		{"fenced minus zero", "```json\n{\"answer_score\": -0}\n```", false},
		{"fenced leading zero", "```json\n{\"answer_score\": 01}\n```", false},
		{"fenced duplicate key, last wins", "```json\n{\"answer_score\": 1, \"answer_score\": 0}\n```", false},
		{"fenced escaped key", "```json\n{\"answer\\u005fscore\": 1}\n```", true},
		{"fenced nested object score", "```json\n{\"answer_score\": {\"answer_score\": 1}}\n```", false},
		{"fenced list", "```json\n[{\"answer_score\": 1}]\n```", false},
		{"fenced number", "```json\n1\n```", false},
		{"fenced missing key", "```json\n{\"score\": 1}\n```", false},
		{"fenced empty object", "```json\n{}\n```", false},
		{"fenced unclosed", "```json\n{\"answer_score\": 1}", true},
		{"fenced upper is not fenced", "```JSON\n{\"answer_score\": 1, \"r\": 2}\n```", false},
		{"fenced upper matches inline", "```JSON\n{\"answer_score\":1}\n```", true},
		{"fenced first block wins", "```json\n{\"answer\": \"x\"}\n```\n```json\n{\"answer_score\": 1}\n```", false},
		{"fenced first fence only", "```json\n{\"answer_score\": 1}\n```\n```json\n{\"answer_score\": 0}\n```", true},
		{"fenced extra data", "```json\n{\"answer_score\": 1} x\n```", false},
		{"fenced control char in string", "```json\n{\"answer_score\": 1, \"r\": \"a\tb\"}\n```", false},
		{"fenced unicode space stripped", "```json\u00a0{\"answer_score\": 1}\u3000```", true},
		{"fenced unicode space inside", "```json\n{\u00a0\"answer_score\": 1}\n```", false},
		{"fenced lone surrogate", "```json\n{\"r\": \"\\ud800\", \"answer_score\": 1}\n```", true},
		{"fenced bad escape", "```json\n{\"r\": \"\\x\", \"answer_score\": 1}\n```", false},
		{"inline", "[JSON]: {\"answer_score\": 1}", true},
		{"inline zero", "[JSON]: {\"answer_score\": 0}", false},
		{"inline no space", "{\"answer_score\":1}", true},
		{"inline newline", "{\"answer_score\":\n 1}", true},
		{"inline padded", "{ \"answer_score\": 1 }", false},
		{"inline float", "{\"answer_score\": 1.0}", false},
		{"inline first match wins", "format {\"answer_score\": 0} then {\"answer_score\": 1}", false},
		{"inline skips non-match", "{\"answer_score\": x} then {\"answer_score\": 1}", true},
		{"inline leading zeros", "{\"answer_score\": 007}", true},
		{"inline zeros", "{\"answer_score\": 000}", false},
		{"inline arabic-indic digit", "{\"answer_score\": \u0661}", true},
		{"inline arabic-indic zero", "{\"answer_score\": \u0660}", false},
		{"inline double-struck zero", "{\"answer_score\": \U0001D7D8}", false},
		{"inline double-struck one", "{\"answer_score\": \U0001D7D9}", true},
		{"inline file separator space", "{\"answer_score\":\x1c1}", true},
		{"inline too many digits", "{\"answer_score\": 1" + strings.Repeat("0", 4300) + "}", false},
		{"empty", "", false},
		{"prose", "The answer is correct. Score: 1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReplyCorrect(tt.reply); got != tt.want {
				t.Errorf("ReplyCorrect(%.80q) = %v, want %v", tt.reply, got, tt.want)
			}
		})
	}
}

func TestDigitValue(t *testing.T) {
	tests := []struct {
		r    rune
		want int
	}{{'0', 0}, {'7', 7}, {'\u0669', 9}, {'\u0966', 0}, {'\U0001D7D7', 9}, {'\U0001D7D8', 0}, {'\U0001D7E1', 9}, {'\uff13', 3}}
	for _, tt := range tests {
		if got := digitValue(tt.r); got != tt.want {
			t.Errorf("digitValue(%q) = %d, want %d", tt.r, got, tt.want)
		}
	}
}

// oracle decides a fenced reply with encoding/json where Go's grammar and Python's agree (Go
// accepts a subset: no NaN/Infinity); ok is false where it cannot decide.
func oracle(reply string) (correct, ok bool) {
	_, after, found := strings.Cut(reply, "```json")
	if !found {
		return false, false
	}
	part, _, _ := strings.Cut(after, "```")
	part = strings.TrimFunc(part, isPySpace)
	if !utf8.ValidString(part) || !json.Valid([]byte(part)) || strings.Contains(part, `\u`) {
		return false, false
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(part)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return false, false
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		return false, true
	}
	switch s := obj["answer_score"].(type) {
	case bool:
		return s, true
	case json.Number:
		if strings.ContainsAny(string(s), ".eE") {
			f, _ := new(big.Float).SetString(string(s))
			if f == nil {
				return false, false
			}
			x, _ := f.Float64()
			return x > 0, true
		}
		if len(strings.TrimLeft(string(s), "-")) > maxIntDigits {
			return false, true
		}
		i, _ := new(big.Int).SetString(string(s), 10)
		return i.Sign() > 0, true
	}
	return false, true
}

func FuzzReplyCorrect(f *testing.F) {
	for _, s := range []string{
		"```json\n{\"answer_score\": 1}\n```", "{\"answer_score\": 1}", "```json\n{\"answer_score\": 1e5, \"a\": [1, {\"b\": null}]}\n```",
		"```json\n{\"answer_score\": -0.0}\n```", "x {\"answer_score\":\u00a0\u0663}", "```json\n{\"answer_score\": \"1\"}",
		"```json\n{\"answer_score\": NaN}\n```", "```json\n[1, 2]\n```",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		got := ReplyCorrect(reply)
		if got != ReplyCorrect(reply) {
			t.Fatalf("ReplyCorrect(%q) is not deterministic", reply)
		}
		if want, ok := oracle(reply); ok && got != want {
			t.Errorf("ReplyCorrect(%q) = %v, want %v (encoding/json oracle)", reply, got, want)
		}
		if !strings.Contains(reply, "```json") && !strings.Contains(reply, `{"answer_score":`) && got {
			t.Errorf("ReplyCorrect(%q) = true without a fence or the pattern", reply)
		}
	})
}
