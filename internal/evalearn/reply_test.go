package evalearn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/vectors"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// TestParseReply covers every judge-output shape of shared/golden/evalearn/case2_edge
// (_synthetic_variant names, first block) plus Python-specific cases: json.loads grammar, int()
// and float() limits, Unicode \s and \d.
func TestParseReply(t *testing.T) {
	tests := []struct {
		name, raw string
		want      float64
		ok        bool
	}{
		// case2_edge variants.
		{"fenced_std", "[Grade]: 1 point\n[JSON]: ```json\n{\"answer_score\": 1}\n```", 1, true},
		{"fenced_score2", "```json\n{\"answer_score\": 2}\n```", 1, true},
		{"inline_std", "[JSON]: {\"answer_score\": 0}", 0, true},
		{"fenced_upper", "[Grade]: 1 points\n[JSON]: ```JSON\n{\"answer_score\": 1}\n```", 1, true},
		{"fenced_pretty_std", "[JSON]:\n```json\n{\n  \"answer_score\": 1\n}\n```", 1, true},
		{"fenced_extra_keys_std", "```json\n{\"answer_score\": 1, \"reason\": \"see basis\"}\n```", 1, true},
		{"fenced_invalid", "```json\n{\"answer_score\": 1,}\n```", 0, false},
		{"inline_float", "[JSON]: {\"answer_score\": 1.0}", 0, false},
		{"fenced_string_score", "```json\n{\"answer_score\": \"1\"}\n```", 0, false},
		{"student_json_first", "The student answered:\n```json\n{\"answer\": \"X\"}\n```\n[JSON]: ```json\n{\"answer_score\": 1}\n```", 0, false},
		{"inline_padded", "[JSON]: { \"answer_score\": 1 }", 0, false},
		{"fenced_bool_false", "```json\n{\"answer_score\": false}\n```", 0, true},
		{"fenced_bool_true", "```json\n{\"answer_score\": true}\n```", 1, true},
		{"empty_reply", "", 0, false},
		{"two_fences", "Draft:\n```json\n{\"answer_score\": 1}\n```\nAfter:\n```json\n{\"answer_score\": 0}\n```", 1, true},
		{"fenced_unclosed_std", "[JSON]: ```json\n{\"answer_score\": 1}", 1, true},
		{"regex_template_echo", "Expected format {\"answer_score\": 0} noted.\n[JSON]: {\"answer_score\": 1}", 0, true},
		{"inline_nospace", "[JSON]: {\"answer_score\":1}", 1, true},
		{"inline_newline_std", "{\"answer_score\":\n 1}", 1, true},
		{"fenced_float_half", "```json\n{\"answer_score\": 0.5}\n```", 1, true},
		{"fenced_null_std", "```json\n{\"answer_score\": null}\n```", 0, false},
		{"fenced_nan", "```json\n{\"answer_score\": NaN}\n```", 0, true},
		{"fenced_inf", "```json\n{\"answer_score\": Infinity}\n```", 1, true},
		{"fenced_list_of_one", "```json\n[1]\n```", 0, false},
		{"fenced_negative_one", "```json\n{\"answer_score\": -1}\n```", 0, true},
		{"inline_arabic_digit", "{\"answer_score\": \u0661}", 1, true},
		{"inline_arabic_zero", "{\"answer_score\": \u0660}", 0, true},
		{"inline_leading_zero", "{\"answer_score\": 00}", 0, true},
		{"fenced_then_regex_ignored", "```json\nnot json\n```\n{\"answer_score\": 1}", 0, false},
		// Python's json.loads, int() and float() on the fenced block.
		{"fenced 0", "```json\n{\"answer_score\": 0}\n```", 0, true},
		{"fenced pretty", "```json\n{\n  \"answer_score\": 1\n}\n```", 1, true},
		{"fenced extra keys", "```json\n{\"answer_score\": 1, \"reason\": \"ok\"}\n```", 1, true},
		{"fenced float zero", "```json\n{\"answer_score\": 0.0}\n```", 0, true},
		{"fenced negative", "```json\n{\"answer_score\": -3}\n```", 0, true},
		{"fenced -Infinity", "```json\n{\"answer_score\": -Infinity}\n```", 0, true},
		{"fenced exponent", "```json\n{\"answer_score\": 1e-3}\n```", 1, true},
		{"fenced underflow", "```json\n{\"answer_score\": 1e-400}\n```", 0, true},
		{"fenced overflow", "```json\n{\"answer_score\": 1e400}\n```", 1, true},
		{"fenced big int", "```json\n{\"answer_score\": 123456789012345678901234567890}\n```", 1, true},
		{"fenced too many digits", "```json\n{\"answer_score\": 1" + strings.Repeat("0", 4300) + "}\n```", 0, false},
		{"fenced 4300 digits", "```json\n{\"answer_score\": 1" + strings.Repeat("0", 4299) + "}\n```", 1, true},
		{"fenced minus zero", "```json\n{\"answer_score\": -0}\n```", 0, true},
		{"fenced leading zero", "```json\n{\"answer_score\": 01}\n```", 0, false},
		{"fenced duplicate key, last wins", "```json\n{\"answer_score\": 1, \"answer_score\": 0}\n```", 0, true},
		{"fenced escaped key", "```json\n{\"answer\\u005fscore\": 1}\n```", 1, true},
		{"fenced nested object score", "```json\n{\"answer_score\": {\"answer_score\": 1}}\n```", 0, false},
		{"fenced list", "```json\n[{\"answer_score\": 1}]\n```", 0, false},
		{"fenced number", "```json\n1\n```", 0, false},
		{"fenced missing key", "```json\n{\"score\": 1}\n```", 0, false},
		{"fenced empty object", "```json\n{}\n```", 0, false},
		{"fenced unclosed", "```json\n{\"answer_score\": 1}", 1, true},
		{"fenced upper is not fenced", "```JSON\n{\"answer_score\": 1, \"r\": 2}\n```", 0, false},
		{"fenced upper matches inline", "```JSON\n{\"answer_score\":1}\n```", 1, true},
		{"fenced first block wins", "```json\n{\"answer\": \"x\"}\n```\n```json\n{\"answer_score\": 1}\n```", 0, false},
		{"fenced first fence only", "```json\n{\"answer_score\": 1}\n```\n```json\n{\"answer_score\": 0}\n```", 1, true},
		{"fenced extra data", "```json\n{\"answer_score\": 1} x\n```", 0, false},
		{"fenced control char in string", "```json\n{\"answer_score\": 1, \"r\": \"a\tb\"}\n```", 0, false},
		{"fenced unicode space stripped", "```json\u00a0{\"answer_score\": 1}\u3000```", 1, true},
		{"fenced unicode space inside", "```json\n{\u00a0\"answer_score\": 1}\n```", 0, false},
		{"fenced lone surrogate", "```json\n{\"r\": \"\\ud800\", \"answer_score\": 1}\n```", 1, true},
		{"fenced bad escape", "```json\n{\"r\": \"\\x\", \"answer_score\": 1}\n```", 0, false},
		// re.search(r'{"answer_score":\s*(\d+)}') and int() without a fence.
		{"inline", "[JSON]: {\"answer_score\": 1}", 1, true},
		{"inline no space", "{\"answer_score\":1}", 1, true},
		{"inline padded", "{ \"answer_score\": 1 }", 0, false},
		{"inline float", "{\"answer_score\": 1.0}", 0, false},
		{"inline first match wins", "format {\"answer_score\": 0} then {\"answer_score\": 1}", 0, true},
		{"inline skips non-match", "{\"answer_score\": x} then {\"answer_score\": 1}", 1, true},
		{"inline leading zeros", "{\"answer_score\": 007}", 1, true},
		{"inline zeros", "{\"answer_score\": 000}", 0, true},
		{"inline double-struck zero", "{\"answer_score\": \U0001D7D8}", 0, true},
		{"inline double-struck one", "{\"answer_score\": \U0001D7D9}", 1, true},
		{"inline file separator space", "{\"answer_score\":\x1c1}", 1, true},
		{"inline too many digits", "{\"answer_score\": 1" + strings.Repeat("0", 4300) + "}", 0, false},
		{"inline 4300 digits", "{\"answer_score\": 1" + strings.Repeat("0", 4299) + "}", 1, true},
		{"inline no digits", "{\"answer_score\":}", 0, false},
		{"inline no digits then a score", "{\"answer_score\": } then {\"answer_score\": 1}", 1, true},
		{"prose", "The answer is correct. Score: 1", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, reason := ParseReply(tt.raw)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseReply(%.80q) = %v, %v (%s), want %v, %v", tt.raw, got, ok, reason, tt.want, tt.ok)
			}
			if ok == (reason != "") {
				t.Errorf("ParseReply(%.80q): ok %v with reason %q", tt.raw, ok, reason)
			}
		})
	}
}

// TestParseReplyReason: a reply that gives no score says why, each way it can fail.
func TestParseReplyReason(t *testing.T) {
	for _, tt := range []struct{ raw, reason string }{
		{"```json\n{\"score\": 1}\n```", `no "answer_score" in the json block`},
		{"```json\n{\"answer_score\": null}\n```", `"answer_score" is not a number or boolean, so it cannot be compared with 0`},
		{"```json\n{\"answer_score\": [1]}\n```", `"answer_score" is not a number or boolean, so it cannot be compared with 0`},
		{"```json\n[1]\n```", "the json block is not a JSON object"},
		{"```json\n{\"answer_score\": 1,}\n```", "invalid JSON in the json block: illegal trailing comma at byte 19"},
		{"{\"answer_score\": 1" + strings.Repeat("0", 4300) + "}", "answer_score has 4301 digits, more than Python's int() accepts"},
		{"Score: 1", `no {"answer_score": N} in the reply`},
	} {
		if score, ok, reason := ParseReply(tt.raw); score != 0 || ok || reason != tt.reason {
			t.Errorf("ParseReply(%.60q) = %v, %v, %q; want 0, false, %q", tt.raw, score, ok, reason, tt.reason)
		}
	}
}

// oracle reads a fenced reply with encoding/json where Go's grammar and Python's agree (Go
// accepts a subset: no NaN/Infinity); decided is false where it cannot tell.
func oracle(reply string) (score float64, ok, decided bool) {
	_, after, found := strings.Cut(reply, "```json")
	if !found {
		return 0, false, false
	}
	part, _, _ := strings.Cut(after, "```")
	part = strings.TrimFunc(part, textnorm.IsSpace)
	if !utf8.ValidString(part) || !json.Valid([]byte(part)) || strings.Contains(part, `\u`) {
		return 0, false, false
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(part)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return 0, false, false
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		return 0, false, true
	}
	switch s := obj["answer_score"].(type) {
	case bool:
		if s {
			return 1, true, true
		}
		return 0, true, true
	case json.Number:
		positive := false
		if strings.ContainsAny(string(s), ".eE") {
			f, _ := new(big.Float).SetString(string(s))
			if f == nil {
				return 0, false, false
			}
			x, _ := f.Float64()
			positive = x > 0
		} else {
			if len(strings.TrimLeft(string(s), "-")) > maxIntDigits {
				return 0, false, true // json.loads raises
			}
			i, _ := new(big.Int).SetString(string(s), 10)
			positive = i.Sign() > 0
		}
		if positive {
			return 1, true, true
		}
		return 0, true, true
	}
	return 0, false, true // missing, or a value Python cannot compare with 0
}

func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		"```json\n{\"answer_score\": 1}\n```", "{\"answer_score\": 1}", "```json\n{\"answer_score\": 1e5, \"a\": [1, {\"b\": null}]}\n```",
		"```json\n{\"answer_score\": -0.0}\n```", "x {\"answer_score\":\u00a0\u0663}", "```json\n{\"answer_score\": \"1\"}",
		"```json\n{\"answer_score\": NaN}\n```", "```json\n[1, 2]\n```", `{"score": NaN}`, "\"NaN\\\"",
		"{\"answer_score\":\u0661}", "{\"answer_score\": \U0001D7D8}",
	} {
		f.Add(s)
	}
	// Every golden reply of case2_edge, and random replies that upstream scored.
	for _, c := range readGolden(f) {
		f.Add(c.Raw)
	}
	replies, _ := vectors.Read[struct{ Reply string }](f, "testdata/random_replies.jsonl", "")
	for _, r := range vectors.Spread(replies, 150) {
		f.Add(r.Reply)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, ok, reason := ParseReply(raw)
		if got != 0 && got != 1 || ok == (reason != "") || !ok && got != 0 {
			t.Fatalf("ParseReply(%q) = %v, %v, %q", raw, got, ok, reason)
		}
		if again, _, _ := ParseReply(raw); again != got {
			t.Fatalf("ParseReply(%q) is not deterministic", raw)
		}
		if want, wantOK, decided := oracle(raw); decided && (got != want || ok != wantOK) {
			t.Errorf("ParseReply(%q) = %v, %v, want %v, %v (encoding/json oracle)", raw, got, ok, want, wantOK)
		}
		if !strings.Contains(raw, "```json") && !strings.Contains(raw, `{"answer_score":`) && ok {
			t.Errorf("ParseReply(%q) read a score without a fence or the pattern", raw)
		}
	})
}

func ExampleParseReply() {
	score, ok, _ := ParseReply("[Grade]: 1 point\n[JSON]: ```json\n{\"answer_score\": 1}\n```")
	fmt.Println(score, ok)
	score, ok, reason := ParseReply(`[JSON]: { "answer_score": 1 }`)
	fmt.Println(score, ok, reason)
	// Output:
	// 1 true
	// 0 false no {"answer_score": N} in the reply
}
